"""The documentation: the API's examples run as doctests, the site builds from the sources with zero warnings
(``mkdocs build --strict``, the API reference generated from the docstrings), and every relative link of the README
and the docs points at a file that exists (issue 41)."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_apis_examples_run():
    import mtsig.api

    result = doctest.testmod(mtsig.api, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


def test_the_site_builds_with_zero_warnings(tmp_path):
    try:
        import mkdocs  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must build the documentation site: mkdocs and mkdocstrings-python are missing")
        pytest.skip("mkdocs and mkdocstrings-python are not installed (the test extra has them)")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    warnings = [x for x in r.stderr.splitlines() if x.startswith("WARNING")]
    assert warnings == []
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "{parameters}" not in api and "Accept empty reference segments" in api  # generated keyword docs


def _links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold commands, not links
    return [m for m in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in m and not m.startswith("#")]


@pytest.mark.parametrize("page", ["README.md", *sorted(p.name for p in (ROOT / "docs").glob("*.md"))])
def test_every_relative_link_points_at_a_file(page):
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    for link in _links(path):
        target = (path.parent / link.split("#")[0]).resolve()
        assert target.exists(), f"{page}: {link} points at nothing"


def test_the_readme_is_a_newcomers_page():
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= 3000, words


#: the guide's pages, one per task
GUIDE_PAGES = ("scores", "test-sets", "compare", "analyze", "runs", "figures", "studies", "serve", "python")


@pytest.mark.slow
def test_the_site_in_headless_chromium(tmp_path):
    """Every page of the built site opened in Debian's chromium: no console error, no request leaving the site
    (highlight.js came from a CDN before: offline, two errors per page), the guide's sections in the sidebar, and
    the API page without raw Sphinx roles."""
    from tests.report.test_browser import _chromium

    try:
        import mkdocs  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must build the documentation site: mkdocs is missing")
        pytest.skip("mkdocs is not installed (the test extra has it)")
    chromium = _chromium()
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    import functools
    import http.server
    import threading

    from playwright.sync_api import sync_playwright

    pages = sorted(p for p in site.rglob("index.html") if "search" not in p.parts)
    assert len(pages) >= 11
    # served as a site is (the search's web worker cannot load from file://), on a free loopback port
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    outside, errors, seen = [], [], set()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda q: outside.append(q.url) if not q.url.startswith(base) else None)
        for html in pages:
            page.goto(base + html.relative_to(site).as_posix())
            page.wait_for_load_state("networkidle")
            if html.parent.name == "guide":  # the guide's overview links every task page
                links = page.eval_on_selector_all("a", "els => els.map(e => e.getAttribute('href'))")
                assert {f"{t}/" for t in GUIDE_PAGES} <= set(links), links
            if html.parent.parent.name == "guide":  # a task page: its sections in the sidebar
                toc = page.eval_on_selector_all(".bs-sidebar a", "els => els.map(e => e.textContent)")
                seen.add(html.parent.name)
                assert len(toc) >= 2 and page.title(), (html, toc)
                if html.parent.name == "compare":
                    assert any("Score once" in t for t in toc), toc
            if html.parent.name == "api":
                assert ":class:" not in page.content() and "CompareResult" in page.content()
        browser.close()
    server.shutdown()
    assert outside == [] and errors == [], (outside[:5], errors[:5])
    assert seen == set(GUIDE_PAGES), seen


def test_the_guide_s_example_outputs_are_what_the_commands_print():
    """Each ``<!-- output: CMD -->`` block of the guide is CMD's output now, at 110 columns, on the shipped
    example: the pasted output cannot drift from what mtsig prints."""
    import re

    found = 0
    for page in sorted((ROOT / "docs" / "guide").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for cmd, shown in re.findall(r"<!-- output: (.+?) -->\n```text\n(.*?)```\n", text, flags=re.S):
            found += 1
            argv = cmd.split()
            assert argv[0] == "mtsig"
            env = {**os.environ, "COLUMNS": "110"}
            r = subprocess.run([sys.executable, "-m", "mtsig", *argv[1:], "-q"], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=300)  # fmt: skip
            assert r.returncode == 0, r.stderr
            assert r.stdout == shown, (page.name, cmd)
    assert found >= 3


def test_the_guide_s_python_example_prints_what_is_shown():
    """The guide's ``<!-- python-output -->`` example, run from the repository's folder, prints the text block
    shown under it."""
    import re

    text = (ROOT / "docs" / "guide" / "python.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- python-output -->\n```python\n(.*?)```\n\n```text\n(.*?)```\n", text, flags=re.S)
    assert blocks
    for code, shown in blocks:
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert r.stdout == shown
