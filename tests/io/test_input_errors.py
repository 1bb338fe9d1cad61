"""Every bad-input case gets a one-line message naming the file (and line): API and command line."""

from __future__ import annotations

import pytest

import mtsig
from mtsig.cli import main
from mtsig.errors import InputError


def w(tmp_path, name, data: bytes | str):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(p)


def test_mismatched_line_counts_names_both_files_and_counts(tmp_path):
    ref = w(tmp_path, "ref.txt", "a b\nc d\ne f\n")
    hyp = w(tmp_path, "hyp.txt", "a b\nc d\n")
    with pytest.raises(InputError) as e:
        mtsig.score([ref], [hyp])
    msg = str(e.value)
    assert "hyp.txt" in msg and "ref.txt" in msg and "2" in msg and "3" in msg


def test_references_of_different_length(tmp_path):
    r1 = w(tmp_path, "r1.txt", "a\nb\n")
    r2 = w(tmp_path, "r2.txt", "a\n")
    with pytest.raises(InputError, match=r"r2.txt has 1 segments but reference .*r1.txt has 2"):
        mtsig.score([r1, r2], [w(tmp_path, "h", "a\nb\n")])


def test_invalid_utf8_names_file_and_line(tmp_path):
    ref = w(tmp_path, "ref.txt", "a\nb\nc\n")
    hyp = w(tmp_path, "hyp.txt", b"a\nb\xe9x\nc\n")
    with pytest.raises(InputError, match=r"hyp.txt: line 2: invalid UTF-8"):
        mtsig.score([ref], [hyp])


def test_missing_file(tmp_path):
    ref = w(tmp_path, "ref.txt", "a\n")
    with pytest.raises(InputError, match=r"nothere.txt: no such file"):
        mtsig.score([ref], [str(tmp_path / "nothere.txt")])
    with pytest.raises(InputError, match=r"noref.txt: no such file"):
        mtsig.score([str(tmp_path / "noref.txt")], [ref])


def test_crlf_and_trailing_newline_handled(tmp_path):
    ref = w(tmp_path, "ref.txt", "the cat sat on the mat\nhello world\n")
    lf = w(tmp_path, "lf.txt", "the cat sat on a mat\nhello world")
    crlf = w(tmp_path, "crlf.txt", "the cat sat on a mat\r\nhello world\r\n")
    a = mtsig.score([ref], {"lf": lf, "crlf": crlf}, ["bleu", "nist"])
    assert a.score("lf", "bleu") == a.score("crlf", "bleu")
    assert a.score("lf", "nist") == a.score("crlf", "nist")


def test_unicode_line_separators_do_not_split_segments(tmp_path):
    ref = w(tmp_path, "ref.txt", "the quick\u2028brown fox jumps\nover the\x0clazy dog today\n")
    hyp = w(tmp_path, "hyp.txt", "the quick brown fox jumps\nover the lazy dog today\n")
    res = mtsig.score([ref], [hyp])
    # two segments, each matching word for word: the separators are spaces inside a line
    assert mtsig.compute([ref], [hyp]).n_segments == 2
    assert res.systems[0].scores["bleu"].score == 100.0


def test_empty_hypothesis_line_is_a_valid_empty_translation(tmp_path):
    ref = w(tmp_path, "ref.txt", "a b c d\ne f g h\n")
    hyp = w(tmp_path, "hyp.txt", "a b c d\n\n")
    m = mtsig.get_metric("bleu")
    table = mtsig.compute([ref], [hyp])
    st = table.stats["bleu"][table.system_names[0]][0]
    assert st[1, 0] == 0 and st[1, 1] == 4  # no hypothesis words, reference length 4
    assert m.sentence_scores(st)[1] == 0.0


def test_empty_reference_line_is_an_error_unless_allowed(tmp_path):
    ref = w(tmp_path, "ref.txt", "a b\n  \n")
    hyp = w(tmp_path, "hyp.txt", "a b\nc\n")
    with pytest.raises(InputError, match=r"ref.txt: line 2: empty reference"):
        mtsig.score([ref], [hyp])
    assert mtsig.score([ref], [hyp], allow_empty_refs=True).systems


def test_unknown_metric_and_tokenizer(tmp_path):
    ref = w(tmp_path, "ref.txt", "a\n")
    with pytest.raises(InputError, match=r"unknown metric 'blue'; choose from: .*bleu"):
        mtsig.score([ref], [ref], ["blue"])
    with pytest.raises(InputError, match=r"unknown tokenizer 'xx'"):
        mtsig.score([ref], [ref], tokenize="xx")


SGML_REF = """<refset setid="t" srclang="de" trglang="en">
<doc docid="d1" sysid="ref">
<seg id="1">a b c</seg>
<seg id="2">d e f</seg>
</doc>
<doc docid="d2" sysid="ref">
<seg id="1">g h</seg>
</doc>
</refset>
"""


def test_sgml_missing_document_and_segment(tmp_path):
    ref = w(tmp_path, "ref.sgm", SGML_REF)
    no_doc = w(
        tmp_path,
        "nodoc.sgm",
        '<tstset setid="t" srclang="de" trglang="en">\n<doc docid="d1" sysid="S">'
        '<seg id="1">a</seg><seg id="2">d</seg></doc></tstset>\n',
    )
    with pytest.raises(InputError, match=r"nodoc.sgm: document 'd2' is missing from system 'S'"):
        mtsig.score([ref], [no_doc])
    no_seg = w(
        tmp_path,
        "noseg.sgm",
        '<tstset setid="t" srclang="de" trglang="en">\n<doc docid="d1" sysid="S">'
        '<seg id="1">a</seg></doc><doc docid="d2" sysid="S"><seg id="1">g</seg></doc></tstset>\n',
    )
    with pytest.raises(InputError, match=r"noseg.sgm: segment '2' of document 'd1' is missing from system 'S'"):
        mtsig.score([ref], [no_seg])
    extra = w(
        tmp_path,
        "extra.sgm",
        '<tstset setid="t">\n<doc docid="d1" sysid="S"><seg id="1">a</seg>'
        '<seg id="2">d</seg><seg id="3">x</seg></doc><doc docid="d2" sysid="S"><seg id="1">g</seg></doc>'
        "</tstset>\n",
    )
    with pytest.raises(InputError, match=r"extra.sgm: system 'S' has segment '3' of document 'd1'"):
        mtsig.score([ref], [extra])


@pytest.mark.parametrize(
    "text, pattern",
    [
        (
            '<refset setid="t">\n<doc docid="d1" sysid="r">\n<seg id="1">a b\n</doc>\n</refset>\n',
            r"line 3: <seg id='1'> is not closed",
        ),
        ('<refset setid="t">\n<seg id="1">a</seg>\n</refset>\n', r"line 2: <seg> outside of a <doc>"),
        ('<refset setid="t">\n<doc sysid="r"><seg id="1">a</seg></doc>\n</refset>\n', r"line 2: <doc> without a docid"),
        ('<refset setid="t">\n<doc docid="d" sysid="r"><seg>a</seg></doc>\n</refset>\n', r"<seg> without an id"),
        ('<refset setid="t">\n<doc docid="d" sysid="r"><seg id="1">a</seg>\n</refset>\n', r"closes the set while"),
        ('<refset setid="t">\n<doc docid="d" sysid="r"><seg id="1">a</seg></doc>\n', r"<refset> is never closed"),
        (
            '<refset setid="t">\n<doc docid="d" sysid="r"><seg id="1">a</seg><seg id="1">b</seg></doc></refset>',
            r"segment id '1' appears twice",
        ),
    ],
)
def test_malformed_sgml(tmp_path, text, pattern):
    ref = w(tmp_path, "bad.sgm", text)
    with pytest.raises(InputError, match=pattern) as e:
        mtsig.score([ref], [ref])
    assert "bad.sgm" in str(e.value)


def test_malformed_xml(tmp_path):
    ref = w(
        tmp_path,
        "bad.xml",
        '<?xml version="1.0"?>\n<mteval><refset setid="t" refid="r"><doc docid="d">'
        "<seg id='1'>a</seg></doc></mteval>\n",
    )
    with pytest.raises(InputError, match=r"bad.xml: malformed XML"):
        mtsig.score([ref], [ref])


def test_xml_input(tmp_path):
    ref = w(
        tmp_path,
        "ref.xml",
        '<?xml version="1.0"?>\n<mteval><refset setid="t" srclang="de" trglang="en" '
        'refid="r"><doc docid="d"><seg id="1">a &amp; b c</seg><seg id="2">d e</seg></doc></refset></mteval>',
    )
    tst = w(
        tmp_path,
        "tst.xml",
        '<?xml version="1.0"?>\n<mteval><tstset setid="t" srclang="de" trglang="en" '
        'sysid="S"><doc docid="d"><seg id="2">d e</seg><seg id="1">a &amp; b c</seg></doc></tstset></mteval>',
    )
    res = mtsig.score([ref], [tst])
    assert res.score("S", "bleu") == pytest.approx(100.0)


def test_cli_errors_are_one_line_without_traceback(tmp_path, capsys):
    ref = w(tmp_path, "ref.txt", "a b\nc d\ne f\n")
    hyp = w(tmp_path, "hyp.txt", "a b\n")
    assert main(["score", "-r", ref, "-s", hyp]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtsig: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert main(["score", "-r", ref, "-s", ref, "-m", "nope"]) == 2
    assert "unknown metric 'nope'" in capsys.readouterr().err
    assert main(["compare", "-r", ref, "-s", ref]) == 2
    assert "at least two systems" in capsys.readouterr().err


def test_duplicate_system_names(tmp_path):
    ref = w(tmp_path, "ref.txt", "a\n")
    with pytest.raises(InputError, match="two systems are called 'x'"):
        mtsig.score([ref], [f"x={ref}", f"x={ref}"])


# ---------------------------------------------------------------------------------------------------
# silent wrong results and tracebacks reported in issue 10, each reproduced


def _cli(args, capsys):
    from mtsig.cli import main

    rc = main(args)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_one_segment_corpus_is_never_called_significant(tmp_path, capsys):
    ref, hyp = tmp_path / "r1", tmp_path / "s1"
    ref.write_text("the cat sat on the mat\n")
    hyp.write_text("a cat sat on a mat\n")
    base = ["compare", "-r", str(ref), "-s", f"A={hyp}", f"B={ref}"]
    for test, message in (("ttest", "need at least 2 segments"), ("bootstrap", "needs at least 10 segments"),
                          ("paired-bootstrap", "needs at least 10 segments")):  # fmt: skip
        rc, _, err = _cli([*base, "--test", test], capsys)
        assert rc == 2 and message in err and err.count("\n") == 1
    rc, out, _ = _cli([*base, "--test", "ar", "-f", "json"], capsys)  # AR is exact at any size: p = 1 here
    import json

    c = json.loads(out)["comparisons"][0]
    assert rc == 0 and c["p_value"] == 1.0 and not c["significant"] and c["delta_ci"] is None


def test_too_few_bootstrap_resamples_for_an_interval(capsys):
    args = ["compare", "-r", "examples/ref.A.en", "-s", "A=examples/base.en", "B=examples/new.en"]
    rc, _, err = _cli([*args, "--n-bootstrap", "1"], capsys)
    assert rc == 2 and "--n-bootstrap must be at least 40 for a 95% interval" in err
    rc, _, err = _cli([*args, "--test", "paired-bootstrap", "--n-resamples", "1"], capsys)
    assert rc == 2 and "--n-resamples must be at least 40" in err
    rc, _, err = _cli([*args, "--n-bootstrap", "0"], capsys)  # 0.1.0 ignored it in compare
    assert rc == 2 and "--n-bootstrap must be at least 1" in err
    rc, _, err = _cli(["score", "-r", "examples/ref.A.en", "-s", "examples/base.en", "--ci", "--n-bootstrap", "9"],
                      capsys)  # fmt: skip
    assert rc == 2 and "at least 40" in err
    rc, _, err = _cli([*args, "--seed", "-1"], capsys)
    assert rc == 2 and err.startswith("mtsig: error: --seed must be at least 0, got -1")


def test_nan_smoothing_value_and_missing_tokenizer_packages(capsys):
    base = ["score", "-r", "examples/ref.A.en", "-s", "examples/base.en"]
    rc, _, err = _cli([*base, "--smooth", "floor", "--smooth-value", "nan"], capsys)
    assert rc == 2 and "--smooth-value must be a positive finite number, got nan" in err
    import importlib.util

    if importlib.util.find_spec("MeCab") is None:
        rc, out, err = _cli([*base, "--tokenize", "ja-mecab"], capsys)
        assert rc == 2 and out == "" and err.count("\n") == 1 and "pip install 'sacrebleu[ja]'" in err
    if importlib.util.find_spec("sentencepiece") is None:
        rc, out, err = _cli([*base, "--tokenize", "flores200"], capsys)
        assert rc == 2 and out == "" and err.count("\n") == 1 and "sentencepiece" in err


def test_byte_order_mark_is_dropped_with_a_notice(tmp_path, capsys):
    import warnings

    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffthe cat sat on the mat\n".encode())
    plain = tmp_path / "plain.txt"
    plain.write_text("the cat sat on the mat\n")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = mtsig.score([str(plain)], [str(bom)], ["bleu"])
    assert res.systems[0].scores["bleu"].score == 100.0  # the mark is not part of the first word
    assert any(issubclass(x.category, mtsig.errors.MtsigWarning) and "byte-order mark" in str(x.message) for x in w)


def test_stdin_twice_and_the_same_file_twice(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a b\n")))
    rc, _, err = _cli(["score", "-r", "-", "-s", "-"], capsys)
    assert rc == 2 and "standard input (-) can be read only once" in err
    rc, _, err = _cli(["score", "-r", "examples/ref.A.en", "-s", "A=examples/base.en,examples/base.en"], capsys)
    assert rc == 2 and "examples/base.en is given twice" in err
