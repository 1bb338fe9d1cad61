"""From file names to aligned segments: references, systems and optimizer runs.

System specifications (``-s``):
- ``FILE``: one system named after the file;
- ``NAME=FILE``: a named system;
- ``NAME=run1.txt,run2.txt,run3.txt`` or a quoted glob ``'NAME=out.opt*'``: one system with several
  optimizer runs (Clark et al. 2011); globs expand in sorted order;
- an SGML/XML file holding ``tstset`` elements: one system per ``sysid`` (``NAME=`` renames a file
  holding a single system).

References (``-r``): plain-text files (one reference each) or SGML/XML files (one reference per
``sysid``/``refid`` of their ``refset`` documents). With SGML references every SGML system is aligned
by (docid, segid); a plain-text system is aligned by position in the references' document order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mtsig.errors import InputError
from mtsig.io.segments import RefSet, Segments
from mtsig.io.text import first_element, lines_of, looks_like_sgml, looks_like_xml, read_text


@dataclass
class System:
    """One system: a name and one :class:`Segments` per optimizer run (usually one)."""

    name: str
    runs: list[Segments]
    files: list[str] = field(default_factory=list)

    @property
    def n_runs(self) -> int:
        return len(self.runs)


def file_name(path: str | os.PathLike) -> str:
    """The last part of a path, as ``pathlib.Path(path).name`` gives it (without importing pathlib)."""
    norm = os.path.normpath(os.fspath(path))
    return "" if norm == "." else os.path.basename(norm)


def _lines_or_parses(path: str, text: str):
    """Plain text lines, or (for CoNLL-U files) the sentences' text and their parses."""
    from mtsig.io.text import looks_like_conllu

    if looks_like_conllu(path, text):
        from mtsig.io.conllu import parse_conllu

        parses = parse_conllu(text, path)
        return [p.text for p in parses], parses
    return lines_of(text), None


def attach_parses(targets: list[Segments], paths: list[str], what: str) -> None:
    """Attach CoNLL-U parses (one file per reference / system run, in order) to loaded segments."""
    from mtsig.io.conllu import read_conllu

    if len(paths) != len(targets):
        raise InputError(
            f"{len(paths)} {what} parse file(s) for {len(targets)} {what} file(s): give one CoNLL-U "
            "file per file, in the same order"
        )
    for seg, p in zip(targets, paths):
        parses = read_conllu(p)
        if len(parses) != len(seg):
            raise InputError(f"parse file {p} has {len(parses)} sentences but {seg.source} has {len(seg)} segments")
        seg.parses = parses


def _wmt_head(path: str) -> bool:
    """Whether a file's first element is ``<dataset>`` (WMT XML), from its first 64 KiB."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False  # read_text says why
    return first_element(head.decode("utf-8", errors="ignore")) == "dataset"


def _read_any(path: str) -> tuple[str | None, str]:
    """A file's text and what it is: "wmt" (WMT XML), "sgml" (NIST SGML/XML) or "text". Markup that is neither
    is an error: it is never read as segments of plain text."""
    if str(path) != "-" and _wmt_head(path):  # streamed by its reader: never held whole as text
        return None, "wmt"
    text = read_text(path)
    first = first_element(text)
    if first == "dataset":
        return text, "wmt"
    if looks_like_sgml(text):
        return text, "sgml"
    if looks_like_xml(text):
        raise InputError(
            f"{path}: XML, but neither a WMT XML test set (<dataset>) nor NIST mteval SGML/XML (<srcset>, <refset>, "
            f"<tstset>): its first element is <{first or '?'}>"
        )
    return text, "text"


def _wmt_references(path: str, text: str | None, allow_empty: bool, translators) -> RefSet:
    from mtsig.io.wmtxml import load_wmt_xml, select_translators

    ts = load_wmt_xml(path, text)
    refs = []
    for t in select_translators(ts, list(translators) if translators else None):
        lines = ts.refs[t]
        if not allow_empty:
            empty = next((k for k, ln in zip(ts.keys, lines) if not ln), None)
            if empty is not None:
                raise InputError(
                    f"{path}: the reference of translator {t!r} for document {empty[0]!r}, segment {empty[1]!r} is "
                    "empty (choose other translators with --ref-translator, or pass allow_empty_refs to keep it)",
                    param="allow_empty_refs",
                )
        refs.append(Segments(list(lines), name=t or "ref", source=path, keys=list(ts.keys)))
    source = Segments(list(ts.source), name="source", source=path, keys=list(ts.keys))
    return RefSet(refs, units=ts.units(), source=source)


def _check_text_lines(lines: list[str], path: str, what: str, allow_empty: bool) -> None:
    if not allow_empty:
        for i, ln in enumerate(lines):
            if not ln.strip():
                raise InputError(
                    f"{path}: line {i + 1}: empty {what} segment (an empty reference can match nothing; "
                    "check the file's alignment, or pass allow_empty_refs to keep it)",
                    param="allow_empty_refs",
                )


def _sgml_references(sgml_paths: list[str], allow_empty: bool, unescape: bool) -> list[Segments]:
    from mtsig.io.sgml import align, sgml_files_sets, unescape_entities  # only for SGML input

    sets = sgml_files_sets(sgml_paths, kind="refset")
    if not sets:
        raise InputError(f"{', '.join(sgml_paths)}: no refset in the reference file(s)")
    keys, aligned = align(sets)
    refs = []
    for st, segs in zip(sets, aligned):
        lines = [unescape_entities(s) for s in segs] if unescape else segs
        if not allow_empty:
            empty = next(((d, s) for (d, s), ln in zip(keys, lines) if not ln.strip()), None)
            if empty is not None:
                raise InputError(
                    f"{st.path}: reference {st.name!r}, document {empty[0]!r}, segment {empty[1]!r} is empty "
                    "(pass allow_empty_refs to keep it)",
                    param="allow_empty_refs",
                )
        refs.append(Segments(lines, name=st.name, source=st.path, keys=keys))
    return refs


def load_references(paths: list[str], allow_empty: bool = False, unescape: bool = True, translators=None) -> RefSet:
    """Read reference files (plain text, NIST SGML/XML, or one WMT XML test set) into a :class:`RefSet`.

    ``unescape`` replaces entities in SGML text (pass False for the mteval tokenizers, which replace
    them themselves exactly as the NIST scorer does). ``translators``: with WMT XML, whose references to use
    (default: every translator's).
    """
    if not paths:
        raise InputError("no reference file given (refs)", param="refs")
    refs: list[Segments] = []
    sgml_paths = []
    read = [(p, *_read_any(p)) for p in paths]
    wmt = [p for p, _, kind in read if kind == "wmt"]
    if wmt:
        if len(paths) > 1:
            raise InputError(
                f"{wmt[0]} is a WMT XML test set, which holds its references: give it alone as -r (choose its "
                "translators with --ref-translator)"
            )
        return _wmt_references(wmt[0], read[0][1], allow_empty, translators)
    if translators:
        raise InputError("--ref-translator selects the references of a WMT XML test set: -r is not one")
    for p, text, kind in read:
        if kind == "sgml":
            sgml_paths.append(p)
            continue
        assert text is not None  # only a WMT XML file is streamed rather than read whole
        lines, parses = _lines_or_parses(p, text)
        _check_text_lines(lines, p, "reference", allow_empty)
        refs.append(Segments(lines, name=file_name(p) if p != "-" else "stdin", source=p, parses=parses))
    if sgml_paths and refs:
        raise InputError(
            f"mixing SGML references ({sgml_paths[0]}) and plain-text references ({refs[0].source}) "
            "is not supported: give all references in one format"
        )
    if sgml_paths:
        refs = _sgml_references(sgml_paths, allow_empty, unescape)
    n = len(refs[0])
    for r in refs[1:]:
        if len(r) != n:
            raise InputError(f"reference {r.source} has {len(r)} segments but reference {refs[0].source} has {n}")
    if n == 0:
        raise InputError(f"reference {refs[0].source} is empty (no segments)")
    return RefSet(refs)


def split_selector(part: str) -> tuple[str, str | None]:
    """``FILE.xml:SYSTEM`` (one system of a WMT XML file) as (FILE.xml, SYSTEM); anything else as (part, None)."""
    if not os.path.exists(part) and ":" in part:
        path, system = part.rsplit(":", 1)
        if system and os.path.isfile(path):
            return path, system
    return part, None


def parse_system_spec(spec: str) -> tuple[str | None, list[str]]:
    """Split ``NAME=FILE[,FILE...]`` / glob / ``FILE`` into (name or None, list of paths); a path may carry a
    ``:SYSTEM`` selector (one system of a WMT XML file)."""
    if spec == "-" or os.path.exists(spec) or split_selector(spec)[1] is not None:
        return None, [spec]
    name, files = None, spec
    if "=" in spec:
        name, files = spec.split("=", 1)
        if not name:
            raise InputError(f"system {spec!r}: empty name before '='")
    out: list[str] = []
    for part in files.split(","):
        if part in out:
            raise InputError(f"system {spec!r}: {part} is given twice")
        if not part:
            raise InputError(f"system {spec!r}: empty file name in the list")
        if os.path.exists(part) or part == "-" or split_selector(part)[1] is not None:
            out.append(part)
        else:
            import glob  # here: only a name that is no file may be a pattern

            if not glob.has_magic(part):
                raise InputError(f"{part}: no such file (system {spec!r})")
            hits = sorted(glob.glob(part))
            if not hits:
                raise InputError(f"system {spec!r}: the pattern {part!r} matches no file")
            out.extend(hits)
    return name, out


def _default_name(paths: list[str]) -> str:
    if len(paths) == 1:
        return "stdin" if paths[0] == "-" else file_name(paths[0])
    return os.path.commonprefix([file_name(p) for p in paths]).rstrip("._-") or file_name(paths[0])


def _sgml_systems(p: str, ref0: Segments, unescape: bool) -> list[System]:
    """Every system (``tstset`` sysid) of an SGML/XML file, aligned with the references' keys."""
    from mtsig.io.sgml import align, sgml_files_sets, unescape_entities  # only for SGML input

    if ref0.keys is None:
        raise InputError(
            f"{p} is NIST SGML but the references are plain text: give SGML references "
            "so segments can be aligned by document and segment id"
        )
    sets = sgml_files_sets([p], kind="tstset")
    if not sets:
        raise InputError(f"{p}: no tstset in this file (is it a reference or source file?)")
    out, view = [], _as_ref_view(ref0)
    for st in sets:
        keys, aligned = align([view, st], order=ref0.keys)
        lines = [unescape_entities(s) for s in aligned[1]] if unescape else aligned[1]
        out.append(System(st.name, [Segments(lines, st.name, p, keys)], [p]))
    return out


def _text_run(p: str, text: str, name: str | None, refs: RefSet) -> Segments:
    ref0, n = refs[0], refs.n_segments
    lines, parses = _lines_or_parses(p, text)
    if len(lines) != n:
        raise InputError(
            f"system file {p} has {len(lines)} lines but reference {ref0.source} has {n}"
            + (" segments" if ref0.keys is not None else " lines")
        )
    return Segments(lines, name=name or _default_name([p]), source=p, keys=ref0.keys, parses=parses)


def _wmt_systems(path: str, text: str | None, selector: str | None, refs: RefSet) -> list[System]:
    """The systems (``<hyp system=..>``) of a WMT XML file, or the one ``selector`` names, aligned with the
    references: by (document, segment) when the references have ids, by position (same count) otherwise."""
    from mtsig.io.wmtxml import load_wmt_xml

    ts = load_wmt_xml(path, text)
    if not ts.hyps:
        raise InputError(f"{path}: no system output (<hyp>) in this WMT XML file")
    if selector is not None and selector not in ts.hyps:
        raise InputError(f"{path}: no system {selector!r}; the file has: {', '.join(ts.hyps)}")
    keys, n = refs[0].keys, refs.n_segments
    if keys is None:
        if len(ts.keys) != n:
            raise InputError(f"{path} has {len(ts.keys)} segments but reference {refs[0].source} has {n} lines")
        order = None
    elif keys == ts.keys:
        order = None
    else:
        where = {k: i for i, k in enumerate(ts.keys)}
        missing = next((k for k in keys if k not in where), None)
        if missing is not None or len(keys) != len(ts.keys):
            k = missing or next(k for k in ts.keys if k not in set(keys))
            side = "has no" if missing else "has an extra"
            raise InputError(
                f"{path} {side} segment {k[1]!r} of document {k[0]!r} ({'in' if missing else 'not in'} the "
                f"references, {refs[0].source})"
            )
        order = [where[k] for k in keys]
    out = []
    for s in [selector] if selector else list(ts.hyps):
        lines = ts.hyps[s] if order is None else [ts.hyps[s][i] for i in order]
        out.append(System(s, [Segments(list(lines), s, path, keys if keys is not None else None)], [path]))
    return out


def _load_spec(spec: str, refs: RefSet, unescape: bool) -> list[System]:
    """The system(s) of one ``-s`` specification: one system with its runs, or the systems of an SGML file."""
    name, paths = parse_system_spec(spec)
    runs: list[Segments] = []
    sgml_systems: list[System] = []
    for part in paths:
        p, selector = split_selector(part)
        text, kind = _read_any(p)
        if selector is not None and kind != "wmt":
            raise InputError(f"{part}: the :SYSTEM selector picks one system of a WMT XML file; {p} is not one")
        if kind == "wmt":
            sgml_systems.extend(_wmt_systems(p, text, selector, refs))
        elif kind == "sgml":
            sgml_systems.extend(_sgml_systems(p, refs[0], unescape))
        else:
            assert text is not None  # only a WMT XML file is streamed rather than read whole
            runs.append(_text_run(p, text, name, refs))
    if not sgml_systems:
        return [System(name or _default_name(paths), runs, list(paths))]
    if runs:
        raise InputError(f"system {spec!r}: mixes SGML/XML and plain-text files")
    if name is not None:
        if len(sgml_systems) != 1:
            raise InputError(
                f"system {spec!r}: {paths[0]} holds {len(sgml_systems)} systems; NAME= can only rename a file "
                "holding one"
            )
        sgml_systems[0].name = name
    return sgml_systems


def load_systems(specs: list[str], refs: RefSet, unescape: bool = True) -> list[System]:
    """Read system outputs (with runs) and check that each covers the references' segments."""
    if not specs:
        raise InputError("no system output given (systems)", param="systems")
    systems = [s for spec in specs for s in _load_spec(spec, refs, unescape)]
    _shorten_default_names(systems, [parse_system_spec(x)[0] is None for x in specs])
    seen: set[str] = set()
    for s in systems:
        if s.name in seen:
            raise InputError(f"two systems are called {s.name!r}: name them with NAME=FILE")
        seen.add(s.name)
    return systems


def _as_ref_view(ref: Segments):
    """An SgmlSet-like view of SGML references, so systems align against the reference keys."""
    from mtsig.io.sgml import SgmlSet

    st = SgmlSet("refset", ref.name, ref.source)
    for (d, s), text in zip(ref.keys or [], ref.lines):
        st.docs.setdefault(d, {})[s] = text
    return st


def _shorten_default_names(systems: list[System], unnamed: list[bool]) -> None:
    """Drop the prefix and suffix that all file-named systems share (``test.hyp.X.en`` -> ``X``)."""
    idx = [i for i, u in enumerate(unnamed) if u and i < len(systems) and len(systems[i].files) == 1]
    if len(idx) < 2:
        return
    names = [systems[i].name for i in idx]
    pre = os.path.commonprefix(names)
    cut = max(pre.rfind(c) for c in "._-") + 1 if pre else 0
    rev = os.path.commonprefix([n[::-1] for n in names])
    rcut = max(rev.rfind(c) for c in "._-") + 1 if rev else 0
    short = [n[cut : len(n) - rcut] if len(n) - rcut > cut else n for n in names]
    if all(short) and len(set(short)) == len(short):
        for i, s in zip(idx, short):
            systems[i].name = s


def attach_docids(refs: RefSet, docids) -> None:
    """The document of every segment, from a file of one id per line (or a list), for plain-text input."""
    if isinstance(docids, (str, os.PathLike)):
        source = str(docids)
        text, kind = _read_any(source)
        if kind != "text":
            raise InputError(f"{source}: a document-id file has one id per line, not markup")
        assert text is not None  # only a WMT XML file is streamed rather than read whole
        ids = [x.strip() for x in lines_of(text)]
    else:
        source, ids = "docids", [str(x).strip() for x in docids]
    if len(ids) != refs.n_segments:
        raise InputError(
            f"document-id file {source} has {len(ids)} lines but reference {refs[0].source} has {refs.n_segments}"
        )
    empty = next((i for i, x in enumerate(ids) if not x), None)
    if empty is not None:
        raise InputError(f"{source}: line {empty + 1}: empty document id")
    if "document" in refs.units or refs[0].keys is not None:
        raise InputError(f"{source}: the references already carry their documents (SGML/XML input): drop --docids")
    refs.units["document"] = ids
