"""The interactive view of a comparison, an analysis, a ranking from human judgments or metrics against humans
(``mtsig serve``'s run page, one self-contained file of the bundle): a p-value matrix per metric and test whose
cells open the pair's segments, the comparisons table, the buckets of each analysis whose rows open their segments,
filters (systems, significant only, document, domain, which system is better) and, for each view, the command line
that reproduces its numbers.

Everything is drawn by a script of our own from the JSON embedded in the page (the run's result, the segment
scores, and the texts when the run keeps them); every string reaches the page as text (``textContent``), never
as markup. The segments are shown with the words of each output that the reference lacks marked, as in
``mtsig analyze``'s examples."""

from __future__ import annotations

from typing import Any

import numpy as np

from mtsig._version import __version__
from mtsig.report.html import embedded_json

#: decimals kept of a segment score in the view (the bundle's JSON keeps every digit)
SEGMENT_DECIMALS = 4


def segment_data(table, texts: dict[str, Any] | None, why: str = "the texts were not kept") -> dict[str, Any]:
    """What the segment views show: each metric's score of every segment per system, the documents and domains,
    and (``texts``: ``{"ref": [...], "outputs": {system: [...]}}``, or None when the texts are not kept) the
    texts."""
    from mtsig.engine import sentence_scores

    scores = {m: {s: [None if not np.isfinite(x) else round(x, SEGMENT_DECIMALS) for x in xs]
                  for s, xs in by.items()} for m, by in sentence_scores(table).items()}  # fmt: skip
    return {"n": table.n_segments, "scores": scores, "docs": table.units.get("document"),
            "domains": table.units.get("domain"), "texts": texts, "no_texts": why,
            "directions": {m: "higher" if metric.higher_is_better else "lower" for m, metric in table.metrics.items()},
            "decimals": {m: int(metric.decimals) for m, metric in table.metrics.items()}}  # fmt: skip


def _as_compare(metric: str, scores: dict[str, Any], tests: list[tuple], test: str, st: dict) -> dict[str, Any]:
    """Scores and pairwise tests (``(a, b, delta B − A, p, p adjusted, significant)``) as the view draws a
    comparison."""
    return {
        "systems": [{"name": n, "scores": {metric: {"score": v}}} for n, v in scores.items()],
        "comparisons": [{"metric": metric, "test": test, "a": a, "b": b, "score_a": scores.get(a),
                         "score_b": scores.get(b), "delta": delta, "p_value": p, "p_adjusted": padj,
                         "significant": bool(sig)} for a, b, delta, p, padj, sig in tests],
        "settings": {"correction": str(st.get("correction") or "no"), "alpha": st.get("alpha", 0.05)},
    }  # fmt: skip


def human_view(res) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ranking from human judgments as the view draws it: the systems' scores and the pairwise tests (B − A, as
    every table), and each segment's judgment per system (``res.segments``)."""
    st = res.settings
    tests = [(c.a, c.b, c.delta, c.p_value, c.p_adjusted, c.significant) for c in res.comparisons]
    result = _as_compare("human", {s.name: s.score for s in res.systems}, tests, str(st.get("test") or res.protocol),
                         st)  # fmt: skip
    ids = list(dict.fromkeys(str(g) for _, g, _ in res.segments or ()))
    where = {g: i for i, g in enumerate(ids)}
    by: dict[str, list[float | None]] = {s.name: [None] * len(ids) for s in res.systems}
    for system, g, x in res.segments or ():
        if system in by and np.isfinite(x):
            by[system][where[str(g)]] = round(float(x), SEGMENT_DECIMALS)
    segments = {"n": len(ids), "ids": ids, "scores": {"human": by}, "docs": None, "domains": None, "texts": None,
                "no_texts": "each segment's human scores (the judgments' texts are not shown)",
                "directions": {"human": "higher"},
                "decimals": {"human": res.decimals if res.decimals is not None else 3}}  # fmt: skip
    return result, segments


def meta_view(res) -> tuple[dict[str, Any], dict[str, Any]]:
    """Metrics against humans as the view draws it: the metrics in place of systems (their agreement with the
    humans as their score), the tests between pairs of metrics (B − A); no segments to open."""
    d = res.to_dict()
    stat, st = d["statistic"], d["settings"]
    tests = [(c["a"], c["b"], c["delta"], c["p_value"], c["p_adjusted"], c["significant"]) for c in d["comparisons"]]
    result = _as_compare(stat, {m["name"]: m.get(stat) for m in d["metrics"]}, tests, str(st.get("test")), st)
    segments = {"n": 0, "scores": {stat: {}}, "docs": None, "domains": None, "texts": None,
                "no_texts": "a pair of metrics has no segments to open: each metric's agreement is in the "
                "report above", "directions": {stat: "higher"},
                "decimals": {stat: 4 if res.decimals is None else res.decimals}}  # fmt: skip
    return result, segments


def members_of(res) -> list[Any]:
    """Each analysis's segments per bucket (``None`` where its buckets are not segments: word analyses, items)."""
    out: list[Any] = []
    for a in res.analyses:
        m = a.members
        if m is None:
            out.append(None)
        elif isinstance(m, dict):
            out.append({n: [int(x) for x in g] for n, g in m.items()})
        else:
            out.append([int(x) for x in m])
    return out


def with_explorer(report: str, view: dict[str, Any], command: str) -> str:
    """The run's page: its report (``report``, a page of :func:`mtsig.report.html.html_page`: every number the
    command line prints, at its decimals) with the explorer below it. ``view``: ``kind`` (``compare``: a matrix per
    metric and test; ``analyze``: the buckets), ``result`` (what the explorer draws: the run's JSON, or a ranking's
    as a comparison), ``segments`` (:func:`segment_data`, :func:`human_view` or :func:`meta_view`), ``cli`` (how a
    pair's commands are written: per metric the inputs, each system's ``-s`` argument and the metric's, and the
    words that follow) and ``members`` (an analysis's segments per bucket)."""
    data = {"kind": view["kind"], "result": view["result"], "command": command, "segments": view["segments"],
            "cli": view.get("cli") or {"by_metric": {}, "tail": []}, "members": view.get("members"),
            "version": __version__}  # fmt: skip
    explorer = (
        "<section id=explore aria-labelledby=explore-title><h2 id=explore-title>Explore</h2><p class=muted>"
        "Every pair's test as a matrix; a cell, a row of a table or a bucket opens its segments (click, or Enter "
        "with the keyboard). Δ is always B − A.</p><div id=filters></div><div id=main></div>"
        "<section id=segments hidden></section></section>\n"
        f'<script type="application/json" id="mtsig-view">{embedded_json(data)}</script>\n'
        f"<script>{_VIEW_JS}</script>\n"
    )
    marker = '<script type="application/json" id="mtsig-result">'
    at = report.index(marker)
    page = report[:at] + explorer + report[at:]
    return page.replace("</style></head>", _VIEW_CSS + "</style></head>", 1)


#: the explorer's style; the colours that mark a significant difference have at least 3:1 contrast with the page
#: (WCAG's minimum for what is not text) and carry white text at 4.5:1 or more; a star marks them too
_VIEW_CSS = """
#filters{display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;margin:.8em 0;
padding:.5em .7em;background:#f5f5f7;border-radius:4px}#filters label{white-space:nowrap}
#filters .systems{display:flex;flex-wrap:wrap;gap:.2em .8em;max-height:8em;overflow:auto}
table.matrix td{text-align:center;cursor:pointer;font-variant-numeric:tabular-nums;min-width:4.5em;white-space:nowrap}
table.matrix th.row{position:sticky;left:0;background:#fafafa}table.matrix td.self{background:#eee;cursor:default}
td.up{background:#1e7b34;color:#fff}td.down{background:#b42318;color:#fff}td.dim{color:#767676}
td.open{outline:3px solid #1a4fa0;outline-offset:-3px}
tr.click{cursor:pointer}tr.click:hover td{background:#eef2fa}mark{background:#ffe3a3;padding:0 .1em}
tr.click.sig td:first-child{box-shadow:inset 4px 0 #1e7b34}
[tabindex]:focus-visible,button:focus-visible,select:focus-visible,input:focus-visible,th:focus-visible{
outline:3px solid #1a4fa0;outline-offset:1px}
.seg{margin:.5em 0;padding:.4em .6em;border-left:3px solid #ccc}.seg div{margin:.1em 0}
.seg b{display:inline-block;min-width:7em}.seg .head{color:#555}#segments{border-top:2px solid #3366aa;margin-top:1em}
button{font:inherit;padding:.2em .8em}.key{display:inline-block;padding:0 .4em;margin-right:.3em}
@media (max-width:600px){.seg b{display:block}table.matrix td{min-width:3.5em}}
"""

# The view's script: it reads the embedded JSON and draws filters, matrices, tables and segments with DOM calls
# (every user string as text); nothing is fetched. Numbers are written as Python writes them (``f"{x:.2f}"``: ties
# to even on the exact binary value; p-values as mtsig.report.table.format_p), at the decimals the result records.
_VIEW_JS = r"""
(function () {
"use strict";
var D = JSON.parse(document.getElementById("mtsig-view").textContent);
var R = D.result, S = D.segments, C = D.cli;
var state = {systems: {}, metric: null, test: null, sig: false, doc: "", domain: "", better: "", open: null};
function el(tag, attrs, kids) {
  var e = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") { e.textContent = attrs[k]; } else if (k === "cls") { e.className = attrs[k]; }
    else { e.setAttribute(k, attrs[k]); }
  });
  (kids || []).forEach(function (k) {
    if (k) { e.appendChild(typeof k === "string" ? document.createTextNode(k) : k); }
  });
  return e;
}
function activate(e, fn) {  // a cell or row that opens something: by click, and by Enter or Space with the keyboard
  e.tabIndex = 0;
  e.setAttribute("role", "button");
  e.addEventListener("click", fn);
  e.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); fn(); }
  });
}
function quote(s) {  // as Python's shlex.quote
  s = String(s);
  if (s === "") { return "''"; }
  return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\"'\"'") + "'";
}
function cmd(argv) { return argv.map(quote).join(" "); }
function fixed(x, d) {  // Python's f"{x:.{d}f}": the exact binary value, ties to even
  if (!isFinite(x)) { return isNaN(x) ? "nan" : (x > 0 ? "inf" : "-inf"); }
  var s = x.toFixed(d), full = Math.abs(x).toFixed(Math.min(100, d + 60));
  var dot = full.indexOf("."), rest = full.slice(dot + 1 + d);
  if (/^50*$/.test(rest)) {
    var kept = full.slice(0, dot + 1 + d).replace(".", "");
    if (Number(kept.charAt(kept.length - 1)) % 2 === 0) {
      s = (x < 0 ? "-" : "") + full.slice(0, d ? dot + 1 + d : dot);
    }
  }
  return s;
}
function fmt(x, d) { return x === null || x === undefined ? "–" : fixed(Number(x), d); }
function signed(x, d) { return x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + fixed(Number(x), d); }
function fmtp(p) {  // as format_p: four decimals, or two significant digits below 1e-4 (1.0e-04)
  if (p === null || p === undefined) { return "–"; }
  if (p >= 1e-4) { return fixed(p, 4); }
  return p.toExponential(1).replace(/e([+-])(\d)$/, function (_, sign, digit) { return "e" + sign + "0" + digit; });
}
var names = D.kind === "compare" ? R.systems.map(function (s) { return s.name; }) : R.systems.slice();
names.forEach(function (n) { state.systems[n] = true; });
var metrics = D.kind === "compare" ? Array.from(new Set(R.comparisons.map(function (c) { return c.metric; })))
  : Object.keys(S.scores);
var tests = D.kind === "compare" ? Array.from(new Set(R.comparisons.map(function (c) { return c.test; }))) : [];
state.metric = metrics[0]; state.test = tests[0];

function shown(n) { return state.systems[n]; }
var boxes = {};
function filters() {  // made once: a filter keeps its focus while the view is drawn again
  var f = document.getElementById("filters");
  var box = el("div", {cls: "systems", id: "filter-systems", role: "group", "aria-label": "systems shown"});
  names.forEach(function (n) {
    var cb = el("input", {type: "checkbox", "data-system": n});
    cb.checked = state.systems[n];
    cb.addEventListener("change", function () { state.systems[n] = cb.checked; draw(); });
    boxes[n] = cb;
    box.appendChild(el("label", {}, [cb, " " + n]));
  });
  f.appendChild(el("span", {text: "systems:"}));
  f.appendChild(box);
  [["all", true], ["none", false]].forEach(function (v) {
    var btn = el("button", {type: "button", id: "systems-" + v[0], text: v[0]});
    btn.addEventListener("click", function () {
      names.forEach(function (n) { state.systems[n] = v[1]; boxes[n].checked = v[1]; });
      draw();
    });
    f.appendChild(btn);
  });
  function select(id, label, values, key, all) {
    if (values.length < 2 && !all) { return; }
    var s = el("select", {id: id});
    if (all) { s.appendChild(el("option", {value: "", text: all})); }
    values.forEach(function (v) { s.appendChild(el("option", {value: v, text: v})); });
    s.value = state[key];
    s.addEventListener("change", function () { state[key] = s.value; draw(); });
    f.appendChild(el("label", {}, [label + " ", s]));
  }
  select("filter-metric", "metric", metrics, "metric");
  if (D.kind === "compare") { select("filter-test", "test", tests, "test"); }
  var sig = el("input", {type: "checkbox", id: "filter-significant"});
  sig.checked = state.sig;
  sig.addEventListener("change", function () { state.sig = sig.checked; draw(); });
  f.appendChild(el("label", {}, [sig, " significant only"]));
  if (S.docs) { select("filter-document", "document", Array.from(new Set(S.docs)), "doc", "every document"); }
  if (S.domains) { select("filter-domain", "domain", Array.from(new Set(S.domains)), "domain", "every domain"); }
}

// ---------------------------------------------------------------- compare: matrix and table
function comparisons() {
  return R.comparisons.filter(function (c) {
    return c.metric === state.metric && c.test === state.test && shown(c.a) && shown(c.b);
  });
}
function scoreOf(n, m) {
  var s = R.systems.filter(function (x) { return x.name === n; })[0];
  return s && s.scores[m] ? s.scores[m].score : null;
}
function decimals(m) { return S.decimals[m] === undefined ? 2 : S.decimals[m]; }
function compareView(main) {
  var m = state.metric, cs = comparisons(), d = decimals(m);
  var lower = S.directions[m] === "lower";
  var order = names.filter(shown).sort(function (x, y) {
    var a = scoreOf(x, m), b = scoreOf(y, m);
    return lower ? a - b : b - a;
  });
  var byPair = {};
  cs.forEach(function (c) { byPair[c.a + "\u0000" + c.b] = c; });
  main.appendChild(el("h3", {text: "p-value matrix: " + m + " (" + state.test + ")"}));
  main.appendChild(el("p", {cls: "muted", text: "Each cell: Δ = B − A, the column's system (B) minus the row's (A), " +
    "and the " + R.settings.correction + "-adjusted p-value. Marked * where significant at α = " + R.settings.alpha +
    ": green, B better; red, B worse (" + (lower ? "lower" : "higher") + " is better). Systems best first."}));
  var head = el("tr", {}, [el("th", {text: "A \\ B"})].concat(order.map(function (n) {
    return el("th", {scope: "col", text: n});
  })));
  var body = el("tbody");
  order.forEach(function (r) {
    var tr = el("tr", {}, [el("th", {cls: "row", scope: "row", text: r + " (" + fmt(scoreOf(r, m), d) + ")"})]);
    order.forEach(function (c) {
      if (r === c) { tr.appendChild(el("td", {cls: "self", text: "·"})); return; }
      var x = byPair[r + "\u0000" + c], flip = false;
      if (!x) { x = byPair[c + "\u0000" + r]; flip = true; }
      if (!x) { tr.appendChild(el("td", {cls: "dim", text: "", title: "not compared"})); return; }
      var delta = x.delta === null ? null : (flip ? -x.delta : x.delta);  // the column minus the row: B − A
      var better = delta !== null && (lower ? delta < 0 : delta > 0);
      var cls = x.significant ? (better ? "up" : "down") : (state.sig ? "dim" : "");
      var words = c + " − " + r + ": Δ " + fmt(delta, d) + ", p adjusted " + fmtp(x.p_adjusted) +
        (x.significant ? ", significant (" + (better ? c : r) + " better)" : ", not significant");
      var td = el("td", {cls: cls, "data-a": x.a, "data-b": x.b, title: words, "aria-label": words},
        [signed(delta, d), el("br"), fmtp(x.p_adjusted) + (x.significant ? " *" : "")]);
      if (state.open && state.open.a === x.a && state.open.b === x.b) { td.className += " open"; }
      activate(td, function () { openPair(x.a, x.b); });
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
  var matrix = el("table", {cls: "matrix", id: "matrix"}, [el("thead", {}, [head]), body]);
  main.appendChild(el("div", {cls: "wrap"}, [matrix]));
  main.appendChild(el("h3", {text: "Comparisons"}));
  var rows = cs.filter(function (c) { return !state.sig || c.significant; });
  var t = el("tbody");
  rows.forEach(function (c) {
    var tr = el("tr", {cls: "click" + (c.significant ? " sig" : "")}, [c.a, c.b, fmt(c.score_a, d), fmt(c.score_b, d),
      fmt(c.delta, d), fmtp(c.p_value), fmtp(c.p_adjusted), c.significant ? "yes *" : "no"].map(function (v, i) {
      return el("td", {cls: i >= 2 && i < 7 ? "n" : "", text: v});
    }));
    activate(tr, function () { openPair(c.a, c.b); });
    t.appendChild(tr);
  });
  var th = el("tr", {}, ["A", "B", "score A", "score B", "Δ (B − A)", "p", "p adj.", "significant"].map(function (h) {
    return el("th", {scope: "col", text: h});
  }));
  main.appendChild(el("div", {cls: "wrap"}, [el("table", {id: "comparisons"}, [el("thead", {}, [th]), t])]));
  main.appendChild(el("p", {cls: "muted", text: rows.length + " of " + cs.length + " comparisons shown."}));
}

// ---------------------------------------------------------------- analyze: buckets
function analyzeView(main) {
  var listed = R.analyses.filter(function (a) { return !a.buckets; }).map(function (a) { return a.kind; });
  if (listed.length) {
    main.appendChild(el("p", {cls: "muted", id: "listed-elsewhere", text: "Without buckets to open (their lists are " +
      "in the report above): " + Array.from(new Set(listed)).join(", ") + "."}));
  }
  R.analyses.forEach(function (a, i) {
    if (!a.buckets || (metrics.indexOf(a.metric) >= 0 && a.metric !== state.metric)) { return; }
    main.appendChild(el("h3", {text: a.kind + ": " + a.metric}));
    main.appendChild(el("p", {cls: "muted", text: a.note + "."}));
    var m = D.members ? D.members[i] : null, d = a.decimals;
    var head = el("tr", {}, ["bucket", "A", "B", "Δ (B − A)", "p adj.", "significant"].map(function (h) {
      return el("th", {scope: "col", text: h});
    }));
    var body = el("tbody");
    a.buckets.forEach(function (b, k) {
      b.comparisons.forEach(function (c) {
        if (!shown(c.a) || !shown(c.b) || (state.sig && !c.significant)) { return; }
        var tr = el("tr", {cls: (m ? "click" : "") + (c.significant ? " sig" : ""), "data-bucket": b.label},
          [b.label, c.a, c.b, signed(c.delta, d), fmtp(c.p_adjusted), c.significant ? "yes *" : "no"].map(
            function (v, j) { return el("td", {cls: j === 3 || j === 4 ? "n" : "", text: v}); }));
        if (m) { activate(tr, function () { openBucket(i, k, c.a, c.b); }); }
        body.appendChild(tr);
      });
    });
    var table = el("table", {id: "bucket-" + i, "data-kind": a.kind}, [el("thead", {}, [head]), body]);
    main.appendChild(el("div", {cls: "wrap"}, [table]));
  });
}

// ---------------------------------------------------------------- segments
function highlight(text, ref, parent) {  // the words the reference lacks (beyond its count) marked
  var left = {};
  if (ref !== null) { ref.split(/\s+/).filter(Boolean).forEach(function (w) { left[w] = (left[w] || 0) + 1; }); }
  text.split(/\s+/).filter(Boolean).forEach(function (w, i) {
    if (i) { parent.appendChild(document.createTextNode(" ")); }
    if (ref !== null && !(left[w] > 0)) { parent.appendChild(el("mark", {text: w})); return; }
    if (ref !== null) { left[w] -= 1; }
    parent.appendChild(document.createTextNode(w));
  });
}
function keep(i) {
  return (!state.doc || S.docs[i] === state.doc) && (!state.domain || S.domains[i] === state.domain);
}
function reveal() {
  var box = document.getElementById("segments"), title = document.getElementById("segments-title");
  if (box.scrollIntoView) { box.scrollIntoView(); }
  if (title) { title.focus(); }  // the keyboard goes where the segments opened
}
function openPair(a, b) { state.open = {a: a, b: b}; draw(); reveal(); }
function openBucket(i, k, a, b) { state.open = {a: a, b: b, analysis: i, bucket: k}; draw(); reveal(); }
function pairCommands(a, b, m) {
  var c = C.by_metric[m], out = [];
  if (!c) { return [["The numbers: the run's command above.", ""]]; }
  var sys = ["-s", c.systems[a], c.systems[b]];
  if (D.kind === "compare") {
    out.push(["The pair alone (its p-value uncorrected; the matrix's is corrected over every pair of the run):",
      cmd(["mtsig", "compare"].concat(c.inputs, sys, c.metric, ["--test", state.test], C.tail))]);
  } else {
    out.push(["The buckets' numbers: the run's command above.", ""]);
  }
  out.push(["The segment scores shown:",
    cmd(["mtsig", "score"].concat(c.inputs, sys, c.metric, ["--sentence-level", "-f", "json"]))]);
  return out;
}
function segments() {
  var box = document.getElementById("segments");
  var o = state.open;
  box.textContent = "";
  if (!o) { box.hidden = true; return; }
  box.hidden = false;
  var m = state.metric, sc = S.scores[m] || {}, d = decimals(m);
  var lower = S.directions[m] === "lower";
  var idx = [];
  for (var i = 0; i < S.n; i++) { if (keep(i)) { idx.push(i); } }
  var title = o.a + " vs " + o.b + ": segments (" + m + ")";
  if (o.analysis !== undefined) {
    var a = R.analyses[o.analysis], mem = D.members[o.analysis], b = a.buckets[o.bucket];
    title = a.kind + " " + b.label + ": " + title;
    idx = idx.filter(function (i) {
      return Array.isArray(mem) ? mem[i] === o.bucket : (mem[o.a][i] === o.bucket || mem[o.b][i] === o.bucket);
    });
  }
  var A = sc[o.a] || [], B = sc[o.b] || [];
  function delta(i) { return (A[i] === null || B[i] === null || A[i] === undefined) ? null : B[i] - A[i]; }
  if (state.better) {
    idx = idx.filter(function (i) {
      var x = delta(i); if (x === null || x === 0) { return false; }
      return (state.better === "b") === (lower ? x < 0 : x > 0);
    });
  }
  idx.sort(function (i, j) { return Math.abs(delta(j) || 0) - Math.abs(delta(i) || 0); });
  var close = el("button", {type: "button", id: "close-segments", text: "close"});
  close.addEventListener("click", function () { state.open = null; draw(); });
  box.appendChild(el("h3", {id: "segments-title", tabindex: "-1", text: title}));
  box.appendChild(close);
  var sel = el("select", {id: "filter-better"});
  [["", "either better"], ["a", o.a + " better"], ["b", o.b + " better"]].forEach(function (v) {
    sel.appendChild(el("option", {value: v[0], text: v[1]}));
  });
  sel.value = state.better;
  sel.addEventListener("change", function () { state.better = sel.value; segments(); sel2focus(); });
  box.appendChild(el("label", {}, [" show ", sel]));
  pairCommands(o.a, o.b, m).forEach(function (c) {
    box.appendChild(el("p", {cls: "muted", text: c[0]}));
    if (c[1]) { box.appendChild(el("pre", {cls: "segment-command", text: c[1]})); }
  });
  box.appendChild(el("p", {id: "segments-count", text: idx.length + " segment(s), the largest differences first; " +
    "Δ = " + o.b + " − " + o.a + (S.texts ? "; marked: the words of an output that the reference lacks." :
    "; " + S.no_texts + ".")}));
  var list = el("div", {id: "segment-list"});
  box.appendChild(list);
  var shownN = 0;
  function more() {
    idx.slice(shownN, shownN + 50).forEach(function (i) {
      var head = "segment " + (S.ids ? S.ids[i] : i + 1) + (S.docs ? ", document " + S.docs[i] : "") +
        (S.domains ? ", domain " + S.domains[i] : "") + ": " + o.a + " " + fmt(A[i], d) + ", " + o.b + " " +
        fmt(B[i], d) + ", Δ " + signed(delta(i), d);
      var seg = el("div", {cls: "seg", "data-segment": i + 1}, [el("div", {cls: "head", text: head})]);
      if (S.texts) {
        var ref = S.texts.ref[i];
        seg.appendChild(el("div", {}, [el("b", {text: "reference"}), ref]));
        [o.a, o.b].forEach(function (n) {
          var line = el("div", {}, [el("b", {text: n})]);
          highlight(S.texts.outputs[n][i], ref, line);
          seg.appendChild(line);
        });
      }
      list.appendChild(seg);
    });
    shownN += 50;
    moreBtn.hidden = shownN >= idx.length;
  }
  var moreBtn = el("button", {type: "button", id: "more-segments", text: "more"});
  moreBtn.addEventListener("click", more);
  box.appendChild(moreBtn);
  more();
}
function sel2focus() { var s = document.getElementById("filter-better"); if (s) { s.focus(); } }
function draw() {
  var main = document.getElementById("main");
  main.textContent = "";
  if (D.kind === "compare") { compareView(main); } else { analyzeView(main); }
  segments();
}
filters();
draw();
})();
"""
