"""The form-lookup kernels: hashes, the static table's bucketed search, the growing table,
the first miss of each form, and the stream written from the codes."""

from __future__ import annotations

import numpy as np

from neardup._kernels import morph as k


def _spans(words: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = " ".join(words).encode("utf-8")
    starts, ends, pos = [], [], 0
    for w in words:
        starts.append(pos)
        pos += len(w.encode("utf-8"))
        ends.append(pos)
        pos += 1
    return (
        np.frombuffer(data, dtype=np.uint8),
        np.array(starts, dtype=np.int64),
        np.array(ends, dtype=np.int64),
    )


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
    buf2, s, e = _spans(["стол", "стола", "стол", "", "а"])
    a, b = k.form_hashes(buf2, s, e)
    assert a[0] == a[2] == h1 and b[0] == b[2] == h2
    assert len(set(a.tolist())) == 4 and len(set(b.tolist())) == 4


def test_static_find_in_buckets() -> None:
    buf, s, e = _spans(["a", "b", "c", "d", "e", "f"])
    h1, h2 = k.form_hashes(buf, s, e)
    order = np.argsort(h1)
    hashes, checks = h1[order], h2[order]
    buckets = k.bucket_starts(hashes, 2)
    assert buckets.shape[0] == 5 and buckets[0] == 0 and buckets[-1] == 6
    for i in range(6):
        entry = k.static_find(h1[i], h2[i], buckets, 2, hashes, checks)
        assert entry == int(np.flatnonzero(order == i)[0])
    # the right h1 with the wrong h2 is not a match
    assert k.static_find(h1[0], h2[0] ^ np.uint64(1), buckets, 2, hashes, checks) == k.MISS


def test_overlay_insert_find_and_resolve_order() -> None:
    buf, s, e = _spans(["x", "y", "z", "w"])
    h1, h2 = k.form_hashes(buf, s, e)
    keys1 = np.zeros(8, dtype=np.uint64)
    keys2 = np.zeros(8, dtype=np.uint64)
    values = np.full(8, k.EMPTY_SLOT, dtype=np.int64)
    k.overlay_insert(keys1, keys2, values, h1[:2], h2[:2], np.array([0, 1], dtype=np.int64))
    assert k.overlay_find(h1[0], h2[0], keys1, keys2, values) == 0
    assert k.overlay_find(h1[1], h2[1], keys1, keys2, values) == 1
    assert k.overlay_find(h1[2], h2[2], keys1, keys2, values) == k.MISS
    # static entry 7 for "w"; "x", "y" learned; "z" unknown
    order = np.argsort(h1[3:])
    hashes, checks = h1[3:][order], h2[3:][order]
    buckets = k.bucket_starts(hashes, 1)
    codes = np.full(4, k.MISS, dtype=np.int64)
    misses = k.resolve(h1, h2, codes, True, buckets, 1, hashes, checks, keys1, keys2, values)
    assert misses == 1
    assert codes.tolist() == [-2, -3, k.MISS, 0]
    codes2 = np.full(4, k.MISS, dtype=np.int64)
    k.resolve(h1, h2, codes2, False, buckets, 1, hashes, checks, keys1, keys2, values)
    assert codes2.tolist() == [-2, -3, k.MISS, k.MISS]


def test_first_misses_one_token_per_unknown_form() -> None:
    buf, s, e = _spans(["a", "b", "a", "c", "b", "d"])
    h1, h2 = k.form_hashes(buf, s, e)
    codes = np.array([k.MISS, k.MISS, k.MISS, 5, k.MISS, k.MISS], dtype=np.int64)
    assert k.first_misses(h1, h2, codes).tolist() == [0, 1, 5]
    assert k.first_misses(h1, h2, np.zeros(6, dtype=np.int64)).tolist() == []


def test_emit_writes_terms_and_drops() -> None:
    # static entries: 0 → term 1 ("стол"), 1 → dropped, 2 → term 0 ("в")
    term_bytes = np.frombuffer("встол".encode(), dtype=np.uint8)
    term_offsets = np.array([0, 2, 10], dtype=np.int64)
    static_terms = np.array([1, 0, 0], dtype=np.int32)
    static_drop = np.array([False, True, False])
    # learned results: 0 → "ab", 1 → dropped (empty)
    result_bytes = np.frombuffer(b"ab", dtype=np.uint8)
    result_offsets = np.array([0, 2, 2], dtype=np.int64)
    codes = np.array([0, 1, -2, -3, 2, 0], dtype=np.int64)
    starts = np.arange(6, dtype=np.int64) * 10
    buf, bs, be, st, en = k.emit(
        codes,
        starts,
        starts + 3,
        static_drop,
        static_terms,
        term_offsets,
        term_bytes,
        result_offsets,
        result_bytes,
    )
    assert buf.tobytes().decode() == "стол ab в стол"
    assert bs.tolist() == [0, 9, 12, 15] and be.tolist() == [8, 11, 14, 23]
    assert st.tolist() == [0, 20, 40, 50] and en.tolist() == [3, 23, 43, 53]
    empty = k.emit(
        np.zeros(0, dtype=np.int64),
        starts[:0],
        starts[:0],
        static_drop,
        static_terms,
        term_offsets,
        term_bytes,
        result_offsets,
        result_bytes,
    )
    assert empty[0].shape[0] == 0 and empty[1].shape[0] == 0
