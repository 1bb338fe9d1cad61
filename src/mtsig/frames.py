"""Results as pandas DataFrames (``result.to_pandas()``): one row per number a report shows, every column a plain
value (intervals split into ``_low``/``_high``). pandas is optional: without it, a one-line error names it."""

from __future__ import annotations

from typing import Any

from mtsig.errors import InputError


def frame(rows: list[dict[str, Any]], columns: list[str]):
    """A DataFrame of ``rows`` with ``columns`` in that order (an empty frame keeps them)."""
    try:
        import pandas as pd
    except ImportError:
        raise InputError("to_pandas() needs pandas: pip install pandas") from None
    return pd.DataFrame(rows, columns=columns)


def _ci(iv) -> tuple[float | None, float | None]:
    return (iv.low, iv.high) if iv is not None else (None, None)


SCORE_COLUMNS = ["system", "metric", "score", "ci_low", "ci_high", "ci_method", "confidence", "n_runs", "mean",
                 "s_sel", "s_test", "s_dev", "signature"]  # fmt: skip


def score_rows(res) -> list[dict[str, Any]]:
    rows = []
    for s in res.systems:
        for m, e in s.scores.items():
            lo, hi = _ci(e.ci)
            r = e.runs
            rows.append({
                "system": s.name, "metric": m, "score": e.score, "ci_low": lo, "ci_high": hi,
                "ci_method": e.ci.method if e.ci else None, "confidence": e.ci.confidence if e.ci else None,
                "n_runs": len(r.runs) if r else 1, "mean": r.mean if r else None, "s_sel": r.s_sel if r else None,
                "s_test": r.s_test if r else None, "s_dev": r.s_dev if r else None, "signature": e.signature,
            })  # fmt: skip
    return rows


COMPARE_COLUMNS = ["metric", "test", "a", "b", "score_a", "score_b", "delta", "delta_ci_low", "delta_ci_high",
                   "p_value", "p_adjusted", "significant", "alternative", "n_resamples", "seed"]  # fmt: skip


def compare_rows(res) -> list[dict[str, Any]]:
    rows = []
    for c in res.comparisons:
        r = c.result
        lo, hi = _ci(r.delta_ci)
        rows.append({
            "metric": r.metric, "test": r.test, "a": r.a, "b": r.b, "score_a": r.score_a, "score_b": r.score_b,
            "delta": r.delta, "delta_ci_low": lo, "delta_ci_high": hi, "p_value": r.p_value,
            "p_adjusted": c.p_adjusted, "significant": c.significant, "alternative": r.alternative,
            "n_resamples": r.n_resamples, "seed": r.seed,
        })  # fmt: skip
    return rows


ANALYZE_COLUMNS = ["kind", "metric", "bucket", "lower", "upper", "n_segments", "n_words", "row", "system", "a", "b",
                   "value", "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "too_small"]  # fmt: skip


def analyze_rows(res) -> list[dict[str, Any]]:
    rows = []
    for a in res.analyses:
        for b in a.buckets:
            base = {"kind": a.kind, "metric": a.metric, "bucket": b.label, "lower": b.lower, "upper": b.upper,
                    "n_segments": b.n_segments, "n_words": b.n_words, "too_small": b.too_small}  # fmt: skip
            for n, s in b.systems.items():
                lo, hi = _ci(s.ci)
                seg = s.n_segments if b.n_segments is None else b.n_segments
                rows.append({**base, "row": "system", "system": n, "value": s.score, "ci_low": lo, "ci_high": hi,
                             "n_segments": seg})  # fmt: skip
            for c in b.comparisons:
                lo, hi = _ci(c.delta_ci)
                rows.append({**base, "row": "difference", "a": c.a, "b": c.b, "value": c.delta, "ci_low": lo,
                             "ci_high": hi, "p_value": c.p_value, "p_adjusted": c.p_adjusted,
                             "significant": c.significant})  # fmt: skip
    return rows


def item_rows(res) -> tuple[list[dict[str, Any]], list[str]]:
    rows, columns = [], ["kind", "metric"]
    for a in res.analyses:
        for i in a.items:
            rows.append({"kind": a.kind, "metric": a.metric, **i})
            columns += [k for k in i if k not in columns]
    return rows, columns
