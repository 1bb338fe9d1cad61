"""A system-level Pearson decided by one system (issue 47): the note names the system and r with and without it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import mtsig


def _files(tmp_path, human: dict, metrics: dict) -> tuple[str, dict]:
    hp = tmp_path / "human.sys.score"
    hp.write_text("".join(f"{s}\t{v!r}\n" for s, v in human.items()))
    out = {}
    for name, scores in metrics.items():
        p = tmp_path / f"{name}.sys.score"
        p.write_text("".join(f"{s}\t{v!r}\n" for s, v in scores.items()))
        out[name] = str(p)
    return str(hp), out


def test_one_outlier_system_is_named(tmp_path):
    rng = np.random.default_rng(4)
    names = [f"sys{i}" for i in range(10)]
    human = {s: float(rng.normal(0, 0.05)) for s in names[:9]} | {"broken": -2.0}
    outlier = {s: float(rng.normal(80, 0.5)) for s in names[:9]} | {"broken": 40.0}  # unrelated but for one system
    honest = {s: 80 + 10 * v + float(rng.normal(0, 0.2)) for s, v in human.items()}
    hp, metrics = _files(tmp_path, human, {"driven": outlier, "honest": honest})
    res = mtsig.meta(hp, metrics, n_resamples=200)
    r = res.metric("driven").values["pearson"]
    assert r > 0.95
    x, h = np.array([outlier[s] for s in names[:9]]), np.array([human[s] for s in names[:9]])
    without = float(np.corrcoef(h, x)[0, 1])
    note = next(n for n in res.notes if n.startswith("system broken drives"))
    assert f"driven {r:.3f} with it, {without:.3f} without" in note and "honest" not in note


def test_no_note_without_an_outlier(tmp_path):
    rng = np.random.default_rng(5)
    human = {f"sys{i}": float(v) for i, v in enumerate(rng.normal(0, 1, 12))}
    noisy = {s: v + float(rng.normal(0, 1.5)) for s, v in human.items()}  # r about 0.5: LOO moves it, no outlier
    hp, metrics = _files(tmp_path, human, {"noisy": noisy, "good": {s: 2 * v for s, v in human.items()}})
    res = mtsig.meta(hp, metrics, n_resamples=200)
    h, x = np.array(list(human.values())), np.array(list(noisy.values()))
    r = np.corrcoef(h, x)[0, 1]
    loo = max(abs(r - np.corrcoef(np.delete(h, k), np.delete(x, k))[0, 1]) for k in range(h.size))
    assert loo >= 0.1  # leaving a system out moves r this much: only Cook's distance tells noise from an outlier
    assert not any("drives the system-level Pearson" in n for n in res.notes)


def test_negative_tau23_beside_positive_tau_b_is_explained(tmp_path):
    """Issue 47: a coarse metric (mostly ties) has tau-b > 0 and tau-23 < 0; the output says why."""
    rng = np.random.default_rng(1)
    S, N = 5, 200
    H = np.round(rng.normal(0, 1, (S, N)), 3)
    metrics = {"fine": H + rng.normal(0, 1, (S, N)), "coarse": np.where(H + rng.normal(0, 0.5, (S, N)) > 1, 1.0, 0.0)}
    hp = tmp_path / "h.tsv"
    hp.write_text("system\tsegment\tscore\n" + "".join(f"s{k}\t{i + 1}\t{float(H[k, i])!r}\n" for k in range(S)
                                                       for i in range(N)))  # fmt: skip
    files = {}
    for name, M in metrics.items():
        files[name] = str(tmp_path / f"{name}.seg")
        Path(files[name]).write_text("".join(f"s{k}\t{float(M[k, i])!r}\n" for k in range(S) for i in range(N)))
    res = mtsig.meta(
        str(hp), files, level="segment", statistic="pearson", average_by="none", n_resamples=100, n_bootstrap=50
    )
    coarse = res.metric("coarse").values
    assert coarse["tau23"] < 0 < coarse["kendall"]
    assert res.metric("fine").values["tau23"] > 0
    note = next(n for n in res.notes if "tau-23 is negative" in n)
    assert note.startswith("coarse:") and "fine" not in note
