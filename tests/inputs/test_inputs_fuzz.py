"""The reader under hostile bytes: every file gives documents or a NeardupError, nothing else.

Hypothesis draws the bytes of a text, HTML, JSONL or CSV file — from raw random bytes to
near-valid records with hostile ids, texts, nesting, quotes and encodings — and the reader
(`neardup.inputs`, the one every command uses) must either yield documents with string ids and
texts, or refuse with an error of neardup's tree that names the file.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.errors import NeardupError
from neardup.inputs import iter_inputs, read_text_input

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
RECORDS = st.dictionaries(
    st.sampled_from(["id", "text", "meta", "x"]), JSON_VALUES, max_size=4
).map(lambda d: json.dumps(d, ensure_ascii=False))
JSONL_LINES = st.lists(
    st.one_of(
        RECORDS,
        st.text(max_size=60),
        st.integers(5, 3000).map(lambda n: "[" * n + "]" * n),
        st.just('{"id": "a", "text": "\\ud800 x"}'),
    ),
    max_size=6,
).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass"))
CSV_FILES = st.lists(
    st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=20), max_size=4),
    max_size=5,
).map(lambda rows: "\n".join(",".join(row) for row in [["id", "text"], *rows]).encode())
TEXTS = st.one_of(
    st.binary(max_size=2000),
    st.text(max_size=500).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.text(alphabet="абвгдеёжзийклмнопрстуфхцчшщъыьэюя \n", max_size=500).map(
        lambda s: s.encode("cp1251")
    ),
)
FILES = st.one_of(
    st.tuples(st.just("doc.txt"), TEXTS),
    st.tuples(st.just("page.html"), TEXTS),
    st.tuples(st.just("data.jsonl"), JSONL_LINES),
    st.tuples(st.just("table.csv"), CSV_FILES),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FILES)
def test_any_file_gives_documents_or_a_neardup_error(file: tuple[str, bytes]) -> None:
    name, data = file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        for source in ([path], [Path(folder)]):
            try:
                docs = list(iter_inputs(source))
            except NeardupError as exc:
                assert str(exc)
                continue
            assert all(isinstance(d.id, str) and d.id for d in docs)
            assert all(isinstance(d.text, str) for d in docs)


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_any_single_text_decodes_or_is_refused(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.txt"
        path.write_bytes(data)
        try:
            decoded = read_text_input(path, on_warning=lambda _: None)
        except NeardupError as exc:
            assert str(exc)
        else:
            assert isinstance(decoded.text, str)
