"""Fuzzing the readers: any bytes given as a plain-text, SGML/XML, CoNLL-U, segment-score or statistics file
end in a result or an ``InputError``, never another exception.

The number of examples per reader is ``MTSIG_FUZZ_EXAMPLES`` (default 150, what CI runs);
``python benchmarks/fuzz_readers.py --minutes 10`` runs the same targets for a fixed time and prints the count.
"""

from __future__ import annotations

import io
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mtsig
from mtsig.errors import InputError
from mtsig.io.conllu import read_conllu
from mtsig.io.load import load_references, load_systems
from mtsig.io.segscores import read_score_column, read_score_table
from mtsig.io.sgml import read_sgml
from mtsig.table import StatsTable

pytestmark = pytest.mark.filterwarnings("ignore::mtsig.errors.MtsigWarning")
EXAMPLES = int(os.environ.get("MTSIG_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
#: examples run by each target in this process (the time-boxed script reports them)
RUN = {"text": 0, "sgml": 0, "conllu": 0, "scores": 0, "stats": 0}


def _file(data: bytes, suffix: str) -> str:
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return path


def _ends_well(fn, *args) -> None:
    """``fn(*args)`` returns or raises InputError; anything else fails the test."""
    try:
        fn(*args)
    except InputError as exc:
        message = str(exc)
        assert message.strip() and "\n" not in message, repr(message)  # the CLI prints it as one line


# ------------------------------------------------------------------ strategies: bytes near the formats
_TEXTISH = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.lists(st.sampled_from(["a b c", "", " ", "\r", "\ufeff", "x\u2028y", "\x00", "é", "\xff"]), max_size=12).map(
        lambda parts: "\n".join(parts).encode("utf-8", "surrogatepass")
    ),
)
_SGML_PIECES = ['<refset setid="s" srclang="de" trglang="en" refid="r">', '<tstset setid="s" sysid="A">', "</refset>",
                "</tstset>", '<doc docid="d1">', '<doc docid="d2" sysid="A">', "</doc>", '<seg id="1">', '<seg id="2">',
                "<seg>", "</seg>", "text &amp; &lt;", "&#x41;", "&bogus;", '<?xml version="1.0"?>', "<dataset>",
                "</dataset>", "<p>", "</p>", "<", ">", '"', "\n", "é"]  # fmt: skip
_SGML = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(_SGML_PIECES), max_size=30).map(lambda p: "".join(p).encode()),
)
_CONLLU_LINES = ["# text = a b", "# sent_id = 1", "1\ta\ta\tX\tX\t_\t0\troot\t_\t_", "2\tb\tb\tX\tX\t_\t1\tdep\t_\t_",
                 "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_", "3\tc\tc\tX\tX\t_\t9\tdep\t_\t_", "x\ty", "",
                 "1.1\te\t_\t_\t_\t_\t_\t_\t_\t_", "2\tb\tb\tX\tX\t_\tz\tdep\t_\t_"]  # fmt: skip
_CONLLU = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(_CONLLU_LINES), max_size=15).map(lambda p: "\n".join(p).encode()),
)
_SCORES = st.one_of(
    st.binary(max_size=200),
    st.lists(
        st.sampled_from(
            [
                "0.5",
                "1e3",
                "nan",
                "inf",
                "-1",
                "x",
                "",
                " 2 ",
                "A\tB",
                "1\t2",
                "1\t",
                '{"A": 1}',
                '{"A": "x"}',
                "[1]",
                "{}",
                "0x10",
            ]
        ),
        max_size=10,
    ).map(lambda p: "\n".join(p).encode()),  # fmt: skip
)


# ------------------------------------------------------------------ targets
def text_target(ref: bytes, hyp: bytes) -> None:
    RUN["text"] += 1
    r, h = _file(ref, ".txt"), _file(hyp, ".txt")
    try:
        _ends_well(lambda: mtsig.compute([r], [f"A={h}"], ["bleu", "chrf", "ter"]))
        _ends_well(lambda: load_systems([h], load_references([r], allow_empty=True)))
    finally:
        os.unlink(r)
        os.unlink(h)


def _one_file(kind: str, data: bytes, suffix: str, *readers) -> None:
    """Write ``data`` to a file and give its path to each reader."""
    RUN[kind] += 1
    p = _file(data, suffix)
    try:
        for read in readers:
            _ends_well(read, p)
    finally:
        os.unlink(p)


def sgml_target(data: bytes, suffix: str) -> None:
    _one_file("sgml", data, suffix, read_sgml, lambda p: mtsig.compute([p], [p], ["bleu"]))


def conllu_target(data: bytes) -> None:
    _one_file("conllu", data, ".conllu", read_conllu, lambda p: mtsig.compute([p], [f"A={p}"], ["depf"]))


def scores_target(data: bytes, suffix: str) -> None:
    _one_file("scores", data, suffix, read_score_column, read_score_table)


def _valid_stats_file() -> bytes:
    table = mtsig.compute([["a b c", "d e"]], {"A": ["a b c", "d"], "B": ["a c", "d e"]}, ["bleu", "ter"])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.npz"
        table.save(str(path))
        return path.read_bytes()


_STATS = _valid_stats_file()


def _stats_variant(data: bytes, how: int, pos: int, byte: int) -> bytes:
    """A valid statistics file damaged: a byte replaced, cut short, or one archive member rewritten."""
    if how == 0:
        pos %= len(data)
        return data[:pos] + bytes([byte]) + data[pos + 1 :]
    if how == 1:
        return data[: pos % len(data)]
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for k, info in enumerate(src.infolist()):
            payload = src.read(info)
            if k == pos % len(src.infolist()):
                if info.filename == "meta.npy":
                    text = payload.replace(b"bleu", b"ter ")[: max(0, len(payload) - byte)] if byte % 2 else b""
                    payload = text
                else:
                    arr = np.load(io.BytesIO(payload), allow_pickle=False)
                    buf = io.BytesIO()
                    np.save(buf, arr.reshape(-1)[: max(0, arr.size - 1)] if byte % 2 else arr * np.nan)
                    payload = buf.getvalue()
            z.writestr(info.filename, payload)
    return out.getvalue()


def stats_target(data: bytes) -> None:
    _one_file("stats", data, ".npz", StatsTable.load)


# ------------------------------------------------------------------ the tests
@FUZZ
@given(ref=_TEXTISH, hyp=_TEXTISH)
def test_fuzz_plain_text(ref, hyp):
    text_target(ref, hyp)


@FUZZ
@given(data=_SGML, suffix=st.sampled_from([".sgm", ".xml"]))
def test_fuzz_sgml_xml(data, suffix):
    sgml_target(data, suffix)


@FUZZ
@given(data=_CONLLU)
def test_fuzz_conllu(data):
    conllu_target(data)


@FUZZ
@given(data=_SCORES, suffix=st.sampled_from([".txt", ".tsv", ".jsonl"]))
def test_fuzz_segment_scores(data, suffix):
    scores_target(data, suffix)


@FUZZ
@given(how=st.integers(0, 2), pos=st.integers(0, 10**6), byte=st.integers(0, 255), raw=st.binary(max_size=200))
def test_fuzz_statistics_file(how, pos, byte, raw):
    stats_target(_stats_variant(_STATS, how, pos, byte))
    stats_target(raw)
