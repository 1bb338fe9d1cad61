"""Packed lines (large texts): the same segments as a list, in less memory, and the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import mtsig.io.text as text_mod
from mtsig.cli import main
from mtsig.io.text import PackedLines, split_lines

EX = Path(__file__).resolve().parents[2] / "examples"
PIECES = ["a", "b c", " ", "\r", "\n", "\r\n", "é", "\u2028", "\x85", "😀", "\ufeff", "\t"]


@settings(max_examples=500, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=40), i=st.integers(0, 50), j=st.integers(0, 50))
def test_packed_lines_equal_split_lines(parts, i, j):
    text = "".join(parts)
    ref, packed = split_lines(text), PackedLines(text)
    assert len(packed) == len(ref) and list(packed) == ref and packed == ref
    assert packed[i:j] == ref[i:j] and packed[::2] == ref[::2]
    if ref:
        assert packed[i % len(ref)] == ref[i % len(ref)] and packed[-1] == ref[-1]


def test_packed_texts_give_the_same_numbers(monkeypatch, capsys):
    args = ["compare", "-r", str(EX / "ref.A.en"), str(EX / "ref.B.en"), "-s", f"base={EX / 'base.en'}",
            f"new={EX / 'new.en'}", "-m", "bleu", "chrf", "ter", "--format", "json", "-q"]  # fmt: skip
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(text_mod, "PACK_CHARS", 1)
    assert main(args) == 0
    packed = json.loads(capsys.readouterr().out)
    assert packed == plain and plain["comparisons"]


def test_chunked_and_packed_scoring_gives_the_same_report(monkeypatch, capsys):
    import mtsig.pipeline as pipeline

    metrics = ["bleu", "mbleu", "length", "chrf", "ter"]  # NIST: equal within 1e-12 (tests/test_pipeline.py)
    args = ["score", "-r", str(EX / "ref.A.en"), str(EX / "ref.B.en"), "-s", f"base={EX / 'base.en'}",
            f"new={EX / 'new.en'}", "-m", *metrics, "--format", "json", "-q"]  # fmt: skip
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(text_mod, "PACK_CHARS", 1)
    monkeypatch.setattr(pipeline, "CHUNK_SEGMENTS", 7)  # 40 segments: 6 chunks, the last one short
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == plain
