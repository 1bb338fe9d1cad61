"""What a metric delta means to humans (Kocmi, Zouhar, Federmann & Post 2024, "Navigating the Metrics Maze").

For each metric the paper fits accuracy(Δ) = a / (1 + exp(-b Δ)): the estimated share (in %) of human judgments
that agree with the metric that the system it scores higher is the better one, for a metric difference Δ > 0. The
Δ a metric needs for an accuracy t is -ln(a/t - 1) / b, and none exists for t >= a (the fit's ceiling).

Scores are on the paper's scale: BLEU and chrF as mtsig prints them (0-100); COMET-family, BLEURT and BERTScore
scores (0-1 as their tools print them, and as mtsig keeps segment-score files) multiplied by 100; MetricX as given
(see :data:`POINTS`). ``FITS`` holds the paper's published fits (a, b): facts of the paper, the numbers of its
tool's ``thresholds.json``; ``--fits FILE`` reads another such file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from mtsig.errors import InputError

#: (a in %, b) per metric, as Kocmi et al. 2024 published them
FITS: dict[str, tuple[float, float]] = {
    "bleu": (88.33333333333225, 0.9663926931178954),
    "chrf": (92.999999999972, 1.1142732157139852),
    "spBLEU200": (90.99999999998793, 0.8079046528617078),
    "bleurt-default": (94.66666666666666, 0.4947232832741672),
    "bleurt-20": (98.33333333332963, 1.3727206190931929),
    "comet20": (97.33333333332897, 0.7266990738678005),
    "comet22": (96.22374133884283, 2.8359194570556636),
    "comet21qe": (93.7997435048193, 43.38413992717536),
    "cometkiwi22": (98.88141616584615, 2.719280643871758),
    "xcomet-XXL": (98.93432477039522, 1.1629533711748128),
    "xcomet-XL": (96.56738237041118, 1.4535595865214588),
    "spBLEU101": (84.58445492823891, 1.262507595109315),
    "cometkiwi-xxl": (96.23167242471065, 1.2826577343149304),
    "bertscore": (94.99999999999999, 2.6823162097239917),
    "cometkiwi23-xl-src": (96.39080593943235, 1.8888877927713834),
    "metricx-23-large": (93.60777624544488, 26.277850179370947),
    "metricx-23-qe-large": (97.99999999782683, 15.541455989240491),
}
#: fits read on the metric's own scale: BLEU, chrF and spBLEU on 0-100 (as mtsig prints them), MetricX on its 0-25
#: error scale (its fits give 70% at a difference of 0.04); the others' 0-1 scores are multiplied by 100
POINTS = ("bleu", "chrf", "spBLEU200", "spBLEU101", "metricx-23-large", "metricx-23-qe-large")
ACCURACIES = (50, 55, 60, 65, 70, 75, 80, 85, 90, 95)
#: mtsig's and the usual names of metrics -> the fit's name
ALIASES = {
    "bleu": "bleu", "sacrebleu": "bleu", "chrf": "chrf", "chrf2": "chrf", "comet": "comet22",
    "wmt22-comet-da": "comet22", "comet-22": "comet22", "comet22-da": "comet22", "wmt20-comet-da": "comet20",
    "comet-20": "comet20", "wmt22-cometkiwi-da": "cometkiwi22", "cometkiwi": "cometkiwi22",
    "wmt23-cometkiwi-da-xl": "cometkiwi23-xl-src", "wmt23-cometkiwi-da-xxl": "cometkiwi-xxl",
    "xcomet-xl": "xcomet-XL", "xcomet-xxl": "xcomet-XXL", "bleurt": "bleurt-20", "bleurt20": "bleurt-20",
    "bleurt-20": "bleurt-20", "metricx": "metricx-23-large", "metricx-23": "metricx-23-large",
    "metricx-23-qe": "metricx-23-qe-large", "bertscore": "bertscore", "spbleu": "spBLEU200",
}  # fmt: skip


def load_fits(path: str) -> dict[str, tuple[float, float]]:
    """Fits from a ``thresholds.json`` (``{metric: [a, b]}``)."""
    from mtsig.io.text import read_text

    def no_constant(name: str):
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        raw = json.loads(read_text(path), parse_constant=no_constant)
    except ValueError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    if not isinstance(raw, dict) or not raw:
        raise InputError(f"{path}: expected {{metric: [a, b]}}")
    out = {}
    for k, v in raw.items():
        numbers = isinstance(v, list) and len(v) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)  # fmt: skip
        if not numbers or not 0 < v[0] <= 100 or not v[1] > 0:
            raise InputError(f"{path}: {k!r} is {v!r}, not [a, b] with 0 < a <= 100 (the ceiling, in %) and b > 0 "
                             "(the slope: a larger difference must mean more agreement)")  # fmt: skip
        out[k] = (float(v[0]), float(v[1]))
    return out


def fit_for(name: str, fits: Mapping[str, tuple[float, float]] | None = None) -> str | None:
    """The fit of a metric name (mtsig's, a score file's or the paper's), or None."""
    fits = FITS if fits is None else fits
    if name in fits:
        return name
    key = re.sub(r"^unbabel/", "", name.strip().lower())
    key = ALIASES.get(key, key)
    if key in fits:
        return key
    lowered = {k.lower(): k for k in fits}
    return lowered.get(key)


def accuracy(delta: float, fit: str, fits: Mapping[str, tuple[float, float]] | None = None) -> float:
    """The estimated share (0-1) of human judgments agreeing with a metric difference of ``|delta|`` (on the
    paper's scale)."""
    a, b = (fits or FITS)[fit]
    return a / (1.0 + math.exp(-b * abs(delta))) / 100.0


def delta_for(acc: float, fit: str, fits: Mapping[str, tuple[float, float]] | None = None) -> float | None:
    """The Δ needed for an accuracy ``acc`` in % (None at or above the fit's ceiling a, and at or below a/2, the
    fit's accuracy at Δ = 0: no positive difference gives it)."""
    a, b = (fits or FITS)[fit]
    if acc >= a or acc <= a / 2:
        return None
    return -math.log(a / acc - 1.0) / b


def scale_of(fit: str) -> float:
    """What mtsig's numbers of this metric are multiplied by to be on the paper's scale."""
    return 1.0 if fit in POINTS else 100.0


def thresholds_table(metrics: Sequence[str] | None = None, accuracies: Sequence[float] = ACCURACIES,
                     fits_path: str | None = None) -> dict:  # fmt: skip
    """``{"thresholds": {FIT: {"50": Δ or None, ...}}, "fits": {FIT: [a, b]}, "names": {asked: FIT}}``."""
    fits = load_fits(fits_path) if fits_path else FITS
    if isinstance(metrics, str):  # one metric's name, as one accuracy may be one number
        metrics = [metrics]
    if isinstance(accuracies, int | float):
        accuracies = [accuracies]
    for value, param, what in ((metrics, "metrics", "metric names"), (accuracies, "accuracy", "percentages")):
        if value is not None and not isinstance(value, Sequence) and not hasattr(value, "__array__"):
            raise InputError(f"{param} must be one or a list of {what}, got {value!r}", param=param)
    if metrics is not None and any(not isinstance(m, str) for m in metrics):
        raise InputError(f"metrics must be metric names (strings), got {list(metrics)!r}", param="metrics")
    if len(accuracies) == 0:
        raise InputError("accuracy: no percentage given", param="accuracy")
    for acc in accuracies:
        if isinstance(acc, bool) or not isinstance(acc, (int, float)) or not math.isfinite(acc) or not 0 < acc < 100:
            raise InputError(f"accuracy {acc!r} is not a percentage strictly between 0 and 100", param="accuracy")
        if acc <= 1:
            raise InputError(f"accuracy {acc:g} is a percentage: {acc:g} means {acc:g}%, below any fit's accuracy at "
                             f"Δ = 0 (about 45%); did you mean {acc * 100:g}?", param="accuracy")  # fmt: skip
    names = {}
    for m in metrics or list(fits):
        f = fit_for(m, fits)
        if f is None:
            raise InputError(f"no threshold fit for metric {m!r}; the fits are: {', '.join(fits)}", param="metrics")
        names[m] = f
    table = {f: {f"{acc:g}": delta_for(acc, f, fits) for acc in accuracies} for f in dict.fromkeys(names.values())}
    return {"thresholds": table, "fits": {f: list(fits[f]) for f in table}, "names": names}


def human_agreement(metric: str, delta: float) -> dict | None:
    """What a compare row's Δ means to humans: ``{"fit", "accuracy", "scale"}``, or None for a metric without a
    published fit."""
    f = fit_for(metric)
    if f is None or delta != delta:
        return None
    s = scale_of(f)
    return {"fit": f, "accuracy": accuracy(delta * s, f), "scale": s}
