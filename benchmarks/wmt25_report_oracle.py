"""WMT25's automatic scores read by mtsig against WMT25's own system table.

WMT25's preliminary ranking (wmt25-general-mt, ``preliminary_ranking/latex_source/generated_report.tex``) prints,
for every language pair and system, the mean of each automatic metric over the pair's paragraphs, rounded. This
script reads ``data/automatic_scores`` with ``--wmt25-scores``'s reader (:func:`mtsig.io.wmt25scores.wmt25_table`),
takes each system's score as ``mtsig score`` does (null scores missing), rounds it as the report does (to the
report's decimals) and counts the cells that agree.

    python benchmarks/wmt25_report_oracle.py --scores wmt25-general-mt/data/automatic_scores \\
        --report wmt25-general-mt/preliminary_ranking/latex_source/generated_report.tex

Neither file is in ../shared/data, so this is a benchmark and not a test.
"""

from __future__ import annotations

import argparse
import re
import time

#: the report's table titles, as WMT25's language-pair codes
PAIRS = {
    "Czech-German": "cs-de_DE", "Czech-Ukrainian": "cs-uk_UA", "English-Bengali": "en-bn_BD",
    "English-Bhojpuri": "en-bho_IN", "English-Czech": "en-cs_CZ", "English-Egyptian Arabic": "en-ar_EG",
    "English-Estonian": "en-et_EE", "English-German": "en-de_DE", "English-Greek": "en-el_GR",
    "English-Hindi": "en-hi_IN", "English-Icelandic": "en-is_IS", "English-Indonesian": "en-id_ID",
    "English-Italian": "en-it_IT", "English-Japanese": "en-ja_JP", "English-Kannada": "en-kn_IN",
    "English-Korean": "en-ko_KR", "English-Lithuanian": "en-lt_LT", "English-Maasai": "en-mas_KE",
    "English-Marathi": "en-mr_IN", "English-Persian": "en-fa_IR", "English-Romanian": "en-ro_RO",
    "English-Russian": "en-ru_RU", "English-Serbian (Cyrilics)": "en-sr_Cyrl_RS",
    "English-Serbian (Latin)": "en-sr_Latn_RS", "English-Simplified Chinese": "en-zh_CN", "English-Swedish": "en-sv_SE",
    "English-Thai": "en-th_TH", "English-Turkish": "en-tr_TR", "English-Ukrainian": "en-uk_UA",
    "English-Vietnamese": "en-vi_VN", "Japanese-Simplified Chinese": "ja-zh_CN",
}  # fmt: skip


def _name(cell: str) -> str:
    """A system's name as its file is named: the report marks constrained systems [M], escapes _, shortens two."""
    n = cell.replace("\\official", "").replace("\\_", "_").replace("[M]", "").strip()
    return {"Shy-hunyuan-MT": "Shy", "CommandA-WMT": "CommandA-MT", "EuroLLM-22B-pre.": "EuroLLM-22B"}.get(n, n)


def report_tables(tex: str) -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """Per language pair: the metric columns and, per system, the printed cells."""
    out = {}
    for title, body in re.findall(r"\\textbf\{([^}]*)\}\} \\\\(.*?)\\end\{tabularx\}", tex, flags=re.S):
        header, rows = None, {}
        for ln in body.splitlines():
            if "&" not in ln:
                continue
            cells = [re.sub(r"\\cellcolor\{[^}]*\}", "", c).strip() for c in ln.strip().rstrip("\\").split("&")]
            if cells[0] == "System Name":
                header = [re.sub(r"\s*\$.*", "", c) for c in cells]
                continue
            rows[_name(cells[0])] = cells
        assert header is not None, title
        out[PAIRS[title]] = (header, rows)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores", required=True, help="wmt25-general-mt's data/automatic_scores")
    ap.add_argument("--report", required=True, help="wmt25-general-mt's preliminary_ranking/.../generated_report.tex")
    a = ap.parse_args()
    from mtsig.io.wmt25scores import wmt25_table

    with open(a.report, encoding="utf-8") as f:
        tables = report_tables(f.read())
    total = agree = unmatched = 0
    t0 = time.perf_counter()
    for lp, (header, rows) in sorted(tables.items()):
        table, _ = wmt25_table(a.scores, lp)
        n_lp = bad_lp = 0
        for s in table.system_names:
            if s not in rows:
                print(f"{lp}: {s} is not in the report's table")
                unmatched += 1
                continue
            for m in table.metrics:
                if m not in header:
                    continue
                printed = rows[s][header.index(m)]
                decimals = len(printed.split(".")[1]) if "." in printed else 0
                mine = float(table.corpus_scores(m, s)[0])
                n_lp += 1
                if round(mine, decimals) != float(printed):
                    bad_lp += 1
                    print(f"{lp}: {s} {m}: mtsig {mine:.6f}, the report {printed}")
        missing = sorted(set(rows) - set(table.system_names))
        print(f"{lp}: {n_lp - bad_lp} of {n_lp} cells equal; systems in the report without scores: {missing or 'none'}")
        total += n_lp
        agree += n_lp - bad_lp
    print(f"all pairs: {agree} of {total} cells equal at the report's rounding ({len(tables)} language pairs, "
          f"{unmatched} systems without a report row; {time.perf_counter() - t0:.1f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
