"""The one serializer (mtsig.serialize): its rules, and that every result's ``to_dict`` is it."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from typing import Any

import pytest

import mtsig
from mtsig.results import Comparison, TestResult
from mtsig.serialize import as_dict, jfield, out, plain
from mtsig.stats.intervals import Interval


@dataclasses.dataclass(frozen=True)
class _Inner:
    x: int
    hidden: int = jfield(0, skip=True)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Outer:
    name: str = jfield(key="title")
    inner: _Inner
    pairs: tuple[tuple[int, int], ...] = ()
    ci: Interval | None = None
    maybe: int | None = jfield(None, omit="none")
    listed: tuple[int, ...] = jfield((), omit="empty")
    doubled: int = jfield(1, convert=lambda v, o: 2 * v)
    when_named: str = jfield("", omit=lambda v, o: o.name != "keep")
    extra: dict[str, Any] = jfield(default_factory=dict, flatten=True)

    to_dict = as_dict


def test_rules_in_field_order():
    o = _Outer(name="keep", inner=_Inner(3, hidden=9), pairs=((1, 2),), ci=Interval(0.1, 0.2, "percentile", 0.95),
               doubled=4, when_named="here", extra={"own": 1})  # fmt: skip
    assert list(o.to_dict().items()) == [
        ("title", "keep"), ("inner", {"x": 3}), ("pairs", [[1, 2]]), ("ci", [0.1, 0.2]), ("doubled", 8),
        ("when_named", "here"), ("own", 1)]  # fmt: skip
    p = _Outer(name="other", inner=_Inner(1), maybe=0, listed=(5,))
    d = p.to_dict()
    assert d["maybe"] == 0 and d["listed"] == [5]  # 0 is not None; a non-empty tuple is written
    assert "when_named" not in d and "own" not in d  # the callable said no; nothing to flatten


def test_flatten_never_overwrites():
    o = _Outer(name="n", inner=_Inner(1), extra={"title": "intruder", "doubled": 0, "mine": 2})
    d = o.to_dict()
    assert d["title"] == "n" and d["doubled"] == 2 and d["mine"] == 2
    assert d["extra"] == {"title": "intruder", "doubled": 0}


def test_a_tests_extra_cannot_replace_its_p_value():
    r = TestResult(metric="bleu", a="A", b="B", score_a=1.0, score_b=2.0, delta=1.0, test="ar", p_value=0.01,
                   extra={"p_value": 0.9, "eps_min": 0.3})  # fmt: skip
    d = Comparison(r, 0.02, True).to_dict()
    assert d["p_value"] == 0.01 and d["eps_min"] == 0.3 and d["extra"] == {"p_value": 0.9}
    assert (d["p_adjusted"], d["significant"], d["human_agreement"]) == (0.02, True, None)
    assert "null_distribution" not in d and "statistic" not in d  # skipped; omitted when None
    assert list(d)[:8] == ["metric", "a", "b", "score_a", "score_b", "delta", "delta_ci", "test"]
    json.dumps(d)


def test_plain_copies_and_converts():
    src = {"a": (1, (2, 3)), "b": [{"c": (4,)}]}
    got = plain(src)
    assert got == {"a": [1, [2, 3]], "b": [{"c": [4]}]}
    got["b"][0]["c"].append(5)
    assert src["b"][0]["c"] == (4,)  # a copy: the result is not changed through it
    assert plain(_Inner) is _Inner  # a class is not an instance


def test_unknown_omit_rule_is_refused():
    with pytest.raises(ValueError, match="omit must be one of"):
        out(omit="falsy")


def _result_classes():
    for info in pkgutil.walk_packages(mtsig.__path__, "mtsig."):
        if info.name.startswith(("mtsig.serve", "mtsig.report.serve")) or info.name.endswith("__main__"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is absent here
            continue
        for obj in vars(mod).values():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == info.name:
                if "to_dict" in vars(obj):
                    yield obj


def test_every_results_to_dict_is_the_one_serializer():
    classes = list(_result_classes())
    assert len(classes) >= 20  # score, compare, analyze, human, meta, studies, ASO ...
    hand_written = [c.__qualname__ for c in classes if vars(c)["to_dict"] is not as_dict]
    assert hand_written == []
