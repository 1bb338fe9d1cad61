"""A form read as its body streams: each uploaded file written to the run's inputs folder as its bytes arrive, the
size limit counted on the bytes received (whatever the request says of its length, chunked or not), and the whole
read under a deadline. Never more than the limit is in memory or on disk: the body is read in the server's chunks,
and the first byte beyond the limit ends the read with 413 and the run's folder removed by the caller."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from python_multipart.multipart import MultipartParser, parse_options_header

#: the largest value of a field that is not a file, and the most fields (bytes of text, names, numbers)
MAX_FIELD = 64 * 1024
MAX_FIELDS = 400
#: a body that sends nothing for this long is given up (seconds)
IDLE = 30.0


class FormError(Exception):
    """The form cannot be read: its HTTP status and a sentence for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Form:
    """What a form sent: its fields (name -> values) and its files (field name -> saved names, in the inputs
    folder, in the order they came)."""

    fields: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)

    def get(self, name: str, default: str = "") -> str:
        v = self.fields.get(name)
        return v[0] if v else default

    def getlist(self, name: str) -> list[str]:
        return list(self.fields.get(name, []))


def safe_name(name: str) -> str:
    """A file's name as it is kept: its last part, characters other than letters, digits, ``.``, ``-`` and ``_``
    as ``_``, at most 80; never empty, never hidden."""
    base = re.sub(r"[^\w.-]", "_", name.replace("\\", "/").rsplit("/", 1)[-1])[:80].lstrip(".")
    return base or "file"


def unique(folder: Path, name: str) -> str:
    """``name``, or ``stem_2.ext`` ... where a file of that name is there already."""
    if not (folder / name).exists():
        return name
    p = Path(name)
    k = 2
    while (folder / p.with_name(f"{p.stem}_{k}{p.suffix}")).exists():
        k += 1
    return str(p.with_name(f"{p.stem}_{k}{p.suffix}"))


class _Reader:
    """The callbacks of python-multipart's parser: headers of a part, its data to a file or a field."""

    def __init__(self, form: Form, folder: Path | None, max_files: int) -> None:
        self.form, self.folder, self.max_files = form, folder, max_files
        self.header, self.value = b"", b""
        self.headers: dict[bytes, bytes] = {}
        self.name: str | None = None
        self.filename: str | None = None
        self.data = bytearray()
        self.out: Any = None
        self.n_files = 0
        self.n_fields = 0
        self.error: FormError | None = None

    def callbacks(self) -> Any:
        return {"on_part_begin": self.part_begin, "on_header_field": self.header_field,
                "on_header_value": self.header_value, "on_header_end": self.header_end,
                "on_headers_finished": self.headers_finished, "on_part_data": self.part_data,
                "on_part_end": self.part_end}  # fmt: skip

    def fail(self, status: int, message: str) -> None:
        if self.error is None:
            self.error = FormError(status, message)

    def part_begin(self) -> None:
        self.headers, self.name, self.filename, self.data = {}, None, None, bytearray()

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self.header += data[start:end]

    def header_value(self, data: bytes, start: int, end: int) -> None:
        self.value += data[start:end]

    def header_end(self) -> None:
        if len(self.headers) < 16:
            self.headers[self.header.lower()] = self.value
        self.header, self.value = b"", b""

    def headers_finished(self) -> None:
        _, opts = parse_options_header(self.headers.get(b"content-disposition", b""))
        self.name = opts.get(b"name", b"").decode("utf-8", "replace")
        filename = opts.get(b"filename")
        self.filename = None if filename is None else filename.decode("utf-8", "replace")
        if self.filename:  # an upload (an empty file input sends a part without a name: nothing)
            self.n_files += 1
            if self.n_files > self.max_files:
                self.fail(413, f"at most {self.max_files} files per run")
                return
            if self.folder is None:
                self.fail(400, "this form takes no files")
                return
            kept = unique(self.folder, safe_name(self.filename))
            self.out = open(self.folder / kept, "xb")  # noqa: SIM115 - closed at the part's end or on error
            self.form.files.setdefault(self.name, []).append(kept)

    def part_data(self, data: bytes, start: int, end: int) -> None:
        if self.error is not None:
            return
        if self.out is not None:
            self.out.write(data[start:end])
        elif not self.filename:
            self.data += data[start:end]
            if len(self.data) > MAX_FIELD:
                self.fail(413, f"the field {self.name!r} is longer than {MAX_FIELD // 1024} KB")

    def part_end(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None
        elif not self.filename and self.name is not None and self.error is None:
            self.n_fields += 1
            if self.n_fields > MAX_FIELDS:
                self.fail(413, f"more than {MAX_FIELDS} fields")
                return
            try:
                text = bytes(self.data).decode("utf-8")
            except UnicodeDecodeError:
                self.fail(400, f"the field {self.name!r} is not UTF-8")
                return
            self.form.fields.setdefault(self.name, []).append(text)

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None


async def read_form(request, folder: Path | None, *, max_bytes: int, max_files: int, deadline: float) -> Form:
    """The form of ``request`` (multipart or URL-encoded), files written into ``folder`` (None: no file taken).
    Raises :class:`FormError` for a body larger than ``max_bytes`` (counted as it arrives), more than
    ``max_files`` files, a malformed body, or one not sent in time (``deadline`` seconds in all, :data:`IDLE`
    without a byte)."""
    ctype, opts = parse_options_header(request.headers.get("content-type", ""))
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > max_bytes):
        raise FormError(413, f"the upload is larger than this server takes ({max_bytes // 2**20} MB)")
    form = Form()
    if ctype == b"application/x-www-form-urlencoded":
        return await _urlencoded(request, form, min(max_bytes, MAX_FIELD * 4), deadline)
    if ctype != b"multipart/form-data" or not opts.get(b"boundary"):
        raise FormError(400, "a form is sent as multipart/form-data (or URL-encoded)")
    reader = _Reader(form, folder, max_files)
    parser = MultipartParser(opts[b"boundary"], reader.callbacks())
    total = 0
    try:
        async for chunk in _chunks(request, deadline):
            total += len(chunk)
            if total > max_bytes:
                raise FormError(413, f"the upload is larger than this server takes ({max_bytes // 2**20} MB)")
            parser.write(chunk)
            if reader.error is not None:
                raise reader.error
        parser.finalize()
    except FormError:
        raise
    except Exception as exc:  # python-multipart's parse errors: a malformed body, said, never a traceback
        if "header size" in str(exc).lower():
            raise FormError(400, "a part of the form has headers longer than this server takes (a file's name of "
                            "thousands of characters?)") from None  # fmt: skip
        raise FormError(400, f"malformed form: {exc}") from None
    finally:
        reader.close()
    if reader.error is not None:
        raise reader.error
    return form


async def _urlencoded(request, form: Form, limit: int, deadline: float) -> Form:
    body = await _body(request, limit, deadline)
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormError(400, f"malformed form: {exc}") from None
    for k, v in pairs:
        form.fields.setdefault(k, []).append(v)
    return form


async def _chunks(request, deadline: float):
    end = time.monotonic() + deadline
    stream = request.stream().__aiter__()
    while True:
        left = end - time.monotonic()
        if left <= 0:
            raise FormError(408, f"the upload took longer than {deadline:.0f} s")
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), timeout=min(IDLE, left))
        except StopAsyncIteration:
            return
        except asyncio.TimeoutError:
            raise FormError(408, "the upload stalled (nothing received for a while)") from None
        if chunk:
            yield chunk


async def _body(request, limit: int, deadline: float) -> bytes:
    out = bytearray()
    async for chunk in _chunks(request, deadline):
        out += chunk
        if len(out) > limit:
            raise FormError(413, f"the form is larger than {limit // 1024} KB")
    return bytes(out)
