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


def _batch_in_child(ctx: AnalysisContext):
    """The shared comparison as run in a forked child: what it sets on the batch, the notes it adds and the Python
    warnings it meets (raised again in the parent, as the thread would raise them)."""
    before = len(ctx.warnings)
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        ctx.batch.run(ctx)
    caught = [(str(w.message), w.category) for w in raised]
    return ctx.batch.n_resamples, ctx.batch.result, ctx.warnings[before:], caught


def _adopt_batch(ctx: AnalysisContext, got) -> None:
    n_resamples, result, notes, raised = got
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
    return parts


def _run_analyses(ctx: AnalysisContext, specs, fork: bool) -> dict[int, list[Analysis] | Later]:
    """Each spec's analyses, or its :class:`Later` once the shared comparison has run. The analyses that put their
    metrics into the shared comparison are prepared first; the comparison then runs beside the others (each
    bucket's own comparison, n-grams, examples), on a second thread (NumPy releases the GIL in its heavy loops) or
    in a forked process (``fork``); every number is the same in either order."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    parts: dict[int, list[Analysis] | Later] = {}
    if ctx.table.n_segments >= SEQUENTIAL_SEGMENTS:
        return _run_one_by_one(ctx, specs, parts)
    for i, spec in enumerate(specs):
        if ANALYSES[spec.kind].batched:
            parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
    # one BLAS thread per Python thread: BLAS's own threads would take the cores the two threads use (on two
    # cores, 0.9-1.3 s became 0.9 s for the benchmark's run)
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(max_workers=1) as pool:
        child = fork_call(lambda: _batch_in_child(ctx)) if fork and ctx.batch.metrics else None
        done = pool.submit(ctx.batch.run, ctx) if child is None else None
        try:
            for i, spec in enumerate(specs):
                if not ANALYSES[spec.kind].batched:
                    parts[i] = ANALYSES[spec.kind].run(ctx, spec.arg)
            for p in parts.values():
                if isinstance(p, Later) and p.work is not None:
                    p.work()
        except BaseException:
            if child is not None:
                child.cancel()
            raise
        if done is not None:
            done.result()
        elif child is not None:
            _adopt_batch(ctx, child.result())
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
