"""The form-lookup kernels: hashes, the static table's bucketed search, the growing table,
the first miss of each form, and the stream written from the codes."""

from __future__ import annotations

import numpy as np

from neardup._kernels import morph as k
from tests._tokens import word_spans


def test_hash_pair_pins_its_values_and_depends_on_every_byte() -> None:
    buf = np.frombuffer("стол".encode(), dtype=np.uint8)
    h1, h2 = k.hash_pair(buf, 0, buf.shape[0])
    # FNV-1a 64 of the bytes, then splitmix64's finalizer: computed here in Python
    x = 0xCBF29CE484222325
    for b in buf.tolist():
        x = ((x ^ b) * 0x100000001B3) % 2**64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) % 2**64
    assert int(h1) == x ^ (x >> 31)
    buf2, s, e = word_spans(["стол", "стола", "стол", "", "а"])
    a, b = k.form_hashes(buf2, s, e)
    assert a[0] == a[2] == h1 and b[0] == b[2] == h2
    assert len(set(a.tolist())) == 4 and len(set(b.tolist())) == 4


def _static(words: list[str], lemma_ids: list[int], bits: int) -> tuple[np.ndarray, ...]:
    buf, s, e = word_spans(words)
    h1, h2 = k.form_hashes(buf, s, e)
    order = np.argsort(h1)
    records = np.zeros(2 * len(words), dtype=np.uint64)
    records[0::2] = h1[order]
    high = h2[order] & np.uint64(0xFFFFFFFF00000000)
    records[1::2] = high | np.array(lemma_ids, dtype=np.uint64)[order]
    return k.bucket_starts(h1[order], bits), records, order


def test_static_find_in_buckets() -> None:
    words = ["a", "b", "c", "d", "e", "f"]
    buf, s, e = word_spans(words)
    h1, h2 = k.form_hashes(buf, s, e)
    buckets, records, order = _static(words, [0, 1, 2, 3, 4, 5], 2)
    assert buckets.shape[0] == 5 and buckets[0] == 0 and buckets[-1] == 6
    assert buckets.dtype == np.int32
    entries = k.find_entries(h1, h2, buckets, 2, records)
    assert entries.tolist() == [int(np.flatnonzero(order == i)[0]) for i in range(6)]
    # the right h1 with other top bits of h2 is not a match; the low 32 bits do not count
    assert k.static_find(h1[0], h2[0] ^ np.uint64(1 << 40), buckets, 2, records) == k.MISS
    assert k.static_find(h1[0], h2[0] ^ np.uint64(1), buckets, 2, records) == entries[0]


def test_overlay_insert_find_and_resolve_order() -> None:
    buf, s, e = word_spans(["x", "y", "z", "w", "v"])
    h1, h2 = k.form_hashes(buf, s, e)
    keys1 = np.zeros(8, dtype=np.uint64)
    keys2 = np.zeros(8, dtype=np.uint64)
    values = np.full(8, k.EMPTY_SLOT, dtype=np.int64)
    k.overlay_insert(keys1, keys2, values, h1[:2], h2[:2], np.array([0, 1], dtype=np.int64))
    assert k.overlay_find(h1[0], h2[0], keys1, keys2, values, 2) == 0
    assert k.overlay_find(h1[1], h2[1], keys1, keys2, values, 2) == 1
    assert k.overlay_find(h1[2], h2[2], keys1, keys2, values, 2) == k.MISS
    # a result from ``known`` on was stored after the reader's snapshot: not known to it
    assert k.overlay_find(h1[1], h2[1], keys1, keys2, values, 1) == k.MISS
    # a key learned again keeps its first result (a slot, once written, never changes)
    k.overlay_insert(keys1, keys2, values, h1[:1], h2[:1], np.array([5], dtype=np.int64))
    assert k.overlay_find(h1[0], h2[0], keys1, keys2, values, 6) == 0
    assert int(np.count_nonzero(values != k.EMPTY_SLOT)) == 2
    # static: "w" → term 7, "v" dropped (its bit set); "x", "y" learned; "z" unknown
    buckets, records, order = _static(["w", "v"], [7, 9], 1)
    v_entry = int(np.flatnonzero(order == 1)[0])
    drop_bits = np.array([1 << v_entry], dtype=np.uint8)
    codes = np.full(5, k.MISS, dtype=np.int64)
    args = (buckets, 1, records, drop_bits, keys1, keys2, values, 2)
    assert k.resolve(h1, h2, codes, True, *args, False, buf, s, e) == 1
    assert codes.tolist() == [-3, -4, k.MISS, 7, k.DROP]
    codes2 = np.full(5, k.MISS, dtype=np.int64)
    assert k.resolve(h1, h2, codes2, False, *args, False, buf, s, e) == 3
    assert codes2.tolist() == [-3, -4, k.MISS, k.MISS, k.MISS]
    # with the rule, a form of ASCII letters and digits the static table lacks is itself
    codes3 = np.full(5, k.MISS, dtype=np.int64)
    assert k.resolve(h1, h2, codes3, True, *args, True, buf, s, e) == 0
    assert codes3.tolist() == [k.SELF, k.SELF, k.SELF, 7, k.DROP]


def test_the_rule_takes_only_ascii_lowercase_letters_and_digits() -> None:
    words = ["abc", "x9", "2024", "Abc", "кот", "a-b", "é", "a_b"]
    buf, s, e = word_spans(words)
    h1, h2 = k.form_hashes(buf, s, e)
    codes = np.full(len(words), k.MISS, dtype=np.int64)
    buckets, records, _ = _static(["zzz"], [0], 1)
    empty_keys = np.zeros(8, dtype=np.uint64)
    empty_values = np.full(8, k.EMPTY_SLOT, dtype=np.int64)
    drop_bits = np.zeros(1, dtype=np.uint8)
    args = (buckets, 1, records, drop_bits, empty_keys, empty_keys, empty_values, 0)
    assert k.resolve(h1, h2, codes, True, *args, True, buf, s, e) == 5
    assert codes.tolist() == [k.SELF] * 3 + [k.MISS] * 5


def test_first_misses_one_token_per_unknown_form() -> None:
    buf, s, e = word_spans(["a", "b", "a", "c", "b", "d"])
    h1, h2 = k.form_hashes(buf, s, e)
    codes = np.array([k.MISS, k.MISS, k.MISS, 5, k.MISS, k.MISS], dtype=np.int64)
    assert k.first_misses(h1, h2, codes).tolist() == [0, 1, 5]
    assert k.first_misses(h1, h2, np.zeros(6, dtype=np.int64)).tolist() == []


def test_emit_writes_terms_and_drops() -> None:
    # static terms: 0 "в", 1 "стол"; learned results: 0 → "ab", 1 → dropped (empty)
    term_bytes = np.frombuffer("встол".encode(), dtype=np.uint8)
    term_offsets = np.array([0, 2, 10], dtype=np.int64)
    result_bytes = np.frombuffer(b"ab", dtype=np.uint8)
    result_offsets = np.array([0, 2, 2], dtype=np.int64)
    codes = np.array([1, k.DROP, -3, -4, 0, 1, k.SELF], dtype=np.int64)
    starts = np.arange(7, dtype=np.int64) * 10
    # the tokens' own bytes, read for SELF: token 6 is "xiv" at bytes 3..6
    buf_in = np.frombuffer(b"...xiv", dtype=np.uint8)
    token_starts = np.array([0, 0, 0, 0, 0, 0, 3], dtype=np.int64)
    token_ends = np.array([0, 0, 0, 0, 0, 0, 6], dtype=np.int64)
    buf, bs, be, st, en = k.emit(
        codes,
        starts,
        starts + 3,
        term_offsets,
        term_bytes,
        result_offsets,
        result_bytes,
        buf_in,
        token_starts,
        token_ends,
    )
    assert buf.tobytes().decode() == "стол ab в стол xiv"
    assert bs.tolist() == [0, 9, 12, 15, 24] and be.tolist() == [8, 11, 14, 23, 27]
    assert st.tolist() == [0, 20, 40, 50, 60] and en.tolist() == [3, 23, 43, 53, 63]
    none = np.zeros(0, dtype=np.int64)
    no_bytes = np.zeros(0, dtype=np.uint8)
    empty = k.emit(
        none,
        none,
        none,
        term_offsets,
        term_bytes,
        result_offsets,
        result_bytes,
        no_bytes,
        none,
        none,
    )
    assert empty[0].shape[0] == 0 and empty[1].shape[0] == 0
