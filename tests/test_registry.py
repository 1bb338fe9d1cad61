"""The one registry shape (metrics, tests, corrections, studies, formats, analyses, protocols, statistics): names
found as they were registered, membership that agrees with lookup, no silent replacement of an entry."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mtsig.errors import InputError
from mtsig.registry import Registry


@dataclass(frozen=True)
class Entry:
    name: str


def test_a_name_with_capitals_is_found_in_a_case_insensitive_registry():
    r: Registry[Entry] = Registry("thing", casefold=True)
    e = r.register(Entry("XBleu"))
    assert r.get("XBleu") is e and r.get("xbleu") is e and r["XBLEU"] is e and "xBLEU" in r


def test_membership_agrees_with_lookup_through_aliases():
    r: Registry[Entry] = Registry("thing", aliases={"m-bleu": "mbleu"}, casefold=True)
    e = r.register(Entry("mbleu"))
    assert "M-BLEU" in r and r["M-BLEU"] is e and r.get("M-BLEU") is e
    assert "nothing" not in r
    with pytest.raises(KeyError):
        r["nothing"]


def test_registering_a_taken_name_is_an_error_unless_replacing():
    r: Registry[Entry] = Registry("thing")
    first = r.register(Entry("bleu"))
    r.register(first)  # the same entry again: nothing changes
    with pytest.raises(InputError, match="thing 'bleu' is already registered; register\\(\\.\\.\\., replace=True\\)"):
        r.register(Entry("bleu"))
    second = r.register(Entry("bleu"), replace=True)
    assert r["bleu"] is second


def test_a_plugin_metric_cannot_replace_a_built_in_by_accident():
    from mtsig.metrics import REGISTRY

    bleu = REGISTRY["bleu"]
    with pytest.raises(InputError, match="metric 'bleu' is already registered"):
        REGISTRY.register(type("Imposter", (bleu,), {}))
    assert REGISTRY["bleu"] is bleu


def test_the_registries_named_in_the_docstring_exist():
    import importlib
    import re

    import mtsig.registry

    for dotted in re.findall(r"``(mtsig(?:\.\w+)+)\.([A-Z_]+)``", mtsig.registry.__doc__):
        module, name = dotted
        assert isinstance(getattr(importlib.import_module(module), name), Registry), f"{module}.{name}"
