"""mtsig's replay of Pearmut's dynamic assignment (:class:`mtsig.humaneval.policy.PearmutDynamic`) against
Pearmut 1.1.6's own ``get_next_item_dynamic``, screen by screen, on the same seeds; and the time of each.

    python benchmarks/pearmut_replay_oracle.py --pearmut PEARMUT_DIR [--json OUT]

``PEARMUT_DIR`` holds the ``pearmut`` package of the 1.1.6 wheel (``pip download --no-deps
--ignore-requires-python --python-version 3.12 --only-binary=:all: pearmut==1.1.6``, unzipped): Pearmut declares
Python >= 3.12, but ``assignment.py`` runs on 3.11. Its web layer is stubbed (``fastapi.responses.JSONResponse``
keeps the content it is given) and its log is kept in memory (``get_active_db_log`` returns the lines the driver
appended), so the campaign runs as its server would run it: one annotator after another asks for the next item and
submits every shown model's scores (``update_progress``), Python's ``random`` and NumPy's legacy generator seeded
once. The matrix is synthetic (seeded): 12 models, 60 documents of 1-4 segments, integer scores. ``--json OUT``
writes the matrix, the seeds, Pearmut's model order and its screens (what ``tests/humaneval/test_policy.py``
holds the replay to).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SEEDS = (0, 1, 2, 26)


def matrix(seed: int = 7, K: int = 12, D: int = 60) -> dict:
    rng = np.random.default_rng(seed)
    quality = rng.normal(70, 8, K)
    docs = []
    for _ in range(D):
        n = int(rng.integers(1, 5))
        hard = rng.normal(0, 8)
        docs.append(np.clip(np.round(quality[:, None] + hard + rng.normal(0, 12, (K, n))), 0, 100).tolist())
    return {"systems": [f"sys{k:02d}" for k in range(K)], "docs": [f"d{d:03d}" for d in range(D)], "scores": docs}


def load_pearmut(folder: Path):
    responses = types.ModuleType("fastapi.responses")

    class JSONResponse:  # what the server would send: only its content is read here
        def __init__(self, content=None, status_code=200, headers=None):
            self.content, self.status_code = content, status_code

    responses.JSONResponse = JSONResponse
    sys.modules.setdefault("fastapi", types.ModuleType("fastapi"))
    sys.modules["fastapi.responses"] = responses
    sys.path.insert(0, str(folder))
    import pearmut.assignment as assignment

    return assignment


def pearmut_screens(assignment, m: dict, seed: int, budget: int) -> tuple[list[str], list[tuple[int, list[str]]]]:
    systems, D = m["systems"], len(m["docs"])
    data = [[{"item_id": f"news_###_{m['docs'][d]}_###_{j}", "src": "s",
              "tgt": {s: "t" for s in systems}} for j in range(len(m["scores"][d][0]))] for d in range(D)]  # fmt: skip
    cid = "eng_Latn---ces_Latn v3"
    campaigns = {cid: {"info": {"assignment": "dynamic", "dynamic_models": 3, "dynamic_coldstart": 20,
                                "dynamic_coldstart_pool": 20}, "data": data}}  # fmt: skip
    users = [f"u{u}" for u in range(200)]
    progress = {cid: {u: {"progress": [{s: None for s in systems} for _ in range(D)], "progress_welcome": [],
                          "time": 0.0} for u in users}}  # fmt: skip
    log: list[dict] = []
    assignment.get_active_db_log = lambda campaign_id: log
    random.seed(seed)
    np.random.seed(seed)
    order = list(set(data[0][0]["tgt"].keys()))  # what Pearmut iterates (this process's string hashing)
    screens: list[tuple[int, list[str]]] = []
    u = 0
    while len(screens) < budget and u < len(users):
        res = assignment.get_next_item_dynamic(cid, users[u], campaigns, progress)
        if res is None:  # this annotator is sent away; the next one asks
            u += 1
            continue
        item_i = res.content["info"]["item_i"]
        shown = list(res.content["payload"][0]["tgt"])
        ann = [{s: {"score": m["scores"][item_i][systems.index(s)][j], "spans": []} for s in shown}
               for j in range(len(data[item_i]))]  # fmt: skip
        payload = {"annotation": ann, "item": data[item_i]}
        log.append(payload | {"user_id": users[u], "item_i": item_i})
        assignment.update_progress(cid, users[u], campaigns, progress, item_i, payload)
        screens.append((item_i, shown))
    return order, screens


def ours(m: dict, order: list[str], seed: int, budget: int) -> list[tuple[int, list[str]]]:
    from mtsig.humaneval.policy import CampaignState, Matrix, PearmutDynamic

    mat = Matrix(tuple(m["systems"]), tuple(m["docs"]), [np.array(s, dtype=float) for s in m["scores"]])
    idx = [m["systems"].index(s) for s in order]
    pol = PearmutDynamic(idx, range(len(m["docs"])), seed=seed)
    state = CampaignState(K=len(m["systems"]), D=len(m["docs"]))
    out: list[tuple[int, list[str]]] = []
    while len(out) < budget:
        nxt = pol.next_screen(state)
        if nxt is None:
            if state.done.all():
                break
            continue
        pos, models = nxt
        state.show(mat, pos, models)
        out.append((pos, [m["systems"][k] for k in models]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pearmut", required=True, type=Path, help="folder holding the pearmut 1.1.6 package")
    ap.add_argument("--budget", type=int, default=240, help="screens per seed (all 720 cells: 240)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    assignment = load_pearmut(a.pearmut)
    m = matrix()
    out = {"pearmut": "1.1.6", "matrix": m, "runs": []}
    same, total, t_p, t_m = 0, 0, 0.0, 0.0
    for seed in SEEDS:
        t0 = time.perf_counter()
        order, theirs = pearmut_screens(assignment, m, seed, a.budget)
        t1 = time.perf_counter()
        mine = ours(m, order, seed, a.budget)
        t2 = time.perf_counter()
        t_p, t_m = t_p + t1 - t0, t_m + t2 - t1
        total += len(theirs)
        same += sum(x == y for x, y in zip(theirs, mine)) if len(theirs) == len(mine) else 0
        out["runs"].append({"seed": seed, "order": order, "screens": theirs})
    print(f"Pearmut 1.1.6 dynamic assignment, {len(SEEDS)} seeds, {total} screens: {same} equal in the replay")
    print(f"  time: Pearmut {t_p:.2f} s, mtsig {t_m:.2f} s ({t_p / max(t_m, 1e-9):.1f}x)")
    if a.json:
        a.json.write_text(json.dumps(out) + "\n", encoding="utf-8")
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
