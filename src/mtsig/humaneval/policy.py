"""Assignment policies of adaptive human evaluation, replayed on a complete document x system matrix: which
models a campaign shows on which document, screen after screen, and what it learns.

- :class:`PearmutDynamic`: Pearmut 1.1.6's ``dynamic`` assignment (``get_next_item_dynamic``), as WMT26 configures
  it (3 models per screen, a cold start of 20 documents per model drawn from the first 20 documents). In the cold
  start, the models still short of their documents are sampled uniformly (topped up from a shuffle of all when
  fewer than 3 are short); after it, the unfinished models are ranked by their running mean over every segment
  score annotated so far (ties broken by a uniform draw), weighted 0.5 for the first two and 1/(rank + 1) below,
  and 3 are drawn without replacement with those weights. The document is the first, in the campaign's order,
  with the most of the chosen models not yet annotated (among the first 20 during the cold start); completion is
  shared across annotators. A screen shows all 3 chosen models, so a model already annotated on that document is
  annotated there again (the replay reads the same cell again). Its random draws are Python's ``random`` and NumPy's
  legacy generator in the order Pearmut makes them, so a replay seeded as Pearmut's process was gives Pearmut's
  screens (``benchmarks/pearmut_replay_oracle.py`` checks it against Pearmut's own code).
- :class:`Uniform`: 3 models uniformly at random, the same document rule (the non-adaptive baseline).
- :class:`TopTwo`: after a uniform cold start, the two models of highest running mean plus one uniformly drawn
  other (the pair that decides the top is sampled most);
- :class:`SuccessiveRejects`: evaluation-bandit's successive rejects (constant phases), in screens of 3: after each
  phase the model of lowest running mean is no longer shown.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np


@dataclass
class Matrix:
    """A complete matrix: ``scores[d]`` is a (systems x segments of document d) array, every cell annotated."""

    systems: tuple[str, ...]
    docs: tuple[str, ...]
    scores: list[np.ndarray]

    def doc_means(self) -> np.ndarray:
        """``(K, D)``: each system's mean segment score per document."""
        return np.stack([s.mean(axis=1) for s in self.scores], axis=1)


@dataclass
class CampaignState:
    """What a campaign knows after some screens: which cells are done, and each model's exact running sum."""

    K: int
    D: int
    done: np.ndarray = field(init=False)
    sums: list = field(init=False)
    counts: np.ndarray = field(init=False)

    def __post_init__(self):
        self.done = np.zeros((self.D, self.K), dtype=bool)
        self.sums = [Fraction(0)] * self.K
        self.counts = np.zeros(self.K, dtype=np.int64)

    def show(self, matrix: Matrix, position_doc: int, models: Sequence[int]) -> None:
        for k in models:
            self.done[position_doc, k] = True
            seg = matrix.scores[position_doc][k]
            self.sums[k] += sum((Fraction(float(v)) for v in seg), Fraction(0))
            self.counts[k] += seg.size

    def mean(self, k: int) -> float:
        """As ``statistics.mean`` gives it (exactly rounded); 0.0 before any score."""
        return float(self.sums[k] / int(self.counts[k])) if self.counts[k] else 0.0


class _Policy:
    """The shared document rule; ``choose`` picks the models."""

    def __init__(self, models: Sequence[int], order: Sequence[int], per_screen: int = 3, coldstart: int = 20,
                 pool: int | None = 20, seed: int = 0):  # fmt: skip
        #: model indices in the order the campaign lists them (Pearmut: ``list(set(...))`` of its first item)
        self.models = list(models)
        #: document indices in the campaign's order (position -> document)
        self.order = list(order)
        self.per_screen, self.coldstart, self.pool = per_screen, coldstart, pool
        self.py = random.Random(seed)
        self.np = np.random.RandomState(seed)

    def _shuffled(self, xs: Sequence[int]) -> list[int]:
        out = list(xs)
        self.py.shuffle(out)
        return out

    def _top_up(self, avail: list[int]) -> list[int]:
        if len(avail) < self.per_screen:
            avail += [m for m in self._shuffled(self.models) if m not in avail][: self.per_screen - len(avail)]
        return avail

    def in_coldstart(self, state: CampaignState) -> bool:
        return any(state.done[:, m].sum() < self.coldstart for m in self.models)

    def choose(self, state: CampaignState, coldstart: bool) -> list[int]:
        raise NotImplementedError

    def next_screen(self, state: CampaignState) -> tuple[int, list[int]] | None:
        """(position of the document in the campaign's order, models) or None when nothing is left for them."""
        if state.done.all():
            return None
        cold = self.in_coldstart(state)
        chosen = self.choose(state, cold)
        done = state.done[self.order]  # position order
        rows = done[: self.pool] if cold and self.pool is not None else done
        missing = (~rows[:, chosen]).sum(axis=1)
        if not missing.size or missing.max() == 0:
            return None
        return int(np.argmax(missing == missing.max())), chosen


class PearmutDynamic(_Policy):
    name = "pearmut"

    def choose(self, state: CampaignState, coldstart: bool) -> list[int]:
        counts = state.done.sum(axis=0)
        if coldstart:
            avail = self._top_up([m for m in self.models if counts[m] < self.coldstart])
            return self.py.sample(avail, k=min(self.per_screen, len(avail)))
        avg = {m: state.mean(m) for m in self.models}
        avail = self._top_up([m for m in self.models if counts[m] < state.D])
        ranked = sorted(avail, key=lambda m: (avg[m], self.py.random()), reverse=True)
        w = {m: 1 / (r + 1) if r > 0 else 0.5 for r, m in enumerate(ranked)}
        p = np.array([w[m] for m in avail], dtype=float)
        p /= p.sum()
        picked = self.np.choice(avail, size=min(self.per_screen, len(avail)), replace=False, p=p.tolist())
        return [int(m) for m in picked]


class Uniform(_Policy):
    name = "uniform"

    def choose(self, state: CampaignState, coldstart: bool) -> list[int]:
        counts = state.done.sum(axis=0)
        avail = self._top_up([m for m in self.models if counts[m] < state.D])
        return self.py.sample(avail, k=min(self.per_screen, len(avail)))


class TopTwo(_Policy):
    name = "top-two"

    def choose(self, state: CampaignState, coldstart: bool) -> list[int]:
        counts = state.done.sum(axis=0)
        avail = self._top_up([m for m in self.models if counts[m] < state.D])
        if coldstart:
            return self.py.sample(avail, k=min(self.per_screen, len(avail)))
        ranked = sorted(avail, key=lambda m: (state.mean(m), self.py.random()), reverse=True)
        rest = ranked[2:]
        return ranked[:2] + self.py.sample(rest, k=min(self.per_screen - 2, len(rest)))


class SuccessiveRejects(_Policy):
    """evaluation-bandit's successive rejects with constant phases (Audibert & Bubeck's schedule): K - 1 phases of
    round(2 B / (K^2 + K - 2)) documents each for every model still in (B: the matrix's cells), after each of which
    the model of lowest running mean is dropped; the last phase takes what is left. In screens: the 3 models still in
    with the fewest documents (ties in the campaign's model order), on the first document lacking most of them. The
    campaign ends when the models still in have every document."""

    name = "successive-rejects"

    def __init__(self, models, order, **kw):
        super().__init__(models, order, **kw)
        self.active = list(self.models)
        K, D = len(self.models), len(self.order)
        size = max(1, round(2 * K * D / (K * K + K - 2)))
        self.ends = [size * (i + 1) for i in range(K - 2)]  # documents per model at which a phase ends

    def in_coldstart(self, state: CampaignState) -> bool:
        return False

    def finished(self, state: CampaignState) -> bool:
        return bool(state.done[:, self.active].all())

    def choose(self, state: CampaignState, coldstart: bool) -> list[int]:
        counts = state.done.sum(axis=0)
        while self.ends and len(self.active) > 2 and min(counts[m] for m in self.active) >= self.ends[0]:
            self.ends.pop(0)
            worst = min(self.active, key=lambda m: (state.mean(m), self.active.index(m)))
            self.active.remove(worst)
        open_ = [m for m in self.active if counts[m] < state.D] or list(self.active)
        return sorted(open_, key=lambda m: (counts[m], self.active.index(m)))[: self.per_screen]


POLICIES = {"pearmut": PearmutDynamic, "uniform": Uniform, "top-two": TopTwo, "successive-rejects": SuccessiveRejects}


def replay(matrix: Matrix, policy: _Policy, budget: int | None = None, patience: int = 50) -> list[tuple[int, tuple]]:
    """Screens (document index, model indices) until every cell is annotated, ``budget`` screens were shown, or
    ``patience`` annotators in a row found nothing to do (Pearmut then sends an annotator away; the next one draws
    again)."""
    state = CampaignState(K=len(matrix.systems), D=len(matrix.docs))
    screens: list[tuple[int, tuple]] = []
    idle = 0
    while budget is None or len(screens) < budget:
        nxt = policy.next_screen(state)
        if nxt is None:
            if state.done.all() or getattr(policy, "finished", lambda s: False)(state):
                break
            idle += 1
            if idle >= patience:
                break
            continue
        idle = 0
        pos, models = nxt
        d = int(policy.order[pos])
        state.show(matrix, d, models)
        screens.append((d, tuple(models)))
    return screens
