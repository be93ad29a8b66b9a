"""Hostile values through the public API: every refusal is a NeardupError.

Randomized calls (hypothesis, derandomized so a run is repeatable) over ``compare``,
``make_spec``, the specs and ``from_dict``/``from_json``, ``MinHasher``, ``Aligner`` and a
``Collection`` on memory storage, with huge, negative, bool, float, NaN, None, odd strings, lone
surrogates, bytes, containers and arrays. A call may succeed; when it fails, the exception must
be a :class:`NeardupError` (a value of the wrong type for the parameter: a ``WrongTypeError``,
which is a ``TypeError`` too). Anything else is a bug.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup import (
    Aligner,
    Collection,
    FingerprintSpec,
    IndexSpec,
    MinHasher,
    NeardupError,
    ShingleSpec,
    SketchSpec,
    Spec,
    compare,
    make_spec,
)
from neardup._constraints import KEY, Boolean, Integer, OneOf, Real
from neardup.score.matrix import similarity_matrix

#: The fewest calls one run makes (issue #11: 2,000); ``NEARDUP_FUZZ_CALLS`` asks for more, and
#: ``NEARDUP_FUZZ_RANDOM=1`` draws new values instead of the repeatable sequence.
MIN_CALLS = max(2000, int(os.environ.get("NEARDUP_FUZZ_CALLS", "0") or 0))
RANDOM = os.environ.get("NEARDUP_FUZZ_RANDOM") == "1"

TEXT = "Мама мыла раму, а папа читал газету. The quick brown fox jumps over the lazy dog."

ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "\ud800",
    "a\udfffb",
    "\U0010ffff",
    "ё" * 50,
    "<html><body>x</body></html>",
    "[/b][/]",
    "\x1b[2J",
    "9223372036854775808",
    "nan",
    "word",
    "ru",
    "plain",
    "rabin",
    "crc32",
    "minhash",
    "reject",
]

hostile_numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2, 31, 32, 63, 64, 65, 1024, 1025, 2**31, 2**63, 2**64, 2**64 - 1]),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -0.0, 0.5, 1.0, 1e308]),
)
hostile_strings = st.one_of(
    st.sampled_from(ODD_STRINGS),
    st.text(
        st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=40
    ),
)
hostile_arrays = st.sampled_from(
    [
        np.zeros(0, dtype=np.uint64),
        np.zeros(8, dtype=np.uint64),
        np.zeros(8, dtype=np.uint32),
        np.zeros(8, dtype=np.float64),
        np.full(8, np.nan),
        np.zeros((2, 8), dtype=np.uint64),
        np.zeros((2, 2, 2), dtype=np.uint64),
        np.array([-1, 5], dtype=np.int64),
        np.array(["a", "b"]),
    ]
)
hostile = st.one_of(
    hostile_numbers,
    hostile_strings,
    st.none(),
    st.binary(max_size=20),
    st.lists(st.one_of(st.integers(), st.text(max_size=5)), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.tuples(st.text(max_size=5), st.text(max_size=5)),
    hostile_arrays,
)


@dataclass(frozen=True)
class Target:
    """One parameter of one public call: how to call it with a value, and which Python types
    are the right type for it (any other type may be refused with a plain TypeError)."""

    name: str
    call: Callable[[Any], object]
    types: tuple[type, ...] | Callable[[Any], bool]


def _is_right_type(value: Any, types: tuple[type, ...] | Callable[[Any], bool]) -> bool:
    if callable(types):
        return types(value)
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _texts(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(t, str | bytes) for t in value)


def _sources(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(t, str | bytes) for t in value.values())
    return isinstance(value, list) and all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], str | bytes) for p in value
    )


def _types_of(constraint: Any) -> tuple[type, ...]:
    if isinstance(constraint, Integer):
        return (int,)
    if isinstance(constraint, Real):
        return (int, float)
    if isinstance(constraint, Boolean):
        return (bool,)
    assert isinstance(constraint, OneOf)
    return tuple(dict.fromkeys(type(o) for o in constraint.options))


def _spec_targets(cls: type) -> list[Target]:
    return [
        Target(f"{cls.__name__}({f.name}=…)", lambda v, n=f.name: cls(**{n: v}), _types_of(c))
        for f in fields(cls)
        if (c := f.metadata.get(KEY)) is not None
    ]


def _from_dict_targets() -> list[Target]:
    """A stored spec with one value replaced: whatever comes, a SpecError (never TypeError)."""
    good = make_spec("plain").replace(sketch=SketchSpec(num_perm=16, bands=4)).to_dict()

    def replaced(section: str, key: str) -> Callable[[Any], object]:
        def call(value: Any) -> object:
            data = {k: dict(v) if isinstance(v, dict) else v for k, v in good.items()}
            data[section][key] = value
            return Spec.from_dict(data)

        return call

    everything = (object,)
    targets = [
        Target(f"Spec.from_dict({section}.{key}=…)", replaced(section, key), everything)
        for section in ("shingles", "fingerprints", "sketch")
        for key in good[section]
    ]
    targets.append(
        Target("Spec.from_dict(analyzer.preset=…)", replaced("analyzer", "preset"), everything)
    )
    targets.append(
        Target("Spec.from_dict(analyzer.chains=…)", replaced("analyzer", "chains"), everything)
    )
    targets.append(Target("Spec.from_dict(…)", Spec.from_dict, (dict,)))
    targets.append(Target("Spec.from_json(…)", Spec.from_json, (str, bytes)))
    return targets


def _collection_targets(collection: Collection) -> list[Target]:
    counter = iter(range(10**9))

    def add_id(value: Any) -> object:
        return collection.add(value, TEXT)

    def add_text(value: Any) -> object:
        return collection.add(f"doc-{next(counter)}", value)

    def add_meta(value: Any) -> object:
        return collection.add(f"doc-{next(counter)}", TEXT, value)

    return [
        Target("Collection.add(id=…)", add_id, (str,)),
        Target("Collection.add(text=…)", add_text, (str, bytes)),
        Target("Collection.add(meta=…)", add_meta, (dict,)),
        Target("Collection.check(…)", collection.check, (str, bytes)),
        Target("Collection.check(top=…)", lambda v: collection.check(TEXT, top=v), (int,)),
        Target("Collection.get(…)", collection.get, (str,)),
        Target("Collection.remove([…])", lambda v: collection.remove([v]), (str,)),
    ]


def _targets() -> list[Target]:
    plain = make_spec("plain")
    hasher = MinHasher(plain.replace(sketch=SketchSpec(num_perm=8)))
    signature = hasher.sign_texts([TEXT])[0]
    aligner = Aligner(plain, min_tokens=2)
    text_types = (str, bytes)
    targets = [
        Target("compare(a=…)", lambda v: compare(v, TEXT, preset="plain"), text_types),
        Target("compare(b=…)", lambda v: compare(TEXT, v, preset="ru"), text_types),
        Target("compare(preset=…)", lambda v: compare(TEXT, TEXT, preset=v), (str,)),
        Target(
            "compare(fragments=…)",
            lambda v: compare(TEXT, TEXT, preset="plain", fragments=v),
            (bool,),
        ),
        Target("compare(spec=…)", lambda v: compare(TEXT, TEXT, spec=v), (Spec, type(None))),
        Target(
            "compare(a=…, fragments)",
            lambda v: compare(v, TEXT, spec=plain, fragments=True),
            text_types,
        ),
        Target("make_spec(preset=…)", make_spec, (str,)),
        Target("MinHasher(spec=…)", MinHasher, (Spec, SketchSpec, type(None))),
        Target("MinHasher.sign_texts([…])", lambda v: hasher.sign_texts([v, TEXT]), text_types),
        Target("MinHasher.sign_texts(…)", hasher.sign_texts, _texts),
        Target("MinHasher.estimate(…)", lambda v: hasher.estimate(v, signature), (np.ndarray,)),
        Target(
            "MinHasher.estimate_many(…)",
            lambda v: hasher.estimate_many(signature, v),
            (np.ndarray,),
        ),
        Target("Aligner(spec=…)", Aligner, (Spec, type(None))),
        Target(
            "similarity_matrix([…])", lambda v: similarity_matrix([TEXT, v], spec=plain), text_types
        ),
        Target(
            "similarity_matrix(method=…)", lambda v: similarity_matrix([TEXT], method=v), (str,)
        ),
        Target(
            "similarity_matrix(num_perm=…)",
            lambda v: similarity_matrix([TEXT], method="minhash", spec=plain, num_perm=v),
            (int,),
        ),
        Target(
            "similarity_matrix(idf=…)",
            lambda v: similarity_matrix([TEXT], method="tfidf", idf=v),
            (str,),
        ),
        Target("Aligner.pair(a=…)", lambda v: aligner.pair(v, TEXT), text_types),
        Target("Aligner.align(sources=…)", lambda v: aligner.align(TEXT, v), _sources),
        Target("Aligner.align([(id, …)])", lambda v: aligner.align(TEXT, [("s", v)]), text_types),
    ]
    for option, types in (
        ("k", (int,)),
        ("step", (int,)),
        ("bits", (int,)),
        ("seed", (int,)),
        ("family", (str,)),
        ("unit", (str,)),
        ("multiset", (bool,)),
        ("html", (str,)),
        ("main_content", (bool,)),
        ("numbers", (bool,)),
        ("stem", (bool,)),
        ("stop_words", (list, tuple)),
        ("synonyms", (str,)),
    ):
        targets.append(
            Target(
                f"make_spec({option}=…)", lambda v, o=option: make_spec("plain", **{o: v}), types
            )
        )
    for option in ("k", "gap", "min_tokens", "max_occurrences"):
        targets.append(
            Target(f"Aligner({option}=…)", lambda v, o=option: Aligner(plain, **{o: v}), (int,))
        )
    for cls in (ShingleSpec, FingerprintSpec, SketchSpec, IndexSpec):
        targets.extend(_spec_targets(cls))
    sketch_fields = [t for t in _spec_targets(SketchSpec)]
    targets.extend(
        Target(f"MinHasher({t.name})", lambda v, t=t: MinHasher(t.call(v)), t.types)  # type: ignore[misc]
        for t in sketch_fields
    )
    targets.extend(_from_dict_targets())
    targets.extend(_collection_targets(Collection.create("memory:", plain)))
    return targets


def _outcome(target: Target, value: Any) -> str | None:
    """``None`` when the call behaved; otherwise what went wrong."""
    try:
        target.call(value)
    except NeardupError as exc:
        if isinstance(exc, TypeError) and _is_right_type(value, target.types):
            return f"{target.name} with {value!r:.60}: WrongTypeError for a value of the right type"
        return None
    except Exception as exc:  # noqa: BLE001 — the point of the test
        return f"{target.name} with {value!r:.60}: {type(exc).__name__}: {exc}"
    return None


def test_public_api_raises_only_neardup_errors() -> None:
    targets = _targets()
    calls: list[str] = []
    failures: list[str] = []

    @settings(
        max_examples=MIN_CALLS // 4 + 50,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        for _ in range(4):
            # round robin over the targets, so each gets its share whatever hypothesis draws
            target = targets[len(calls) % len(targets)]
            value = data.draw(hostile)
            calls.append(target.name)
            problem = _outcome(target, value)
            if problem is not None:
                failures.append(problem)

    run()
    assert not failures, "\n".join(sorted(set(failures))[:40])
    assert len(calls) >= MIN_CALLS
    # every target was tried
    assert {t.name for t in targets} <= set(calls)


def test_the_hostile_values_reach_every_kind() -> None:
    """The strategy really produces the values the issue names (no silent narrowing)."""
    seen: set[str] = set()

    @settings(max_examples=400, derandomize=True, database=None, deadline=None)
    @given(hostile)
    def run(value: Any) -> None:
        if isinstance(value, bool):
            seen.add("bool")
        elif isinstance(value, int):
            seen.add("huge" if abs(value) >= 2**63 else "negative" if value < 0 else "int")
        elif isinstance(value, float):
            seen.add("nan" if math.isnan(value) else "float")
        elif value is None:
            seen.add("none")
        elif isinstance(value, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            seen.add("surrogate")

    run()
    assert seen >= {"bool", "huge", "negative", "int", "nan", "float", "none", "surrogate"}
