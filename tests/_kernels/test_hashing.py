"""Rabin–Karp by table lookups and prefix values equals the byte-by-byte kernels and the
plain-Python definition, for every width, with long tokens, offsets and gaps."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._kernels import hashing
from neardup.fingerprints.hashing import (
    HashFamily,
    rabin_base,
    rabin_modulus,
    reference_fingerprint,
)
from neardup.fingerprints.shingles import word_shingle_starts
from neardup.spec import FingerprintSpec

WIDTHS = (64, 63, 62, 60, 57, 56, 48, 40, 33, 32)


def _family(bits: int, seed: int = 0) -> HashFamily:
    return HashFamily(FingerprintSpec("rabin", bits=bits, seed=seed))


@pytest.mark.parametrize("bits", WIDTHS)
def test_table_is_byte_times_power(bits: int) -> None:
    fam = _family(bits, seed=3)
    p, _ = rabin_modulus(bits)
    base = rabin_base(3, bits)
    table = fam._table.reshape(hashing.RK_TABLE_ROWS, 256)
    for j in (0, 1, 2, 31, hashing.RK_TABLE_ROWS - 1):
        for b in (0, 1, 32, 127, 208, 255):
            assert int(table[j, b]) == b * pow(base, j, p) % p
    assert int(fam._power[hashing.RK_POWERS - 1]) == pow(base, hashing.RK_POWERS - 1, p)
    assert int(fam._space_power[77]) == 32 * pow(base, 77, p) % p


@pytest.mark.parametrize("bits", WIDTHS)
def test_reduce_sum_of_table_values(bits: int) -> None:
    p, c = rabin_modulus(bits)
    rng = np.random.default_rng(bits)
    for _ in range(500):
        count = int(rng.integers(0, hashing.RK_TABLE_ROWS + 1))
        values = [int(v) for v in rng.integers(0, p, count, dtype=np.uint64)] if count else []
        if rng.random() < 0.2:
            values = [p - 1] * count  # the largest sums
        total = sum(values)
        got = hashing._reduce_sum(
            np.uint64(total >> 64), np.uint64(total & (2**64 - 1)), bits, np.uint64(c)
        )
        assert int(got) == total % p


@pytest.mark.parametrize("bits", WIDTHS)
def test_spans_by_table_equal_byte_by_byte(bits: int) -> None:
    fam = _family(bits, seed=11)
    rng = np.random.default_rng(bits + 1)
    buf = rng.integers(0, 256, 5000, dtype=np.uint8)
    buf[:300] = 255  # the largest digits
    starts = rng.integers(0, 4000, 400).astype(np.int64)
    lengths = np.concatenate([np.arange(0, 200), rng.integers(0, 1000, 200)]).astype(np.int64)
    ends = np.minimum(starts + lengths, buf.shape[0])
    starts[:5] = 0
    ends[:5] = [0, 64, 65, 128, 300]
    got = fam.spans(buf, starts, ends)
    want = hashing.rabin_spans(buf, starts, ends, fam._base, bits, fam._c)
    assert np.array_equal(got, want)
    spec = FingerprintSpec("rabin", bits=bits, seed=11)
    for i in range(0, 400, 37):
        assert int(got[i]) == reference_fingerprint(spec, buf[starts[i] : ends[i]].tobytes())


def _stream(words: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    joined = b" ".join(words)
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    starts = np.zeros(len(words), dtype=np.int64)
    if len(words) > 1:
        starts[1:] = np.cumsum(lengths[:-1] + 1)
    return np.frombuffer(joined, dtype=np.uint8).copy(), starts, starts + lengths


WORDS = st.lists(
    st.binary(min_size=1, max_size=90).map(lambda b: b.replace(b" ", b"x")), min_size=0, max_size=40
)


@settings(max_examples=150, deadline=None)
@given(
    WORDS, st.integers(1, 7), st.integers(1, 8), st.sampled_from(WIDTHS), st.integers(0, 2**64 - 1)
)
def test_word_shingles_by_prefixes_equal_rolling(
    words: list[bytes], k: int, step: int, bits: int, seed: int
) -> None:
    fam = _family(bits, seed)
    buf, starts, ends = _stream(words)
    first = word_shingle_starts(len(words), k, step)
    got = fam.word_shingles(buf, starts, ends, first, k)
    want = hashing.rabin_word_shingles(buf, starts, ends, first, k, fam._base, bits, fam._c)
    assert np.array_equal(got, want)
    spec = FingerprintSpec("rabin", bits=bits, seed=seed)
    for j, f in enumerate(first.tolist()):
        text = b" ".join(words[f : f + k])
        assert int(got[j]) == reference_fingerprint(spec, text)


def test_word_shingles_of_documents_laid_end_to_end() -> None:
    # neardup.research.collisions concatenates documents' streams with no space between them;
    # shingles
    # never cross a document, so the values are those of each document alone
    fam = _family(64, seed=5)
    docs = [
        [b"alpha", b"beta", b"gamma", b"delta"],
        [b"x" * 200, b"y", b"z", b"w", b"v"],
        [b"one", b"two"],
    ]
    bufs, bs, be, firsts, wants = [], [], [], [], []
    offset = n_tok = 0
    for words in docs:
        buf, s, e = _stream(words)
        first = word_shingle_starts(len(words), 3, 1)
        wants.append(fam.word_shingles(buf, s, e, first, 3))
        bufs.append(buf)
        bs.append(s + offset)
        be.append(e + offset)
        firsts.append(first + n_tok)
        offset += buf.shape[0]
        n_tok += len(words)
    buf = np.concatenate(bufs)
    # shingles per document: the last one may be shorter at a document's end in the
    # concatenation, so compare only full shingles, as neardup.research.collisions makes them
    got = fam.word_shingles(
        buf, np.concatenate(bs), np.concatenate(be), np.concatenate(firsts[:2]), 3
    )
    assert np.array_equal(got, np.concatenate(wants[:2]))


def test_long_shingles_extend_the_powers() -> None:
    fam = _family(64, seed=9)
    words = [bytes([65 + i % 26]) * (300 + i) for i in range(12)]  # shingles past RK_POWERS bytes
    buf, starts, ends = _stream(words)
    first = word_shingle_starts(len(words), 5, 1)
    got = fam.word_shingles(buf, starts, ends, first, 5)
    want = hashing.rabin_word_shingles(buf, starts, ends, first, 5, fam._base, 64, fam._c)
    assert np.array_equal(got, want)
    assert fam._power.shape[0] == hashing.RK_POWERS  # the family's tables stay as they were


def test_empty_inputs() -> None:
    fam = _family(64)
    empty = np.zeros(0, dtype=np.int64)
    assert fam.word_shingles(np.zeros(0, dtype=np.uint8), empty, empty, empty, 5).shape == (0,)
    assert fam.spans(np.zeros(0, dtype=np.uint8), empty, empty).shape == (0,)
