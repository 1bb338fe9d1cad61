"""The HTML report in a real headless browser (Debian's chromium through Playwright): it opens with no console
error and no request leaving the file, a header click sorts the comparison table, a screenshot is taken.

Runs in CI (``.ci/run`` installs chromium); skipped elsewhere when chromium or Playwright is missing.
``MTSIG_SCREENSHOTS=DIR`` keeps the screenshots.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mtsig.cli import main
from tests.data import WMT_SYSTEMS, unavailable, wmt_hyp, wmt_ref

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        unavailable("the browser test needs chromium (apt-get install chromium) and playwright (the test extra)")
    return path


def _crossed(wmt: Path, folder: Path) -> list[str]:
    """16 systems: for each pair (i, j) of the four WMT22 systems, odd segments from i and even ones from j."""
    lines = {s: Path(wmt_hyp(wmt, s)).read_text(encoding="utf-8").splitlines() for s in WMT_SYSTEMS}
    specs = []
    for i in WMT_SYSTEMS:
        for j in WMT_SYSTEMS:
            name = i if i == j else f"{i[:6]}x{j[:6]}"
            path = folder / f"{name}.txt"
            path.write_text("".join(f"{(lines[i] if k % 2 else lines[j])[k]}\n" for k in range(len(lines[i]))))
            specs.append(f"{name}={path}")
    return specs


def _page(p, chromium: str, report: Path, width: int, errors: list[str], requests: list[str]):
    """The browser and the report opened at ``width`` px, console errors and requests collected."""
    browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    return browser, page


def _json_and_phone_width(page) -> tuple[dict, int]:
    """The result's JSON embedded in the page, and the page's width at a phone's 390 px viewport."""
    import json

    embedded = json.loads(page.inner_text("#mtsig-result"))
    page.set_viewport_size({"width": 390, "height": 800})
    return embedded, page.evaluate("() => document.documentElement.scrollWidth")


def _open(chromium: str, report: Path, shot: Path) -> tuple[list[str], list[str], list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser, page = _page(p, chromium, report, 1366, errors, requests)
        header = "#mtsig-comparisons-bleu thead th:nth-child(10)"  # p adj.
        cells = "els => els.map(e => parseFloat(e.dataset.value))"
        page.click(header)
        up = page.eval_on_selector_all("#mtsig-comparisons-bleu tbody td:nth-child(10)", cells)
        page.click(header)
        down = page.eval_on_selector_all("#mtsig-comparisons-bleu tbody td:nth-child(10)", cells)
        page.screenshot(path=str(shot), full_page=True)
        # a phone's width: the page itself does not scroll sideways (wide tables scroll inside their frame)
        page.set_viewport_size({"width": 390, "height": 800})
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        page.screenshot(path=str(shot.with_name(shot.stem + "-phone.png")))
        page.pdf(path=str(shot.with_suffix(".pdf")))  # as printed
        browser.close()
    assert wide <= 390, f"the page is {wide} px wide at a 390 px viewport"
    return errors, requests, up, down


@pytest.mark.parametrize("case", ["wmt4", "crossed16"])
def test_report_in_headless_chromium(wmt, tmp_path, case):
    chromium = _chromium()
    refs = [wmt_ref(wmt, "A"), wmt_ref(wmt, "B")]
    systems = [f"{s}={wmt_hyp(wmt, s)}" for s in WMT_SYSTEMS] if case == "wmt4" else _crossed(wmt, tmp_path)
    report = tmp_path / f"{case}.html"
    rc = main(["compare", "-r", *refs, "-s", *systems, "-m", "bleu", "nist", "chrf", "--html", str(report), "-q",
               "-o", str(tmp_path / "out.txt")])  # fmt: skip
    assert rc == 0
    keep = os.environ.get("MTSIG_SCREENSHOTS")
    shot = Path(keep) / f"{case}.png" if keep else tmp_path / f"{case}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    errors, requests, up, down = _open(chromium, report, shot)
    assert errors == []
    assert requests == [report.as_uri()]  # the page itself, nothing else
    n_pairs = len(systems) * (len(systems) - 1) // 2
    assert len(up) == n_pairs and up == sorted(up) and down == sorted(up, reverse=True)
    assert shot.stat().st_size > 10_000 and shot.with_suffix(".pdf").stat().st_size > 10_000


def test_hostile_system_names_stay_data_in_the_report(tmp_path):
    """Names that would end the embedded JSON's <script> early or open an HTML comment (``</script>``, ``<!--``),
    quotes, an ampersand and a right-to-left mark: the page has no error and its embedded JSON parses to them."""
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    ex = Path(__file__).resolve().parents[2] / "examples"
    names = ["A<!--<script>", "B</script>\"x'&amp;", "C\u200fD"]
    specs = [f"{n}={ex / f}" for n, f in zip(names, ("base.en", "new.en", "base.en"))]
    report = tmp_path / "hostile.html"
    rc = main(["compare", "-r", str(ex / "ref.A.en"), "-s", *specs, "--html", str(report), "-q",
               "-o", str(tmp_path / "out.txt")])  # fmt: skip
    assert rc == 0
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(report.as_uri())
        page.wait_for_load_state("load")
        parsed = page.evaluate(
            "() => JSON.parse(document.getElementById('mtsig-result').textContent).systems.map(s => s.name)"
        )
        scripts = page.evaluate("() => document.scripts.length")
        browser.close()
    assert errors == []
    assert parsed == names
    assert scripts == 2  # the data and the page's own script, nothing swallowed or added


def test_meta_report_in_headless_chromium(tmp_path):
    """``meta --html`` (issues 46, 47): the page opens with no error and no request, its metrics table sorts by a
    clicked header (numbers by their full-precision data-value), it does not scroll sideways at 390 px, and its
    embedded JSON is the result's."""
    import json

    from tests.data import DATA, need

    chromium = _chromium()
    folder = need(DATA / "mtme-wmt23-ende" / "wmt23")
    report = tmp_path / "meta.html"
    out = tmp_path / "meta.json"
    assert main(["meta", "--mtme", str(folder), "--lp", "en-de", "--n-resamples", "200", "--n-bootstrap", "200",
                 "--html", str(report), "-q", "-f", "json", "-o", str(out)]) == 0  # fmt: skip
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser, page = _page(p, chromium, report, 1280, errors, requests)
        header = "#mtsig-metrics thead th:nth-child(2)"  # pearson
        cells = "els => els.map(e => parseFloat(e.dataset.value))"
        page.click(header)
        up = page.eval_on_selector_all("#mtsig-metrics tbody td:nth-child(2)", cells)
        page.click(header)
        down = page.eval_on_selector_all("#mtsig-metrics tbody td:nth-child(2)", cells)
        n_svg = page.eval_on_selector_all("figure svg", "els => els.length")
        embedded, wide = _json_and_phone_width(page)
        browser.close()
    assert errors == [] and requests == [report.as_uri()]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert embedded == result
    want = sorted(m["pearson"] for m in result["metrics"])
    assert up == pytest.approx(want) and down == pytest.approx(want[::-1])
    assert n_svg == 1 and wide <= 390, wide


def test_human_report_in_headless_chromium(tmp_path):
    """``human --html`` in compare's design (issue 47: its headers did not sort, its ticks were odd values and the
    page scrolled sideways at 390 px): sortable tables, round ticks, no sideways scroll, the JSON of -f json."""
    import json
    import re

    from tests.data import DATA, need

    chromium = _chromium()
    scores = need(DATA / "wmt22-humaneval-toen" / "cs-en" / "ad-seg-scores-cs-en.csv")
    report, out = tmp_path / "human.html", tmp_path / "human.json"
    assert main(["human", str(scores), "--n-bootstrap", "200", "--n-resamples", "2000", "--html", str(report), "-q",
                 "-f", "json", "-o", str(out)]) == 0  # fmt: skip
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser, page = _page(p, chromium, report, 1280, errors, requests)
        cells = "els => els.map(e => parseFloat(e.dataset.value))"
        for table, col in (("#mtsig-ranking", 3), ("#mtsig-tests", 7)):  # score; p adjusted
            page.click(f"{table} thead th:nth-child({col})")
            up = page.eval_on_selector_all(f"{table} tbody td:nth-child({col})", cells)
            assert len(up) > 10 and up == sorted(up), table
        ticks = page.eval_on_selector_all("figure svg text[text-anchor=middle]", "els => els.map(e => e.textContent)")
        embedded, wide = _json_and_phone_width(page)
        browser.close()
    assert errors == [] and requests == [report.as_uri()]
    assert embedded == json.loads(out.read_text(encoding="utf-8"))
    numbers = [t for t in ticks if re.fullmatch(r"-?[\d.]+", t)]
    assert len(numbers) >= 3 and all(len(t.lstrip("-")) <= 4 for t in numbers), ticks  # 0.1, -0.2: round values
    assert wide <= 390, wide
