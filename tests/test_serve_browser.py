"""``mtsig serve`` in Debian's chromium (Playwright), at 1280 and 390 px, as a person uses it: a form per command,
filled and sent; the run's page with the command line's numbers (a comparison's clusters, interval of Δ and
"humans agree"; an analysis's every Δ at its decimals; a ranking's rank ranges and clusters; metrics' every
statistic); the matrix, its rows and the report's sortable headers used with the keyboard alone; nothing wider
than the screen, no console error, no request to anywhere else. ``MTSIG_SCREENSHOTS=DIR`` keeps the screenshots."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from tests.test_serve import EX, cli_bytes, copies
from tests.test_serve_process import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _inputs(tmp: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    judged = tmp / "judged.tsv"
    systems = ("low", "mid", "high", "top")
    judged.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{i}\t{rng.normal() + k * 0.4:.3f}\n"
                      for k, s in enumerate(systems) for i in range(40)), encoding="utf-8")  # fmt: skip
    names = [f"sys{k}" for k in range(6)]
    quality = np.linspace(0, 1, 6)
    human = tmp / "human.tsv"
    human.write_text("system\tsegment\tscore\n" + "".join(f"{s}\t{i}\t{q + rng.normal(0, .5):.3f}\n"
                     for s, q in zip(names, quality) for i in range(40)), encoding="utf-8")  # fmt: skip
    out = {"judged": judged, "human": human}
    for metric, noise in (("good", 0.05), ("fair", 0.3), ("poor", 0.6)):
        f = tmp / f"{metric}.sys"
        f.write_text("".join(f"{s} {q + rng.normal(0, noise):.4f}\n" for s, q in zip(names, quality)))
        out[metric] = f
    return out


def _send(page, command: str, files: dict[str, list[Path]], check: tuple[str, ...] = ()) -> None:
    page.goto(page.base + f"/?command={command}")
    for name, paths in files.items():
        page.set_input_files(f"input[type=file][name={name}]", [str(p) for p in paths])
    for selector in check:
        page.check(selector)
    page.click("button[type=submit]")
    page.wait_for_selector("iframe#report", timeout=120_000)


def _report(page):
    frame = page.frame_locator("iframe#report")
    frame.locator("#explore, h1").first.wait_for()
    return frame


def _shot(page, shots, name):
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"{name}.png"), full_page=True)


def _cells(frame, selector: str) -> list[str]:
    return [t.strip() for t in frame.locator(selector).all_inner_texts()]


def test_every_command_in_a_browser(tmp_path):
    from tests.report.test_browser import _chromium

    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    data = _inputs(tmp_path)
    shots = os.environ.get("MTSIG_SCREENSHOTS")
    server = Server(tmp_path / "results")
    errors: list[str] = []
    requests: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.base = server.base
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            _compare(page, tmp_path, shots)
            _analyze(page, tmp_path, shots)
            _human(page, data, tmp_path, shots)
            _meta(page, data, tmp_path, shots)
            _narrow(browser, server.base, shots, errors)
            browser.close()
    finally:
        server.stop()
    assert not errors, errors
    assert all(u.startswith(server.base + "/") for u in requests), [
        u for u in requests if not u.startswith(server.base)
    ]


def _compare(page, tmp: Path, shots) -> None:
    """Upload and compare; the report's clusters, Δ interval and humans-agree; the matrix by keyboard alone."""
    _send(page, "compare", {"ref": [EX / "ref.A.en"], "systems": [EX / "base.en", EX / "new.en"],
                            "docids": [EX / "ref.docids"]}, ("input[name=metrics][value=chrf]",))  # fmt: skip
    frame = _report(page)
    command = page.inner_text("#command")
    assert command == "mtsig compare -r ref.A.en -s base=base.en new=new.en --docids ref.docids -m bleu chrf -f json"
    folder = copies(tmp / "cmp", EX / "ref.A.en", EX / "base.en", EX / "new.en", EX / "ref.docids")
    text = cli_bytes(command.replace("-f json", "-f text"), folder).decode("utf-8")
    result = json.loads(cli_bytes(command, folder))
    body = frame.locator("body").inner_text()
    assert "{new} > {base}" in body.replace("  ", " ") and "{new}  >  {base}" in text  # the clusters
    for c in result["comparisons"]:  # Δ, its interval, p, humans agree: as the text prints them
        d = 2
        for x in (c["delta"], c["delta_ci"][0] if isinstance(c["delta_ci"], list) else c["delta_ci"]["low"]):
            assert f"{x:.{d}f}" in text and f"{x:.{d}f}" in body
        if c.get("human_agreement"):
            share = f"{c['human_agreement']['accuracy']:.0%}"
            assert share in text and share in body
    _shot(page, shots, "serve-compare-1280")
    # keyboard alone: Tab from the last filter reaches the matrix; Enter opens the pair's segments
    frame.locator("#filters select, #filters input, #filters button").last.focus()
    page.keyboard.press("Tab")
    assert frame.locator(":focus").get_attribute("data-a") is not None  # a matrix cell has the focus
    page.keyboard.press("Enter")
    frame.locator("#segments-title").wait_for()
    assert frame.locator("#segments-title").inner_text() == "base vs new: segments (bleu)"
    assert frame.locator(":focus").get_attribute("id") == "segments-title"  # the keyboard follows to what opened
    assert frame.locator("#segment-list .seg").count() == 40
    # a filter changed with the keyboard keeps the focus
    frame.locator("#filter-metric").focus()
    page.keyboard.press("ArrowDown")
    assert frame.locator(":focus").get_attribute("id") == "filter-metric"
    assert "chrf" in frame.locator("#segments-title").inner_text()
    # every cell and row that opens something is reachable (in the tab order) and says what it holds
    for sel in ("#matrix td[data-a]", "#comparisons tbody tr"):
        for el in frame.locator(sel).all():
            assert el.get_attribute("tabindex") == "0" and el.get_attribute("role") == "button"
    cell = frame.locator("#matrix td.up, #matrix td.down").first
    assert "*" in cell.inner_text() and "significant" in cell.get_attribute("aria-label")
    # the report's sortable headers by keyboard
    th = frame.locator("table.sortable th").nth(4)
    th.focus()
    page.keyboard.press("Enter")
    assert th.get_attribute("aria-sort") == "ascending"
    page.keyboard.press(" ")
    assert th.get_attribute("aria-sort") == "descending"
    # the colours that mark significance stand out from the page (3:1 at least)
    colours = frame.locator("#matrix td.up, #matrix td.down").evaluate_all(
        "els => els.map(e => getComputedStyle(e).backgroundColor)")  # fmt: skip
    assert colours and all(_contrast(c, "rgb(255, 255, 255)") >= 3 for c in colours), colours


def _contrast(a: str, b: str) -> float:
    def lum(c: str) -> float:
        r, g, bb = (int(x) / 255 for x in re.findall(r"\d+", c)[:3])
        f = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in (r, g, bb)]
        return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _analyze(page, tmp: Path, shots) -> None:
    """Every Δ of the explorer's bucket tables as the command line prints it (analyze's decimals, its sign)."""
    _send(page, "analyze", {"ref": [EX / "ref.A.en"], "systems": [EX / "base.en", EX / "new.en"]},
          ("input[name=by][value=ref-length]", "input[name=by][value=word-frequency]"))  # fmt: skip
    frame = _report(page)
    command = page.inner_text("#command")
    folder = copies(tmp / "an", EX / "ref.A.en", EX / "base.en", EX / "new.en")
    text = cli_bytes(command.replace("-f json", "-f text"), folder).decode("utf-8")
    result = json.loads(cli_bytes(command, folder))
    shown = []
    for i, a in enumerate(result["analyses"]):
        if not a.get("buckets"):
            continue
        cells = _cells(frame, f"#bucket-{i} tbody td:nth-child(4)")
        want = [f"{c['delta']:+.{a['decimals']}f}" for b in a["buckets"] for c in b["comparisons"]]
        assert cells == want, (a["kind"], cells, want)
        assert all(w in text for w in want)
        shown += cells
    assert any("." in x and len(x.split(".")[1]) == 4 for x in shown)  # word F-measure at four decimals
    assert any(len(x.split(".")[1]) == 2 for x in shown)  # BLEU at two
    row = frame.locator("table[data-kind=ref-length] tr.click").first
    row.focus()
    page.keyboard.press("Enter")
    frame.locator("#segments-title").wait_for()
    assert frame.locator("#segments-title").inner_text().startswith("ref-length ")
    _shot(page, shots, "serve-analyze-1280")


def _human(page, data, tmp: Path, shots) -> None:
    """The ranking with its rank ranges, intervals and clusters, as the text prints them."""
    _send(page, "human", {"judgments": [data["judged"]]})
    frame = _report(page)
    command = page.inner_text("#command")
    text = cli_bytes(command.replace("-f json", "-f text"), tmp).decode("utf-8")
    result = json.loads(cli_bytes(command, tmp))
    body = frame.locator("body").inner_text()
    for s in result["systems"]:
        lo, hi = s["rank_range"]
        rank = str(lo) if lo == hi else f"{lo}-{hi}"
        assert re.search(rf"\b{re.escape(rank)}\b", text) and re.search(rf"\b{re.escape(rank)}\b", body), s["name"]
        for x in (s["score"], *s["ci"]):
            assert f"{x:.3f}" in text and f"{x:.3f}" in body
    assert "cluster" in body and "Δ (B − A)" in body
    _shot(page, shots, "serve-human-1280")


def _meta(page, data, tmp: Path, shots) -> None:
    """Every statistic of metrics against humans, with its interval and clusters, as the text prints them."""
    _send(page, "meta", {"judgments": [data["human"]], "metric": [data["good"], data["fair"], data["poor"]]})
    frame = _report(page)
    command = page.inner_text("#command")
    text = cli_bytes(command.replace("-f json", "-f text"), tmp).decode("utf-8")
    result = json.loads(cli_bytes(command, tmp))
    body = frame.locator("body").inner_text()
    stats = [k for k in ("pearson", "spearman", "kendall", "pairwise_accuracy") if k in result["metrics"][0]]
    assert len(stats) >= 3, result["metrics"][0]
    for m in result["metrics"]:
        for k in stats:
            if m.get(k) is not None:
                x = f"{m[k]:.3f}"
                assert x in text and x in body, (m["name"], k, x)
    assert "clusters" in body.lower() and "0 segment(s)" not in body
    _shot(page, shots, "serve-meta-1280")


def _narrow(browser, base: str, shots, errors: list[str]) -> None:
    """At 390 px: the home page of every command and a run's page fit the screen."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.on("pageerror", lambda e: errors.append(str(e)))
    for command in ("compare", "analyze", "score", "human", "meta"):
        page.goto(base + f"/?command={command}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 391, (command, width)
    if shots:
        page.goto(base + "/?command=compare")
        page.screenshot(path=str(Path(shots) / "serve-home-390.png"), full_page=True)
    page.goto(base + "/")
    page.click("#runs a")
    page.wait_for_selector("iframe#report")
    assert page.evaluate("document.documentElement.scrollWidth") <= 391
    if shots:
        page.screenshot(path=str(Path(shots) / "serve-run-390.png"), full_page=True)
    page.close()


def test_the_view_writes_numbers_as_python_does():
    """The explorer's number writing (ties to even on the exact binary value, p-values as format_p), run in chromium
    against Python's own on numbers that tie, round and underflow."""
    from tests.report.test_browser import _chromium

    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    from mtsig.report.explore import _VIEW_JS
    from mtsig.report.table import format_p

    js = _VIEW_JS[_VIEW_JS.index("function fixed") : _VIEW_JS.index("var names")]
    xs = [0.125, 0.375, 2.5, 3.5, -0.125, 1.005, 2.675, 1e-7, 123.456, -2.5, 0.5, 1.5, 19.125, 0.0]
    ps = [1.0, 0.05, 0.00015, 0.0001, 9.99e-5, 2.3e-7, 0.123456]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        got = page.evaluate(f"() => {{ {js} return [{json.dumps(xs)}.map(x => [0, 1, 2, 3].map(d => fixed(x, d))),"
                            f"{json.dumps(ps)}.map(fmtp)]; }}")  # fmt: skip
        browser.close()
    assert got[0] == [[f"{x:.{d}f}" for d in range(4)] for x in xs]
    assert got[1] == [format_p(x) for x in ps]
