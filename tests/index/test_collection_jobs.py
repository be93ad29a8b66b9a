"""``Collection.analyze_many`` and ``add_many``/``iter_add`` with ``jobs``: the batch analysis
path gives what ``analyze`` gives, field by field, and analyzing batches ahead in threads
changes neither a decision nor anything stored, nor when a bad item stops the run."""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.errors import ConfigurationError, DuplicateIdError, InputError
from neardup.fingerprints.pipeline import default_spec, make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.results import Decision, IndexableText
from neardup.spec import Spec
from tests import _batch_texts as bt

#: name → (spec, index spec, whether the batch kernel analyzes its texts)
SETUPS: dict[str, tuple[Spec, IndexSpec, bool]] = {
    # ``auto`` routes each text by its script to its language's chain
    "default": (default_spec(), IndexSpec(), True),
    "ru": (default_spec("ru"), IndexSpec(), True),
    "ru-fixed-k3-step2": (make_spec("ru", k=3, step=2), IndexSpec(), True),
    "en": (default_spec("en"), IndexSpec(), True),
    "plain-multiset": (default_spec("plain", multiset=True), IndexSpec(), True),
    "plain-pmbf": (default_spec("plain"), IndexSpec(candidates="both"), True),
    "plain-no-text": (make_spec("plain", k=4), IndexSpec(store_text=False), True),
    "plain-no-word-minima": (default_spec("plain"), IndexSpec(short_window=0), True),
}


def edge_texts() -> list[str | bytes]:
    return [t for _, t in bt.TAKEN] + [t for _, t in bt.LEFT] + [bt.BYTES[1]]


def assert_same_analysis(got: IndexableText, want: IndexableText, what: str) -> None:
    for name in ("values", "samples"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype == np.uint64, (what, name)
        assert np.array_equal(a, b), (what, name)
    if want.counts is None:
        assert got.counts is None, what
    else:
        assert got.counts is not None and got.counts.dtype == np.int64, what
        assert np.array_equal(got.counts, want.counts), what
    if want.probes is None:
        assert got.probes is None, what
    else:
        assert got.probes is not None and np.array_equal(got.probes, want.probes), what
    assert np.array_equal(got.lookups, want.lookups), what
    assert (got.text, got.length, got.size) == (want.text, want.length, want.size), what
    if want.short is None:
        assert got.short is None, what
        return
    assert got.short is not None, what
    assert got.short.tokens == want.short.tokens, what
    assert got.short.hashes is None and want.short.hashes is None, what
    a, b = got.short.fingerprints, want.short.fingerprints
    assert np.array_equal(a.values, b.values), what
    assert (a.counts is None) == (b.counts is None), what
    if b.counts is not None:
        assert np.array_equal(a.counts, b.counts), what  # type: ignore[arg-type]
    assert a.spec_fingerprint == b.spec_fingerprint, what


@pytest.mark.parametrize("setup", list(SETUPS))
def test_analyze_many_equals_analyze(setup: str) -> None:
    spec, index_spec, batched = SETUPS[setup]
    col = Collection.create("memory:", spec, index_spec)
    assert (col._batch_shingler is not None) == batched
    texts = edge_texts() + bt.russian(40, seed=11, invented=True) + bt.english(40, seed=12)
    got = col.analyze_many(texts)
    reference = Collection.create("memory:", spec, index_spec)
    assert len(got) == len(texts)
    for i, (text, analysis) in enumerate(zip(texts, got, strict=True)):
        assert_same_analysis(analysis, reference.analyze(text), f"text {i}: {text[:50]!r}")
    assert col.analyze_many([]) == []


def test_analyze_many_uses_the_kernel_only_for_the_texts_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The per-document ``analyze`` runs exactly for the texts the batch kernel leaves (and
    for the text of stop words only, whose chain keeps its words: the kernel leaves it)."""
    col = Collection.create("memory:", default_spec("ru"))
    analyzed_alone: list[object] = []
    analyze = col.analyze

    def spy(text: Any) -> IndexableText:
        analyzed_alone.append(text)
        return analyze(text)

    monkeypatch.setattr(col, "analyze", spy)
    texts = edge_texts()
    col.analyze_many(texts)
    stop_only = dict(bt.TAKEN)["stop words only"]
    assert analyzed_alone == [stop_only, *(t for _, t in bt.LEFT), bt.BYTES[1]]


# --- add_many with jobs ----------------------------------------------------------------------


def stored_state(col: Collection) -> dict[str, Any]:
    """Everything a collection holds, as plain values: its stats (less its location), meta,
    documents, fingerprints, postings, links, groups, each document by ``get``, the export in
    both formats and the pseudo-matrix filter."""
    storage = col.storage
    stats = col.stats()
    del stats["location"]
    docs = [asdict(d) for batch in storage.iter_docs(text=True) for d in batch]
    fingerprints = [
        (
            f.key,
            f.values.tolist(),
            None if f.counts is None else f.counts.tolist(),
            f.samples.tolist(),
        )
        for batch in storage.iter_fingerprints()
        for f in batch
    ]
    values, keys = storage.all_postings()
    postings = sorted(zip(values.tolist(), keys.tolist(), strict=True))
    exports = {}
    for fmt in ("jsonl", "csv"):
        out = io.StringIO()
        assert col.export(out, fmt=fmt) == len(col)
        exports[fmt] = out.getvalue()
    pmbf = storage.pmbf_state()
    meta = storage.read_meta()
    if "pmbf_generation" in meta:  # a fresh random token at every write of the filter
        meta["pmbf_generation"] = "written"
    return {
        "stats": stats,
        "meta": meta,
        "docs": docs,
        "fingerprints": fingerprints,
        "postings": postings,
        "links": sorted(tuple(asdict(link).values()) for link in storage.iter_links()),
        "groups": [g.to_dict() for g in col.groups(min_size=1)],
        "get": [asdict(col.get(d["id"])) for d in docs],
        "exports": exports,
        "pmbf": [pmbf.rows.tolist(), pmbf.bits.tolist(), pmbf.free.tolist(), pmbf.parts.tolist()],
    }


def as_dicts(col: Collection, decisions: Iterable[Decision]) -> list[dict[str, Any]]:
    """The decisions as dicts, with the collection's location (in a refusal's detail) made
    the same for every collection."""
    return [
        {**d.to_dict(), "detail": d.detail.replace(col.location, "<location>")} for d in decisions
    ]


Location = Callable[[str], str]


@pytest.fixture(params=["memory", "sqlite"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Location:
    """Where a test's collections go: each name a collection of its own."""
    if request.param == "memory":
        return lambda name: "memory:"
    return lambda name: str(tmp_path / f"{name}.db")


def items(count: int, seed: int) -> list[tuple[str, str, dict[str, Any]]]:
    texts = bt.with_near_duplicates(count, seed)
    return [(f"d{i:03d}", text, {"n": i, "seed": seed}) for i, text in enumerate(texts)]


JOB_SETUPS = {
    "default-group": (default_spec(), IndexSpec(policy="group", threshold=0.5, group_cap=3)),
    "ru-reject": (default_spec("ru"), IndexSpec(threshold=0.6)),
    "plain-allow-both": (
        default_spec("plain", multiset=True),
        IndexSpec(policy="allow", threshold=0.5, candidates="both", min_length=60),
    ),
}


@pytest.mark.parametrize("setup", list(JOB_SETUPS))
def test_jobs_change_no_decision_and_nothing_stored(setup: str, location: Location) -> None:
    spec, index_spec = JOB_SETUPS[setup]
    docs = items(120, seed=3)
    # the collections start with a few texts, so the first batches meet stored ones too
    first = docs[:5]
    results = {}
    for jobs in (1, 2, 3):
        with Collection.create(location(f"j{jobs}"), spec, index_spec) as col:
            col.add_many(first)
            decisions = as_dicts(col, col.add_many(docs[5:], batch_size=7, jobs=jobs))
            results[jobs] = (decisions, stored_state(col))
    decisions, state = results[1]
    reasons = {d["reason"] for d in decisions}
    # the run is worth comparing: texts are refused, grouped or linked, not only new
    assert len(decisions) == 115 and len(reasons) >= 2 and reasons - {"new"}
    assert any(d["matches"] for d in decisions)
    for jobs in (2, 3):
        assert results[jobs][0] == decisions, f"jobs={jobs}"
        assert results[jobs][1] == state, f"jobs={jobs}"


def test_iter_add_with_jobs_yields_each_batch_once_committed(location: Location) -> None:
    docs = items(40, seed=4)
    with Collection.create(location("c"), default_spec("plain")) as col:
        decisions = []
        stored_then = []
        for dec in col.iter_add(docs, batch_size=7, jobs=2):
            decisions.append(dec)
            stored_then.append(len(col))
    assert [d.id for d in decisions] == [i for i, _, _ in docs]
    assert not all(d.accepted for d in decisions)
    for n, stored in enumerate(stored_then):
        # every text of the decision's batch is in, and none of the next batch
        batch_end = (n // 7 + 1) * 7
        assert stored == sum(d.accepted for d in decisions[:batch_end]), n


def test_threads_learning_forms_at_once_store_the_same(
    location: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three threads analyzing batches full of forms no table knows share one table of forms
    learned, which starts over often (a small cap): the decisions and what is stored are
    still those of one thread."""
    from neardup.analysis import compiled

    texts = bt.russian(80, seed=9, most=40, invented=True)
    docs = [(f"r{i:02d}", text) for i, text in enumerate(texts)]
    docs += [(f"copy{i}", texts[i]) for i in range(0, 80, 9)]
    spec = default_spec("ru")
    with Collection.create(location("one"), spec) as col:
        want = as_dicts(col, col.add_many(docs, batch_size=5))
        want_state = stored_state(col)
    monkeypatch.setattr(compiled, "MAX_LEARNED", 8)
    with Collection.create(location("three"), spec) as col:
        assert as_dicts(col, col.add_many(docs, batch_size=5, jobs=3)) == want
        assert stored_state(col) == want_state
    assert {d["reason"] for d in want} == {"new", "duplicate"}


def test_a_run_left_early_stops_its_threads(location: Location) -> None:
    """A caller that stops reading the decisions: the batches it saw are stored, the ones
    analyzed ahead are not, and no analyzing thread is left running."""

    def analyzing() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name.startswith("neardup-analyze")}

    docs = items(40, seed=10)
    before = analyzing()
    with Collection.create(location("c"), default_spec("plain")) as col:
        run = col.iter_add(docs, batch_size=7, jobs=2)
        assert isinstance(run, Generator)
        seen = [next(run) for _ in range(7)]
        assert analyzing() - before
        run.close()
        assert not analyzing() - before
        assert len(col) == sum(d.accepted for d in seen)
        # the collection goes on from there
        rest = col.add_many(docs[7:], batch_size=7, jobs=2)
        assert [d.id for d in rest] == [i for i, _, _ in docs[7:]]


def _run_until_failure(
    col: Collection, docs: list[Any], jobs: int
) -> tuple[list[dict[str, Any]], BaseException]:
    """``iter_add`` in batches of 7 until it raises: the decisions before, and the error."""
    decisions = []
    with pytest.raises(Exception) as failure:
        for dec in col.iter_add(docs, batch_size=7, jobs=jobs):
            decisions += as_dicts(col, [dec])
    return decisions, failure.value


def _bad_in_third_batch(kind: str, docs: list[Any]) -> list[Any]:
    """``docs`` (35: five batches of 7) with item 16, in the third batch, made bad."""
    docs = list(docs)
    doc_id, text, meta = docs[16]
    if kind == "taken":
        docs[16] = ("taken", text, meta)
    elif kind == "twice":
        docs[16] = (docs[15][0], text, meta)
    elif kind == "bad id":
        docs[16] = ("", text, meta)
    elif kind == "bad meta":
        docs[16] = (doc_id, text, {"x": object()})
    elif kind == "bad text":
        docs[16] = (doc_id, 12345, meta)
    elif kind == "no short form":
        plain = Collection.create("memory:", make_spec("ru"))
        docs[16] = (doc_id, plain.analyze(text), meta)
    elif kind == "taken, then a bad id":
        docs[16] = ("taken", text, meta)
        docs[24] = ("", *docs[24][1:])
    return docs


FAILURES = {
    "taken": DuplicateIdError,
    "twice": DuplicateIdError,
    "bad id": InputError,
    "bad meta": InputError,
    "bad text": InputError,  # a text that is not str or bytes: the project's input error
    "no short form": ConfigurationError,
    "taken, then a bad id": DuplicateIdError,
}


@pytest.mark.parametrize("kind", list(FAILURES))
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bad_item_stops_after_the_batches_before_its_own(
    kind: str, jobs: int, location: Location
) -> None:
    """An invalid item in the third of five batches: the first two are committed (and their
    decisions seen), nothing of the third on is written, and the error is the item's."""
    spec = default_spec("ru")
    docs = _bad_in_third_batch(kind, items(35, seed=5))
    with Collection.create(location(f"j{jobs}"), spec) as col:
        col.add("taken", "уже в коллекции лежит этот текст о городе")
        decisions, error = _run_until_failure(col, docs, jobs)
        assert type(error) is FAILURES[kind]
        assert [d["id"] for d in decisions] == [i for i, _, _ in docs[:14]]
        stored = {d.id for batch in col.storage.iter_docs() for d in batch}
        assert stored - {"taken"} == {d["id"] for d in decisions if d["accepted"]}
        state = stored_state(col)
    # the same as a run that stops by itself after the first two batches
    with Collection.create(location(f"ref{jobs}"), spec) as ref:
        ref.add("taken", "уже в коллекции лежит этот текст о городе")
        assert as_dicts(ref, ref.add_many(docs[:14], batch_size=7)) == decisions
        want = stored_state(ref)
    assert state == want


def test_pre_analyzed_items_mixed_with_raw_texts(location: Location) -> None:
    spec, index_spec = JOB_SETUPS["ru-reject"]
    docs = items(60, seed=6)
    with Collection.create(location("raw"), spec, index_spec) as raw:
        want = as_dicts(raw, raw.add_many(docs, batch_size=7))
        want_state = stored_state(raw)
    for jobs in (1, 2):
        with Collection.create(location(f"mixed{jobs}"), spec, index_spec) as col:
            mixed = [
                (i, col.analyze(text) if n % 3 == 0 else text, meta)
                for n, (i, text, meta) in enumerate(docs)
            ]
            assert sum(isinstance(t, IndexableText) for _, t, _ in mixed) == 20
            assert as_dicts(col, col.add_many(mixed, batch_size=7, jobs=jobs)) == want
            assert stored_state(col) == want_state


@pytest.mark.parametrize("jobs", [-1, 1025, True])
def test_jobs_out_of_range_is_refused_before_anything_is_read(jobs: int) -> None:
    col = Collection.create("memory:", default_spec("plain"))
    read: list[int] = []

    def docs() -> Iterator[tuple[str, str]]:
        for i in range(3):
            read.append(i)
            yield f"d{i}", "какой-то текст"

    with pytest.raises(InputError, match="jobs must be an integer from 0"):
        col.add_many(docs(), jobs=jobs)
    with pytest.raises(InputError, match="jobs must be an integer from 0"):
        next(col.iter_add(docs(), jobs=jobs))
    assert read == [] and len(col) == 0


def test_the_exports_of_a_run_are_the_documents(location: Location) -> None:
    """The export compared above holds the documents (a check of the helper)."""
    with Collection.create(location("c"), default_spec("plain")) as col:
        col.add_many(items(10, seed=7), jobs=2)
        state = stored_state(col)
    lines = [json.loads(line) for line in state["exports"]["jsonl"].splitlines()]
    rows = list(csv.reader(io.StringIO(state["exports"]["csv"])))
    assert [r["id"] for r in lines] == [d["id"] for d in state["docs"]] == [r[0] for r in rows[1:]]
