"""sacreBLEU's flags on mtsig's command line, read as sacreBLEU means them or refused in one line that names
mtsig's spelling.

mtsig's flags follow sacreBLEU's where they can (``-tok``, ``-lc``, ``-m``, ``-w``, ``-f``, ``-t``, ``-l``, ``-q``,
``-sl``); some of sacreBLEU's short flags would otherwise be misread by argparse (``-sl`` in ``compare`` as
``-s l``, ``-ol`` as ``-o l``, ``-sv 0.1`` as ``-s v``), and some of its switches are value options here
(``--confidence``). Before parsing, each token that is exactly one of sacreBLEU's flags is rewritten to mtsig's
(:data:`RENAMED`, :data:`BY_COMMAND`), dropped when it changes nothing (:data:`DROPPED`), or refused with a hint
(:data:`HINTS`). ``docs/sacrebleu.md`` tabulates every flag.
"""

from __future__ import annotations

import os

from mtsig.errors import InputError

#: sacreBLEU's flag -> mtsig's, in every subcommand
RENAMED = {
    "--language-pair": "--langpair",
    "--smooth-method": "--smooth",
    "-sv": "--smooth-value",
    "-cc": "--chrf-char-order",
    "-cw": "--chrf-word-order",
    "--ter-case-sensitive": "--ter-case",
    "--ter-normalized": "--ter-normalize",
    "-cin": "--n-bootstrap",
    "--confidence-n": "--n-bootstrap",
    "--paired-jobs": "--jobs",
}

#: per subcommand: sacreBLEU's flag -> mtsig's tokens (the paired tests are compare's)
BY_COMMAND = {
    "compare": {
        "-par": ("--test", "ar"),
        "--paired-ar": ("--test", "ar"),
        "-pbs": ("--test", "paired-bootstrap"),
        "--paired-bs": ("--test", "paired-bootstrap"),
        "-parn": ("--n-resamples",),
        "--paired-ar-n": ("--n-resamples",),
        "-pbsn": ("--n-resamples",),
        "--paired-bs-n": ("--n-resamples",),
    },
}

#: sacreBLEU's switches that change nothing in mtsig (it does not warn about tokenized input; colours follow
#: NO_COLOR, which ``-nc`` sets)
DROPPED = ("--force", "-nc", "--no-color")

_PAIRED = "paired tests are `mtsig compare` (sacreBLEU's -par is --test ar, -pbs --test paired-bootstrap there)"
#: sacreBLEU's flags mtsig has no counterpart for, or spells differently: what to use instead
HINTS = {
    "--citation": "mtsig prints no citation: cite mtsig and the papers of the tests you report (README, Citing)",
    "--cite": "mtsig prints no citation: cite mtsig and the papers of the tests you report (README, Citing)",
    "--list": "`sacrebleu --list` lists the test sets; mtsig reads them by the same names (-t NAME -l SRC-TGT)",
    "-ol": "mtsig does not filter a test set by original language: select the documents (WMT XML) yourself",
    "--origlang": "mtsig does not filter a test set by original language: select the documents (WMT XML) yourself",
    "--subset": "mtsig does not filter a test set by document subset: select the documents (WMT XML) yourself",
    "--download": "mtsig downloads a test set when it first reads it (-t NAME -l SRC-TGT), through sacreBLEU",
    "-nr": "mtsig takes one file per reference: -r REF1 REF2 ... (not one tab-separated file)",
    "--num-refs": "mtsig takes one file per reference: -r REF1 REF2 ... (not one tab-separated file)",
    "-e": "mtsig reads UTF-8 only: convert other encodings first (iconv -f ENCODING -t utf-8)",
    "--encoding": "mtsig reads UTF-8 only: convert other encodings first (iconv -f ENCODING -t utf-8)",
    "-sh": "mtsig's signatures have one form (the JSON holds every setting)",
    "--short": "mtsig's signatures have one form (the JSON holds every setting)",
    "--detail": "scores by domain or document: `mtsig analyze --by labels` (WMT XML domains) or `--by documents`",
    "--chrf-lowercase": "mtsig's --lowercase (-lc) lowercases for every metric",
    "--echo": "the JSON (-f json) has the signatures and every setting",
    "-i": "give system outputs with -s FILE ... (NAME=FILE to name them)",
    "--input": "give system outputs with -s FILE ... (NAME=FILE to name them)",
}

#: sacreBLEU's smoothing methods (its ``-s``, mtsig's ``--smooth``)
SMOOTHING = ("none", "floor", "add-k", "exp")
#: the subcommands whose flags follow sacreBLEU's
COMMANDS = ("score", "compare", "analyze")


def _refuse(flag: str, hint: str) -> InputError:
    return InputError(f"{flag} is sacreBLEU's: {hint}")


def _is_level(token: str | None) -> bool:
    try:
        return token is not None and 0 < float(token) < 1
    except ValueError:
        return False


def translate(argv: list[str]) -> list[str]:
    """``argv`` with sacreBLEU's flags read as sacreBLEU means them (see the module); an InputError names mtsig's
    spelling of a flag it cannot take."""
    if not argv or argv[0] not in COMMANDS:
        return argv
    command, out = argv[0], [argv[0]]
    own = BY_COMMAND.get(command, {})
    tests: list[str] = []
    i = 0
    rest = argv[1:]
    while i < len(rest):
        tok = rest[i]
        nxt = rest[i + 1] if i + 1 < len(rest) else None
        flag, eq, value = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        i += 1
        if flag in DROPPED:
            if flag in ("-nc", "--no-color"):
                os.environ["NO_COLOR"] = "1"
            continue
        if flag in own:
            new = own[flag]
            if new[0] == "--test":
                tests.append(new[1])
            else:
                out += [*new, value] if eq else list(new)
            continue
        if flag in RENAMED:
            out.append(RENAMED[flag] + (f"={value}" if eq else ""))
            continue
        if flag in HINTS:
            raise _refuse(flag, HINTS[flag])
        out += _contextual(command, tok, nxt, rest[i:])
        if out[-1] == "--confidence" and not _is_level(nxt):  # sacreBLEU's switch (no level): the intervals
            out[-1] = "--ci"
    if tests:
        out += ["--test", *dict.fromkeys(tests)]
    return out


def _contextual(command: str, tok: str, nxt: str | None, rest: list[str]) -> list[str]:
    """The flags whose reading depends on the subcommand or on what follows them."""
    flag_next = nxt is None or (nxt.startswith("-") and nxt != "-")
    if tok in ("-par", "--paired-ar", "-pbs", "--paired-bs", "-parn", "--paired-ar-n", "-pbsn", "--paired-bs-n"):
        raise _refuse(tok, _PAIRED)
    if tok == "-ci":
        return ["--ci"] if command != "analyze" else []
    if tok in ("-sl", "--sentence-level") and command != "score":
        raise _refuse(tok, "per-segment scores: `mtsig score --sentence-level` (or -sl)")
    if tok == "-s" and nxt in SMOOTHING and not os.path.exists(nxt) and "=" not in nxt:
        raise _refuse("-s " + nxt, "mtsig's -s is --systems; sacreBLEU's -s (smoothing) is --smooth " + nxt)
    if tok == "-d" and flag_next:
        raise _refuse("-d", "mtsig's -d is --dev-systems FILE ...; sacreBLEU's -d (--detail): " + HINTS["--detail"])
    if tok in ("-b", "--score-only") and command != "score" and (tok == "--score-only" or flag_next):
        raise _refuse(tok, f"in {command}, -b is --baseline NAME; sacreBLEU's -b (score only) is `mtsig score -b`")
    return [tok]
