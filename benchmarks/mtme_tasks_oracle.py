"""``mtsig meta --mtme DIR --task wmt23|wmt24`` against mt-metrics-eval's own ``tasks.py``: every task statistic,
every rank, the average correlation and the average rank; with ``--k`` the clusters too; and the time of both.

    python benchmarks/mtme_tasks_oracle.py --mtme-src MTME_REPO --data DIR/mt-metrics-eval-v2 \
        [--task wmt23] [--lps en-de] [--k 0] [--json OUT]

mt-metrics-eval (google-research/mt-metrics-eval) is imported from ``MTME_REPO`` with a stub ``apache_beam``
module (its only use is the optional parallel path) and needs ``dacite``; it reads its data from
``~/.mt-metrics-eval/mt-metrics-eval-v2``, so ``--data`` is linked there when that folder does not exist. ``wmt24``
on a WMT23 folder is mt-metrics-eval's ``WMT24OnWMT23`` (the WMT24 task set: soft pairwise accuracy and acc-eq).
mt-metrics-eval orders the systems of a task as a Python set iterates their names, which follows PYTHONHASHSEED;
soft pairwise accuracy (pce) sums scores in float32 and counts ties of those sums, so its value changes with the
order (measured on WMT23 en-de: GEMBA-MQM's pce is 0.98202, 0.98194 or 0.98206 under hash seeds 1, 2, 3). mtsig
orders systems by name; this script runs mt-metrics-eval with the systems in name order too (``--set-order``
leaves its own order). ``--json OUT`` writes the oracle's numbers in mtsig's JSON shape (what
``tests/meta/test_mtme_tasks.py`` holds mtsig to). With ``--k`` > 0 the p-values are Monte-Carlo: mt-metrics-eval
stops a pair early (blocks of 100 draws, below 0.02 or above 0.5) and its draws are unseeded, so clusters are
compared, and p-values within their error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def load_mtme(src: Path, sorted_systems: bool = True):
    beam = types.ModuleType("apache_beam")
    sys.modules.setdefault("apache_beam", beam)
    sys.path.insert(0, str(src))
    from mt_metrics_eval import data, stats, tasks  # noqa: PLC0415

    if sorted_systems:
        original = data.EvalSet.Correlation

        def in_name_order(self, gold_scores, metric_scores, sys_names=None, indexes=None):
            """mt-metrics-eval's Correlation with the systems in name order (it iterates a set, whose order
            follows PYTHONHASHSEED; soft pairwise accuracy's float32 sums, and so its ties, follow that order)."""
            original(self, gold_scores, metric_scores, sys_names, indexes)  # its checks
            names = sorted(set(gold_scores if sys_names is None else sys_names))
            gold, metric = [], []
            for n in names:
                g, m = gold_scores[n], metric_scores[n]
                if indexes is not None:
                    g, m = list(np.asarray(g)[indexes]), list(np.asarray(m)[indexes])
                gold.extend(g)
                metric.extend(m)
            return stats.Correlation(len(names), gold, metric)

        data.EvalSet.Correlation = in_name_order
    return tasks


def link_data(data: Path, test_set: str) -> None:
    """mt-metrics-eval reads ``~/.mt-metrics-eval/mt-metrics-eval-v2``: link ``data`` there, and refuse to run on
    another folder already there (run with another ``HOME`` then)."""
    home = Path.home() / ".mt-metrics-eval" / "mt-metrics-eval-v2"
    if not home.exists():
        home.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(data.resolve(), home)
    if (home / test_set).resolve() != (data / test_set).resolve():
        sys.exit(f"{home / test_set} is {(home / test_set).resolve()}, not {data / test_set}: mt-metrics-eval would "
                 "read that; run with HOME=<an empty folder>")  # fmt: skip


def oracle(tasks_mod, task: str, test_set: str, lps: list[str], k: int, only: list[str] | None = None) -> dict:
    if task == "wmt23":
        ts, weights = tasks_mod.WMT23(lps, k=k)
    elif task == "wmt24" and test_set == "wmt23":
        ts, weights = tasks_mod.WMT24OnWMT23(lps, k=k)
    elif task == "wmt24":
        ts, weights = tasks_mod.WMT24(lps, k=k)
    else:
        ts, weights = tasks_mod.WMT25(lps, k=k)
    evs_dict = None
    if only is not None:  # keep those metrics only (by display name)
        from mt_metrics_eval import data  # noqa: PLC0415

        evs_dict = {}
        for lp in sorted({x for t in ts for x in t.lang.split(",")}):
            evs = data.EvalSet(test_set, lp, True)
            drop = {m for m in evs.metric_names if evs.DisplayName(m) not in only}
            evs._metric_names -= drop
            evs_dict[(test_set, lp)] = evs
    res = ts.Run(evs_dict)
    out = {"tasks": [], "weights": weights}
    for r in res:
        av = r.attr_vals
        out["tasks"].append({"lp": av["lang"], "level": av["level"], "statistic": av["corr_fcn"],
                             "metrics": {m: float(r.Corr(m)) for m in r.metrics},
                             "ranks": {m: int(r.Rank(m)) for m in r.metrics}})  # fmt: skip
    out["average"] = {m: float(v) for m, v in res.AverageCorrs(weights).items()}
    out["average_ranks"] = {m: float(v) for m, v in res.AverageRanks(weights).items()}
    if k:
        corr_ranks, _ = res.AverageCorrMatrix(weights)
        clusters: dict[int, list[str]] = {}
        for m, (_, rank) in corr_ranks.items():
            clusters.setdefault(rank, []).append(m)
        out["clusters"] = [clusters[r] for r in sorted(clusters)]
    return out


def spread(a: argparse.Namespace, got: dict) -> None:
    """mt-metrics-eval's values under PYTHONHASHSEED 1..N (its own set order of the systems)."""
    import subprocess

    runs = []
    for seed in range(1, a.hash_seeds + 1):
        cmd = [sys.executable, __file__, "--mtme-src", str(a.mtme_src), "--data", str(a.data), "--task", a.task,
               "--test-set", a.test_set, "--lps", *a.lps, "--set-order", "--dump"]  # fmt: skip
        out = subprocess.run(cmd, env={**os.environ, "PYTHONHASHSEED": str(seed)}, capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
        runs.append(json.loads(out.strip().splitlines()[-1]))
    for t, task in enumerate(got["tasks"]):
        widest, outside = 0.0, []
        for m, v in task["metrics"].items():
            vals = [r["tasks"][t]["metrics"][m] for r in runs]
            widest = max(widest, max(vals) - min(vals))
            if not min(vals) - 1e-12 <= v <= max(vals) + 1e-12:
                outside.append(m)
        print(
            f"{task['lp']:>16} {task['level']:>4} {task['statistic']:<20} mt-metrics-eval over {len(runs)} hash "
            f"seeds: widest spread of a metric {widest:.2e}; mtsig outside that range: {outside or 'none'}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mtme-src", required=True, type=Path, help="a checkout of google-research/mt-metrics-eval")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "mtme-wmt23-ende",
                    help="the folder holding wmt23/ (mt-metrics-eval-v2)")  # fmt: skip
    ap.add_argument("--task", default="wmt23", choices=("wmt23", "wmt24", "wmt25"))
    ap.add_argument("--test-set", default="wmt23")
    ap.add_argument("--lps", nargs="+", default=["en-de"])
    ap.add_argument("--k", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--set-order",
        action="store_true",
        help="leave mt-metrics-eval's systems in its set order (PYTHONHASHSEED's): pce then varies by run",
    )
    ap.add_argument("--hash-seeds", type=int, default=0, metavar="N",
                    help="also run mt-metrics-eval in its own set order under PYTHONHASHSEED 1..N: the spread of its "
                    "values, and whether mtsig's lie within it")  # fmt: skip
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="keep every N-th metric (by name) only: a subset whose time is extrapolated to all pairs "
                    "when mt-metrics-eval would take hours")  # fmt: skip
    ap.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    link_data(a.data, a.test_set)
    tasks_mod = load_mtme(a.mtme_src, sorted_systems=not a.set_order)
    if a.dump:  # one run of the spread: mt-metrics-eval's numbers only
        print(json.dumps(oracle(tasks_mod, a.task, a.test_set, a.lps, 0)))
        return
    from mtsig.metaeval.tasks import run_task_set

    only = None
    if a.every > 1:
        names = sorted(run_task_set(a.data / a.test_set, a.task, a.lps, k=0).average)
        only = names[:: a.every]
        print(f"{len(only)} of {len(names)} metrics: {', '.join(only)}")
    t0 = time.perf_counter()
    want = oracle(tasks_mod, a.task, a.test_set, a.lps, a.k, only)
    t_mtme = time.perf_counter() - t0

    t0 = time.perf_counter()
    got = run_task_set(a.data / a.test_set, a.task, a.lps, k=a.k, only=only).to_dict()
    t_mtsig = time.perf_counter() - t0

    worst = 0.0
    for tw, tg in zip(want["tasks"], got["tasks"], strict=True):
        assert (tw["lp"], tw["level"], tw["statistic"]) == (tg["lp"], tg["level"], tg["statistic"]), (tw, tg)
        assert set(tw["metrics"]) == set(tg["metrics"]), set(tw["metrics"]) ^ set(tg["metrics"])
        for m, v in tw["metrics"].items():
            worst = max(worst, abs(v - tg["metrics"][m]))
        same_ranks = tw["ranks"] == tg["ranks"]
        print(f"{tw['lp']:>16} {tw['level']:>4} {tw['statistic']:<20} {len(tw['metrics']):>3} metrics, ranks "
              f"{'equal' if same_ranks else 'DIFFER'}")  # fmt: skip
    avg = max(abs(v - got["average"][m]) for m, v in want["average"].items())
    print(f"largest difference of a task statistic: {worst:.2e}; of the average correlation: {avg:.2e}")
    print(f"average ranks equal: {want['average_ranks'] == got['average_ranks']}")
    if a.k:
        print(f"clusters equal: {want['clusters'] == got['clusters']}")
        print("  mt-metrics-eval:", want["clusters"])
        print("  mtsig:          ", got["clusters"])
    print(f"time: mt-metrics-eval {t_mtme:.1f} s, mtsig {t_mtsig:.1f} s: {t_mtme / t_mtsig:.1f}x")
    if a.hash_seeds:
        spread(a, got)
    if a.json:
        a.json.write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
