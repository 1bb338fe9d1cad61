"""The command line: score/compare/stats/metrics on the shipped example, formats, stdin, statistics files."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtsig.cli import main
from mtsig.table import StatsTable

EX = Path(__file__).resolve().parents[1] / "examples"
REFS = [str(EX / "ref.A.en"), str(EX / "ref.B.en")]
SYS = [f"base={EX / 'base.en'}", f"new={EX / 'new.en'}"]


def run(capsys, *args) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_score_text_and_json(capsys):
    rc, out, _ = run(capsys, "score", "-r", *REFS, "-s", *SYS, "-m", "bleu", "nist", "mbleu", "length")
    assert rc == 0 and "base" in out and "new" in out and "mtsig:bleu|n:4|tok:13a" in out
    rc, out, _ = run(capsys, "score", "-r", *REFS, "-s", *SYS, "-m", "bleu", "nist", "-f", "json")
    d = json.loads(out)
    assert [s["name"] for s in d["systems"]] == ["base", "new"]
    assert d["systems"][0]["files"] == [str(EX / "base.en")]
    assert set(d["systems"][1]["scores"]) == {"bleu", "nist"}
    assert d["systems"][1]["scores"]["bleu"]["score"] > d["systems"][0]["scores"]["bleu"]["score"]


def test_score_with_ci_reports_seed_and_interval(capsys):
    rc, out, _ = run(
        capsys, "score", "-r", *REFS, "-s", *SYS, "--ci", "--ci-method", "bca", "--seed", "3", "-f", "json"
    )
    d = json.loads(out)
    e = d["systems"][0]["scores"]["bleu"]
    assert d["settings"]["seed"] == 3 and e["ci_method"] == "bca"
    assert e["ci"][0] < e["score"] < e["ci"][1]


@pytest.mark.parametrize("fmt", ["csv", "markdown", "latex", "text"])
def test_compare_formats(capsys, fmt):
    rc, out, _ = run(capsys, "compare", "-r", *REFS, "-s", *SYS, "-m", "bleu", "--n-resamples", "500", "-f", fmt)
    assert rc == 0
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert rows[0]["a"] == "base" and rows[0]["b"] == "new" and float(rows[0]["p_value"]) <= 1
    elif fmt == "latex":
        assert "\\toprule" in out and "\\caption{" in out
    elif fmt == "markdown":
        assert out.startswith("| metric |")
    else:
        assert "seed 12345" in out


def test_stats_file_round_trip(capsys, tmp_path):
    f = tmp_path / "s.npz"
    rc, _, err = run(capsys, "stats", "-r", *REFS, "-s", *SYS, "-m", "bleu", "nist", "-o", str(f))
    assert rc == 0 and "wrote statistics" in err
    t = StatsTable.load(str(f))
    assert t.system_names == ["base", "new"] and set(t.metrics) == {"bleu", "nist"}
    assert t.stats["bleu"]["new"].shape == (1, 40, 10)
    rc, direct, _ = run(
        capsys, "compare", "-r", *REFS, "-s", *SYS, "-m", "bleu", "nist", "-f", "json", "--n-resamples", "300"
    )
    rc, via_file, _ = run(capsys, "compare", "--stats", str(f), "-f", "json", "--n-resamples", "300")
    assert json.loads(direct) == json.loads(via_file)
    rc, out, _ = run(capsys, "score", "--stats", str(f), "-m", "nist", "-f", "json")
    assert list(json.loads(out)["systems"][0]["scores"]) == ["nist"]
    meta = json.loads(str(np.load(f)["meta"]))
    assert meta["format"] == "mtsig-stats" and meta["metrics"][0]["stat_names"][0] == "hyp_len"


def test_not_a_stats_file(capsys, tmp_path):
    p = tmp_path / "x.npz"
    p.write_text("hello")
    rc, _, err = run(capsys, "score", "--stats", str(p))
    assert rc == 2 and "not an mtsig statistics file" in err


def test_stdin_system_and_runs(tmp_path):
    cmd = [sys.executable, "-m", "mtsig.cli", "score", "-r", *REFS, "-s", "x=-", "-f", "json"]
    p = subprocess.run(cmd, input=(EX / "new.en").read_text(), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["systems"][0]["name"] == "x"
    (tmp_path / "r.0").write_text((EX / "base.en").read_text())
    (tmp_path / "r.1").write_text((EX / "new.en").read_text())
    rc = main(["score", "-r", *REFS, "-s", f"runs={tmp_path}/r.*", "-o", str(tmp_path / "o.json"), "-f", "json"])
    d = json.loads((tmp_path / "o.json").read_text())
    assert rc == 0 and len(d["systems"][0]["scores"]["bleu"]["runs"]) == 2


def test_metrics_listing(capsys):
    rc, out, _ = run(capsys, "metrics")
    assert rc == 0 and "bleu" in out and "nist" in out and "higher is better" in out


def test_parallel_scoring_gives_identical_arrays(wmt, monkeypatch):
    import mtsig
    import mtsig.executor

    monkeypatch.setattr(mtsig.executor, "MIN_FORK_WORK", 0)  # workers even for this little work
    started = []
    monkeypatch.setattr(mtsig.executor.ProcessExecutor, "map", _spy(mtsig.executor.ProcessExecutor.map, started))
    from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref

    refs = [wmt_ref(wmt, "A"), wmt_ref(wmt, "B")]
    systems = {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS}
    serial = mtsig.compute(refs, systems, ["bleu", "nist", "length"], jobs=1)
    parallel = mtsig.compute(refs, systems, ["bleu", "nist", "length"], jobs=3)
    for m in serial.metrics:
        for s in WMT_SYSTEMS:
            np.testing.assert_array_equal(serial.stats[m][s], parallel.stats[m][s])
        assert serial.signatures[m] == parallel.signatures[m]
    assert started  # the parallel run did use worker processes


def _spy(fn, calls: list):
    def wrapper(*a, **k):
        calls.append(1)
        return fn(*a, **k)

    return wrapper


def test_parallel_scoring_reports_errors(tmp_path):
    import mtsig
    from mtsig.executor import ProcessExecutor

    def boom(x):
        if x == 3:
            raise mtsig.InputError("bad item 3")
        return x * 2

    assert ProcessExecutor(3).map(lambda x: x * 2, list(range(7))) == [0, 2, 4, 6, 8, 10, 12]
    with pytest.raises(mtsig.InputError, match="bad item 3"):
        ProcessExecutor(2).map(boom, list(range(7)))


def test_process_pool_spawned_workers_give_the_same_results():
    """Where workers are spawned (macOS, Windows), a module-level function and plain items cross by pickle."""
    import math

    from mtsig.executor import ProcessExecutor

    ticks = []
    assert ProcessExecutor(2, "spawn").map(math.factorial, list(range(12)), ticks.append) == [
        math.factorial(x) for x in range(12)
    ]
    assert sum(ticks) == 12


def test_a_worker_that_dies_is_an_error():
    import os

    from mtsig.executor import ProcessExecutor

    def die(x):
        if x == 2:
            os._exit(3)
        return x

    with pytest.raises(RuntimeError, match="died"):
        ProcessExecutor(2).map(die, list(range(5)))


def _example_args():
    return ["-r", "examples/ref.A.en", "-s", "base=examples/base.en", "new=examples/new.en"]


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("{tmp}", "is a directory"),
        ("{tmp}/no/such/folder/out.json", "does not exist"),
        ("examples/base.en", "is also an input (examples/base.en); refusing to overwrite it"),
    ],
)
def test_bad_output_paths_are_one_line_errors(tmp_path, capsys, output, message):
    before = open("examples/base.en", encoding="utf-8").read()
    rc = main(["score", *_example_args(), "-o", output.format(tmp=tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("mtsig: error: --output") and message in err and err.count("\n") == 1
    assert open("examples/base.en", encoding="utf-8").read() == before


def test_damaged_or_edited_statistics_files_are_refused(tmp_path, capsys):
    import json
    import zipfile

    import numpy as np

    path = tmp_path / "s.npz"
    assert main(["stats", *_example_args(), "-m", "bleu", "-o", str(path)]) == 0
    capsys.readouterr()
    z = dict(np.load(path))
    meta = json.loads(str(z["meta"]))

    def write(name, meta, arrays):
        p = tmp_path / name
        np.savez(p, meta=np.array(json.dumps(meta)), **arrays)
        return p

    from mtsig.table import _checksum

    def signed(meta, arrays):  # a crafted file whose checksum was recomputed: the checksum cannot catch it
        m = {k: v for k, v in meta.items() if k != "checksum"}
        return m | {"checksum": _checksum(m, arrays)}

    def changed(**edit):  # the arrays with one statistic set, e.g. bleu::0=((0, 0, 2), 99.0)
        out = {k: v.copy() for k, v in arrays.items()}
        for key, (where, value) in edit.items():
            out[key.replace("__", "::")][where] = value
        return out

    arrays = {k: v for k, v in z.items() if k != "meta"}
    edited = json.loads(json.dumps(meta))
    edited["metrics"][0]["options"]["bleu_order"] = 2  # the 0.1.0 reproduction: BLEU 357.97, exit 0
    old = {k: v for k, v in edited.items() if k != "checksum"} | {"format_version": 1}
    nan = changed(bleu__0=((0, 0, 0), np.nan))
    more = changed(bleu__0=((0, 0, 2), 10_000.0))  # matches of order 1 above the n-grams of order 1
    negative = changed(bleu__0=((0, 3, 0), -5.0))
    fraction = changed(bleu__0=((0, 3, 0), 2.5))
    no_systems = json.loads(json.dumps(meta)) | {"systems": []}
    twice = json.loads(json.dumps(meta))
    twice["systems"][1]["name"] = twice["systems"][0]["name"]
    cases = {
        write("edited.npz", edited, arrays): "checksum",
        write("v1.npz", old, arrays): "written by an older mtsig (format 1, without a checksum)",
        write("signed-edited.npz", signed(edited, arrays), arrays): "the file was edited or damaged",
        write("missing.npz", signed(meta, {}), {}): "are missing",
        write("nan.npz", signed(meta, nan), nan): "NaN or infinite statistics",
        write("more.npz", signed(meta, more), more): "more matches than n-grams (match_1 > total_1)",
        write("negative.npz", signed(meta, negative), negative): "negative statistics, which bleu never produces",
        write("fraction.npz", signed(meta, fraction), fraction): "fractional counts",
        write("none.npz", signed(no_systems, {}), {}): "holds no system",
        write("twice.npz", signed(twice, arrays), arrays): "appear more than once",
    }
    broken = tmp_path / "broken.npz"
    broken.write_bytes(path.read_bytes()[:200])
    cases[broken] = "damaged"
    with zipfile.ZipFile(tmp_path / "junk.npz", "w") as zf:
        zf.writestr("meta.npy", b"not numpy")
    cases[tmp_path / "junk.npz"] = "damaged"
    for p, message in cases.items():
        rc = main(["score", "--stats", str(p), "-f", "json"])
        err = capsys.readouterr().err
        assert rc == 2 and message in err and err.count("\n") == 1, (p.name, err)
    assert main(["score", "--stats", str(path), "-f", "json"]) == 0  # the untouched file still reads


def test_reports_survive_being_pasted(tmp_path, capsys):
    """LaTeX, Markdown and text keep system names and notes intact (issue 10's reproductions)."""
    r, a, b = tmp_path / "r", tmp_path / "a", tmp_path / "b"
    r.write_text("a cat sat\nthe dog ran\n" * 6)
    a.write_text("a cat sat\nthe dog\n" * 6)
    b.write_text("a cat\nthe dog ran\n" * 6)
    name = "x$^~{}_&%|"
    args = ["compare", "-r", str(r), "-s", f"{name}={a}", f"B={b}"]
    assert main([*args, "-f", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"x\$\textasciicircum{}\textasciitilde{}\{\}\_\&\%\textbar{}" in tex
    assert r"95\% CI of $\Delta$" in tex and r"\textbackslash" not in tex
    assert "Δ" not in tex and "(1-alpha)^k" not in tex and r"\begin{tabular}{lllrrrrlrrl}" in tex
    assert tex.count("&") == tex.count(r"\&") + 10 * 2  # 11 columns: 10 separators in the header and the row
    assert main([*args, "-f", "markdown"]) == 0
    md = capsys.readouterr().out
    assert r"x$^~{}_&%\|" in md and "\n- \\* = significant" in md
    assert all(line.count("|") - line.count("\\|") == 12 for line in md.splitlines() if line.startswith("| "))
    assert main(["score", "-r", str(r), "-s", f"x_1={a}", "-f", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\caption{Signatures: bleu: mtsig:bleu\textbar{}n:4" in tex and r"x\_1" in tex
    assert main([*args, "-f", "text"]) == 0
    out = capsys.readouterr().out
    assert "score A ┃ score B" in out and "┃ sig." in out


def test_score_json_always_has_settings(capsys):
    """Issue 10: without --ci the score JSON had no settings at all (so no signature beside the numbers)."""
    assert main(["score", *_example_args(), "-m", "bleu", "length", "--format", "json"]) == 0
    st = json.loads(capsys.readouterr().out)["settings"]
    assert st["n_segments"] == 40 and set(st["signatures"]) == {"bleu", "length"}
    assert st["signatures"]["bleu"].startswith("mtsig:bleu|n:4|") and "seed" not in st  # nothing was resampled
    assert main(["score", *_example_args(), "-m", "bleu", "--ci", "--format", "json"]) == 0
    st = json.loads(capsys.readouterr().out)["settings"]
    assert st["seed"] == 12345 and st["n_bootstrap"] == 1000 and st["ci_method"] == "percentile"


def test_unwritable_output_as_an_unprivileged_user():
    """An --output in a folder the user cannot write to: one line, exit 2, before any work. Root may write
    anywhere, so under root (CI containers) a forked child drops to ``nobody`` before running the command
    (everything it needs is imported first: the interpreter's own files may not be readable by nobody)."""
    import pwd
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="mtsig-ro-"))  # pytest's tmp_path is private to its user
    folder.chmod(0o755)
    locked = folder / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    for name in ("ref.A.en", "base.en"):  # inputs nobody can read wherever the clone lives
        shutil.copy(EX / name, folder / name)
        (folder / name).chmod(0o644)
    args = ["score", "-r", str(folder / "ref.A.en"), "-s", str(folder / "base.en"), "-q"]
    assert main([*args, "-o", str(folder / "ok.txt")]) == 0  # imports all the command uses
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, run, report through the pipe
        rc = 99
        try:
            os.close(r)
            if os.geteuid() == 0:
                nobody = pwd.getpwnam("nobody")
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            sys.stderr = os.fdopen(w, "w")
            rc = main([*args, "-o", str(locked / "out.txt")])
            sys.stderr.flush()
        finally:
            os._exit(rc)
    os.close(w)
    with os.fdopen(r) as fh:
        err = fh.read()
    rc = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    assert rc == 2, err
    assert err == f"mtsig: error: --output {locked / 'out.txt'}: not writable\n"
    assert not (locked / "out.txt").exists()
    shutil.rmtree(folder)


def test_compare_ci_gives_the_intervals_of_score_ci(capsys):
    """compare --ci: each system's interval from the bootstrap behind the intervals of Δ, which is the plan
    score --ci draws with the same seed and count: the same numbers."""
    args = [*_example_args(), "-m", "bleu", "chrf", "--format", "json", "--seed", "5", "-q"]
    assert main(["score", *args, "--ci"]) == 0
    score = json.loads(capsys.readouterr().out)
    assert main(["compare", *args, "--ci"]) == 0
    comp = json.loads(capsys.readouterr().out)
    for s, c in zip(score["systems"], comp["systems"]):
        for m in ("bleu", "chrf"):
            assert c["scores"][m]["ci"] == s["scores"][m]["ci"] and c["scores"][m]["ci_method"] == "percentile"
    assert main(["compare", *args]) == 0
    assert "ci" not in json.loads(capsys.readouterr().out)["systems"][0]["scores"]["bleu"]
    low, high = comp["systems"][1]["scores"]["bleu"]["ci"]
    shown = f"[{low:.2f}, {high:.2f}]"
    for fmt in ("text", "markdown", "latex"):  # every table format shows them above the comparisons
        assert main(["compare", *_example_args(), "-m", "bleu", "chrf", "--seed", "5", "-q", "--ci", "-f", fmt]) == 0
        out = capsys.readouterr().out
        assert shown in out and "percentile interval of 1000 bootstrap resamples" in " ".join(out.split())


def test_version_imports_nothing_heavy():
    """`mtsig --version` answers before numpy and the metrics are imported (issue 11: start-up)."""
    code = "import sys; from mtsig.cli import main; main(['--version']); print(sorted(m for m in sys.modules " \
           "if m.split('.')[0] in ('numpy', 'scipy', 'rich') or m.startswith('mtsig.metrics')))"  # fmt: skip
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    from mtsig._version import __version__

    assert p.returncode == 0 and p.stdout.splitlines() == [f"mtsig {__version__}", "[]"], p.stdout + p.stderr


def test_command_ends_at_once_with_its_output_flushed_and_its_exit_status(tmp_path):
    """`python -m mtsig` (like the console script) flushes and leaves with os._exit: the whole output reaches a
    pipe and a file, errors keep status 2 and their message, a reader that stops early is no error."""
    base = [sys.executable, "-m", "mtsig", "compare", "-r", *REFS, "-s", *SYS, "-m", "bleu", "chrf", "-q"]
    full = subprocess.run([*base, "-f", "json"], capture_output=True, text=True)
    assert full.returncode == 0, full.stderr
    assert len(json.loads(full.stdout)["comparisons"]) == 2
    out = tmp_path / "c.json"
    p = subprocess.run([*base, "-f", "json", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0 and json.loads(out.read_text()) == json.loads(full.stdout)
    bad = subprocess.run([*base, "-m", "nosuchmetric"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("mtsig: error: ") and "nosuchmetric" in bad.stderr
    head = subprocess.run(f"{' '.join(base)} -f json | head -c 5", shell=True, capture_output=True, text=True)
    assert head.stdout == full.stdout[:5] and "Traceback" not in head.stderr


@pytest.mark.parametrize(
    "env",
    [{"PYTHONIOENCODING": "cp1252"}, {"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}],
)
def test_text_output_on_a_stream_that_cannot_encode_the_table(tmp_path, env):
    """Issue 27: where stdout is not UTF-8 (a Windows console, LC_ALL=C) the table's characters crashed the text
    output with a UnicodeEncodeError; now they fall back to ASCII and the rest is escaped."""
    import os
    import subprocess
    import sys

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\na dog ran in the park\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\na dog ran in a park\n", encoding="utf-8")
    run_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG", "PYTHONUTF8")}
    run_env.update(env)
    cmd = [sys.executable, "-m", "mtsig", "score", "-r", str(ref), "-s", f"base={hyp}", f"neu\u4e2d={hyp}"]
    p = subprocess.run(cmd, capture_output=True, env=run_env)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode("ascii", "replace")
    assert "Traceback" not in p.stderr.decode("utf-8", "replace")
    assert " system " in out and "|" in out and "===" in out and "bleu ^" in out


def test_json_is_strict_json():
    """Issue 27: non-finite numbers (a constant difference's infinite t statistic, a run variance without
    degrees of freedom, a length ratio of no reference words) are null, never NaN or Infinity."""
    import json

    import mtsig
    from mtsig.report.render import render

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    refs = [["a b c d", "e f g h", "i j k l"]]
    res = mtsig.compare(refs, {"x": refs[0], "y": ["a b c x", "e f g x", "i j k x"]}, test=["ttest"])
    assert res.comparisons[0].result.statistic is not None and not np.isfinite(res.comparisons[0].result.statistic)
    d = json.loads(render(res, "json"), parse_constant=refuse)
    assert d["comparisons"][0]["statistic"] is None
    json.loads(render(mtsig.score(refs, {"x": refs[0]}), "json"), parse_constant=refuse)


def test_sacrebleu_habits_get_mtsigs_name_and_width_sets_decimals(tmp_path, capsys):
    """Issue 27: -i suggested --ci, --paired-bs-n suggested --parses-ref, each with 617 characters of metric
    flags; -w did not exist."""
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\na dog ran in the park\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\na dog ran in a park\n", encoding="utf-8")
    assert main(["score", "-r", str(ref), "-i", str(hyp)]) == 2
    err = capsys.readouterr().err
    assert "-i is sacreBLEU's: give system outputs with -s FILE" in err and err.count("\n") == 1
    # sacreBLEU's paired flags are read as it means them (issue 41): -pbs is the paired bootstrap, -pbsn its count
    ex = Path(__file__).resolve().parents[1] / "examples"
    argv = ["compare", "-r", str(ex / "ref.A.en"), "-s", f"a={ex / 'base.en'}", f"b={ex / 'new.en'}", "--paired-bs",
            "--paired-bs-n", "100", "-f", "json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["tests"] == ["paired-bootstrap"] and out["settings"]["n_resamples"] == {
        "paired-bootstrap": 100
    }
    for bad, says in (("--chrf-bta", "(did you mean --chrf-beta?)"), ("--no-such-flag", "`mtsig metrics` lists")):
        with pytest.raises(SystemExit):
            main(["score", "-r", str(ref), "-s", str(hyp), bad, "3"])
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1 and len(err) < 160, err
    assert main(["score", "-r", str(ref), "-s", str(hyp), "-w", "4"]) == 0
    out = capsys.readouterr().out
    import re

    assert re.search(r"\d+\.\d{4} ", out)
    assert main(["score", "-r", str(ref), "-s", str(hyp), "-w", "13"]) == 2
    assert "--width must be between 0 and 12" in capsys.readouterr().err


def test_score_only_and_sentence_level_as_sacrebleu_has_them(tmp_path, capsys):
    """sacreBLEU's -b (the numbers alone) and -sl (every segment's score), in every format."""
    import mtsig

    ref, a, b = tmp_path / "ref.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    ref.write_text("the cat sat on the mat\na dog ran in the park\nhello there my friend\n", encoding="utf-8")
    a.write_text("the cat sat on a mat\na dog ran in a park\nhello there friend\n", encoding="utf-8")
    b.write_text("a cat sat on the mat\nthe dog ran in the park\nhi there my friend\n", encoding="utf-8")
    res = mtsig.score([str(ref)], {"a": str(a), "b": str(b)}, ["bleu", "chrf"], sentence_level=True)
    assert main(["score", "-r", str(ref), "-s", f"a={a}", f"b={b}", "-m", "bleu", "chrf", "-b"]) == 0
    out = capsys.readouterr().out.split()
    assert out == [f"{res.score(s, m):.2f}" for s in ("a", "b") for m in ("bleu", "chrf")]
    seg = res.segments["bleu"]["a"]
    assert len(seg) == 3 and seg[0] == pytest.approx(mtsig.get_metric("bleu").sentence_scores(
        mtsig.compute([str(ref)], {"a": str(a)}).stats["bleu"]["a"][0])[0])  # fmt: skip
    assert main(["score", "-r", str(ref), "-s", f"a={a}", f"b={b}", "-sl", "-f", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["segments"]["bleu"]["b"] == res.segments["bleu"]["b"]
    assert main(["score", "-r", str(ref), "-s", f"a={a}", f"b={b}", "-sl", "-f", "csv"]) == 0
    csv_out = capsys.readouterr().out
    assert "# segment scores\nsystem,metric,segment,score\na,bleu,1," in csv_out
    for fmt, mark in (("text", "segment scores: bleu"), ("markdown", "*segment scores: bleu*"),
                      ("latex", "Segment scores: bleu")):  # fmt: skip
        assert main(["score", "-r", str(ref), "-s", f"a={a}", f"b={b}", "-sl", "-f", fmt]) == 0
        assert mark in capsys.readouterr().out
    assert main(["score", "-r", str(ref), "-s", f"a={a}", "-b", "-f", "json"]) == 2
    assert "--score-only prints bare numbers" in capsys.readouterr().err


def test_width_rounds_scores_in_csv_and_json_but_never_p_values(capsys):
    ex = Path(__file__).resolve().parents[1] / "examples"
    base = ["-r", str(ex / "ref.A.en"), "-s", f"a={ex / 'base.en'}", f"b={ex / 'new.en'}"]
    assert main(["score", *base, "-w", "3", "-f", "csv", "--ci", "--n-bootstrap", "100"]) == 0
    rows = [r.split(",") for r in capsys.readouterr().out.splitlines()[1:]]
    assert all(len(r[2].split(".")[1]) == 3 and len(r[3].split(".")[1]) == 3 for r in rows)
    assert main(["compare", *base, "-w", "1", "-f", "json", "--n-resamples", "300"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert c["delta"] == round(c["delta"], 1) and c["p_value"] != round(c["p_value"], 1)
    assert main(["compare", *base, "-f", "json", "--n-resamples", "300"]) == 0  # without -w: every digit
    assert json.loads(capsys.readouterr().out)["comparisons"][0]["delta"] != round(c["delta"], 1)
