"""Bad human-judgment input: one ``mtsig: error:`` line naming the file and line (exit 2), never a traceback or a
silent NaN."""

from __future__ import annotations

import pytest

from mtsig.cli import main

DA_HEAD = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"


def _da_row(worker="W1", system="sysA", kind="SYSTEM", sid="1", score="0.5") -> str:
    return "\t".join(["H", worker, "de", "en", "ad", "1", system, "7", kind, sid, score, "10.0"]) + "\n"


def _error(tmp_path, capsys, content: str | bytes, *args: str, name="j.csv") -> str:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    assert main(["human", str(p), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mtsig: error: "), err
    return err[0]


def test_a_malformed_row_names_file_and_line(tmp_path, capsys):
    content = DA_HEAD + _da_row() + "H\tW1\tde\ten\n"
    msg = _error(tmp_path, capsys, content)
    assert "j.csv: line 3: 4 columns, expected 12" in msg


def test_an_unknown_judgment_type(tmp_path, capsys):
    msg = _error(tmp_path, capsys, DA_HEAD + _da_row() + _da_row(kind="GOLD"))
    assert "line 3: unknown judgment type 'GOLD'" in msg


def test_a_score_that_is_not_a_number(tmp_path, capsys):
    for bad in ("abc", "nan", "inf", "１"):
        msg = _error(tmp_path, capsys, DA_HEAD + _da_row(score=bad))
        assert "line 2: score" in msg and "number" in msg


def test_an_annotator_whose_scores_are_all_equal_cannot_be_standardized(tmp_path, capsys):
    rows = "system\tsegment\tannotator\tscore\n" + "".join(f"s{k}\t{i}\tann{k}\t{50 if k else i}\n"
                                                           for k in range(2) for i in range(5))  # fmt: skip
    msg = _error(tmp_path, capsys, rows, "--standardize", "annotator")
    assert "annotator 'ann1': all 5 scores are equal (50)" in msg and "undefined" in msg


def test_standardizing_needs_annotators(tmp_path, capsys):
    rows = "system\tsegment\tscore\n" + "".join(f"s{k}\t{i}\t{i}\n" for k in range(2) for i in range(5))
    assert "needs an annotator" in _error(tmp_path, capsys, rows, "--standardize", "annotator")


def test_an_unknown_mqm_severity(tmp_path, capsys):
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    row = "A\td1\t1\t1\tr1\tsrc\ttgt\tAccuracy/Mistranslation\tCritical\n"
    msg = _error(tmp_path, capsys, head + row)
    assert "line 2: unknown severity 'Critical'" in msg and "--mqm-weights" in msg


def test_mqm_weights_from_a_file_change_the_scores(tmp_path, capsys):
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    rows = "".join(f"{s}\td1\t1\t{i}\tr1\tsrc\ttgt\tAccuracy/Mistranslation\t{sev}\n"
                   for s, sev in (("A", "Critical"), ("B", "Minor")) for i in range(12))  # fmt: skip
    w = tmp_path / "w.tsv"
    w.write_text("# severity weights\nCritical\t10\nMinor\t1\n", encoding="utf-8")
    p = tmp_path / "m.tsv"
    p.write_text(head + rows, encoding="utf-8")
    assert main(["human", str(p), "--mqm-weights", str(w), "-f", "csv", "--n-bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    assert "system,B,,,-1.0," in out and "system,A,,,-10.0," in out


def test_unrecognised_format_and_empty_file(tmp_path, capsys):
    assert "cannot tell the format" in _error(tmp_path, capsys, "a,b,c\n1,2,3\n")
    assert "empty file" in _error(tmp_path, capsys, "")


def test_invalid_utf8_and_missing_files(tmp_path, capsys):
    msg = _error(tmp_path, capsys, b"system\tsegment\tscore\nA\t1\t\xff\n")
    assert "invalid UTF-8" in msg and "line 2" in msg
    assert main(["human", str(tmp_path / "nope.tsv")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_crlf_files_read_as_lf(tmp_path, capsys):
    rows = "system\tsegment\tscore\r\n" + "".join(f"s{k}\t{i}\t{i + k}\r\n" for k in range(2) for i in range(20))
    p = tmp_path / "c.tsv"
    p.write_bytes(rows.encode())
    assert main(["human", str(p), "-f", "csv", "--n-bootstrap", "100"]) == 0
    assert "system,s1,,,10.5," in capsys.readouterr().out


def test_one_system_only(tmp_path, capsys):
    msg = _error(tmp_path, capsys, "system\tsegment\tscore\nA\t1\t0.5\nA\t2\t0.7\n")
    assert "at least two systems" in msg


def test_a_document_unit_needs_documents(tmp_path, capsys):
    rows = "system\tsegment\tscore\n" + "".join(f"s{k}\t{i}\t{i}\n" for k in range(2) for i in range(20))
    msg = _error(tmp_path, capsys, rows, "--resample-unit", "document")
    assert "no documents" in msg and "--resample-unit" in msg


@pytest.mark.parametrize(("args", "words"), [(["--protocol", "wmt99"], "unknown protocol 'wmt99'"),
                                             (["--correction", "maxt"], "invalid choice"),
                                             (["--alpha", "2"], "--alpha must lie strictly")])  # fmt: skip
def test_bad_settings(tmp_path, capsys, args, words):
    rows = "system\tsegment\tscore\n" + "".join(f"s{k}\t{i}\t{i}\n" for k in range(2) for i in range(20))
    p = tmp_path / "s.tsv"
    p.write_text(rows, encoding="utf-8")
    code = None
    try:
        code = main(["human", str(p), *args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2 and words in capsys.readouterr().err
