"""The Russian dictionary compiled for the kernels: every word form of pymorphy3's dictionary
with the facts the ``pos`` and ``lemma`` filters read, in arrays numba looks up.

For each form (the dictionary's words, ё written е, as the ``ru`` chain's tokens are) the
table holds exactly what :func:`neardup.analysis.resources.parse_facts` gives — pymorphy3's
most probable parse, ``parse(form)[0]``, the rule the filters have always followed for an
ambiguous form: its lemma (``canonical_word(normal_form)``), its part of speech and whether it
is a pronominal adjective (``Apro``). The facts come from that same function, so a form found
in the table is analysed as before by construction.

It is built once per dictionary version (about a minute: one parse per form) at first use and
kept in neardup's cache folder (:func:`neardup._table_cache.cache_dir`; built in memory when
that is turned off), in one file named by :func:`dictionary_key` (the dictionary
package's version and revision, pymorphy3's version, :data:`TABLE_VERSION`); the file is
written to a temporary name and renamed, carries a checksum of its arrays, and one that is
missing, damaged or of another key is rebuilt. Processes building at once wait on a lock file,
and the second loads what the first wrote. It is read through ``mmap``, so processes share
its pages.

Layout: forms sorted by ``h1`` (:func:`neardup._kernels.morph.hash_pair`), two ``uint64`` per
form in one array (``h1``; the top 32 bits of ``h2`` over the lemma id), a bucket index on the
top bits of ``h1``; per form a tag byte (part-of-speech code, and :data:`APRO` set for
``Apro``), read only when a chain computes its drop bits; the lemmas' UTF-8 bytes with their
offsets. A form is taken for a token when 96 bits of hash agree.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels import morph as morph_kernels
from neardup._table_cache import cache_dir
from neardup.analysis import resources
from neardup.errors import ConfigurationError

log = logging.getLogger(__name__)

#: The version of this table's algorithm (hashes, layout, facts): a change makes a new file.
TABLE_VERSION = 1
#: The tag bit of a pronominal adjective (``Apro``); the low bits are the POS code.
APRO = 0x80
_MAGIC = b"NDFORMS\x01"
_ALIGN = 64
_ARRAYS = ("buckets", "records", "tags", "lemma_offsets", "lemma_bytes")
_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)

Facts = tuple[str, str, frozenset[str]]


@dataclass(frozen=True, eq=False)
class FormTable:
    """Word forms → (part of speech, ``Apro``, lemma), laid out for
    :func:`neardup._kernels.morph.static_find`."""

    key: str
    bits: int
    buckets: npt.NDArray[np.int32]
    records: npt.NDArray[np.uint64]
    tags: npt.NDArray[np.uint8]
    lemma_offsets: npt.NDArray[np.int64]
    lemma_bytes: npt.NDArray[np.uint8]
    pos_names: tuple[str, ...]

    def __len__(self) -> int:
        return int(self.tags.shape[0])

    @property
    def hashes(self) -> npt.NDArray[np.uint64]:
        """Each form's ``h1``, sorted."""
        return self.records[0::2]

    @property
    def lemma_ids(self) -> npt.NDArray[np.uint64]:
        return self.records[1::2] & _LOW32

    @property
    def nbytes(self) -> int:
        """The bytes of its arrays (what it takes in memory once every page is read)."""
        return sum(int(getattr(self, name).nbytes) for name in _ARRAYS)

    def find(self, forms: list[str]) -> npt.NDArray[np.int64]:
        """The entry of each form, or ``-1`` where the table does not hold it."""
        buf, starts, ends = _utf8_spans(forms)
        h1, h2 = morph_kernels.form_hashes(buf, starts, ends)
        return morph_kernels.find_entries(h1, h2, self.buckets, self.bits, self.records)

    def lemma(self, entry: int) -> str:
        lemma_id = int(self.lemma_ids[entry])
        a, b = int(self.lemma_offsets[lemma_id]), int(self.lemma_offsets[lemma_id + 1])
        return self.lemma_bytes[a:b].tobytes().decode("utf-8")

    def pos(self, entry: int) -> str:
        return self.pos_names[int(self.tags[entry]) & ~APRO & 0xFF]

    def is_apro(self, entry: int) -> bool:
        return bool(int(self.tags[entry]) & APRO)


def _utf8_spans(
    words: list[str],
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The words' UTF-8 bytes joined by newlines, and each word's byte span (no word may hold
    a newline)."""
    if not words:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros(0, dtype=np.uint8), empty, empty
    # writable, as the analyzer's buffers are: the kernels then have one compiled signature
    # to load, not one per flag (a readonly array is another numba type)
    buf = np.frombuffer(bytearray("\n".join(words).encode("utf-8")), dtype=np.uint8)
    breaks = np.flatnonzero(buf == 10).astype(np.int64)
    if breaks.shape[0] != len(words) - 1:
        raise ValueError("a word form holds a newline")
    starts = np.concatenate(([0], breaks + 1)).astype(np.int64)
    ends = np.concatenate((breaks, [buf.shape[0]])).astype(np.int64)
    return buf, starts, ends


def build_table(forms: Iterable[str], facts: Callable[[str], Facts], key: str) -> FormTable:
    """The table of ``forms`` (distinct, no newline), each with ``facts(form)``: (lemma, POS,
    grammemes) as :func:`~neardup.analysis.resources.parse_facts` gives them."""
    words = list(dict.fromkeys(forms))
    pos_ids: dict[str, int] = {"": 0}
    lemma_ids: dict[str, int] = {}
    tags = np.zeros(len(words), dtype=np.uint8)
    lemmas = np.zeros(len(words), dtype=np.int32)
    for i, word in enumerate(words):
        lemma, pos, grammemes = facts(word)
        code = pos_ids.setdefault(pos, len(pos_ids))
        if code >= APRO:
            raise ConfigurationError(f"more than {APRO} parts of speech in the dictionary")
        tags[i] = code | (APRO if "Apro" in grammemes else 0)
        lemmas[i] = lemma_ids.setdefault(lemma, len(lemma_ids))
    buf, starts, ends = _utf8_spans(words)
    h1, h2 = morph_kernels.form_hashes(buf, starts, ends)
    h2 = h2 & _HIGH32  # the top 32 bits confirm a match, the low ones hold the lemma id
    order = np.lexsort((h2, h1))
    h1, h2 = h1[order], h2[order]
    if h1.shape[0] > 1:
        same = (h1[1:] == h1[:-1]) & (h2[1:] == h2[:-1])
        if same.any():
            raise ConfigurationError("two word forms share both hashes; raise TABLE_VERSION")
    # about two forms a bucket: a lookup reads one or two entries past the index
    bits = max(1, min(24, int(np.ceil(np.log2(max(2, len(words))))) - 1))
    lemma_bytes = [lemma.encode("utf-8") for lemma in lemma_ids]
    lemma_offsets = np.zeros(len(lemma_bytes) + 1, dtype=np.int64)
    np.cumsum(np.array([len(b) for b in lemma_bytes], dtype=np.int64), out=lemma_offsets[1:])
    return FormTable(
        key=key,
        bits=bits,
        buckets=morph_kernels.bucket_starts(h1, bits),
        records=np.stack((h1, h2 | lemmas[order].astype(np.uint64)), axis=1).ravel(),
        tags=tags[order],
        lemma_offsets=lemma_offsets,
        lemma_bytes=np.frombuffer(b"".join(lemma_bytes), dtype=np.uint8),
        pos_names=tuple(pos_ids),
    )


def save_table(table: FormTable, path: Path) -> None:
    """Write ``table`` to ``path`` atomically: a temporary file in the same folder, renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {name: np.ascontiguousarray(getattr(table, name)) for name in _ARRAYS}
    layout = []
    offset = 0
    for name, array in arrays.items():
        layout.append([name, array.dtype.str, offset, int(array.shape[0])])
        offset += -(-array.nbytes // _ALIGN) * _ALIGN
    import xxhash

    digest = xxhash.xxh3_64()
    for array in arrays.values():
        digest.update(array.tobytes())
    header = json.dumps(
        {
            "key": table.key,
            "bits": table.bits,
            "pos_names": list(table.pos_names),
            "arrays": layout,
            "checksum": digest.hexdigest(),
        }
    ).encode("utf-8")
    head_size = -(-(len(_MAGIC) + 8 + len(header)) // _ALIGN) * _ALIGN
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + len(header).to_bytes(8, "little") + header)
            fh.write(b"\0" * (head_size - len(_MAGIC) - 8 - len(header)))
            for array in arrays.values():
                fh.write(array.tobytes())
                fh.write(b"\0" * (-array.nbytes % _ALIGN))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_table(path: Path, key: str) -> FormTable | None:
    """The table stored at ``path`` if it is whole and of ``key``; ``None`` when it is missing,
    damaged (bad magic, header, sizes or checksum) or of another key."""
    try:
        with open(path, "rb") as fh:
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        return _parse_table(data, key)
    except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError) as exc:
        log.warning("the form table %s is damaged (%s); it will be rebuilt", path, exc)
        return None


def _parse_table(data: Any, key: str) -> FormTable | None:
    view = memoryview(data)
    if bytes(view[: len(_MAGIC)]) != _MAGIC:
        raise ValueError("not a form table")
    size = int.from_bytes(view[len(_MAGIC) : len(_MAGIC) + 8], "little")
    header = json.loads(bytes(view[len(_MAGIC) + 8 : len(_MAGIC) + 8 + size]).decode("utf-8"))
    if header["key"] != key:
        return None
    base = -(-(len(_MAGIC) + 8 + size) // _ALIGN) * _ALIGN
    arrays: dict[str, Any] = {}
    import xxhash

    digest = xxhash.xxh3_64()
    for name, dtype, offset, count in header["arrays"]:
        kind = np.dtype(dtype)
        start = base + int(offset)
        end = start + kind.itemsize * int(count)
        if end > len(view):
            raise ValueError(f"{name} runs past the end of the file")
        arrays[name] = np.frombuffer(data, dtype=kind, count=int(count), offset=start)
        digest.update(view[start:end])
    if digest.hexdigest() != header["checksum"]:
        raise ValueError("checksum mismatch")
    if set(arrays) != set(_ARRAYS):
        raise ValueError("arrays missing")
    bits = int(header["bits"])
    if (
        not 1 <= bits <= 24
        or arrays["buckets"].shape[0] != (1 << bits) + 1
        or arrays["buckets"].dtype != np.int32
    ):
        raise ValueError("bad bucket index")
    return FormTable(key=key, bits=bits, pos_names=tuple(header["pos_names"]), **arrays)


def dictionary_key() -> str:
    """What the Russian table depends on: the dictionary's package version and source
    revision, pymorphy3's version and :data:`TABLE_VERSION`."""
    meta = resources.dictionary_meta()
    parts = [
        f"dicts-{resources.package_version('pymorphy3-dicts-ru')}",
        f"rev-{meta.get('source_revision')}-{meta.get('corpus_revision')}",
        f"pymorphy3-{resources.package_version('pymorphy3')}",
        f"v{TABLE_VERSION}",
    ]
    return "ru-forms-" + "-".join(str(p).replace("/", "_") for p in parts)


def dictionary_forms() -> list[str]:
    """Every word form of the dictionary as a ``ru`` token can be (ё → е), sorted."""
    words = resources.morph().analyzer.dictionary.words
    return sorted({w.replace("ё", "е") for w in words.keys()})


@contextmanager
def _lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path``; without a lock when the folder cannot be written
    or the system has no ``fcntl`` (two first runs may then both build: the rename is
    atomic, so either file is whole)."""
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(path, "a+b")  # closed below, which releases the lock
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        yield
    finally:
        fh.close()  # closing releases the lock


def announce_build(where: Path | None) -> None:
    """Tell a person at a terminal why the first Russian text takes a minute (the table is
    built once per dictionary version); scripts and pipes (stderr not a terminal) see nothing."""
    if not sys.stderr.isatty():
        return
    kept = f"kept in {where}" if where is not None else "the disk cache is off: not kept"
    print(
        f"neardup: building the Russian word-form table once for this dictionary version "
        f"(about a minute; {kept})",
        file=sys.stderr,
        flush=True,
    )


def load_or_build(
    path: Path, key: str, forms: Callable[[], Iterable[str]], facts: Callable[[str], Facts]
) -> FormTable:
    """The table at ``path`` if it is whole and of ``key``; else built, saved and returned.
    Processes that get here together build it once: the others wait on the lock."""
    table = load_table(path, key)
    if table is not None:
        return table
    with _lock(path.with_name(path.name + ".lock")):
        table = load_table(path, key)
        if table is not None:
            return table
        log.info("building the word-form table %s (once per dictionary version)", path)
        announce_build(path)
        built = build_table(forms(), facts, key)
        try:
            save_table(built, path)
        except OSError as exc:  # a cache that cannot be written: kept in memory, this process
            log.warning("cannot save the form table to %s: %s", path, exc)
            return built
    return load_table(path, key) or built


@lru_cache(maxsize=1)
def dictionary_table() -> FormTable:
    """The Russian dictionary's table, loaded from neardup's cache folder
    (:func:`neardup._table_cache.cache_dir`) or built there; built in memory when the disk
    cache is turned off."""
    key = dictionary_key()
    # pymorphy3's dictionary is loaded only to build the table
    facts: Callable[[str], Facts] = lambda word: resources.parse_facts(  # noqa: E731
        resources.morph().analyzer, word
    )
    root = cache_dir()
    if root is None:
        announce_build(None)
        return build_table(dictionary_forms(), facts, key)
    return load_or_build(root / f"{key}.bin", key, dictionary_forms, facts)
