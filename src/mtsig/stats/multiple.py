"""The multiplicity problem (Riezler & Maxwell 2005, section 4.4) and significance clusters.

With k comparisons each run at level alpha_c, the chance of at least one false rejection (the
experimentwise error) is p_e = 1 - (1 - alpha_c)^k. Adjusted p-values control it:

- ``holm`` (default): step-down Bonferroni, controls the family-wise error, never worse than Bonferroni;
- ``bonferroni``: min(1, k p);
- ``sidak``: 1 - (1 - p)^k;
- ``bh``: Benjamini-Hochberg step-up, controls the false discovery rate (not the family-wise error);
- ``none``: no adjustment.
"""

from __future__ import annotations

import numpy as np

from mtsig.errors import unknown_name

CORRECTIONS = ("holm", "bonferroni", "sidak", "bh", "none")


def experimentwise_error(alpha: float, k: int) -> float:
    """p_e = 1 - (1 - alpha)^k."""
    return 1.0 - (1.0 - alpha) ** k


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjusted p-values (same order as the input)."""
    if method not in CORRECTIONS:
        raise unknown_name("correction", method, CORRECTIONS)
    p = np.asarray(pvalues, dtype=np.float64)
    k = p.size
    if k == 0 or method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * k)
    if method == "sidak":
        return 1.0 - (1.0 - p) ** k
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (k - np.arange(k)) * ps))
    else:  # bh
        adj = np.minimum.accumulate(k / np.arange(k, 0, -1) * ps[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    out = np.empty(k)
    out[order] = adj
    return out


def clusters(scores: dict[str, float], significant: dict[frozenset, bool], higher_is_better: bool) -> list[list[str]]:
    """Group systems, best first, into clusters that are not separable by significant differences.

    Systems are ordered by score; a boundary is drawn between two neighbours only when every system
    above it is significantly different from every system below it. Systems in one cluster share a
    rank, as in WMT rankings. Needs all pairs to have been tested.
    """
    order = sorted(scores, key=lambda s: scores[s], reverse=higher_is_better)
    out: list[list[str]] = []
    current: list[str] = []
    for i, name in enumerate(order):
        current.append(name)
        if i == len(order) - 1:
            break
        above, below = order[: i + 1], order[i + 1 :]
        if all(significant.get(frozenset((x, y)), False) for x in above for y in below):
            out.append(current)
            current = []
    out.append(current)
    return out
