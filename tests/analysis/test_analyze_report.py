"""`mtsig analyze --html/--plot`: every analysis for the four WMT22 systems in one report, opened in headless
chromium (no console error, nothing requested beyond the file, a table sorts, a screenshot); the figure's marks
carry the JSON's numbers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import mtsig
from mtsig.cli import main
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref
from tests.report.test_browser import _chromium

pytestmark = pytest.mark.slow


def _side_files(wmt: Path, tmp: Path) -> dict[str, str]:
    """A label per segment (three made-up domains), documents of 25 segments, and a label per word (capitalized or
    not) for the reference and every output."""
    tok = mtsig.get_metric("bleu").tokenizer
    ref = Path(wmt_ref(wmt, "A")).read_text(encoding="utf-8").splitlines()
    (tmp / "domains.txt").write_text("".join(f"{('news', 'chat', 'ecom')[i % 3]}\n" for i in range(len(ref))))
    (tmp / "docids.txt").write_text("".join(f"doc{i // 100}\n" for i in range(len(ref))))

    def labels(lines):
        return "".join(" ".join("CAP" if w[:1].isupper() else "low" for w in tok(x)) + "\n" for x in lines)

    (tmp / "ref.lab").write_text(labels(ref))
    out = {}
    for s in WMT_SYSTEMS:
        (tmp / f"{s}.lab").write_text(labels(Path(wmt_hyp(wmt, s)).read_text(encoding="utf-8").splitlines()))
        out[s] = str(tmp / f"{s}.lab")
    return {"domains": str(tmp / "domains.txt"), "docids": str(tmp / "docids.txt"), "ref": str(tmp / "ref.lab"), **out}


def test_report_with_every_analysis_in_headless_chromium(wmt, tmp_path):
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    side = _side_files(wmt, tmp_path)
    report, fig, js = tmp_path / "analysis.html", tmp_path / "analysis.svg", tmp_path / "analysis.json"
    by = ["ref-length", "length-diff", "sentence-score", f"labels={side['domains']}", "documents", "word-frequency",
          f"word-labels={side['ref']}", "ngrams", "examples"]  # fmt: skip
    rc = main(["analyze", "-r", wmt_ref(wmt, "A"), "-s", *(f"{s}={wmt_hyp(wmt, s)}" for s in WMT_SYSTEMS),
               "--docids", side["docids"], "--by", *by, "--out-labels", *(f"{s}={side[s]}" for s in WMT_SYSTEMS),
               "--n-resamples", "1000", "--html", str(report), "--plot", str(fig), "-f", "json", "-o", str(js),
               "-q"])  # fmt: skip
    assert rc == 0
    d = json.loads(js.read_text())
    assert [a["kind"] for a in d["analyses"]] == ["corpus", *(b.split("=")[0] for b in by)]
    keep = os.environ.get("MTSIG_SCREENSHOTS")
    shot = Path(keep) / "analysis.png" if keep else tmp_path / "analysis.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1366, "height": 800})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri())
        page.wait_for_load_state("load")
        table = "#a1-ref-length-differences"
        page.click(f"{table} thead th:nth-child(8)")  # p adj.
        cells = page.eval_on_selector_all(f"{table} tbody td:nth-child(8)", "els => els.map(e => e.dataset.value)")
        sections = page.eval_on_selector_all("h2[id]", "els => els.map(e => e.id)")
        figures = page.eval_on_selector_all("figure svg", "els => els.length")
        marks = page.eval_on_selector_all("mark", "els => els.length")
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert errors == []
    assert requests == [report.as_uri()]
    numbers = [float(x) for x in cells if x]
    assert len(numbers) == 6 * 7 and numbers == sorted(numbers)
    assert len(sections) == len(by) + 1 and figures == 8  # every bucket analysis (the corpus too) has its figure
    assert marks > 0  # the examples' words missing from the reference are highlighted
    assert shot.stat().st_size > 50_000


def test_figure_marks_carry_the_json_numbers(wmt, tmp_path):
    from mtsig.report.analyze_plots import plot_analyze
    from mtsig.report.plots import svg_marks, svg_text

    res = mtsig.analyze([wmt_ref(wmt, "A")], {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS[:3]},
                        by=["ref-length", "word-frequency"], n_resamples=500, n_bootstrap=200)  # fmt: skip
    marks = svg_marks(svg_text(plot_analyze(res)))
    bars = {(m[1], m[3], m[4]): [float(x) for x in m[5:8]] for m in marks if m[0] == "bucket"}
    stars = {(m[1], m[3]) for m in marks if m[0] == "significant"}
    n = 0
    for a in res.analyses:
        for b in a.buckets:
            for name, s in b.systems.items():
                if s.score is None:
                    continue
                lo, hi = (s.ci.low, s.ci.high) if s.ci else (s.score, s.score)
                assert bars[(a.kind, b.label, name)] == [s.score, lo, hi]
                n += 1
            assert ((a.kind, b.label) in stars) == any(c.significant for c in b.comparisons)
    assert n == len(bars) > 40


def test_bucket_tables_sort_in_bucket_order_and_show_no_empty_column():
    """Buckets carry their order (``<10`` before ``[10,20)``, not after ``[50,60)`` as text sorts), and a per-output
    analysis (length-diff: each system's own segments per bucket) has no shared "segments" column of dashes."""
    import re
    from pathlib import Path

    import mtsig
    from mtsig.report.analyze_html import _bucket_tables

    ex = Path(__file__).resolve().parents[2] / "examples"
    res = mtsig.analyze([str(ex / "ref.A.en")], {"base": str(ex / "base.en"), "new": str(ex / "new.en")},
                        by=["length-diff", "sentence-score"], n_resamples=200, n_bootstrap=50)  # fmt: skip
    for a in res.analyses:
        if a.kind == "corpus":
            continue
        html = "".join(_bucket_tables(0, a, res.systems))
        first = re.findall(r'<tr><td data-value="(\d+)">([^<]*)</td>', html)
        assert [int(k) for k, _ in first][: len(a.buckets)] == list(range(len(a.buckets)))
        assert [lab for _, lab in first][: len(a.buckets)] == [b.label.replace("<", "&lt;").replace(">", "&gt;")
                                                              for b in a.buckets]  # fmt: skip
        if a.kind == "length-diff":
            head = re.findall(r"<th[^>]*>([^<]*)</th>", html.split("</thead>")[0])
            assert head[1] != "segments" and "base segments" in head and '<td class="n">–</td>' not in html
