"""The replay of Pearmut's dynamic assignment gives Pearmut 1.1.6's own screens on the same seeds (recorded from its
``get_next_item_dynamic`` by ``benchmarks/pearmut_replay_oracle.py`` in ``data/pearmut_replay.json``), and every
policy annotates every cell (successive rejects: of the models it keeps), each screen at least one new one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mtsig.humaneval.policy import POLICIES, CampaignState, Matrix, PearmutDynamic, replay

ORACLE = json.loads((Path(__file__).parent / "data" / "pearmut_replay.json").read_text(encoding="utf-8"))
M = ORACLE["matrix"]


def _matrix() -> Matrix:
    return Matrix(tuple(M["systems"]), tuple(M["docs"]), [np.array(s, dtype=float) for s in M["scores"]])


@pytest.mark.parametrize("run", ORACLE["runs"], ids=lambda r: f"seed{r['seed']}")
def test_replay_equals_pearmut_screen_by_screen(run):
    mat = _matrix()
    pol = PearmutDynamic([M["systems"].index(s) for s in run["order"]], range(len(M["docs"])), seed=run["seed"])
    state = CampaignState(K=len(M["systems"]), D=len(M["docs"]))
    got = []
    while len(got) < len(run["screens"]):
        nxt = pol.next_screen(state)
        if nxt is None:
            assert not state.done.all()
            continue
        pos, models = nxt
        state.show(mat, pos, models)
        got.append([pos, [M["systems"][k] for k in models]])
    assert got == run["screens"] and len(got) == 240


@pytest.mark.parametrize("name", list(POLICIES))
def test_every_policy_annotates_each_cell_once_and_is_seeded(name):
    mat = _matrix()
    K, D = len(mat.systems), len(mat.docs)

    policies = []

    def run(seed):
        order = np.random.default_rng(seed).permutation(D)
        policies.append(POLICIES[name](range(K), order, seed=seed))
        return replay(mat, policies[-1])

    screens = run(3)
    state = np.zeros((D, K), dtype=bool)
    for d, ms in screens:  # every screen annotates at least one new cell, and the campaign ends with all of them
        width = len(ms) if name == "successive-rejects" else 3  # its last models may be fewer than 3
        assert not state[d, list(ms)].all() and len(set(ms)) == len(ms) == width
        state[d, list(ms)] = True
    kept = getattr(policies[0], "active", range(K))  # successive rejects: the models it kept
    assert state[:, list(kept)].all() and len(screens) <= K * D
    if name == "successive-rejects":
        assert len(kept) < K and not state.all()
    assert run(3) == screens and run(4) != screens
