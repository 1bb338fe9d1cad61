"""`mtsig analyze`: bucket scores equal the metric on the bucket's segments alone, identical systems get p = 1, the
JSON layout, errors, formats, and the batched randomization equal to one drawing per metric."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

import mtsig
from mtsig.errors import InputError
from tests.data import MULTEVAL_SYSTEMS, WMT_XML, need, wmt_hyp, wmt_ref


def _lines(path: str, n: int) -> list[str]:
    return open(path, encoding="utf-8").read().splitlines()[:n]


@pytest.fixture(scope="module")
def small(wmt):
    """300 segments of two WMT22 systems, as lists of strings."""
    ref = _lines(wmt_ref(wmt, "A"), 300)
    return ref, {"JD": _lines(wmt_hyp(wmt, "JDExploreAcademy"), 300), "LT22": _lines(wmt_hyp(wmt, "LT22"), 300)}


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["bleu", "chrf", "ter", "meteor"])
def test_bucket_score_is_the_metric_on_the_bucket_alone(small, metric):
    ref, systems = small
    cut = [12, 25]
    res = mtsig.analyze([ref], systems, [metric], by=["ref-length"], cutoffs={"ref-length": cut},
                        n_resamples=100, n_bootstrap=100)  # fmt: skip
    a = res.get("ref-length")
    lengths = np.array([len(mtsig.get_metric("bleu").tokenizer(r)) for r in ref])
    groups = np.searchsorted(cut, lengths, side="right")
    assert sum(b.n_segments for b in a.buckets) == 300
    for i, b in enumerate(a.buckets):
        idx = np.flatnonzero(groups == i)
        assert len(idx) == b.n_segments > 10
        alone = mtsig.score([[ref[j] for j in idx]], {n: [s[j] for j in idx] for n, s in systems.items()}, [metric])
        for n in systems:
            assert math.isclose(b.systems[n].score, alone.score(n, metric), rel_tol=1e-12, abs_tol=1e-12)
            lo, hi = b.systems[n].ci.low, b.systems[n].ci.high
            assert lo <= b.systems[n].score <= hi
        (c,) = b.comparisons
        assert math.isclose(c.delta, alone.score("LT22", metric) - alone.score("JD", metric), abs_tol=1e-9)


def test_identical_systems_get_p_one_everywhere(small):
    ref, systems = small
    same = {"A": systems["JD"], "B": list(systems["JD"])}
    res = mtsig.analyze([ref], same, by=["ref-length", "length-diff", "word-frequency", "sentence-score"],
                        n_resamples=200, n_bootstrap=100)  # fmt: skip
    tested = 0
    for a in res.analyses:
        for b in a.buckets:
            for c in b.comparisons:
                assert c.delta in (0.0, None) or c.delta == 0
                if c.p_value is not None:
                    assert c.p_value == 1.0 and c.p_adjusted == 1.0 and not c.significant
                    tested += 1
    assert tested >= 10


def test_json_layout(small):
    ref, systems = small
    res = mtsig.analyze([ref], systems, by=["ref-length", "word-frequency", "ngrams", "examples"], top=3,
                        n_resamples=200, n_bootstrap=100)  # fmt: skip
    from mtsig.report.render import render  # imported here: the test passes whatever ran before it

    d = json.loads(render(res, "json"))
    assert set(d) >= {"settings", "analyses"}
    kinds = [a["kind"] for a in d["analyses"]]
    assert kinds == ["corpus", "ref-length", "word-frequency", "ngrams", "examples"]
    b = d["analyses"][1]["buckets"][1]
    assert set(b) >= {"label", "lower", "upper", "n_segments", "systems", "comparisons"}
    assert set(b["systems"]["JD"]) >= {"score", "ci"}
    assert set(b["comparisons"][0]) >= {"a", "b", "delta", "delta_ci", "test", "p_value", "p_adjusted", "significant"}
    w = d["analyses"][2]["buckets"][3]
    assert w["n_words"] > 0 and {"precision", "recall", "precision_ci", "recall_ci"} <= set(w["systems"]["JD"])
    assert len(d["analyses"][3]["items"]) == 6 and len(d["analyses"][4]["items"]) == 6
    assert d["settings"]["seed"] == 12345 and d["settings"]["correction"] == "holm"


def test_p_values_are_adjusted_over_every_bucket_and_pair(small):
    from mtsig.stats.multiple import adjust

    ref, systems = small
    three = {**systems, "X": systems["JD"][::-1]}
    res = mtsig.analyze([ref], three, by=["ref-length"], n_resamples=300, n_bootstrap=100)
    a = res.get("ref-length")
    raw = [c.p_value for b in a.buckets for c in b.comparisons if c.p_value is not None]
    adj = [c.p_adjusted for b in a.buckets for c in b.comparisons if c.p_value is not None]
    assert len(raw) == 3 * sum(not (b.n_segments < 10) for b in a.buckets)
    np.testing.assert_allclose(adj, adjust(raw, "holm"))


def test_batched_randomization_equals_one_drawing_per_metric(wmt_bleu_stats):
    from mtsig.resample import Resampling
    from mtsig.stats.engines import ar_counts, ar_counts_many

    t = wmt_bleu_stats
    names = t.system_names
    pairs = [(names[0], names[1]), (names[2], names[3]), (names[1], names[3])]
    r = Resampling(500, 7)
    items = {m: (t.metrics[m], {n: t.stats[m][n][0] for n in names}, "two-sided") for m in ("bleu", "length", "mbleu")}
    many = ar_counts_many(items, pairs, r)
    for m, (metric, stats, alt) in items.items():
        one = ar_counts(stats, metric, pairs, r, alt, keep=True)
        for p in pairs:
            assert many[m][p][0] == one[p][0]
            np.testing.assert_array_equal(many[m][p][1], one[p][1])


def test_documents_and_domains_of_wmt_xml():
    xml = str(need(WMT_XML))
    with pytest.raises(InputError, match="at least two systems"):
        mtsig.analyze(xml, f"{xml}:LT22", by=["labels"])
    res = mtsig.analyze(xml, [f"{xml}:LT22", f"{xml}:Online-A"], by=["labels", "documents"], n_resamples=200,
                        n_bootstrap=100, resample_unit="document")  # fmt: skip
    dom = res.get("labels")
    assert [b.label for b in dom.buckets] and sum(b.n_segments for b in dom.buckets) == res.settings["n_segments"]
    docs = res.get("documents")
    assert len(docs.buckets) == 271
    # a domain bucket with documents to resample is tested; a document is one unit: never tested
    assert any(c.p_value is not None for b in dom.buckets for c in b.comparisons)
    assert all(c.p_value is None for b in docs.buckets for c in b.comparisons)


def test_runs_are_analysed_like_compare(multeval):
    ref = str(multeval / "refs.test2010.lc.tok.en.0")
    systems = [f"{s}={multeval}/hyps.lc.tok.en.{s}.opt*" for s in MULTEVAL_SYSTEMS[:2]]
    res = mtsig.analyze([ref], systems, by=["ref-length", "length-diff"], tokenize="none", n_resamples=200,
                        n_bootstrap=100)  # fmt: skip
    b = res.get("ref-length").buckets[1]
    assert b.comparisons[0].p_value is not None and b.systems["baseline"].score > 0
    counts = [bk.systems["sys1"].n_segments for bk in res.get("length-diff").buckets]
    assert math.isclose(sum(counts), res.settings["n_segments"], abs_tol=1e-9)  # mean counts over the runs


def test_errors(small, tmp_path):
    ref, systems = small
    with pytest.raises(InputError, match="unknown analysis 'lenght'"):
        mtsig.analyze([ref], systems, by=["lenght"])
    bad = tmp_path / "labels.txt"
    bad.write_text("a\nb\n")
    with pytest.raises(InputError, match="2 labels, but the test set has 300 segments"):
        mtsig.analyze([ref], systems, by=[f"labels={bad}"])
    with pytest.raises(InputError, match="needs a file"):
        mtsig.analyze([ref], systems, by=["word-labels"])
    wl = tmp_path / "wl.txt"
    wl.write_text("".join(" ".join("X" for _ in mtsig.get_metric("bleu").tokenizer(r)) + "\n" for r in ref))
    with pytest.raises(InputError, match="--out-labels NAME=FILE for JD, LT22"):
        mtsig.analyze([ref], systems, by=[f"word-labels={wl}"])
    with pytest.raises(InputError, match="sentence-level test ttest does not apply"):
        mtsig.analyze([ref], systems, by=["word-frequency"], test="ttest")
    table = mtsig.compute([ref], systems)
    with pytest.raises(InputError, match="ngrams needs the texts"):
        mtsig.analyze(stats=_without_texts(table), by=["ngrams"])
    with pytest.raises(InputError, match="bucket cutoffs must increase"):
        mtsig.analyze([ref], systems, cutoffs={"ref-length": [10, 5]})
    with pytest.raises(InputError, match="analysis ngrams takes no argument"):
        mtsig.analyze([ref], systems, by=["ngrams=3"])


def _without_texts(table):
    from dataclasses import replace

    return replace(table, texts=None)


def test_word_labels(small, tmp_path):
    ref, systems = small
    tok = mtsig.get_metric("bleu").tokenizer

    def labels(lines):
        return "".join(" ".join("CAP" if w[:1].isupper() else "low" for w in tok(x)) + "\n" for x in lines)

    (tmp_path / "ref.lab").write_text(labels(ref))
    out = {}
    for n, s in systems.items():
        (tmp_path / f"{n}.lab").write_text(labels(s))
        out[n] = str(tmp_path / f"{n}.lab")
    res = mtsig.analyze([ref], systems, by=[f"word-labels={tmp_path / 'ref.lab'}"], out_labels=out,
                        n_resamples=200, n_bootstrap=100)  # fmt: skip
    a = res.get("word-labels")
    assert [b.label for b in a.buckets] == ["CAP", "low"] or [b.label for b in a.buckets] == ["low", "CAP"]
    for b in a.buckets:
        s = b.systems["JD"]
        assert 0 < s.extra["precision"] <= 1 and 0 < s.extra["recall"] <= 1
        assert math.isclose(s.score, 2 * s.extra["matched"] / (s.extra["output_words"] + s.extra["reference_words"]))


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_every_format_and_escaping(tmp_path, fmt, capsys):
    from mtsig.cli import main

    ref = tmp_path / "ref.txt"
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    rng = np.random.default_rng(3)
    words = "the cat sat on a mat with big red hat and dog".split()
    rows = [" ".join(rng.choice(words, size=rng.integers(3, 30))) for _ in range(120)]
    ref.write_text("\n".join(rows) + "\n")
    a.write_text("\n".join(r.replace("cat", "dog") for r in rows) + "\n")
    b.write_text("\n".join(r.replace("mat", "hat") for r in rows) + "\n")
    rc = main(["analyze", "-r", str(ref), "-s", f"A~x^2={a}", f"B{{1}}={b}", "--n-resamples", "200",
               "--n-bootstrap", "100", "-f", fmt, "--top", "2"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0 and out
    if fmt == "json":
        d = json.loads(out)
        assert [x["kind"] for x in d["analyses"]][:4] == ["corpus", "ref-length", "length-diff", "sentence-score"]
    if fmt == "latex":
        assert "A~x^2" not in out and r"A\textasciitilde{}x\textasciicircum{}2" in out and r"B\{1\}" in out
    if fmt == "text":
        assert "ref-length: bleu by bucket" in out and "word-frequency" in out


def _small_files(tmp_path, small) -> tuple[str, list[str]]:
    """The small test set written out: the reference file and NAME=FILE of each system."""
    ref, systems = small
    r = tmp_path / "r.txt"
    r.write_text("\n".join(ref) + "\n")
    files = []
    for n, s in systems.items():
        (tmp_path / f"{n}.txt").write_text("\n".join(s) + "\n")
        files.append(f"{n}={tmp_path / f'{n}.txt'}")
    return str(r), files


def test_cli_stats_file_needs_texts_for_words(tmp_path, small, capsys):
    from mtsig.cli import main

    r, files = _small_files(tmp_path, small)
    assert main(["stats", "-r", str(r), "-s", *files, "-o", str(tmp_path / "s.npz")]) == 0
    assert main(["analyze", "--stats", str(tmp_path / "s.npz"), "--by", "ngrams"]) == 2
    assert "ngrams needs the texts" in capsys.readouterr().err
    # what needs no words runs from statistics alone
    assert main(["analyze", "--stats", str(tmp_path / "s.npz"), "--n-resamples", "100", "-f", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [a["kind"] for a in d["analyses"]] == ["corpus", "sentence-score"]


def _ngram_matches_by_counting(ref, outs, max_order):
    """The n-gram match table the plain way: per segment, Counter of each order, clipped by the reference."""
    from collections import Counter

    table: dict[tuple[str, ...], list[int]] = {}
    for j, out in enumerate(outs):
        for r, h in zip(ref, out):
            for k in range(1, max_order + 1):
                rc = Counter(tuple(r[i : i + k]) for i in range(len(r) - k + 1))
                hc = Counter(tuple(h[i : i + k]) for i in range(len(h) - k + 1))
                for g, c in hc.items():
                    if g in rc:
                        table.setdefault(g, [0] * len(outs))[j] += min(c, rc[g])
    return {g: c for g, c in table.items() if any(c)}


def test_ngram_match_table_equals_plain_counting():
    """The vectorized table (codes order by order, only positions whose n-gram the reference has) against plain
    counting, on random small corpora with repeated words, empty segments and segments shorter than the order,
    counted in chunks of random size (the chunks' tables merged); rows come in the order of their words' ids, order
    by order."""
    from mtsig.analysis.words import Coder, ngram_match_table

    rng = np.random.default_rng(5)
    for _ in range(400):
        V, S = int(rng.integers(1, 6)), int(rng.integers(1, 6))

        def seg(V=V):
            return [f"w{x}" for x in rng.integers(0, V, int(rng.integers(0, 8)))]

        ref = [seg() for _ in range(S)]
        outs = [[seg() for _ in range(S)] for _ in range(int(rng.integers(1, 4)))]
        k = int(rng.integers(1, 6))
        coder = Coder()
        coded = [coder.code_tokens(t) for t in [ref, *outs]]
        chunk = int(rng.integers(1, S + 2))
        words, grams, counts = ngram_match_table(coder, coded[0], coded[1:], k, chunk=chunk)
        got = {tuple(words[i] for i in row if i >= 0): list(c) for row, c in zip(grams.tolist(), counts.tolist())}
        assert got == _ngram_matches_by_counting(ref, outs, k)
        assert len(got) == len(grams)  # each n-gram once
        keys = [(sum(i >= 0 for i in row), [i for i in row if i >= 0]) for row in grams.tolist()]
        assert keys == sorted(keys)


def _reaped(children) -> bool:
    """Whether every child process started has been waited for (none left running or as a zombie)."""
    import os

    for child in children:
        try:
            os.waitpid(child.pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the platform cannot fork")
def test_forked_comparison_equals_the_thread_and_fails_cleanly(small, monkeypatch):
    """The shared comparison computed in a forked child (the executor's fork_call) gives the very same result as on
    a second thread; an error in it is the child's own, raised in the caller (not the comparison run again here),
    and an analysis that fails on the calling side stops the child: no process is left behind."""
    import mtsig.analysis.context as context
    import mtsig.analysis.core as core
    from mtsig.analysis import AnalysisSpec, AnalyzeOptions, analyze_table
    from mtsig.resample import Resampling

    ref, systems = small
    table = mtsig.compute([ref], systems, ["bleu", "chrf"])
    opts = AnalyzeOptions(by=tuple(AnalysisSpec.parse(x) for x in ("length-diff", "word-frequency", "examples")))
    thread = analyze_table(table, opts, Resampling(n_resamples=300), fork=False)
    started, here = [], []
    monkeypatch.setattr(core, "fork_call", lambda fn, f=core.fork_call: started.append(f(fn)) or started[-1])
    with monkeypatch.context() as m:
        m.setattr(context.Batch, "run", lambda self, ctx, f=context.Batch.run: here.append(1) or f(self, ctx))
        forked = analyze_table(table, opts, Resampling(n_resamples=300), fork=True)
    # the comparison ran in a child (which counted its run in its own copy of `here`), not in this process
    assert len(started) == 1 and started[0] is not None and not here
    assert forked.to_dict() == thread.to_dict()
    assert _reaped(started)

    def boom(self, ctx):
        here.append(os.getpid())
        raise InputError(f"the comparison failed in {os.getpid()}")

    with monkeypatch.context() as m:
        m.setattr(context.Batch, "run", boom)
        with pytest.raises(InputError, match="the comparison failed in") as raised:
            analyze_table(table, opts, Resampling(n_resamples=300), fork=True)
    assert str(os.getpid()) not in str(raised.value) and not here  # the child's error, not a second run here
    assert len(started) == 2 and _reaped(started)

    def fail(ctx, arg):
        raise InputError("an analysis failed")

    with monkeypatch.context() as m:
        m.setitem(core.ANALYSES, "examples", core.ANALYSES["examples"]._replace(run=fail))
        with pytest.raises(InputError, match="an analysis failed"):
            analyze_table(table, opts, Resampling(n_resamples=300), fork=True)
    assert len(started) == 3 and _reaped(started)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the platform cannot fork")
def test_forked_child_takes_the_leading_corpus_with_the_same_notes_and_errors(small, monkeypatch):
    """With a fork, the child runs the leading corpus analysis beside the shared comparison: the result, the notes
    (in the order of a run one after another, repeated notes once) and which error is raised (the corpus' before a
    later analysis', a later analysis' before the shared comparison's) are those of the threaded run."""
    import mtsig.analysis.context as context
    import mtsig.analysis.core as core
    from mtsig.analysis import AnalysisSpec, AnalyzeOptions, analyze_table
    from mtsig.resample import Resampling

    ref, systems = small
    table = mtsig.compute([ref], systems, ["bleu"])
    opts = AnalyzeOptions(by=tuple(AnalysisSpec.parse(x) for x in ("ref-length", "word-frequency")))

    def noting(kind, *notes):
        def run(ctx, arg, f=core.ANALYSES[kind].run):
            ctx.warnings.extend(n for n in notes if n not in ctx.warnings)
            return f(ctx, arg)

        return core.ANALYSES[kind]._replace(run=run)

    started = []
    monkeypatch.setattr(core, "fork_call", lambda fn, f=core.fork_call: started.append(f(fn)) or started[-1])
    monkeypatch.setitem(core.ANALYSES, "corpus", noting("corpus", "corpus note", "shared note"))
    monkeypatch.setitem(core.ANALYSES, "ref-length", noting("ref-length", "shared note", "length note"))
    thread = analyze_table(table, opts, Resampling(n_resamples=200), fork=False)
    forked = analyze_table(table, opts, Resampling(n_resamples=200), fork=True)
    assert len(started) == 1 and forked.to_dict() == thread.to_dict()
    notes = list(forked.warnings)
    assert notes.index("corpus note") < notes.index("shared note") < notes.index("length note")
    assert notes.count("shared note") == 1
    assert _reaped(started)

    def failing(kind, message):
        def run(ctx, arg):
            raise InputError(message)

        return core.ANALYSES[kind]._replace(run=run)

    def batch_fails(self, ctx):
        raise InputError("the comparison failed")

    cases = [  # (what fails, the error a run one after another raises)
        ({"corpus": "corpus failed", "ref-length": "length failed"}, False, "corpus failed"),
        ({"ref-length": "length failed"}, True, "length failed"),
        ({"corpus": "corpus failed"}, True, "corpus failed"),
        ({}, True, "the comparison failed"),
    ]
    for fails, batch, message in cases:
        with monkeypatch.context() as m:
            for kind, text in fails.items():
                m.setitem(core.ANALYSES, kind, failing(kind, text))
            if batch:
                m.setattr(context.Batch, "run", batch_fails)
            for fork in (False, True):
                with pytest.raises(InputError, match=message):
                    analyze_table(table, opts, Resampling(n_resamples=200), fork=fork)
    assert len(started) == 1 + len(cases) and _reaped(started)


def test_cli_output_is_the_same_with_one_process_or_two(tmp_path, small, capsys):
    from mtsig.cli import main

    r, files = _small_files(tmp_path, small)
    outs = []
    for jobs in ("1", "2"):
        assert main(["analyze", "-r", str(r), "-s", *files, "--n-resamples", "200", "-f", "json", "-j", jobs]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and json.loads(outs[0])["analyses"]


def test_word_counts_by_frequency_do_not_depend_on_the_chunk():
    """Counted a few segments at a time or all at once: the same per-segment counts, and every one equal to
    counting the words of each segment by hand."""
    from collections import Counter

    from mtsig.analysis.words import Coder, word_counts_by_frequency

    rng = np.random.default_rng(11)
    for _ in range(100):
        V, S = int(rng.integers(1, 6)), int(rng.integers(1, 9))
        ref = [[f"w{x}" for x in rng.integers(0, V, int(rng.integers(0, 7)))] for _ in range(S)]
        out = [[f"w{x}" for x in rng.integers(0, V + 1, int(rng.integers(0, 7)))] for _ in range(S)]
        coder = Coder()
        r, o = coder.code_tokens(ref), coder.code_tokens(out)
        bucket = rng.integers(0, 3, len(coder.vocab))
        whole = word_counts_by_frequency(r, o, bucket, 3)
        assert np.array_equal(whole, word_counts_by_frequency(r, o, bucket, 3, chunk=int(rng.integers(1, S + 1))))
        for i in range(S):
            rc, oc = Counter(ref[i]), Counter(out[i])
            for b in range(3):
                ws = [w for w in coder.vocab if bucket[coder.vocab[w]] == b]
                assert whole[i, b, 2] == sum(rc[w] for w in ws)
                assert whole[i, b, 0] == sum(min(rc[w], oc[w]) for w in ws)
                unmatched = sum(max(oc[w] - rc[w], 0) for w in ws)
                assert whole[i, b, 1] == sum(min(rc[w], oc[w]) for w in ws) + unmatched


def test_one_after_another_equals_the_thread(small, monkeypatch):
    """A large table's analyses run one after another (the shared comparison last, the texts' word ids let go
    before it): the very same result as with the comparison on a second thread."""
    import mtsig.analysis.core as core
    from mtsig.analysis import AnalysisSpec, AnalyzeOptions, analyze_table
    from mtsig.resample import Resampling

    ref, systems = small
    table = mtsig.compute([ref], systems, ["bleu", "chrf"])
    by = ("ref-length", "length-diff", "sentence-score", "word-frequency", "ngrams", "examples")
    opts = AnalyzeOptions(by=tuple(AnalysisSpec.parse(x) for x in by))
    thread = analyze_table(table, opts, Resampling(n_resamples=300), fork=False)
    ran = []
    monkeypatch.setattr(core, "SEQUENTIAL_SEGMENTS", 1)
    monkeypatch.setattr(core, "_run_one_by_one", lambda *a, f=core._run_one_by_one: ran.append(1) or f(*a))
    assert analyze_table(table, opts, Resampling(n_resamples=300), fork=False).to_dict() == thread.to_dict()
    assert ran == [1]
