"""One rule for every backend: NUL characters and lone surrogates are refused, the document named.

Before, SQLite stored NUL and crashed on surrogates, PostgreSQL refused NUL without naming the
document and crashed on surrogates in ids, the memory backend took everything.
"""

from __future__ import annotations

import pytest

from neardup.errors import InputError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from tests import _textgen as tg
from tests.storage.conftest import Backend

SPEC = make_spec("plain")


@pytest.mark.parametrize(
    ("doc_id", "text", "meta", "message"),
    [
        (
            "bad",
            "начало \ud800 конец",
            {},
            "the text of the document 'bad' holds a lone surrogate U+D800 at offset 7; refused",
        ),
        (
            "bad",
            "a\x00b",
            {},
            "the text of the document 'bad' holds a NUL character at offset 1; refused",
        ),
        (
            "x\ud83d",
            "text",
            {},
            "the document id 'x\\ud83d' holds a lone surrogate U+D83D at offset 1; "
            "it cannot be stored",
        ),
        (
            "x\x00",
            "text",
            {},
            "the document id 'x\\x00' holds a NUL character at offset 1; it cannot be stored",
        ),
        (
            "m",
            "text",
            {"k": "\udfff"},
            "the meta of the document 'm' holds a lone surrogate U+DFFF at offset 7; refused",
        ),
    ],
)
def test_unstorable_text_is_refused_the_same_everywhere(
    backend: Backend, doc_id: str, text: str, meta: dict[str, str], message: str
) -> None:
    with Collection.create(backend.target(), SPEC, IndexSpec()) as col:
        col.add("ok", tg.text(50, 1))
        with pytest.raises(InputError) as info:
            col.add_many([("fine", tg.text(50, 2)), (doc_id, text, meta)])
        assert str(info.value) == message
        # refused while reading its batch: nothing of the batch went in
        assert len(col) == 1
        assert "fine" not in col
        # a surrogate id is refused by lookups too, not a crash of the driver
        if doc_id != "bad" and doc_id != "m":
            with pytest.raises(InputError):
                col.get(doc_id)
            with pytest.raises(InputError):
                col.remove([doc_id])
        # NUL in meta is fine: JSON escapes it, every backend stores the escape
        col.add("nul-meta", tg.text(50, 3), {"k": "a\x00b"})
        assert col.get("nul-meta").meta == {"k": "a\x00b"}


def test_remove_takes_a_lone_string_as_one_id(backend: Backend) -> None:
    with Collection.create(backend.target(), SPEC, IndexSpec()) as col:
        col.add_many([(i, tg.text(50, n)) for n, i in enumerate(["a", "b", "c", "abc"])])
        assert col.remove("abc") == 1
        assert sorted(d.id for d, _ in col.iter_documents()) == ["a", "b", "c"]
