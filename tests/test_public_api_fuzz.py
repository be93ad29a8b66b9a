"""Every public class and function (the names ``neardup/__init__.py`` exports, and the Bloom
filters), every public method, each parameter given a value of the wrong type: only neardup's
errors come out (:class:`neardup.NeardupError`; ``WrongTypeError`` is one, and a ``TypeError``
too).

For each parameter of each call, the others get a value that works (or their default), and the
parameter gets each of :data:`WRONG`: None, ints (huge ones too), floats (NaN too), strings with
a lone surrogate, bytes, containers of the wrong things and arrays of the wrong dtype or shape.
The list is fixed, so a run is repeatable; a call may succeed (a value of the right kind after
all), but what it raises must be one of neardup's errors.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import neardup
from neardup import (
    DEFAULTS,
    Aligner,
    Collection,
    Component,
    DedupOptions,
    Group,
    LSHIndex,
    MinHasher,
    NeardupError,
    Pipeline,
    SketchSpec,
    compare,
    make_spec,
    similarity_matrix,
)
from neardup.bloom.classic import BloomFilter, CountingBloomFilter

TEXT = "Мама мыла раму, а папа читал газету. The quick brown fox jumps over the lazy dog again."
OTHER = "Папа читал газету, а мама мыла раму. The quick brown fox jumps over the lazy cat."

#: The wrong values every parameter is given, in this order.
WRONG: list[Any] = [
    None,
    0,
    -1,
    2**64,
    2**200,
    1.5,
    float("nan"),
    float("inf"),
    True,
    "",
    "\ud800",
    "a\udfffb",
    b"\xff\xfe",
    [],
    [None],
    [1, 2],
    ("\ud800",),
    {"a": None},
    {None: 1},
    np.zeros(3, dtype=np.float64),
    np.zeros((2, 2), dtype=np.uint64),
    np.zeros(0, dtype=np.uint64),
    np.array(["a", "b"]),
    np.array([-1, 5], dtype=np.int64),
    object(),
]


def _world(tmp: Path) -> dict[str, Any]:
    """One working instance of every public class, and what their calls take."""
    spec = make_spec("plain", k=2)
    sketched = spec.replace(sketch=SketchSpec(num_perm=16, bands=4))
    collection = Collection.create("memory:", spec)
    collection.add("d1", TEXT, {"title": "one"})
    collection.add("d2", OTHER)
    result = collection.check(TEXT, fragments=True)
    pipeline = Pipeline(spec)
    aligner = Aligner(spec, min_tokens=2)
    alignment = aligner.pair(TEXT, OTHER)
    hasher = MinHasher(sketched)
    signatures = hasher.sign_texts([TEXT, OTHER])
    lsh = LSHIndex(threshold=0.5, num_perm=16)
    lsh.add("d1", signatures[0])
    lsh_sqlite = LSHIndex(threshold=0.5, num_perm=16, store=str(tmp / "lsh.db"))
    lsh_sqlite.add("d1", signatures[0])
    (tmp / "in.jsonl").write_text('{"id": "a", "text": "один два три четыре пять"}\n')
    deduped = neardup.dedup(tmp / "in.jsonl", tmp / "deduped")
    cleaned = neardup.clean_texts([TEXT, OTHER])
    instances: dict[str, Any] = {
        "Aligner": aligner,
        "Alignment": alignment,
        "AnalyzedText": pipeline.analyze(TEXT),
        "AnalyzerSpec": spec.analyzer,
        "Banding": neardup.Banding(SketchSpec(num_perm=16, bands=4)),
        "ChainSpec": spec.analyzer.chains[0][1],
        "CheckResult": result,
        "CleanResult": cleaned,
        "CleanedText": cleaned.texts[0],
        "Collection": collection,
        "Comparison": compare(TEXT, OTHER),
        "Component": Component.of("lowercase"),
        "Decision": collection.add("d3", TEXT + " ещё"),
        "DedupOptions": DedupOptions(),
        "DedupResult": deduped,
        "Defaults": DEFAULTS,
        "Document": collection.get("d1"),
        "FingerprintSpec": spec.fingerprint_family,
        "Fingerprints": pipeline.fingerprints(TEXT),
        "Group": Group(1, "d1", ("d1",)),
        "IndexSpec": collection.index_spec,
        "LSHIndex": lsh,
        "LSHIndex on SQLite": lsh_sqlite,
        "Match": result.matches[0],
        "Measures": pipeline.compare(TEXT, OTHER),
        "MinHasher": hasher,
        "Passage": alignment.sources[0].passages[0],
        "Pipeline": pipeline,
        "ShingleSpec": spec.shingles,
        "SimilarityMatrix": similarity_matrix([TEXT, OTHER]),
        "SketchSpec": sketched.sketch,
        "Spec": spec,
        "BloomFilter": BloomFilter(m=1024, k=3),
        "CountingBloomFilter": CountingBloomFilter(m=1024, k=3),
    }
    good: dict[str, Any] = {
        "text": TEXT,
        "a": TEXT,
        "b": OTHER,
        "query": TEXT,
        "texts": [TEXT, OTHER],
        "doc_id": "d1",
        "source_id": "B",
        "ids": ["d1"],
        "key": "d1",
        "keys": ["d1"],
        "item": signatures[1],
        "items": signatures,
        "signatures": signatures,
        "fps": pipeline.fingerprints(TEXT),
        "hashes": [np.arange(5, dtype=np.uint64)],
        "sources": {"s": OTHER},
        "spec": spec,
        "data": spec.to_dict(),
        "other": spec,
        "name": "lowercase",
        "language": "ru",
        "preset_name": "plain",
        "canonical": pipeline.canonical(TEXT),
        "path": tmp / "in.jsonl",
        "out": tmp / "out",
        "inputs": tmp / "in.jsonl",
        "location": "memory:",
        "store": str(tmp / "lsh.db"),
        "found": collection.look_up(collection.analyze(TEXT), top=3, policy=None),
        "values": np.arange(4, dtype=np.uint64),
        "tokens_a": np.arange(4, dtype=np.int64),
        "tokens_b": np.arange(4, dtype=np.int64),
        "length": 10,
        "make": lambda: 1,
        "fingerprints": np.arange(1, 6, dtype=np.uint64),
        "n": 100,
        "top": 3,
        "policy": None,
        "p": 0.01,
        "storage": collection.storage,
        "index_spec": collection.index_spec,
    }
    return {"instances": instances, "good": good, "collection": collection}


#: Calls left out: what would replace the world the others run in, or is no call of the API.
SKIP = {
    "Collection.close",
    "LSHIndex.close",
    "LSHIndex on SQLite.close",
}


def _fields(instance: Any) -> dict[str, Any]:
    """A dataclass instance's values: what its constructor takes that works."""
    if not dataclasses.is_dataclass(instance):
        return {}
    return {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance) if f.init}


def _calls(world: dict[str, Any]) -> Iterator[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """Each call, and the values of its parameters that work."""
    instances = world["instances"]
    good = world["good"]
    for name in sorted(neardup.__all__):
        value = getattr(neardup, name)
        if inspect.isfunction(value):
            yield name, value, good
        elif inspect.isclass(value) and not issubclass(value, BaseException):
            yield f"{name}()", value, {**good, **_fields(instances.get(name))}
    for name, instance in sorted(instances.items()):
        cls = type(instance)
        if name in ("BloomFilter", "CountingBloomFilter"):
            yield f"{name}()", cls, {**good, "m": 1024, "k": 3}
        for attr in sorted(dir(cls)):
            if attr.startswith("_") or not callable(getattr(instance, attr, None)):
                continue
            if inspect.isclass(getattr(cls, attr)):
                continue
            call = f"{name}.{attr}"
            if call not in SKIP:
                yield call, getattr(instance, attr), good


def _parameters(func: Callable[..., Any]) -> list[inspect.Parameter]:
    try:
        found = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p for p in found if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _invoke(
    func: Callable[..., Any], params: list[inspect.Parameter], given: dict[str, Any]
) -> Any:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in params:
        if p.name not in given:
            continue
        if p.kind == p.POSITIONAL_ONLY:
            args.append(given[p.name])
        else:
            kwargs[p.name] = given[p.name]
    return func(*args, **kwargs)


def _outcome(call: str, func: Callable[..., Any], given: dict[str, Any], what: str) -> str | None:
    params = _parameters(func)
    try:
        _invoke(func, params, given)
    except NeardupError:
        return None
    except Exception as exc:  # noqa: BLE001 — the point of the test
        return f"{call}({what}): {type(exc).__name__}: {str(exc)[:100]}"
    return None


def test_every_public_call_raises_only_neardup_errors(tmp_path: Path) -> None:
    world = _world(tmp_path)
    failures: list[str] = []
    calls = 0
    for call, func, good in _calls(world):
        params = _parameters(func)
        required = {p.name: good[p.name] for p in params if p.default is p.empty and p.name in good}
        missing = [p.name for p in params if p.default is p.empty and p.name not in good]
        if missing:
            failures.append(f"{call}: no working value for {missing}")
            continue
        for p in params:
            for wrong in WRONG:
                calls += 1
                problem = _outcome(
                    call, func, {**required, p.name: wrong}, f"{p.name}={wrong!r:.30}"
                )
                if problem is not None:
                    failures.append(problem)
    assert calls > 2000
    assert not failures, f"{len(failures)} calls raised other errors:\n" + "\n".join(failures[:80])


def test_the_named_cases_are_refused_in_words(tmp_path: Path) -> None:
    """The calls the hardening issue named, each with the error a user can act on."""
    from neardup import Fingerprints, InvalidTextError, WrongTypeError

    collection = Collection.create("memory:", make_spec("plain"))
    collection.add("d1", TEXT)
    for exclude in (None, 1.5, [None]):
        with pytest.raises(WrongTypeError, match="exclude"):
            collection.check(TEXT, exclude=exclude)
    for ids in (None, 5):
        with pytest.raises(WrongTypeError, match="Collection.remove: ids must be str or Iterable"):
            collection.remove(ids)
    assert isinstance(WrongTypeError("x"), TypeError)
    lsh = LSHIndex(threshold=0.5, num_perm=16, store=str(tmp_path / "lsh.db"))
    with pytest.raises(InvalidTextError, match="lone surrogate"):
        lsh.add("a\ud800b", TEXT)
    with pytest.raises(neardup.InputError, match="m must be at most"):
        BloomFilter(m=2**70, k=3)
    with pytest.raises(WrongTypeError, match="fingerprint values must be a 1-d uint64 array"):
        Fingerprints(np.zeros(3, dtype=np.float64))
    with pytest.raises(WrongTypeError, match="fingerprint values must be a 1-d uint64 array"):
        Fingerprints(np.zeros((2, 2), dtype=np.uint64))
