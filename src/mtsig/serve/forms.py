"""A command's form, drawn from its schema (:func:`mtsig.surface.schema`): one control per field, with the
command line's help, choices, range and default, grouped under the command's ``--help`` headings. Nothing here
knows a command: a setting added to a command's declarations appears in its form.

Files are uploads or picks under ``--data``; a folder only a pick. Every control has its label; an error is said at
the top (a list of links to the fields) and beside its field, and the form comes back with what was typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from mtsig.surface import Field, Schema

#: the groups shown open (the rest, such as each metric's options, behind a click)
OPEN_GROUPS = ("inputs", "judgments", "metrics", "tests", "analyses", "ranking", "meta-evaluation", "options",
               "positional arguments", "confidence intervals", "what to print")  # fmt: skip
#: one line on what each command answers (the form's heading)
ABOUT = {
    "compare": "Is the difference real? Paired tests between systems, corrected for multiplicity.",
    "analyze": "Where do systems differ? Scores, differences and corrected p-values by length, frequency, document, "
    "n-gram.",
    "score": "Each system's corpus score, with bootstrap intervals.",
    "human": "Rank systems from human judgments (WMT DA, MQM, ESA, TSV): intervals, tests, clusters, rank ranges.",
    "meta": "How well do metrics agree with humans? Correlations, pairwise accuracy, intervals, tests, clusters.",
}


@dataclass(frozen=True)
class Picks:
    """What ``--data`` offers: its files and folders (relative paths, hidden ones left out), and whether the
    listing was cut (then paths are typed)."""

    files: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    cut: bool = False
    where: str = ""

    @property
    def any(self) -> bool:
        return bool(self.files or self.folders or self.cut)


def _attrs(**kw) -> str:
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(str(v))}"' for k, v in kw.items() if v is not None)


def _hint(f: Field, fid: str, error: str | None) -> str:
    out = f'<small class=hint id="{fid}-hint">{escape(_help(f))}</small>'
    if error:
        out += f'<span class=error id="{fid}-error" role=alert>{escape(error)}</span>'
    return out


def _help(f: Field) -> str:
    flag = f.flag or "FILE ..."
    text = f.help.rstrip(".")
    shown = f.shown_default()
    if shown and f.kind not in ("bool", "choice", "choices") and "default" not in text:
        text += f" (default: {shown})"
    if f.kind == "texts":
        text += "; several: separate them with spaces"
    return f"{flag}: {text}"


def _described(fid: str, error: str | None) -> str:
    return f"{fid}-hint{f' {fid}-error' if error else ''}"


def _path(f: Field, picks: Picks, error: str | None) -> str:
    fid = f"f-{f.name}"
    label = f"{f.name.replace('_', ' ')}{' (several)' if f.many else ''}"
    parts = []
    if f.kind != "dir":
        parts.append(f'<label for="{fid}">{escape(label)}</label><input type=file{_attrs(id=fid, name=f.name)}'
                     f'{" multiple" if f.many else ""} aria-describedby="{_described(fid, error)}">')  # fmt: skip
    parts.append(_pick(f, picks))
    if f.kind == "dir" and not picks.any:
        parts.append(f'<p class=muted id="{fid}">{escape(label)}: a folder, picked under --data (this server has '
                     "none: start it with mtsig serve --data DIR)</p>")  # fmt: skip
    return f'<div class="field{" bad" if error else ""}">{"".join(parts)}{_hint(f, fid, error)}</div>'


def _pick(f: Field, picks: Picks) -> str:
    if not picks.any:
        return ""
    did = f"d-{f.name}"
    values = picks.folders if f.kind == "dir" else picks.files
    what = "folder" if f.kind == "dir" else ("files" if f.many else "file")
    if picks.cut:
        return (f'<label for="{did}">or {what} under {escape(picks.where)} (its listing is cut at '
                f"{len(picks.files):,} files: type paths, one per line)</label><textarea{_attrs(id=did)} "
                f'name="data_{escape(f.name)}" rows=2></textarea>')  # fmt: skip
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    many = " multiple size=4" if f.many else ""
    empty = "" if f.many else "<option value=''>(none)</option>"
    return (f'<label for="{did}">or {what} under {escape(picks.where)}</label><select{_attrs(id=did)} '
            f'name="data_{escape(f.name)}"{many}>{empty}{options}</select>')  # fmt: skip


def _value(f: Field, given: list[str] | None, error: str | None) -> str:
    fid = f"f-{f.name}"
    desc = f' aria-describedby="{_described(fid, error)}"'
    bad = " bad" if error else ""
    if f.kind == "bool":
        on = bool(given) if given is not None else bool(f.default)
        return (f'<div class="field check{bad}"><input type=checkbox value=1{_attrs(id=fid, name=f.name)}'
                f'{" checked" if on else ""}{desc}> <label for="{fid}">{escape(f.name.replace("_", " "))}</label>'
                f"{_hint(f, fid, error)}</div>")  # fmt: skip
    if f.kind == "choices":
        chosen = set(given) if given is not None else {str(x) for x in (f.default or ())}
        boxes = "".join(
            f'<label class=choice><input type=checkbox value="{escape(c)}" name="{escape(f.name)}"'
            f'{" checked" if c in chosen else ""}> {escape(c)}</label>' for c in f.choices or ())  # fmt: skip
        return (f'<fieldset class="field{bad}" id="{fid}"{desc}><legend>{escape(f.name.replace("_", " "))}</legend>'
                f"{boxes}{_hint(f, fid, error)}</fieldset>")  # fmt: skip
    label = f'<label for="{fid}">{escape(f.name.replace("_", " "))}</label>'
    if f.kind == "choice":
        now = given[0] if given else (str(f.default) if f.default is not None else "")
        opts = "" if f.default is not None else "<option value=''>(the command's choice)</option>"
        opts += "".join(f'<option value="{escape(c)}"{" selected" if c == now else ""}>{escape(c)}</option>'
                        for c in f.choices or ())  # fmt: skip
        return f'<div class="field{bad}">{label}<select{_attrs(id=fid, name=f.name)}{desc}>{opts}</select>' + _hint(
            f, fid, error) + "</div>"  # fmt: skip
    value = given[0] if given else ""
    kind = {"int": "number", "float": "text"}.get(f.kind, "text")
    extra = _attrs(min=None if f.low is None or f.open else _num(f.low), max=None if f.high is None or f.open
                   else _num(f.high), step=1 if f.kind == "int" else None,
                   inputmode="decimal" if f.kind == "float" else None)  # fmt: skip
    placeholder = f.shown_default() or ("12345" if f.name == "seed" else "")
    return (f'<div class="field{bad}">{label}<input type={kind}{_attrs(id=fid, name=f.name, value=value)}'
            f'{_attrs(placeholder=placeholder or None)}{extra}{desc}>{_hint(f, fid, error)}</div>')  # fmt: skip


def _grouped(sch: Schema) -> list[tuple[str, list[Field]]]:
    """The schema's groups in order; a group with main inputs shows those, its other fields follow in a group of
    their own ("more inputs: ...", closed)."""
    out: list[tuple[str, list[Field]]] = []
    for group, fields in sch.groups():
        main = [f for f in fields if f.main]
        if main and len(main) < len(fields):
            rest = [f for f in fields if not f.main]
            out += [(group, main), (f"more {group}: {', '.join(f.name.replace('_', ' ') for f in rest)}", rest)]
        else:
            out.append((group, fields))
    return out


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


def form_html(sch: Schema, csrf: str, picks: Picks, values: Mapping[str, list[str]] | None = None,
              errors: Mapping[str, str] | None = None, message: str | None = None) -> str:  # fmt: skip
    """The form of ``sch``'s command; ``values`` (field -> what was typed) and ``errors`` (field -> message;
    ``message``: the error that names no field) when it comes back."""
    errors = dict(errors or {})
    parts = []
    if message or errors:
        items = "".join(f'<li><a href="#f-{escape(n)}">{escape(n.replace("_", " "))}: {escape(e)}</a></li>'
                        for n, e in errors.items())  # fmt: skip
        top = f"<p>{escape(message)}</p>" if message else ""
        parts.append(f'<div class=errors role=alert tabindex=-1 id=errors><h3>The run was not started</h3>{top}'
                     f"<ul>{items}</ul></div>")  # fmt: skip

    def control(f: Field) -> str:
        if f.is_path:
            return _path(f, picks, errors.get(f.name))
        return _value(f, None if values is None else values.get(f.name, []), errors.get(f.name))

    for group, fields in _grouped(sch):
        opened = (group in OPEN_GROUPS and not group.startswith("more ")) or any(f.name in errors for f in fields)
        title = "inputs" if group == "positional arguments" else group
        parts.append(f'<details class=group{" open" if opened else ""}><summary>{escape(title)}</summary>'
                     f'{"".join(control(f) for f in fields)}</details>')  # fmt: skip
    keep = values is None or bool(values.get("keep_texts"))
    if sch.command in ("compare", "analyze"):
        parts.append('<div class="field check"><input type=checkbox name=keep_texts value=1 id=f-keep_texts'
                     f'{" checked" if keep else ""}> <label for=f-keep_texts>keep the segments in the run\'s view'
                     "</label><small class=hint>unticked: only the inputs' SHA-256 and the numbers are kept"
                     "</small></div>")  # fmt: skip
    return (f'<form method=post action=/runs enctype=multipart/form-data class=run id=form-{sch.command}>'
            f'<input type=hidden name=csrf value="{escape(csrf)}"><input type=hidden name=command '
            f'value="{sch.command}">{"".join(parts)}<button type=submit>run {sch.command}</button></form>')  # fmt: skip


FORM_CSS = """
form.run .field{margin:.5em 0}form.run label{display:block;font-weight:600}form.run .check label,
form.run label.choice{display:inline;font-weight:normal;margin-right:1em;white-space:nowrap}
form.run input[type=text],form.run input[type=number],form.run select,form.run textarea{max-width:100%;
width:28em;box-sizing:border-box;font:inherit}form.run select[multiple]{width:28em}
form.run input[type=file]{max-width:100%}.hint{display:block;color:#555;font-size:.85em;max-width:60em}
details.group{border:1px solid #ddd;border-radius:4px;padding:.2em .8em;margin:.6em 0}
details.group>summary{cursor:pointer;font-weight:600;padding:.2em 0}fieldset.field{border:0;padding:0;margin:.5em 0}
fieldset.field legend{font-weight:600;padding:0}.error{display:block;color:#a40000;font-weight:600}
.field.bad input,.field.bad select{border:2px solid #a40000}
.errors{border:2px solid #a40000;padding:.3em .9em;margin:.8em 0;background:#fff4f4}.errors a{color:#a40000}
nav.tabs a{display:inline-block;padding:.3em .8em;margin:0 .3em .3em 0;border:1px solid #ccc;border-radius:4px;
text-decoration:none}nav.tabs a[aria-current=page]{background:#1a4fa0;color:#fff;border-color:#1a4fa0}
button{font:inherit;padding:.3em 1em}
@media (max-width:600px){form.run input[type=text],form.run input[type=number],form.run select,form.run textarea,
form.run select[multiple]{width:100%}}
"""
