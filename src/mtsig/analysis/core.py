"""``mtsig analyze``: where two systems differ, with an interval and a corrected p-value per bucket.

Every bucket analysis is built on ``compare``'s engine (:func:`mtsig.engine.compare_table`), so any registered
test, the resampling units and optimizer runs work as they do there. The analyses live beside this module, one
family each:

- :mod:`mtsig.analysis.partition`: buckets that partition the segments (``ref-length``, ``labels``,
  ``documents``);
- :mod:`mtsig.analysis.shares`: buckets that depend on each output (``length-diff``, ``sentence-score``);
- :mod:`mtsig.analysis.word_accuracy`: word accuracy by word bucket (``word-frequency``, ``word-labels``);
- :mod:`mtsig.analysis.items`: ``ngrams`` and ``examples``.

The p-values of one analysis (all its buckets and pairs) are adjusted together (``correction``, holm by
default). Buckets with fewer than :data:`~mtsig.analysis.context.MIN_BUCKET` segments (or reference words) are
shown without tests and are left out of the correction; a tested bucket is flagged ``too_small`` when even the
most extreme outcome of an exact randomization over its segments could not pass the corrected threshold.

Analyses are registered in :data:`~mtsig.analysis.registry.ANALYSES` (:func:`register_analysis`): a new one is a
function of an :class:`~mtsig.analysis.context.AnalysisContext` and its argument that returns
:class:`~mtsig.analysis.result.Analysis` objects; it declares its default cutoffs and the settings it reads.
This module runs them: the analyses that share one comparison first, that comparison beside the others.
"""

from __future__ import annotations

import warnings

from mtsig.analysis.context import MIN_BUCKET, AnalysisContext, Later
from mtsig.analysis.options import AnalysisSpec, AnalyzeOptions, default_specs, unused_settings
from mtsig.analysis.registry import ANALYSES
from mtsig.analysis.result import Analysis, AnalyzeResult, AnalyzeSettings
from mtsig.engine import DEFAULT_BOOTSTRAP, comparison_pairs
from mtsig.errors import InputError
from mtsig.executor import fork_call
from mtsig.resample import Resampling
from mtsig.table import StatsTable


def _portable(exc: Exception) -> Exception:
    """``exc`` if it survives the pipe from a forked child, else a RuntimeError naming it."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any failure to round-trip
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _in_child(ctx: AnalysisContext, lead: AnalysisSpec | None):
    """What the forked child runs: the analysis ``lead`` (the corpus, first in the list), then the shared comparison.
    Returns, for each, what it made, the notes it added and the Python warnings it met (raised again in the parent,
    as the thread would raise them); an error of ``lead`` is returned, not raised (the parent decides which error
    comes first), and the shared comparison is then not run."""

    def noted(step):
        before = len(ctx.warnings)
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            got = step()
        return got, ctx.warnings[before:], [(str(w.message), w.category) for w in raised]

    if lead is not None:
        try:
            first = noted(lambda: ANALYSES[lead.kind].run(ctx, lead.arg))
        except Exception as exc:  # noqa: BLE001 - sent to the parent, which raises it in the sequential order
            return _portable(exc), None
    else:
        first = None
    _, notes, raised = noted(lambda: ctx.batch.run(ctx))
    return first, (ctx.batch.n_resamples, ctx.batch.result, notes, raised)


def _adopt(ctx: AnalysisContext, parts: dict, lead: int | None, at: int, got) -> None:
    """Take the child's results: the lead analysis' part and notes (at ``at``, where the parent would have added
    them: the notes are then those of a run one after another) and the shared comparison's."""
    first, batch = got
    if isinstance(first, Exception):
        raise first
    if first is not None:
        part, notes, raised = first
        parts[lead] = part
        merged = [*ctx.warnings[:at], *notes, *ctx.warnings[at:]]
        ctx.warnings[:] = list(dict.fromkeys(merged))
        for message, category in raised:
            warnings.warn(message, category, stacklevel=3)
    n_resamples, result, notes, raised = batch
    ctx.batch.n_resamples, ctx.batch.result = n_resamples, result
    ctx.warnings.extend(w for w in notes if w not in ctx.warnings)
    for message, category in raised:
        warnings.warn(message, category, stacklevel=3)


#: from this many segments on, the analyses run one after another (the shared comparison too): the peak memory is
#: then that of the largest step, not of two at once (a million segments in under 2 GB); every number is the same
SEQUENTIAL_SEGMENTS = 200_000


def _run_one_by_one(ctx: AnalysisContext, specs, parts: dict) -> dict:
    """The analyses that are not batched, then those that are (their statistics made only now), the work beside
    the batch, then the batch itself, one after another; the word ids of the texts are let go before the batch (no
    analysis reads them after). Warnings come in the order the threaded run gives them (batched analyses first)."""
    start = len(ctx.warnings)
    for i, spec in enumerate(specs):
        if not ANALYSES[spec.kind].batched:
            parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
            ctx.finished()
    later = ctx.warnings[start:]
    del ctx.warnings[start:]
    for i, spec in enumerate(specs):
        if ANALYSES[spec.kind].batched:
            parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
    ctx.warnings.extend(w for w in later if w not in ctx.warnings)
    for p in parts.values():
        if isinstance(p, Later) and p.work is not None:
            p.work()
    ctx.forget_words()
    ctx.batch.run(ctx)
    ctx.finished(sum(ANALYSES[s.kind].batched for s in specs))
    return parts


def _lead(specs, own: list[int]) -> int | None:
    """The analysis a forked child runs beside the shared comparison: the corpus when it comes first and the parent
    keeps other work of its own (the two processes then carry about the same work)."""
    return own[0] if len(own) > 1 and own[0] == 0 and specs[0].kind == "corpus" else None


def _run_own(ctx: AnalysisContext, specs, which: list[int], parts: dict) -> None:
    """The analyses ``which`` (not batched), in order, then the work of the batched ones that needs no shared
    comparison."""
    for i in which:
        parts[i] = ANALYSES[specs[i].kind].run(ctx, specs[i].arg)
        ctx.finished()
    for p in parts.values():
        if isinstance(p, Later) and p.work is not None:
            p.work()


def _raise_lead_error(child) -> None:
    """Wait for the child and raise the lead analysis' error, if it had one (the shared comparison's error comes
    after the caller's)."""
    try:
        first, _ = child.result()
    except Exception:  # noqa: BLE001 - the shared comparison failed: the caller's own error stands
        return
    if isinstance(first, Exception):
        raise first from None


def _run_analyses(ctx: AnalysisContext, specs, fork: bool) -> dict[int, list[Analysis] | Later]:
    """Each spec's analyses, or its :class:`Later` once the shared comparison has run. The analyses that put their
    metrics into the shared comparison are prepared first; the comparison then runs beside the others (each
    bucket's own comparison, n-grams, examples), on a second thread (NumPy releases the GIL in its heavy loops) or
    in a forked process (``fork``), which also takes the corpus analysis when it comes first (the two processes then
    carry about the same work); every number, note and error is the same in any of these orders."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    parts: dict[int, list[Analysis] | Later] = {}
    if ctx.table.n_segments >= SEQUENTIAL_SEGMENTS:
        return _run_one_by_one(ctx, specs, parts)
    for i, spec in enumerate(specs):
        if ANALYSES[spec.kind].batched:
            parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
    own = [i for i, spec in enumerate(specs) if not ANALYSES[spec.kind].batched]
    lead = _lead(specs, own) if fork else None
    at = len(ctx.warnings)
    # one BLAS thread per Python thread: BLAS's own threads would take the cores the two threads use (on two
    # cores, 0.9-1.3 s became 0.9 s for the benchmark's run)
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(max_workers=1) as pool:
        forked = fork and (ctx.batch.metrics or lead is not None)
        child = fork_call(lambda: _in_child(ctx, None if lead is None else specs[lead])) if forked else None
        done = pool.submit(ctx.batch.run, ctx) if child is None else None
        try:
            _run_own(ctx, specs, [i for i in own if i != lead or child is None], parts)
        except Exception:
            if child is not None and lead is not None:  # the lead analysis' error comes first, as it runs first
                _raise_lead_error(child)
            elif child is not None:
                child.cancel()
            raise
        except BaseException:
            if child is not None:
                child.cancel()
            raise
        if done is not None:
            done.result()
        elif child is not None:
            _adopt(ctx, parts, lead, at, child.result())  # (Ctrl-C while waiting: result() stops the child)
    ctx.finished(sum(ANALYSES[s.kind].batched for s in specs) + (lead is not None and child is not None))
    return parts


def analyze_table(
    table: StatsTable,
    options: AnalyzeOptions | None = None,
    resampling: Resampling | None = None,
    *,
    fork: bool = False,
):
    """Run the analyses of ``options.by`` (default: :func:`default_specs`) on a statistics table.

    ``fork``: run the shared comparison in a forked child process rather than on a second thread, where the
    platform forks and nothing draws progress (the command line's choice when it may use another process: the
    two halves then do not take turns on one interpreter lock). Every number is the same either way."""
    opts = options or AnalyzeOptions()
    resampling = resampling or Resampling()
    if len(table.system_names) < 2:
        raise InputError("analyze needs at least two systems")
    if opts.resample_unit != "segment":  # the units every analysis resamples, checked before any work
        from mtsig.units import unit_labels

        unit_labels(table, opts.resample_unit)
    pairs = comparison_pairs(table, opts.baseline)
    ctx = AnalysisContext(table, opts, resampling, pairs)
    specs = opts.by or default_specs(table)
    if not any(s.kind == "corpus" for s in specs):  # the corpus scores and tests come first, always
        specs = (AnalysisSpec("corpus"), *specs)
    ctx.done = resampling.advance("analyses", len(specs))
    ctx.warnings.extend(unused_settings(opts, specs))
    parts = _run_analyses(ctx, specs, fork and resampling.progress is None)
    analyses: list[Analysis] = []
    for i in range(len(specs)):
        p = parts[i]
        analyses += p.build() if isinstance(p, Later) else p
    settings = AnalyzeSettings(
        analyses=tuple(s.kind + (f"={s.arg}" if s.arg else "") for s in specs),
        test=opts.test,
        n_resamples=resampling.n_resamples,
        n_bootstrap=opts.n_bootstrap or DEFAULT_BOOTSTRAP,
        seed=resampling.seed,
        correction=opts.correction,
        alpha=opts.alpha,
        alternative=opts.alternative,
        confidence=opts.confidence,
        baseline=opts.baseline,
        cutoffs={k: tuple(v) for k, v in opts.cutoffs.items()},
        min_bucket=MIN_BUCKET,
        tokenize=ctx.tokenizer().signature if table.texts is not None else None,
        signatures={m: table.signatures.get(m, table.metrics[m].signature) for m in table.metrics},
        n_segments=table.n_segments,
        resample_unit=opts.resample_unit,
        options=opts,
    )
    return AnalyzeResult(settings, tuple(table.system_names), tuple(analyses), tuple(ctx.warnings))
