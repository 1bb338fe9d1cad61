"""Parity with the official NIST scorer mteval-v13a on WMT22 de-en (numbers in shared/data)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import mtsig
from mtsig.metrics.bleu import bleu_log_precisions
from tests.data import WMT_SYSTEMS, wmt_hyp, wmt_ref


def parse_expected(path):
    text = path.read_text()
    out = {"headline": {}, "ind": {"NIST": {}, "BLEU": {}}, "cum": {"NIST": {}, "BLEU": {}}, "lengths": []}
    for m in re.finditer(r'NIST score = (\S+)\s+BLEU score = (\S+) for system "([^"]+)"', text):
        out["headline"][m.group(3)] = (m.group(1), m.group(2))
    for m in re.finditer(r"length ratio: \S+ \((\d+)/(\d+)\)", text):
        out["lengths"].append((int(m.group(1)), int(m.group(2))))
    ind, cum = text.split("Individual N-gram scoring")[1].split("Cumulative N-gram scoring")
    for section, body in (("ind", ind), ("cum", cum)):
        for m in re.finditer(r'(NIST|BLEU):\s+([\d.\s]+?)\s+"([^"]+)"', body):
            out[section][m.group(1)][m.group(3)] = m.group(2).split()
    return out


def _compute(wmt, lowercase):
    refs = [wmt_ref(wmt, "A"), wmt_ref(wmt, "B")]
    systems = {s: wmt_hyp(wmt, s) for s in WMT_SYSTEMS}
    return mtsig.compute(
        refs, systems, ["bleu", "nist"], tokenize="mteval-13a", lowercase=lowercase, bleu_order=9, nist_order=9
    )


@pytest.mark.parametrize("case", ["cased", "lowercased"])
def test_bleu_nist_all_orders_equal_mteval(wmt, case):
    exp = parse_expected(wmt / f"EXPECTED-mteval-v13a.{case}.txt")
    table = _compute(wmt, case == "lowercased")
    nist = table.metrics["nist"]
    assert len(exp["headline"]) == 4
    for i, s in enumerate(sorted(WMT_SYSTEMS)):
        bt = table.stats["bleu"][s][0].sum(axis=0)
        nt = table.stats["nist"][s][0].sum(axis=0)
        # length line: hypothesis words / closest reference words
        assert (int(bt[0]), int(bt[1])) == exp["lengths"][i]
        logp, _ = bleu_log_precisions(bt, 9, "exp", None)
        bp = min(1.0, np.exp(1 - bt[1] / bt[0]))
        ind_bleu = [f"{np.exp(x):.4f}" for x in logp]
        cum_bleu = [f"{bp * np.exp(np.mean(logp[:n])):.4f}" for n in range(1, 10)]
        per = nist.per_order(nt)
        ind_nist = [f"{x:.4f}" for x in per]
        cum_nist = [f"{x:.4f}" for x in np.cumsum(per)]
        assert ind_bleu == exp["ind"]["BLEU"][s], s
        assert cum_bleu == exp["cum"]["BLEU"][s], s
        assert ind_nist == exp["ind"]["NIST"][s], s
        assert cum_nist == exp["cum"]["NIST"][s], s
        # the headline numbers through the ordinary metric objects (BLEU-4, NIST-5)
        b4 = mtsig.get_metric("bleu", bleu_order=4)
        n5 = mtsig.get_metric("nist", nist_order=5)
        assert f"{b4.score(bt[[0, 1, 2, 3, 4, 5, 11, 12, 13, 14]]) / 100:.4f}" == exp["headline"][s][1]
        assert f"{n5.score(nt[[0, 1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15]]):.4f}" == exp["headline"][s][0]


def test_nist_zero_prefix_quirk_matters(wmt):
    """LT22's lowercased 2-gram NIST (2.3109) depends on the scorer's "0"-prefix rule."""
    exp = parse_expected(wmt / "EXPECTED-mteval-v13a.lowercased.txt")
    table = _compute(wmt, True)
    nist = table.metrics["nist"]
    nt = table.stats["nist"]["LT22"][0].sum(axis=0)
    assert f"{nist.per_order(nt)[1]:.4f}" == exp["ind"]["NIST"]["LT22"][1] == "2.3109"
    # without the quirk the weights of bigrams starting with "0" would be smaller
    idx = table.metrics["nist"].refs._cache[("ngram-index", ("mteval-13a", True))]
    info2 = idx.nist_info()[1]
    zero_bigrams = idx.prefix[1] == idx.vocab["0"]
    assert zero_bigrams.any()
    plain = np.log2(idx.counts[0][idx.prefix[1][zero_bigrams]] / idx.counts[1][zero_bigrams])
    assert np.all(info2[zero_bigrams] > plain)


def _write_sgml(path, kind, sets, docs):
    """Wrap plain segments into NIST SGML with several documents and shuffled segment order."""
    rng = np.random.default_rng(0)
    lines = [f'<{kind} setid="wmt22" srclang="de" trglang="en">']
    for name, segs in sets.items():
        for d, lo, hi in docs:
            lines.append(f'<doc docid="{d}" sysid="{name}">')
            order = rng.permutation(np.arange(lo, hi))
            for i in order:
                text = segs[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                lines.append(f'<seg id="{i + 1}">{text}</seg>')
            lines.append("</doc>")
    lines.append(f"</{kind}>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_sgml_input_gives_the_same_numbers(wmt, tmp_path):
    """The same data as NIST SGML (several docs, shuffled segment order, escaped text) scores the same."""
    from mtsig.io.text import read_lines

    refs = {r: read_lines(wmt_ref(wmt, r)) for r in "AB"}
    n = len(refs["A"])
    docs = [("d1", 0, 700), ("d2", 700, 1500), ("d3", 1500, n)]
    _write_sgml(tmp_path / "ref.sgm", "refset", refs, docs)
    hyps = {s: read_lines(wmt_hyp(wmt, s)) for s in WMT_SYSTEMS}
    _write_sgml(tmp_path / "tst.sgm", "tstset", hyps, list(reversed(docs)))
    exp = parse_expected(wmt / "EXPECTED-mteval-v13a.cased.txt")
    res = mtsig.score([str(tmp_path / "ref.sgm")], [str(tmp_path / "tst.sgm")], ["bleu", "nist"], tokenize="mteval-13a")
    got = {s["name"]: s["scores"] for s in res.to_dict()["systems"]}
    assert sorted(got) == sorted(WMT_SYSTEMS)
    for s in WMT_SYSTEMS:
        assert f"{got[s]['nist']['score']:.4f}" == exp["headline"][s][0]
        assert f"{got[s]['bleu']['score'] / 100:.4f}" == exp["headline"][s][1]
        assert "nrefs:2" in got[s]["bleu"]["signature"]
