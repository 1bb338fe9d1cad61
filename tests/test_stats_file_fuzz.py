"""Crafted statistics files whose checksum was recomputed after the edit (issue 28): the checksum guards against
damage, not against a crafted file, so every edit below must end in a result or a one-line error, both at load
time and when the file is then scored and compared from the command line (never a traceback or another exit
code). 400 files, each with one to three random edits of the meta data or the arrays, from a fixed seed."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest

from mtsig.cli import main
from mtsig.errors import InputError
from mtsig.table import StatsTable, _checksum

EX = Path(__file__).resolve().parents[1] / "examples"
ODD_VALUES = [-1.0, 0.5, 1e9, float("nan"), float("inf"), -0.0, 3.0, 1e300, 2.0**53 + 1]


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> tuple[dict, dict[str, np.ndarray]]:
    path = tmp_path_factory.mktemp("stats") / "good.npz"
    args = ["stats", "-r", str(EX / "ref.A.en"), str(EX / "ref.B.en"), "-s", f"base={EX / 'base.en'}",
            f"new={EX / 'new.en'}", "-m", "bleu", "chrf", "ter", "length", "-o", str(path)]  # fmt: skip
    assert main(args) == 0
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        arrays = {k: z[k] for k in z.files if k != "meta"}
    return meta, arrays


def _edit_array(rng: random.Random, arrays: dict[str, np.ndarray]) -> None:
    name = rng.choice(sorted(arrays))
    a = arrays[name]
    kind = rng.randrange(7)
    if kind == 0 and a.size and a.dtype.kind in "iufb":
        b = a.astype(np.float64).copy()
        b.flat[rng.randrange(b.size)] = rng.choice(ODD_VALUES)
        arrays[name] = b
    elif kind == 1:
        arrays[name] = a.astype(rng.choice([np.int8, np.float32, np.bool_, np.complex64, np.uint64]))
    elif kind == 2:
        arrays[name] = a[:, : max(0, a.shape[1] - rng.randint(1, 3))] if a.ndim == 3 else a
    elif kind == 3:
        arrays[name] = a.reshape(-1) if rng.random() < 0.5 else a[None]
    elif kind == 4:
        del arrays[name]
    elif kind == 5:
        arrays[f"bleu::{rng.randint(2, 9)}"] = a
    else:
        arrays[name] = np.array(["x"] * max(1, a.size)).reshape(-1)


def _edit_meta(rng: random.Random, meta: dict) -> None:  # noqa: C901 - one branch per kind of edit
    kind = rng.randrange(12)
    systems, metrics = meta.get("systems"), meta.get("metrics")
    if not (isinstance(systems, list) and len(systems) >= 2 and isinstance(metrics, list) and metrics):
        meta["format_version"] = rng.choice([1, 3, "2"])  # what is left to edit
        return
    if kind == 0:
        systems[1]["name"] = systems[0]["name"]
    elif kind == 1:
        rng.choice(systems)["n_runs"] = rng.choice([0, -1, 2, "x", 1.5, None])
    elif kind == 2:
        meta["n_segments"] = rng.choice([0, -5, 41, "abc", 1e3, None, 10**12])
    elif kind == 3:
        m = rng.choice(metrics)
        m["options"] = {**m["options"], rng.choice(["bleu_order", "tokenize", "smooth", "chrf_beta", "nope"]):
                        rng.choice([2, 0, -3, "nonexistent", None, "nan", 10**9])}  # fmt: skip
    elif kind == 4:
        rng.choice(metrics)["metric"] = rng.choice(["bleuu", "", "meteor", 3])
    elif kind == 5:
        m = rng.choice(metrics)
        m["stat_names"] = list(reversed(m["stat_names"]))
    elif kind == 6:
        meta["keys"] = rng.choice([[["d", "1"]], "abc", [[1, 2, 3]] * 40, None])
    elif kind == 7:
        meta["units"] = rng.choice([{"document": ["a"]}, {"document": "abc"}, ["x"], {"domain": [1] * 40}])
    elif kind == 8:
        meta["dev_scores"] = rng.choice([{"bleu": {"base": "x"}}, [1, 2], {"bleu": 3}, {"bleu": {"base": [1.0]}}])
    elif kind == 9:
        meta["systems"] = rng.choice([[], systems[:1], systems + [copy.deepcopy(systems[0])], "abc"])
    elif kind == 10:
        meta["metrics"] = rng.choice([[], metrics[:1], metrics + [copy.deepcopy(metrics[0])], {"a": 1}])
    else:
        rng.choice(systems)["files"] = rng.choice([None, 3, [None], "x"])


def test_crafted_checksummed_statistics_files_end_in_a_result_or_an_error(good, tmp_path, capsys):
    meta0, arrays0 = good
    rng = random.Random(2028)
    outcomes = {"loaded": 0, "refused": 0}
    for case in range(400):
        meta, arrays = copy.deepcopy(meta0), {k: v.copy() for k, v in arrays0.items()}
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5 and arrays:
                _edit_array(rng, arrays)
            else:
                _edit_meta(rng, meta)
        meta.pop("checksum", None)
        meta["checksum"] = _checksum(meta, arrays)
        path = tmp_path / f"case{case}.npz"
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
        try:
            StatsTable.load(str(path))
            outcomes["loaded"] += 1
        except InputError as exc:
            assert "\n" not in str(exc), str(exc)
            outcomes["refused"] += 1
        for cmd in (["score", "--stats", str(path), "-f", "json"], ["compare", "--stats", str(path), "-f", "json"]):
            rc = main(cmd)
            err = capsys.readouterr().err
            assert rc in (0, 2), (case, cmd, rc, err[-2000:])
            assert "Traceback" not in err, (case, err[-2000:])
    # the edits reach both ends: some files are still valid (e.g. an edit undone by another), most are refused
    assert outcomes["refused"] > 300 and outcomes["loaded"] + outcomes["refused"] == 400
