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
    with pytest.raises(InputError):
        list(sign_stream(spec, [], jobs=0))
    with pytest.raises(InputError):
        list(sign_stream(spec, [("a", "b")], jobs=2, executor="gpu"))  # type: ignore[arg-type]
    assert sign_all(spec, []).shape == (0, 128)
