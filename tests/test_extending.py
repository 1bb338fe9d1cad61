"""Extending mtsig, done for real: each extension below is written in this one file (as a plugin would be in its
own module) and registered for the length of a test, then removed. What each touches of mtsig: nothing.

- a sign test, of a new kind (its evidence: how many segments each system wins): ``compare`` runs it, the
  command line offers it, ``study type1`` calibrates it, with no edit to the engine or the studies;
- a study with its own option: its subcommand, flags and help are generated, other studies' options refused;
- an output format: ``-f tsv`` for ``compare``;
- a metric plugin's options: its signature pins them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import mtsig
from mtsig.cli import main
from mtsig.report.render import FORMATS, register_format, render
from mtsig.report.study_plots import plot_study
from mtsig.results import CompareResult
from mtsig.stats.kinds import KINDS, TestKind, register_kind
from mtsig.stats.paired import PAIRED_TESTS, Outcome, PairedTest, register_test
from mtsig.studies.design import Design, design_dict, metric_option, option
from mtsig.studies.inputs import pooled_stats
from mtsig.studies.registry import STUDIES, Study, register_study, run_study
from mtsig.studies.result import StudyResult, StudyTable

EX = Path(__file__).resolve().parents[1] / "examples"
REFS = [str(EX / "ref.A.en"), str(EX / "ref.B.en")]
SYSTEMS = [f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]


# ------------------------------------------------------------------------------------------------ a sign test
class SignEvidence(NamedTuple):
    observed: float
    alternative: str
    wins_b: int
    wins_a: int
    n_resamples: None = None


class SignKind(TestKind):
    """Sentence-level wins of each system (ties dropped)."""

    name = "sign"
    resamples = False

    @staticmethod
    def _evidence(sa: np.ndarray, sb: np.ndarray, alternative: str) -> SignEvidence:
        d = sb - sa
        return SignEvidence(float(d.mean()), alternative, int((d > 0).sum()), int((d < 0).sum()))

    def prepare(self, ctx, tests, shared):
        m = ctx.table.metrics[ctx.metric]
        return {n: m.sentence_scores(ctx.stats(n)) for n in ctx.table.system_names}

    def evidence(self, ctx, test, pair):
        s = ctx.prepared[self.name]
        return self._evidence(s[pair[0]], s[pair[1]], ctx.opts.alternative), None, {}

    def one_pair(self, pair, resampling, alternative, confidence):
        return self._evidence(*pair.sentences, alternative), None


def sign_outcome(ev: SignEvidence) -> Outcome:
    from scipy.stats import binomtest

    n = ev.wins_a + ev.wins_b
    p = 1.0 if n == 0 else float(binomtest(ev.wins_b, n, 0.5, alternative=ev.alternative).pvalue)
    return Outcome(p, float(ev.wins_b), {"wins_a": ev.wins_a, "wins_b": ev.wins_b})


@pytest.fixture
def sign_test():
    register_kind(SignKind())
    register_test(PairedTest("sign", "sign", "sign test", None, sign_outcome))
    yield
    PAIRED_TESTS.pop("sign")
    KINDS.pop("sign")


def _expected_sign_p(table, a: str, b: str) -> float:
    from scipy.stats import binomtest

    m = table.metrics["bleu"]
    sa, sb = (m.sentence_scores(table.stats["bleu"][s][0]) for s in (a, b))
    d = sb - sa
    return float(binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5).pvalue)


def test_a_sign_test_of_a_new_kind_runs_in_compare(sign_test):
    table = mtsig.compute(REFS, SYSTEMS)
    res = mtsig.compare(stats=table, test=["sign", "ar"])
    c = res.get("base", "new", test="sign")
    assert c.result.p_value == pytest.approx(_expected_sign_p(table, "base", "new"), rel=1e-12)
    assert c.result.extra["wins_b"] + c.result.extra["wins_a"] > 0 and c.result.n_resamples is None
    assert res.get("base", "new", test="ar").result.p_value < 0.05  # the example's real gain
    # the one-pair function reaches it too
    m, sa, sb = table.metrics["bleu"], table.stats["bleu"]["base"][0], table.stats["bleu"]["new"][0]
    assert mtsig.paired_test("sign", sa, sb, m).p_value == pytest.approx(c.result.p_value, rel=1e-12)


def test_the_command_line_offers_the_new_test(sign_test, capsys):
    assert main(["compare", "-r", *REFS, "-s", *SYSTEMS, "--test", "sign", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["test"] for c in out["comparisons"]] == ["sign"]


def test_study_type1_calibrates_the_new_test_with_no_study_edit(sign_test):
    from mtsig.studies import riezler

    assert "sign" in riezler.type1_tests()
    table = mtsig.compute(REFS, SYSTEMS)
    design = riezler.Type1Design(replicates=40, n_resamples=200, n_bootstrap=100)
    res = run_study("type1", table, design)
    part_a = {r[0]: r[1] for r in res.tables[0].rows}
    assert part_a["p (sign test)"] == pytest.approx(_expected_sign_p(table, "base", "new"), rel=1e-12)
    rates = [r for r in res.tables[1].rows if r[0] == "sign test"]
    assert [r[1] for r in rates] == [0.01, 0.05, 0.1] and all(r[3] == 40 for r in rates)
    assert len(res.data["pvalues"]["sign"]) == 40


def test_without_the_registration_the_test_is_unknown(capsys):
    assert "sign" not in PAIRED_TESTS
    with pytest.raises(SystemExit) as exc:
        main(["compare", "-r", *REFS, "-s", *SYSTEMS, "--test", "sign"])
    assert exc.value.code == 2
    assert "invalid choice: 'sign'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ a study
@dataclass(frozen=True)
class ScaledDesign(Design):
    metric: str | None = metric_option()
    scale: float = option(1.0, "multiply every score by this", "float", low=0, open=True)


def scaled(table, design: ScaledDesign, run) -> StudyResult:
    name, m, stats = pooled_stats(table, design.metric)
    rows = [[s, design.scale * float(m.score(x.sum(axis=0)))] for s, x in stats.items()]
    t = StudyTable(f"{name} scores times {design.scale:g}", ["system", "scaled"], rows, [None, 2])
    return StudyResult("scaled", {"metric": name}, (t,), {"rows": rows}, (), design_dict(design))


def draw_scaled(fig, res: StudyResult) -> None:
    ax = fig.subplots()
    ax.bar([r[0] for r in res.data["rows"]], [r[1] for r in res.data["rows"]])


@pytest.fixture
def scaled_study():
    register_study(Study("scaled", "scores times a factor", ScaledDesign, scaled, draw_scaled, replicated=False))
    yield
    STUDIES.pop("scaled")


def test_a_new_study_gets_its_subcommand_flags_and_json(scaled_study, capsys):
    assert main(["study", "scaled", "-r", *REFS, "-s", *SYSTEMS, "--scale", "2", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["study"] == "scaled" and out["design"] == {"metric": None, "scale": 2.0}
    table = mtsig.compute(REFS, SYSTEMS)
    assert out["tables"][0]["rows"][0][1] == pytest.approx(2 * mtsig.score(stats=table).score("base", "bleu"))


def test_a_new_study_refuses_other_studies_options_and_bad_values(scaled_study, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["study", "scaled", "-r", *REFS, "-s", *SYSTEMS, "--replicates", "3"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mtsig: error: --replicates is not an option of study scaled (it is one of type1,")
    assert "\n" not in err
    assert main(["study", "scaled", "-r", *REFS, "-s", *SYSTEMS, "--scale", "0"]) == 2
    assert "--scale must be above 0, got 0.0" in capsys.readouterr().err


def test_a_new_study_has_a_figure(scaled_study):
    pytest.importorskip("matplotlib")
    res = run_study("scaled", mtsig.compute(REFS, SYSTEMS), ScaledDesign(scale=3.0))
    fig = plot_study(res)
    assert len(fig.axes) == 1 and len(fig.axes[0].patches) == 2


# ------------------------------------------------------------------------------------------------ a format
def _tsv(res: CompareResult, fmt: str, width) -> str:
    rows = [
        [c.metric, c.pair[0], c.pair[1], f"{c.result.delta:.4f}", f"{c.result.p_value:.4g}"] for c in res.comparisons
    ]
    return "".join("\t".join(r) + "\n" for r in [["metric", "a", "b", "delta", "p"], *rows])


@pytest.fixture
def tsv_format():
    register_format("tsv", CompareResult, _tsv)
    yield
    FORMATS.pop("tsv")


def test_a_new_output_format(tsv_format, capsys):
    assert main(["compare", "-r", *REFS, "-s", *SYSTEMS, "-f", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "metric\ta\tb\tdelta\tp" and lines[1].startswith("bleu\tbase\tnew\t")
    score = mtsig.score(REFS, SYSTEMS)
    with pytest.raises(mtsig.InputError, match="unknown result type for format tsv 'ScoreResult'"):
        render(score, "tsv")  # registered for comparisons only


# ------------------------------------------------------------------------------------------------ a metric's options
def test_a_plugin_metrics_options_are_in_its_signature(monkeypatch):
    import mtsig.metrics as reg
    from mtsig.metrics.options import Option

    class Unif(reg.Metric):
        name = "unif"
        options = {"unif_beta": Option(2.0, "a weight"), "unif_strict": Option(False, "strict")}

        @property
        def stat_names(self):
            return ["one"]

        def _stats(self, hyp):
            return np.ones((len(hyp), 1)) * self.config["unif_beta"]

        def score(self, totals):
            return np.asarray(totals, dtype=float)[..., 0]

    monkeypatch.setitem(reg.REGISTRY, "unif", Unif)
    sig = mtsig.score([str(EX / "ref.A.en")], [f"base={EX / 'base.en'}"], ["unif"], unif_beta=3.0)
    signature = sig.systems[0].scores["unif"].signature
    assert signature.startswith("mtsig:unif|unif_beta:3.0|unif_strict:no|nrefs:1|version:")


def test_an_installed_plugin_registers_its_test_through_its_entry_point(monkeypatch, capsys):
    """A package that declares ``[project.entry-points."mtsig.tests"] sign = "pkg:register"``: the command line
    loads it when a test name is not a built-in one."""
    import importlib.metadata

    import mtsig.registry as registry

    def register():
        register_kind(SignKind())
        register_test(PairedTest("sign", "sign", "sign test", None, sign_outcome))

    class EP:
        name, value = "sign", "pkg:register"

        def load(self):
            return register

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [EP()] if group == "mtsig.tests" else [])
    monkeypatch.setattr(registry, "_LOADED", set())
    try:
        assert main(["compare", "-r", *REFS, "-s", *SYSTEMS, "--test", "sign", "-f", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["comparisons"][0]["test"] == "sign"
    finally:
        PAIRED_TESTS.pop("sign", None)
        KINDS.pop("sign", None)


# ------------------------------------------------------------------------------------------ a correction
def _hochberg(p: np.ndarray) -> np.ndarray:
    """Hochberg's step-up (family-wise error under positive dependence): sorted descending, (k - i + 1) p."""
    k = p.size
    order = np.argsort(-p, kind="stable")
    adj = np.minimum.accumulate(np.minimum(1.0, (np.arange(k) + 1) * p[order]))
    out = np.empty(k)
    out[order] = adj
    return out


@pytest.fixture
def hochberg():
    from mtsig.stats.multiple import CORRECTIONS, Correction, register_correction

    register_correction(Correction(name="hochberg", help="Hochberg's step-up", adjust=_hochberg,
                                   threshold=lambda alpha, k: alpha / k))  # fmt: skip
    yield
    CORRECTIONS.pop("hochberg")


def test_a_new_correction_in_compare_cli_and_study(hochberg, capsys):
    from mtsig.engine import threshold
    from mtsig.stats.multiple import adjust

    p = np.array([0.01, 0.04, 0.03, 0.2])
    assert np.allclose(adjust(p, "hochberg"), [0.04, 0.08, 0.08, 0.2])  # by hand: min over j >= i of (k-j+1) p_(j)
    assert threshold(0.05, 4, "hochberg") == pytest.approx(0.0125)  # the automatic resample count's target
    table = mtsig.compute(REFS, [*SYSTEMS, f"copy={EX / 'base.en'}"])
    res = mtsig.compare(stats=table, correction="hochberg", n_resamples=999)
    raw = [c.result.p_value for c in res.comparisons]
    assert [c.p_adjusted for c in res.comparisons] == pytest.approx(list(_hochberg(np.array(raw))))
    assert res.settings.correction == "hochberg"
    assert main(["compare", "-r", *REFS, "-s", *SYSTEMS, "--correction", "hochberg", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["correction"] == "hochberg"
    from mtsig.studies import riezler

    assert "hochberg" in riezler.multiplicity_methods()
    design = riezler.MultiplicityDesign(replicates=10, n_resamples=100, null_systems=3)
    rows = run_study("multiplicity", table, design).tables[0].rows
    assert any("hochberg" in str(r[0]) for r in rows)


def test_an_unknown_correction_lists_the_registered_ones(capsys):
    with pytest.raises(mtsig.errors.InputError, match="unknown correction 'hochberg'; choose from: bh, bonferroni"):
        mtsig.compare(REFS, SYSTEMS, correction="hochberg")


# ------------------------------------------------------------------------------- an analysis, as a plugin
def _src_length(ctx, arg):
    from mtsig.analysis.partition import partition_analysis

    lengths = np.array([len(t) for t in ctx.ref_tokens("src-length")])  # stands in for source lengths
    cut = ctx.cutoffs("src-length")  # its declared default, or --bucket-cutoffs src-length=...
    groups = cut.assign(lengths)
    labels = cut.labels()
    return partition_analysis(ctx, "src-length", groups, labels, [cut.bounds(i) for i in range(cut.n)], "by length")


def test_an_analysis_plugin_is_reachable_from_the_command_line_alone(monkeypatch, capsys):
    import importlib.metadata

    import mtsig.registry as registry
    from mtsig.analysis import ANALYSES, AnalysisEntry, register_analysis

    def register():
        register_analysis(AnalysisEntry("src-length", _src_length, "scores by length (a plugin)", default=False,
                                        cutoffs=(20,), options=("top",)))  # fmt: skip

    class EP:
        name, value = "src-length", "pkg:register"

        def load(self):
            return register

    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group=None: [EP()] if group == "mtsig.analyses" else []
    )
    monkeypatch.setattr(registry, "_LOADED", set())
    try:
        assert main(["analyze", "-r", *REFS, "-s", *SYSTEMS, "--by", "src-length", "-f", "json", "-j", "1"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert [a["kind"] for a in out["analyses"]] == ["corpus", "src-length"]
        assert [b["label"] for b in out["analyses"][1]["buckets"]] == ["<20", ">=20"]
        # its declared cutoffs take --bucket-cutoffs; a setting it declares is not reported as unused
        argv = ["analyze", "-r", *REFS, "-s", *SYSTEMS, "--by", "src-length", "-f", "json", "-j", "1",
                "--bucket-cutoffs", "src-length=10:30", "--top", "3"]  # fmt: skip
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert [b["label"] for b in out["analyses"][1]["buckets"]] == ["<10", "[10,30)", ">=30"]
        assert not any("top" in w for w in out["warnings"])
    finally:
        ANALYSES.pop("src-length", None)
