"""At 80 columns, ordinary results stay tables (issue 41): a score table with intervals puts each interval under
its value; compare's pairs drop what every row repeats (the test) and the per-pair scores (shown once), and
shorten long system names to fit. Every number a reader needs stays; no line is wider than the terminal."""

from __future__ import annotations

from pathlib import Path

import mtsig
from mtsig.report.render import render

EX = Path(__file__).resolve().parents[2] / "examples"
REFS = [str(EX / "ref.A.en")]


def _systems() -> dict[str, list[str]]:
    base = (EX / "base.en").read_text(encoding="utf-8").splitlines()
    new = (EX / "new.en").read_text(encoding="utf-8").splitlines()
    mixed = [b if i % 2 else n for i, (b, n) in enumerate(zip(base, new))]
    other = [n if i % 3 else b for i, (b, n) in enumerate(zip(base, new))]
    return {"JDExploreAcademy": base, "new": new, "Online-B-mixed": mixed, "PROMT": other}


def _cells(line: str) -> int:
    return len(line)


def test_score_with_intervals_is_a_table_at_80_columns():
    s = _systems()
    res = mtsig.score(REFS, {k: s[k] for k in list(s)[:3]}, ["bleu", "chrf", "ter"], ci=True, n_bootstrap=200)
    text = render(res, "text", 80)
    assert "•" not in text and "┃" in text
    assert all(_cells(x) <= 80 for x in text.splitlines())
    first = res.systems[0].scores["bleu"]
    assert f"{first.score:.2f}" in text and f"[{first.ci.low:.2f}, {first.ci.high:.2f}]" in text


def test_compare_of_four_systems_is_a_table_at_80_columns():
    res = mtsig.compare(REFS, _systems(), n_resamples=300)
    text = render(res, "text", 80)
    assert "•" not in text and "approx. randomization" in text.split("┃")[0]  # the test said once, above
    assert all(_cells(x) <= 80 for x in text.splitlines()), [x for x in text.splitlines() if len(x) > 80]
    assert "JDExploreAcademy" in text and "…" not in text  # no name cut
    for c in res.comparisons:
        assert f"{c.p_adjusted:.4f}" in text
    assert "┃" in text.split("clusters")[0]  # a table, not records
    wide = render(res, "text", None)
    assert "approx. randomization" in wide.splitlines()[3]  # the wide table keeps every column
