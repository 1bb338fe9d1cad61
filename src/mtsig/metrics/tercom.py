"""TER's search exactly as tercom 0.7.25/0.8.0 (Snover et al. 2006) runs it, in plain Python.

This is the reference for the compiled ``mtsig._ter.tercom`` (``ter_tercom=True``) and its fallback when the
compiled part is missing. It differs from sacreBLEU's search (``mtsig._ter.edits``) in three places, each of
which changes the number of edits on some long segments:

- **edit distance**: tercom fills the table column by column (one column per hypothesis word) and skips a
  cell whose cost exceeds, by more than the beam width (20), the cheapest cell reached by a match or a
  substitution from the previous column; sacreBLEU keeps a fixed band around the diagonal (width 25). Where
  two moves reach a cell at the same cost, tercom keeps the first in the order match/substitution,
  insertion, deletion, visited by increasing reference position;
- **candidate shifts** are tried longest first; within a length, in order of hypothesis position,
  reference position and target; a candidate replaces the current best only if it gains more (or, while
  no shift has been chosen, as much, with nothing gained), and a length is not looked at once the gain
  already found exceeds what a shift of that length could fix (twice its length);
- **no cap** on the number of candidates (sacreBLEU stops after 1,000).

Shifted spans hold at most 10 words; a span moves at most 50 positions (MultEval's default, as tercom's).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

#: longest span a shift moves (tercom's MAX_SHIFT_SIZE)
MAX_SHIFT_SIZE = 10
#: tercom's default beam width and maximum shift distance (MultEval's defaults too)
BEAM_WIDTH = 20
MAX_SHIFT_DIST = 50


def edit_distance(hyp: Sequence[Hashable], ref: Sequence[Hashable], beam: int = BEAM_WIDTH) -> tuple[int, str]:
    """tercom's beamed edit distance of ``hyp`` to ``ref`` and its path (``' '`` match, ``S``, ``I``, ``D``)."""
    nh, nr = len(hyp), len(ref)
    cost = [[-1] * (nh + 1) for _ in range(nr + 1)]
    move = [["0"] * (nh + 1) for _ in range(nr + 1)]
    cost[0][0] = 0
    big = 1 << 60
    best_next = big  # cheapest cell of the next column reached by a match or a substitution
    first_next, last_next = 0, 0
    for j in range(nh + 1):
        best_prev, best_next = best_next, big
        first, first_next = first_next, -1
        last, last_next = last_next, -1
        i = first
        while i <= nr and i <= last:
            score = cost[i][j]
            if score < 0 or (j < nh and score > best_prev + beam):
                i += 1
                continue
            if first_next == -1:
                first_next = i
            if i < nr and j < nh:
                c = score + (ref[i] != hyp[j])
                old = cost[i + 1][j + 1]
                if old < 0 or c < old:
                    cost[i + 1][j + 1] = c
                    move[i + 1][j + 1] = " " if ref[i] == hyp[j] else "S"
                    best_next = min(best_next, c)
                elif ref[i] == hyp[j]:  # a match that is not cheaper still counts towards the beam
                    best_next = min(best_next, c)
            last_next = i + 1
            if j < nh and (cost[i][j + 1] < 0 or cost[i][j + 1] > score + 1):
                cost[i][j + 1] = score + 1
                move[i][j + 1] = "I"
            if i < nr and (cost[i + 1][j] < 0 or cost[i + 1][j] > score + 1):
                cost[i + 1][j] = score + 1
                move[i + 1][j] = "D"
                last = max(last, i + 1)
            i += 1
    return cost[nr][nh], _trace(move, nr, nh)


def _trace(move: list[list[str]], nr: int, nh: int) -> str:
    """The path of moves into the last cell, first move first."""
    path = []
    i, j = nr, nh
    while i > 0 or j > 0:
        m = move[i][j]
        path.append(m)
        if m in " S":
            i, j = i - 1, j - 1
        elif m == "D":
            i -= 1
        elif m == "I":
            j -= 1
        else:  # pragma: no cover - every reached cell has a move
            raise AssertionError("tercom edit distance: broken path")
    return "".join(reversed(path))


def _word_matches(hyp: Sequence[Hashable], ref: Sequence[Hashable]) -> dict[tuple, list[int]]:
    """Every reference span (up to MAX_SHIFT_SIZE + 1 words) made only of words the hypothesis has, with
    its start positions in increasing order."""
    words = set(hyp)
    has = [w in words for w in ref]
    out: dict[tuple, list[int]] = {}
    for start in range(len(ref)):
        end = start
        while end < len(ref) and end - start <= MAX_SHIFT_SIZE and has[end]:
            out.setdefault(tuple(ref[start : end + 1]), []).append(start)
            end += 1
    return out


def _errors(path: str, nh: int, nr: int) -> tuple[list[bool], list[bool], list[int]]:
    """Which hypothesis and reference words the path gets wrong, and the hypothesis position each reference
    word is aligned after (-1 before the first)."""
    herr, rerr, ralign = [False] * nh, [False] * nr, [0] * nr
    h = r = -1
    for m in path:
        if m in " S":
            h, r = h + 1, r + 1
            herr[h] = rerr[r] = m == "S"
            ralign[r] = h
        elif m == "I":
            h += 1
            herr[h] = True
        else:
            r += 1
            rerr[r] = True
            ralign[r] = h
    return herr, rerr, ralign


def _targets(out: list, start: int, end: int, starts: list[int], ref_side: tuple, dist: int) -> bool:
    """Add the moves of the span ``start..end`` towards each reference position where it occurs (``starts``);
    ``ref_side``: which reference words are wrong, and where each is aligned. True if one of the positions is
    within reach (longer spans from ``start`` are then looked at too)."""
    rerr, ralign = ref_side
    reach = False
    for m in starts:
        a = ralign[m]
        if a == start or start <= a <= end or a - start > dist or start - a > dist:
            continue
        reach = True
        if not any(rerr[m : m + end - start + 1]):
            continue
        for off in range(-1, end - start + 1):
            if off == -1 and m == 0:
                out.append((start, end, -1))
            elif start != ralign[m + off] and (off == 0 or ralign[m + off] != a):
                out.append((start, end, ralign[m + off]))
    return reach


def _candidates(cur, rloc, herr, rerr, ralign, dist):
    """tercom's candidate shifts (start, end, new location), grouped by span length - 1."""
    out: list[list[tuple[int, int, int]]] = [[] for _ in range(MAX_SHIFT_SIZE + 1)]
    n = len(cur)
    for start in range(n):
        starts = rloc.get((cur[start],))
        if starts is None:
            continue
        if not any(start != ralign[m] and ralign[m] - start <= dist and start - ralign[m] - 1 <= dist for m in starts):
            continue
        ok, end = True, start
        while ok and end < n and end < start + MAX_SHIFT_SIZE:
            span = tuple(cur[start : end + 1])
            ok = False
            if span in rloc:
                if not any(herr[start : end + 1]):
                    ok = True  # nothing to fix in this span: look at longer ones
                else:
                    ok = _targets(out[end - start], start, end, rloc[span], (rerr, ralign), dist)
            end += 1
    return out


def shifted(words: Sequence, start: int, end: int, newloc: int) -> list:
    """``words`` with ``words[start..end]`` moved after position ``newloc`` (-1: to the front), as tercom
    moves them."""
    w = list(words)
    span = w[start : end + 1]
    if newloc == -1:
        return span + w[:start] + w[end + 1 :]
    if newloc < start:
        return w[: newloc + 1] + span + w[newloc + 1 : start] + w[end + 1 :]
    if newloc > end:
        return w[:start] + w[end + 1 : newloc + 1] + span + w[newloc + 1 :]
    k = end + (newloc - start)  # a target inside the span: the words after it move in front of it
    return w[:start] + w[end + 1 : k + 1] + span + w[k + 1 :]


def _enough(fixed: int, limit: int, cost: int) -> bool:
    """tercom stops looking at shorter candidates once the gain found exceeds what they could fix."""
    return fixed > limit or (cost != 0 and fixed == limit)


def tercom_edits(
    hyp: Sequence[Hashable], ref: Sequence[Hashable], beam: int = BEAM_WIDTH, max_dist: int = MAX_SHIFT_DIST
) -> int:
    """The number of edits tercom finds from ``hyp`` to ``ref`` (shifts, insertions, deletions,
    substitutions, each costing 1)."""
    if not hyp or not ref:
        return len(hyp) + len(ref)
    rloc = _word_matches(hyp, ref)
    cur = list(hyp)
    num, path = edit_distance(cur, ref, beam)
    shifts = 0
    while True:
        herr, rerr, ralign = _errors(path, len(cur), len(ref))
        cands = _candidates(cur, rloc, herr, rerr, ralign, max_dist)
        best = None
        best_cost, best_num = 0, num
        for size in range(len(cands) - 1, -1, -1):
            limit = 2 * (size + 1)  # the most a shift of this length can fix
            if _enough(num - (best_cost + best_num), limit, best_cost):
                break
            for start, end, newloc in cands[size]:
                if _enough(num - (best_cost + best_num), limit, best_cost):
                    break
                words = shifted(cur, start, end, newloc)
                n2, p2 = edit_distance(words, ref, beam)
                gain = (best_num + best_cost) - (n2 + 1)
                if gain > 0 or (best_cost == 0 and gain == 0):
                    best, best_cost, best_num = (words, p2), 1, n2
        if best is None:
            return num + shifts
        shifts += 1
        cur, path = best
        num = best_num
