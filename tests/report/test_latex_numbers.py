"""LaTeX output typesets numbers (issue 47): a negative number's sign is a math minus, not a hyphen; a rank range
takes an en dash. Names keep their hyphens."""

from __future__ import annotations

import re
from pathlib import Path

from mtsig.cli import main
from mtsig.report.table import tex_numbers

EX = Path(__file__).resolve().parents[2] / "examples"


def test_tex_numbers():
    assert tex_numbers("-4.23") == "$-$4.23"
    assert tex_numbers("[-5.39, -3.25]") == "[$-$5.39, $-$3.25]"
    assert tex_numbers("0.587 [-1.000, 1.000]") == "0.587 [$-$1.000, 1.000]"
    assert tex_numbers("-0.0020*") == "$-$0.0020*"
    assert tex_numbers("1-5") == "1--5"
    for same in ("ONLINE-B", "1.0e-04", "+0.0362", "sys-1", "-", "13"):
        assert tex_numbers(same) == same


def test_compare_and_human_latex(capsys, tmp_path):
    args = ["compare", "-r", str(EX / "ref.A.en"), "-s", f"new={EX / 'new.en'}", f"base={EX / 'base.en'}", "-m",
            "bleu", "-f", "latex"]  # fmt: skip
    assert main(args) == 0
    tex = capsys.readouterr().out
    assert "$-$" in tex  # base − new is negative
    body = tex.split("\\midrule")[1]
    assert not re.search(r"(^|[\s\[&(,])-\d", body), body  # no hyphen-minus before a digit in the table body
    rows = ["system\tsegment\tscore"] + [f"{s}\t{i}\t{(i * 7 + k * 3) % 11 + (k // 2)}" for k, s in
                                         enumerate(["a", "b", "c", "d"]) for i in range(60)]  # fmt: skip
    path = tmp_path / "scores.tsv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["human", str(path), "--n-bootstrap", "200", "-f", "latex"]) == 0
    tex = capsys.readouterr().out
    ranges = re.findall(r"^(\d+)(-+)(\d+) &", tex, re.M)
    assert ranges and all(dash == "--" for _, dash, _ in ranges), ranges
