"""The compiled extensions under AddressSanitizer and UndefinedBehaviorSanitizer.

Copies the package and its tests to a scratch folder, builds the four C extensions there with
``-fsanitize=address,undefined`` (every UB check fatal), and runs the tests that hold each compiled part to its
Python reference and throw hostile sizes, offsets and indices at every entry point (the fuzzing of
``_ter.edits``/``_ter.tercom``, ``_tok``, ``_plan``, ``_meteor`` and ``_meta`` against their references included), with
``PYTHONMALLOC=malloc`` so that small Python blocks are visible to ASan, and the ASan runtime preloaded
(Python itself is not instrumented). Prints a summary: the tests' own result and any sanitizer report.

    python benchmarks/sanitize.py [--keep DIR] [-k EXPR]

Needs gcc (or clang) with its sanitizer runtimes (Debian: gcc's libasan and libubsan). Leak detection is off:
the interpreter keeps its objects to the end by design. The build uses a current setuptools as ``pip install``
does (isolated): installed into the scratch folder when the environment's own is older (a fresh ``python3 -m venv``
has 65.5, which refuses pyproject.toml's license). CI runs it: ``tests/test_sanitizers.py``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the tests that exercise the compiled parts (parity with the Python references, fuzzing, hostile offsets)
TESTS = [
    "tests/test_compiled_offsets.py",
    "tests/test_tokenize_compiled.py",
    "tests/metrics/test_ngram_compiled.py",
    "tests/metrics/test_ter_tercom.py",
    "tests/metrics/test_ter_chrf.py",
    "tests/meteor/test_meteor_compiled.py",
    "tests/meteor/test_meteor_units.py",
    "tests/test_resample.py",
    "tests/test_pcg.py",
    "tests/meta/test_acc23_kernel.py",
    "tests/meta/test_pce_kernel.py",
    "tests/test_hostile.py",
]

FLAGS = "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"


def runtime(cc: str, lib: str) -> str:
    out = subprocess.run([cc, f"-print-file-name={lib}"], capture_output=True, text=True, check=True).stdout.strip()
    if not os.path.isabs(out) or not os.path.exists(out):
        sys.exit(f"{cc} has no {lib} (install its sanitizer runtime, e.g. Debian's libasan8 and libubsan1)")
    return out


#: the setuptools that reads pyproject.toml's ``license = "MIT"`` (PEP 639); Python 3.11's venv bundles 65.5
SETUPTOOLS = "setuptools>=77"


def _build_tools(top: Path) -> str:
    """A folder with a current setuptools for the build (as ``pip install`` builds in an isolated environment with
    the newest one): the environment's own when it is new enough, else installed into ``top/buildtools``."""
    probe = subprocess.run([sys.executable, "-c", "import setuptools; print(setuptools.__version__)"],
                           capture_output=True, text=True)  # fmt: skip
    major = probe.stdout.strip().split(".")[0]
    if probe.returncode == 0 and major.isdigit() and int(major) >= 77:
        return ""
    tools = top / "buildtools"
    got = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(tools), SETUPTOOLS],
                         capture_output=True, text=True)  # fmt: skip
    if got.returncode != 0:
        sys.exit(f"could not install {SETUPTOOLS} for the build: {got.stderr.strip()[-500:]}")
    return str(tools)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", type=Path, default=None, help="build in DIR and keep it (default: a temporary one)")
    ap.add_argument("-k", default=None, help="pytest -k expression (default: every listed test)")
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="mtsig-asan-"))
    try:
        if work.exists():
            shutil.rmtree(work)
        top, work = work, work / "mtsig"  # beside it, shared/ (the real data the parity tests read)
        top.mkdir(parents=True)
        if (ROOT.parent / "shared").exists():
            (top / "shared").symlink_to(ROOT.parent / "shared")
        ignore = shutil.ignore_patterns("*.so", "__pycache__", "*.pyc", ".hypothesis")
        shutil.copytree(ROOT / "src", work / "src", ignore=ignore)
        shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
        shutil.copytree(ROOT / "examples", work / "examples", ignore=ignore)
        shutil.copytree(ROOT / "benchmarks", work / "benchmarks", ignore=ignore)
        for f in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(ROOT / f, work / f)
        env = {**os.environ, "CC": a.cc, "CFLAGS": FLAGS, "LDFLAGS": "-fsanitize=address,undefined"}
        env["PYTHONPATH"] = _build_tools(top)  # the setuptools pip's isolated build would use, not the venv's
        build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work, env=env,
                               capture_output=True, text=True)  # fmt: skip
        built = sorted(p.name for p in (work / "src" / "mtsig").glob("_*.so"))
        if build.returncode != 0 or len(built) != 5:  # _ter, _tok, _meteor, _plan, _meta
            print(build.stdout[-3000:], build.stderr[-3000:], sep="\n")
            sys.exit(f"the sanitized build failed (built: {built})")
        for so in (work / "src" / "mtsig").glob("_*.so"):  # instrumented: linked against the sanitizer runtimes
            links = subprocess.run(["ldd", str(so)], capture_output=True, text=True).stdout
            if "libasan" not in links or "libubsan" not in links:
                sys.exit(f"{so.name} is not linked against libasan and libubsan:\n{links}")
        run_env = {
            **os.environ,
            "PYTHONPATH": str(work / "src") + os.pathsep + str(work),
            "PYTHONMALLOC": "malloc",
            "LD_PRELOAD": runtime(a.cc, "libasan.so"),
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        }
        where = subprocess.run([sys.executable, "-c", "import mtsig._ter as t, mtsig._meteor as m; print(t.__file__)"],
                               cwd=work, env=run_env, capture_output=True, text=True)  # fmt: skip
        if str(work) not in where.stdout:
            sys.exit(f"the sanitized build is not the one imported: {where.stdout.strip()} {where.stderr[-500:]}")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS]
        if a.k:
            cmd += ["-k", a.k]
        tests = subprocess.run(cmd, cwd=work, env=run_env, capture_output=True, text=True)
        text = tests.stdout + tests.stderr
        reports = re.findall(r"(ERROR: AddressSanitizer: [^\n]*|runtime error: [^\n]*)", text)
        summary = next((x for x in reversed(text.splitlines()) if re.search(r"\d+ (passed|failed)", x)), "no summary")
        print(f"sanitized build: {', '.join(built)} ({FLAGS})")
        print(f"tests ({len(TESTS)} files): {summary.strip()}")
        print(f"sanitizer reports: {len(reports)}")
        for r in dict.fromkeys(reports):
            print("  " + r)
        if tests.returncode != 0:
            print(text[-4000:])
        return 0 if tests.returncode == 0 and not reports else 1
    finally:
        if a.keep is None:
            shutil.rmtree(work.parent if work.name == "mtsig" else work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
