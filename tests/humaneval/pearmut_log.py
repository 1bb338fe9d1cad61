"""A Pearmut annotation log (WMT26's ``annotations.json`` layout) built from the shared WMT24 ESA wave 3: per
language pair, each judged document's systems in screens of three, the screens interleaved at random, with what a
real log also holds: junk screens wiped by a ``__RESET__``, tutorial screens, attention checks (with and without
item ids), and re-annotated screens (a segment's score is then the mean). Deterministic: the
oracle benchmark (``benchmarks/wmt26_oracle.py``) and the tests build the same file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from tests.data import DATA, need

ESA = DATA / "wmt24-esa"
CAMPAIGNS = {"en-ja": "eng_Latn---jpn_Jpan v3", "en-zh": "eng_Latn---zho_Hans v3"}
#: a third campaign: en-ja's judgments with each system's scores moved by a step of its own and one system made
#: erratic (so that the log has cluster lines, local lines and plain boundaries)
SPREAD = ("eng_Latn---ces_Latn v3", "en-ja", 3.0)


def _screen(user, item_i, segs, group, h, t):
    item = [{"item_id": iid, "src": f"source {iid}"} for iid, _ in segs]
    ann = [{h.systems[k]: {"score": float(h.scores[k, g]), "spans": []} for k in group if np.isfinite(h.scores[k, g])}
           for _, g in segs]  # fmt: skip
    return {"user_id": user, "item_i": item_i, "item": item, "annotation": ann,
            "actions": [{"time": t, "action": "submit"}]}  # fmt: skip


def campaign_lines(lp: str, seed: int = 26, step: float = 0.0) -> list[dict]:
    from dataclasses import replace

    from mtsig.io.human import read_human

    h = read_human(str(need(ESA / "esa_generalMT2024_wave3.csv")), lp=lp, docs=str(need(ESA / f"{lp}.docs")))
    if step:
        shift = step * np.arange(len(h.systems))[:, None]
        noisy = np.zeros_like(h.scores)
        noisy[1] = np.random.default_rng(seed).normal(0, 30, h.scores.shape[1])  # one erratic system
        h = replace(h, scores=np.round(np.clip(h.scores - shift + noisy, 0, 100), 1))
    rng = random.Random(seed)
    by_doc: dict[str, list[int]] = {}
    for g, d in enumerate(h.documents):
        by_doc.setdefault(d, []).append(g)
    screens = []
    for n, (doc, gs) in enumerate(by_doc.items()):
        domain = h.domains[gs[0]] or "general"
        segs = [(f"{domain}_###_{doc}_###_{j}", g) for j, g in enumerate(gs)]
        judged = [k for k in range(len(h.systems)) if np.isfinite(h.scores[k, gs]).any()]
        rng.shuffle(judged)
        for c in range(0, len(judged), 3):
            screens.append((n, segs, judged[c : c + 3]))
    rng.shuffle(screens)
    return _lines(h, screens, rng)


def _check_screen(user: str, s: int, t: float) -> dict:
    """An attention check, without an item id or with WMT26's prefix."""
    item = [{"src": "check", "tgt": {"check-model": "x"}}] if s % 2 else [{"item_id": f"attention_check_{s}"}]
    return {"user_id": user, "item_i": f"random_{s}", "item": item,
            "annotation": [{"check-model": {"score": 100, "spans": []}}], "actions": [{"time": t}]}  # fmt: skip


def _lines(h, screens: list, rng: random.Random) -> list[dict]:
    users = [f"annotator-{u:02d}" for u in range(12)]
    lines: list[dict] = []
    t = 1_770_000_000.0
    # junk before a reset: WMT26's rule empties the campaign at the reset, so these must not count
    for n, segs, group in screens[:4]:
        junk = _screen(users[0], n, segs, group, h, t)
        for a in junk["annotation"]:
            for v in a.values():
                v["score"] = 0.0
        lines.append(junk)
    lines.append({"user_id": users[0], "annotation": "__RESET__"})
    for u in users:
        t += 1
        tutorial = [{"item_id": "ende_#_tutorial_#_0", "src": "x"}]
        lines.append({"user_id": u, "item_i": "welcome_0", "item": tutorial,
                      "annotation": [{"tutorial-model": {"score": 5}}], "actions": [{"time": t}]})  # fmt: skip
    for s, (n, segs, group) in enumerate(screens):
        t += 7.5
        user = users[rng.randrange(len(users))]
        line = _screen(user, n, segs, group, h, t)
        lines.append(line)
        if s % 9 == 4:
            lines.append(_check_screen(user, s, t))
        if s % 11 == 3:  # the same screen annotated again by someone else: each segment's score is then the mean
            again = _screen(users[(users.index(user) + 1) % len(users)], n, segs, group, h, t + 1)
            for a in again["annotation"]:
                for v in a.values():
                    v["score"] = float(min(100.0, max(0.0, v["score"] + rng.choice((-6, -3, 4, 8)))))
            lines.append(again)
    return lines


def write_log(path: Path, seed: int = 26) -> Path:
    """The three campaigns as one ``annotations.json``."""
    data = {key: campaign_lines(lp, seed) for lp, key in CAMPAIGNS.items()}
    data[SPREAD[0]] = campaign_lines(SPREAD[1], seed + 1, SPREAD[2])
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path
