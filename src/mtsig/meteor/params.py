"""Languages, tasks, modules and their parameter tables as METEOR 1.5 defines them.

Parameters are ``(alpha, beta, gamma, delta)``; module weights are given for ``exact, stem, synonym,
paraphrase`` in that order and apply to the modules a language uses, in the order it uses them (so German's
``exact stem paraphrase`` take the first three numbers of its row, as the jar does).
"""

from __future__ import annotations

from typing import NamedTuple

from mtsig.errors import InputError

EXACT, STEM, SYNONYM, PARAPHRASE = 0, 1, 2, 3
MODULE_NAMES = ("exact", "stem", "synonym", "paraphrase")
MODULE_SHORT = ("exact", "stem", "syn", "para")

#: name -> (canonical name, short code used in file names); aliases as the jar accepts them
LANGUAGES = {
    "english": ("english", "en"),
    "en": ("english", "en"),
    "czech": ("czech", "cz"),
    "cz": ("czech", "cz"),
    "cs": ("czech", "cz"),
    "french": ("french", "fr"),
    "fr": ("french", "fr"),
    "german": ("german", "de"),
    "de": ("german", "de"),
    "spanish": ("spanish", "es"),
    "es": ("spanish", "es"),
    "arabic-buckwalter-reduced": ("arabic-buckwalter-reduced", "ar-bw-red"),
    "ar-bw-red": ("arabic-buckwalter-reduced", "ar-bw-red"),
    "portuguese": ("portuguese", "pt"),
    "pt": ("portuguese", "pt"),
    "russian": ("russian", "ru"),
    "ru": ("russian", "ru"),
    "danish": ("danish", "da"),
    "da": ("danish", "da"),
    "romanian": ("romanian", "ro"),
    "ro": ("romanian", "ro"),
    "hungarian": ("hungarian", "hu"),
    "hu": ("hungarian", "hu"),
    "turkish": ("turkish", "tr"),
    "tr": ("turkish", "tr"),
    "finnish": ("finnish", "fi"),
    "fi": ("finnish", "fi"),
    "dutch": ("dutch", "nl"),
    "nl": ("dutch", "nl"),
    "italian": ("italian", "it"),
    "it": ("italian", "it"),
    "norwegian": ("norwegian", "no"),
    "no": ("norwegian", "no"),
    "swedish": ("swedish", "se"),
    "se": ("swedish", "se"),
    "sv": ("swedish", "se"),
    "other": ("other", "other"),
    "xx": ("other", "other"),
}
#: languages with tuned parameters (the others use the language-independent task)
FULLY_SUPPORTED = ("english", "czech", "french", "spanish", "german", "russian")

#: default modules per language (any task but ``universal``)
LANGUAGE_MODULES = {
    "english": (EXACT, STEM, SYNONYM, PARAPHRASE),
    "french": (EXACT, STEM, PARAPHRASE),
    "spanish": (EXACT, STEM, PARAPHRASE),
    "german": (EXACT, STEM, PARAPHRASE),
    "czech": (EXACT, PARAPHRASE),
    "arabic-buckwalter-reduced": (EXACT, STEM),
    "portuguese": (EXACT, STEM, PARAPHRASE),
    "russian": (EXACT, STEM, PARAPHRASE),
    "danish": (EXACT, STEM),
    "romanian": (EXACT, STEM),
    "hungarian": (EXACT, STEM),
    "turkish": (EXACT, STEM),
    "finnish": (EXACT, STEM),
    "dutch": (EXACT, STEM),
    "italian": (EXACT, STEM),
    "norwegian": (EXACT, STEM),
    "swedish": (EXACT, STEM),
    "other": (EXACT,),
}

_Z = (0.0, 0.0, 0.0, 0.0)
# per task: language -> (parameters, module weights); a language missing here has zeros, as in the jar
_TABLES = {
    "rank": {
        "english": ((0.85, 0.20, 0.60, 0.75), (1.0, 0.6, 0.8, 0.6)),
        "czech": ((0.95, 0.20, 0.60, 0.80), (1.0, 0.4, 0.0, 0.0)),
        "french": ((0.90, 1.40, 0.60, 0.65), (1.0, 0.2, 0.4, 0.0)),
        "spanish": ((0.65, 1.30, 0.50, 0.80), (1.0, 0.8, 0.6, 0.0)),
        "german": ((0.95, 1.00, 0.55, 0.55), (1.0, 0.8, 0.2, 0.0)),
        "russian": ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5, 0.0)),
    },
    "adq": {"english": ((0.75, 1.40, 0.45, 0.70), (1.0, 1.0, 0.6, 0.8))},
    "hter": {"english": ((0.40, 1.50, 0.35, 0.55), (1.0, 0.2, 0.6, 0.8))},
    "util": {"english": ((0.65, 0.1, 0.55, 0.65), (1.0, 0.0, 0.0, 0.8))},
}
_LI = ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5, 0.5))
_TUNE = ((0.5, 1.0, 0.5, 0.5), (1.0, 0.5, 0.5, 0.5))
_UNIVERSAL = ((0.70, 1.40, 0.30, 0.70), (1.0, 0.6, 0.0, 0.0))

TASKS = ("rank", "adq", "hter", "util", "li", "tune", "universal")
TASK_DESCRIPTIONS = {
    "rank": "Ranking",
    "adq": "Adequacy",
    "hter": "HTER",
    "util": "Translator-Utility (character-based)",
    "li": "Language-Independent",
    "tune": "Tune",
    "universal": "Universal",
}


class Config(NamedTuple):
    """A resolved METEOR configuration."""

    language: str  # canonical name
    code: str  # short code (file names)
    task: str  # task name, or "custom"
    params: tuple[float, float, float, float]
    modules: tuple[int, ...]
    weights: tuple[float, ...]
    normalize: str  # "none", "lower", "norm", "norm-nopunct"
    char_based: bool
    beam: int


def language(name: str) -> tuple[str, str]:
    try:
        return LANGUAGES[name.lower()]
    except KeyError:
        raise InputError(
            f"METEOR: unknown language {name!r}; choose from: {', '.join(sorted({v[1] for v in LANGUAGES.values()}))}",
            param="meteor_lang",
        ) from None


def _task_tables(lang: str, task: str) -> tuple[tuple[float, ...], tuple[float, ...], tuple[int, ...]]:
    if task == "universal":
        params, weights = _UNIVERSAL
        return params, weights, (EXACT, PARAPHRASE)
    modules = LANGUAGE_MODULES[lang]
    if lang == "other" or task == "li":
        params, weights = _LI
    elif task == "tune":
        params, weights = _TUNE
    else:
        params, weights = _TABLES[task].get(lang, (_Z, _Z))
    return params, weights, modules


def _floats(text: str, n: int | None, what: str, param: str) -> tuple[float, ...]:
    try:
        vals = tuple(float(x) for x in text.replace(",", " ").split())
    except ValueError:
        raise InputError(f"METEOR: {what} must be numbers, got {text!r}", param=param) from None
    if n is not None and len(vals) != n:
        raise InputError(f"METEOR: {what} needs {n} numbers, got {len(vals)} ({text!r})", param=param)
    return vals


#: the largest beam accepted (the jar's default is 40; the search's pools grow with it)
MAX_BEAM = 1_000_000


def module_ids(text: str) -> tuple[int, ...]:
    ids = []
    for name in text.replace("+", " ").replace(",", " ").split():
        key = {"syn": "synonym", "para": "paraphrase"}.get(name.lower(), name.lower())
        if key not in MODULE_NAMES:
            raise InputError(
                f"METEOR: unknown module {name!r}; choose from: {', '.join(MODULE_NAMES)}", param="meteor_modules"
            )
        ids.append(MODULE_NAMES.index(key))
    if not ids:
        raise InputError("METEOR: no modules given", param="meteor_modules")
    twice = sorted({MODULE_NAMES[i] for i in ids if ids.count(i) > 1})
    if twice:  # the statistics row has one block per module, in the jar's order of the four
        raise InputError(
            f"METEOR: module(s) {', '.join(twice)} given more than once ({text!r})", param="meteor_modules"
        )
    return tuple(ids)


def resolve(  # noqa: PLR0913 - one keyword per flag of the jar
    lang: str = "en",
    task: str = "rank",
    *,
    params: str | None = None,
    modules: str | None = None,
    weights: str | None = None,
    normalize: str = "none",
    beam: int = 40,
    char_based: bool | None = None,
) -> Config:
    """The configuration the jar builds from ``-l -t -p -m -w -x -ch`` and its normalization flags."""
    name, code = language(lang)
    task = task.lower()
    if task == "default":
        task = "rank" if name in FULLY_SUPPORTED else "li"
    if task not in TASKS:
        raise InputError(f"METEOR: unknown task {task!r}; choose from: {', '.join(TASKS)}", param="meteor_task")
    p, w, mods = _task_tables(name, task)
    w = tuple(w[: len(mods)])
    label = task
    if params is not None:
        p = _floats(params, 4, "parameters (alpha beta gamma delta)", "meteor_params")
        label = "custom"
    if weights is not None:
        w = _floats(weights, None, "module weights", "meteor_weights")
        label = "custom"
    if modules is not None:
        mods = module_ids(modules)
        # as the jar: weights follow the modules by position; missing ones are 0
        w = tuple(w[i] if i < len(w) else 0.0 for i in range(len(mods)))
        label = "custom"
    if len(w) < len(mods):
        w = w + (0.0,) * (len(mods) - len(w))
    if not 1 <= beam <= MAX_BEAM:
        raise InputError(f"METEOR: the beam size must lie in 1..{MAX_BEAM:,}, got {beam}", param="meteor_beam")
    # The jar's API switches to characters for util, but its command line resets that unless -ch is given
    # (MeteorConfiguration reads the charBased property after the task): mtsig follows the command line.
    if char_based is None:
        char_based = False
    p1, p2, p3, p4 = p
    return Config(name, code, label, (p1, p2, p3, p4), tuple(mods), tuple(w), normalize, bool(char_based), int(beam))
