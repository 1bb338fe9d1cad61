"""The official METEOR 1.5 jar as a test oracle (Java is needed by the tests only, never by mtsig).

Tests that use it are marked ``java``: they run in CI (and fail there if Java is missing) and are skipped
elsewhere when ``java`` is absent. Jobs run two at a time (the jar loads its paraphrase table for ~10 s).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.data import unavailable


def need_java() -> str:
    java = shutil.which("java")
    if java is None:
        unavailable("the METEOR parity tests run meteor-1.5.jar and need Java")
    return java


def jar_path() -> Path:
    from mtsig.meteor.resources import find_jar

    return find_jar(None)


_SEG = re.compile(r"^Segment (\d+) score:\t(\S+)$")
_FINAL = re.compile(r"^Final score:\s+(\S+)$")


def run_jar(hyp: list[str], refs: list[list[str]], flags: list[str]) -> tuple[list[float], float]:
    """Segment scores and the system score of the jar on ``hyp`` against ``refs`` (several references are
    interleaved in one file with ``-r N``, as the jar reads them)."""
    java = need_java()
    with tempfile.TemporaryDirectory() as d:
        h, r = Path(d) / "hyp", Path(d) / "ref"
        h.write_text("".join(x + "\n" for x in hyp), encoding="utf-8")
        r.write_text("".join(x + "\n" for row in zip(*refs) for x in row), encoding="utf-8")
        cmd = [java, "-Xmx2G", "-Dfile.encoding=UTF-8", "-jar", str(jar_path()), str(h), str(r), *flags]
        if len(refs) > 1:
            cmd += ["-r", str(len(refs))]
        out = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", check=True).stdout
    segs, final = [], None
    for line in out.splitlines():
        m = _SEG.match(line)
        if m:
            segs.append(float(m.group(2)))
        m = _FINAL.match(line)
        if m:
            final = float(m.group(1))
    assert final is not None and len(segs) == len(hyp), out[-2000:]
    return segs, final


def run_many(jobs: dict, workers: int = 2) -> dict:
    """``{name: (hyp, refs, flags)}`` -> ``{name: (segment scores, system score)}``."""
    with ThreadPoolExecutor(workers) as pool:
        futs = {k: pool.submit(run_jar, *v) for k, v in jobs.items()}
        return {k: f.result() for k, f in futs.items()}


def stem_words(words: list[str], lang: str) -> list[str]:
    """The jar's Snowball stems (its ``Stemmer`` class leaves numbers alone; they are not passed here)."""
    java = need_java()
    out = subprocess.run(
        [java, "-Dfile.encoding=UTF-8", "-cp", str(jar_path()), "Stemmer", lang],
        input="".join(w + "\n" for w in words),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    ).stdout
    return out.split("\n")[: len(words)]
