"""A MkDocs hook: the Sphinx roles the docstrings use (``:class:`X```, ``:func:`~a.b.f```) rendered as code, as
Sphinx shows them (``~`` keeps the last name only), instead of the raw role text mkdocstrings leaves."""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:class|mod|func|meth|data|attr|obj|exc|ref):<code>(~?)([^<]*)</code>")


def _name(m: re.Match) -> str:
    tilde, target = m.group(1), m.group(2)
    return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"


def on_page_content(html: str, **kwargs) -> str:
    return _ROLE.sub(_name, html)
