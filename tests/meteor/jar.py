"""The official METEOR 1.5 jar as a test oracle (Java is needed by the tests only, never by mtsig).

Tests that use it are marked ``java``: they run in CI (and fail there if Java is missing) and are skipped
elsewhere when ``java`` is absent. The jar loads its paraphrase table for ~10 s at start-up: jobs with the same
flags share one jar, run in its ``-stdio`` mode (each segment's ``SCORE``, then one ``EVAL`` of the job's
statistics: the same segment and system scores as a run on files, checked when this was written: 200 WMT22 segments,
largest difference 0.0), two jars at a time.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
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


def _run_stdio(jobs: dict, flags: list[str]) -> dict:
    """Jobs of the same flags in one jar (``-stdio``): ``{name: (hyp, refs)}`` -> ``{name: (segments, system)}``."""
    java = need_java()
    cmd = [java, "-Xmx2G", "-Dfile.encoding=UTF-8", "-jar", str(jar_path()), "-", "-", "-stdio", *flags]
    out = {}
    with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8") as jar:
        assert jar.stdin is not None and jar.stdout is not None
        # a jar that stops answering is stopped (its next read is then empty, and the test fails saying so)
        # instead of holding the test run
        watchdog = threading.Timer(JAR_SECONDS, jar.kill)
        watchdog.daemon = True
        watchdog.start()
        for name, (hyp, refs) in jobs.items():
            stats = []
            for i, h in enumerate(hyp):
                jar.stdin.write("SCORE ||| " + " ||| ".join(r[i] for r in refs) + f" ||| {h}\n")
                jar.stdin.flush()
                stats.append(jar.stdout.readline().strip())
            jar.stdin.write("EVAL ||| " + " ||| ".join(stats) + "\n")
            jar.stdin.flush()
            segs = [_number(jar.stdout.readline()) for _ in stats]
            out[name] = (segs, _number(jar.stdout.readline()))
        jar.stdin.close()
        watchdog.cancel()
    return out


#: the longest one jar may take for its group of jobs
JAR_SECONDS = 600


def _number(line: str) -> float:
    if not line:
        raise AssertionError(f"the METEOR jar stopped answering (ended, or stopped after {JAR_SECONDS} s)")
    return float(line)


def run_many(jobs: dict, workers: int = 2) -> dict:
    """``{name: (hyp, refs, flags)}`` -> ``{name: (segment scores, system score)}``: one jar per set of flags."""
    groups: dict[tuple, dict] = {}
    for name, (hyp, refs, flags) in jobs.items():
        groups.setdefault(tuple(flags), {})[name] = (hyp, refs)
    parts = []  # a set of flags with many jobs in halves, one jar each: the two jars then carry like work
    for flags, group in sorted(groups.items(), key=lambda kv: -sum(len(h) for h, _ in kv[1].values())):
        names = list(group)
        halves = [names[: len(names) // 2], names[len(names) // 2 :]] if len(names) >= 4 else [names]
        parts += [(flags, {n: group[n] for n in half}) for half in halves]
    with ThreadPoolExecutor(workers) as pool:
        futs = [pool.submit(_run_stdio, group, list(flags)) for flags, group in parts]
        out = {}
        for f in futs:
            out.update(f.result())
    return {k: out[k] for k in jobs}


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
