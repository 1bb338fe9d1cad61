"""Significance clusters reach every output format (issue 28: they were missing from Markdown, LaTeX and CSV)."""

from __future__ import annotations

import csv
import io

import mtsig
from mtsig.report.render import render


def test_clusters_in_markdown_latex_and_csv(wmt_bleu_stats):
    res = mtsig.compare(stats=wmt_bleu_stats.select(["bleu"]), n_resamples=2000)
    clusters = res.clusters["bleu"]
    assert clusters and len(clusters) >= 2
    line = "  >  ".join("{" + ", ".join(cl) + "}" for cl in clusters)
    assert f"bleu clusters (best first, by ar): {line}" in render(res, "markdown")
    assert "bleu clusters (best first, by ar): \\{" in render(res, "latex")
    rows = list(csv.DictReader(io.StringIO(render(res, "csv"))))
    rank = {n: k + 1 for k, cl in enumerate(clusters) for n in cl}
    for r in rows:
        assert int(r["cluster_a"]) == rank[r["a"]] and int(r["cluster_b"]) == rank[r["b"]]
