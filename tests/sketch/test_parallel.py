"""Chunked and multi-core signing give the same rows in the same order."""

from __future__ import annotations

import pytest

from neardup import make_spec
from neardup.errors import InputError
from neardup.sketch import MinHasher
from neardup.sketch.parallel import sign_all, sign_stream
from neardup.spec import SketchSpec

TEXTS = [
    f"документ номер {i} " + "слово " * (i % 7) + "и общий хвост текста для шинглов"
    for i in range(60)
]


@pytest.mark.parametrize(("jobs", "executor"), [(1, "process"), (2, "process"), (2, "thread")])
def test_same_rows_whatever_the_jobs(jobs: int, executor: str) -> None:
    spec = make_spec("plain", k=3).replace(sketch=SketchSpec(num_perm=32))
    expected = MinHasher(spec).sign_texts(TEXTS)
    got = sign_all(spec, TEXTS, jobs=jobs, batch_size=7, executor=executor)
    assert got.tolist() == expected.tolist()


def test_chunks_close_on_size_or_characters() -> None:
    spec = make_spec("plain", k=3).replace(sketch=SketchSpec(num_perm=8))
    docs = [(str(i), t) for i, t in enumerate(TEXTS)]
    sizes = [len(ids) for ids, _ in sign_stream(spec, docs, batch_size=25)]
    assert sizes == [25, 25, 10]
    sizes = [len(ids) for ids, _ in sign_stream(spec, docs, batch_size=25, max_chars=100)]
    assert max(sizes) <= 2 and sum(sizes) == 60
    ids = [i for chunk, _ in sign_stream(spec, docs, batch_size=9) for i in chunk]
    assert ids == [str(i) for i in range(60)]


def test_bad_options() -> None:
    spec = make_spec("plain").replace(sketch=SketchSpec())
    for jobs in (-1, 2**31):
        with pytest.raises(InputError, match="jobs must be an integer from 0"):
            list(sign_stream(spec, [], jobs=jobs))
    # 0: one worker per CPU; the chunks come in input order
    docs = [(str(i), f"text number {i} of some words") for i in range(5)]
    assert [ids for ids, _ in sign_stream(spec, docs, jobs=0, batch_size=2)] == [
        ["0", "1"],
        ["2", "3"],
        ["4"],
    ]
    with pytest.raises(InputError):
        list(sign_stream(spec, [("a", "b")], jobs=2, executor="gpu"))  # type: ignore[arg-type]
    assert sign_all(spec, []).shape == (0, 128)


@pytest.mark.parametrize("executor", ["thread", "process"])
def test_one_chunk_starts_no_workers(executor: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input of one chunk has nothing to share between workers: it is signed here, with
    the rows every other way gives; two chunks start the workers."""
    from neardup.sketch import parallel

    started: list[int] = []
    make_pool = parallel._pool

    def counting_pool(spec_json: str, jobs: int, kind: str) -> object:
        started.append(jobs)
        return make_pool(spec_json, jobs, kind)

    monkeypatch.setattr(parallel, "_pool", counting_pool)
    spec = make_spec("plain", k=3).replace(sketch=SketchSpec(num_perm=16))
    expected = MinHasher(spec).sign_texts(TEXTS)
    one = sign_all(spec, TEXTS, jobs=2, batch_size=len(TEXTS), executor=executor)
    assert one.tolist() == expected.tolist() and started == []
    two = sign_all(spec, TEXTS, jobs=2, batch_size=len(TEXTS) - 1, executor=executor)
    assert two.tolist() == expected.tolist() and started == [2]
    assert sign_all(spec, [], jobs=2, executor=executor).shape == (0, 16)
