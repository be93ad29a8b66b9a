"""The specs a collection's metadata holds, and a one-line description of a spec."""

from __future__ import annotations

import json
from collections.abc import Mapping

from neardup.errors import DamagedCollectionError
from neardup.spec import IndexSpec, Spec

#: What a collection whose stored index spec has no ``lookup`` looks up: its samples, as every
#: collection did before ``lookup`` existed, so it keeps its candidates.
LEGACY_LOOKUP = "samples"
#: What a collection whose stored index spec has no ``sentence_bands`` posts: no sentence keys,
#: as every collection did before them, so its postings and its answers stay as they were.
LEGACY_SENTENCE_BANDS = 0


def stored_specs(location: str, meta: Mapping[str, str]) -> tuple[Spec, IndexSpec]:
    """The spec and index spec a collection's metadata holds; missing or bad ones are damage."""

    def damaged(detail: str) -> DamagedCollectionError:
        return DamagedCollectionError(f"the collection at {location} is damaged: {detail}")

    for name in ("spec", "index_spec", "next_key"):
        if name not in meta:
            raise damaged(f"its metadata has no {name!r} row")
    counter = meta["next_key"]
    if not counter.isdigit():
        raise damaged(f"the key counter is {counter[:40]!r}, not a non-negative integer")
    try:
        index_dict = json.loads(meta["index_spec"])
        if not isinstance(index_dict, dict):
            raise ValueError("not a JSON object")
        # stored before ``lookup`` existed: those collections looked up their texts' samples only
        index_dict.setdefault("lookup", LEGACY_LOOKUP)
        # stored before sentence keys existed: their texts posted none
        index_dict.setdefault("sentence_bands", LEGACY_SENTENCE_BANDS)
        return Spec.from_json(meta["spec"]), IndexSpec.from_dict(index_dict)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise damaged(f"its stored spec is not readable ({type(exc).__name__}: {exc})") from None


def describe_spec(spec: Spec, lang: str = "en") -> str:
    """A one-line human description of a spec (in ``lang``; English by default, as the API
    and errors say it)."""
    sh = spec.shingles
    fp = spec.fingerprint_family
    if lang != "en":
        return _spec_words(spec, lang)
    rule = (
        f" ({sh.short_unit} {sh.short_k}-grams for pairs below {sh.short_below} tokens)"
        if sh.adaptive
        else ""
    )
    return (
        f"preset {spec.analyzer.preset}, {sh.unit} shingles k={sh.k} step={sh.step}{rule}, "
        f"{fp.family} {fp.bits} bit{', multiset' if fp.multiset else ''}"
    )


def _spec_words(spec: Spec, lang: str) -> str:
    from neardup.messages import say

    sh = spec.shingles
    fp = spec.fingerprint_family
    short = (
        say(
            "terminal",
            "spec_short",
            lang,
            short_unit=say("terminal", f"unit_{sh.short_unit}_plain", lang),
            short_k=sh.short_k,
            below=sh.short_below,
        )
        if sh.adaptive
        else ""
    )
    said = say(
        "terminal",
        "spec_described",
        lang,
        preset=spec.analyzer.preset,
        unit=say("terminal", f"unit_{sh.unit}", lang),
        k=sh.k,
        step=sh.step,
        short=short,
        family=fp.family,
        bits=fp.bits,
    )
    return said + (say("terminal", "multiset", lang) if fp.multiset else "")
