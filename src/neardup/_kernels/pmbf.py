"""Hot loops of the Bloom filters of :mod:`neardup.bloom` (classic, counting, pseudo-matrix).

A filter row is ``m`` bits held in ``ceil(m / 64)`` little-endian ``uint64`` words (bit ``b``
is bit ``b % 64`` of word ``b // 64``; the bits past ``m`` in the last word stay 0).

Bit positions of a fingerprint ``x`` under seed ``s``: ``h1 = splitmix64(x ^ splitmix64(s))``,
``h2 = splitmix64(h1) | 1``, and for ``i < k`` the position ``(h1 + i * h2) mod m`` (double
hashing, Kirsch and Mitzenmacher 2006; the sum wraps modulo 2**64 before the ``mod m``). Any
``m`` works, not only powers of two, so a row is exactly as long as the paper's sizing says.

The similarity scan, :func:`and_popcount`, is the paper's count of shared 1-bits: for each row
of a matrix, ``popcount(row & query)`` summed over the words. ``popcount64`` is the SWAR
bit count, which LLVM turns into the CPU's ``popcnt`` instruction.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.minhash import splitmix64

U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S6 = np.uint64(6)
_S56 = np.uint64(56)
_LOW6 = np.uint64(63)


@njit(cache=True, nogil=True)
def popcount64(x: np.uint64) -> np.uint64:
    """The number of 1-bits of ``x``."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return (x * _H01) >> _S56


@njit(cache=True, nogil=True)
def positions(values: U64, k: int, m: int, seed: int) -> U64:
    """The ``k`` bit positions of every value, ``out[i * k + j]`` (value ``i``, function ``j``)."""
    mm = np.uint64(m)
    s = splitmix64(np.uint64(seed))
    out = np.empty(values.shape[0] * k, dtype=np.uint64)
    for i in range(values.shape[0]):
        h1 = splitmix64(values[i] ^ s)
        h2 = splitmix64(h1) | _ONE
        for j in range(k):
            out[i * k + j] = (h1 + np.uint64(j) * h2) % mm
    return out


@njit(cache=True, nogil=True)
def set_bits(words: U64, values: U64, k: int, m: int, seed: int) -> None:
    """Set the ``k`` bits of every value in the row ``words``."""
    mm = np.uint64(m)
    s = splitmix64(np.uint64(seed))
    for i in range(values.shape[0]):
        h1 = splitmix64(values[i] ^ s)
        h2 = splitmix64(h1) | _ONE
        for j in range(k):
            pos = (h1 + np.uint64(j) * h2) % mm
            words[pos >> _S6] |= _ONE << (pos & _LOW6)


@njit(cache=True, nogil=True)
def test_bits(words: U64, values: U64, k: int, m: int, seed: int) -> B:
    """For each value: True when all its ``k`` bits are set in ``words``."""
    mm = np.uint64(m)
    s = splitmix64(np.uint64(seed))
    out = np.empty(values.shape[0], dtype=np.bool_)
    for i in range(values.shape[0]):
        h1 = splitmix64(values[i] ^ s)
        h2 = splitmix64(h1) | _ONE
        present = True
        for j in range(k):
            pos = (h1 + np.uint64(j) * h2) % mm
            if (words[pos >> _S6] >> (pos & _LOW6)) & _ONE == 0:
                present = False
                break
        out[i] = present
    return out


@njit(cache=True, nogil=True)
def add_counts(counters: U8, values: U64, k: int, m: int, seed: int, delta: int) -> int:
    """Add ``delta`` (+1 or −1) to the counters of every value; a counter at 255 sticks there
    (it may have overflowed, so it is never decremented). Returns how many counters stuck."""
    mm = np.uint64(m)
    s = splitmix64(np.uint64(seed))
    stuck = 0
    for i in range(values.shape[0]):
        h1 = splitmix64(values[i] ^ s)
        h2 = splitmix64(h1) | _ONE
        for j in range(k):
            pos = (h1 + np.uint64(j) * h2) % mm
            c = counters[pos]
            if c == 255:
                stuck += 1
            elif delta > 0:
                counters[pos] = c + 1
            elif c > 0:
                counters[pos] = c - 1
    return stuck


@njit(cache=True, nogil=True)
def popcount_words(words: U64) -> int:
    """The number of 1-bits in a row."""
    total = np.uint64(0)
    for i in range(words.shape[0]):
        total += popcount64(words[i])
    return int(total)


@njit(cache=True, nogil=True)
def popcount_rows(rows: U64, n_rows: int) -> I64:
    """The number of 1-bits of each of the first ``n_rows`` rows of a matrix."""
    out = np.empty(n_rows, dtype=np.int64)
    for r in range(n_rows):
        total = np.uint64(0)
        for i in range(rows.shape[1]):
            total += popcount64(rows[r, i])
        out[r] = total
    return out


@njit(cache=True, nogil=True)
def and_popcount(rows: U64, query: U64, n_rows: int) -> I64:
    """``popcount(rows[r] & query)`` for each of the first ``n_rows`` rows: the shared 1-bits."""
    out = np.empty(n_rows, dtype=np.int64)
    width = rows.shape[1]
    for r in range(n_rows):
        total = np.uint64(0)
        for i in range(width):
            total += popcount64(rows[r, i] & query[i])
        out[r] = total
    return out


@njit(cache=True, nogil=True)
def member_counts(rows: U64, pos: U64, k: int, n_rows: int) -> I64:
    """For each of the first ``n_rows`` rows: how many query elements have all their ``k``
    bits set in it (``pos`` from :func:`positions`: ``k`` per element, element-major)."""
    out = np.zeros(n_rows, dtype=np.int64)
    n = pos.shape[0] // k
    for r in range(n_rows):
        count = 0
        for i in range(n):
            present = True
            for j in range(k):
                p = pos[i * k + j]
                if (rows[r, p >> _S6] >> (p & _LOW6)) & _ONE == 0:
                    present = False
                    break
            if present:
                count += 1
        out[r] = count
    return out


@njit(cache=True, nogil=True)
def slice_rows(rows: U64, which: I64, m: int, sliced: U64, clear: bool) -> None:
    """Write the rows ``which`` into the bit-sliced copy: bit ``b`` of row ``r`` is bit
    ``r % 64`` of ``sliced[b, r // 64]`` (a column per bit position, a bit per row). With
    ``clear`` the rows' old bits in ``sliced`` are cleared first."""
    for t in range(which.shape[0]):
        r = which[t]
        w = r >> 6
        bit = _ONE << np.uint64(r & 63)
        if clear:
            keep = ~bit
            for b in range(m):
                sliced[b, w] &= keep
        for i in range(rows.shape[1]):
            x = rows[r, i]
            while x != 0:
                low = x & (~x + _ONE)
                b = i * 64 + int(popcount64(low - _ONE))
                if b < m:  # bits past m are never set in a filter row; ignore them if they are
                    sliced[b, w] |= bit
                x ^= low


@njit(cache=True, nogil=True)
def transpose64(a: U64) -> None:
    """Transpose a 64 × 64 bit matrix in place: bit ``c`` of ``a[r]`` becomes bit ``r`` of
    ``a[c]`` (off-diagonal blocks of 32, 16, …, 1 swapped in turn; Hacker's Delight 7-3)."""
    j = 32
    mask = np.uint64(0x00000000FFFFFFFF)
    while j != 0:
        shift = np.uint64(j)
        k = 0
        while k < 64:
            for r in range(k, k + j):
                t = ((a[r] >> shift) ^ a[r + j]) & mask
                a[r] ^= t << shift
                a[r + j] ^= t
            k += 2 * j
        j >>= 1
        mask ^= mask << np.uint64(j)


@njit(cache=True, nogil=True)
def slice_all(rows: U64, n_rows: int, m: int, sliced: U64) -> None:
    """The bit-sliced copy of the first ``n_rows`` rows, written whole (every word of
    ``sliced`` for those rows, so it need not be cleared first): each block of 64 rows × 64
    bit positions is one :func:`transpose64`. Blocks go eight words of the rows at a time
    (one cache line of each of 64 rows) so a row's line is read once."""
    words = rows.shape[1]
    width = (n_rows + 63) >> 6
    a = np.empty(64, dtype=np.uint64)
    for i8 in range(0, words, 8):
        for w in range(width):
            r0 = w * 64
            count = min(64, n_rows - r0)
            for i in range(i8, min(i8 + 8, words)):
                for j in range(count):
                    a[j] = rows[r0 + j, i]
                for j in range(count, 64):
                    a[j] = 0
                transpose64(a)
                for t in range(64):
                    b = i * 64 + t
                    if b < m:
                        sliced[b, w] = a[t]


@njit(cache=True, nogil=True)
def sliced_member_counts(sliced: U64, pos: U64, k: int, n_rows: int) -> I64:
    """:func:`member_counts` over the bit-sliced copy: for each query element the AND of its
    ``k`` columns is the set of rows holding all its bits; those rows' counts go up by one."""
    out = np.zeros(n_rows, dtype=np.int64)
    width = (n_rows + 63) >> 6
    acc = np.empty(width, dtype=np.uint64)
    n = pos.shape[0] // k
    for i in range(n):
        c0 = pos[i * k]
        for w in range(width):
            acc[w] = sliced[c0, w]
        for j in range(1, k):
            c = pos[i * k + j]
            for w in range(width):
                acc[w] &= sliced[c, w]
        for w in range(width):
            x = acc[w]
            while x != 0:
                low = x & (~x + _ONE)
                r = w * 64 + int(popcount64(low - _ONE))
                if r < n_rows:
                    out[r] += 1
                x ^= low
    return out


#: the value of a row that can take nothing (closed, or past the last row) in a free-space tree
NO_ROOM = -(1 << 62)


@njit(cache=True, nogil=True)
def tree_build(free: I64, leaves: int) -> I64:
    """A max-tree over the rows' free space, for first-fit placement in ``O(log rows)``:
    ``tree[leaves + r]`` is row ``r``'s room (:data:`NO_ROOM` past the rows), every inner node
    ``i`` the larger of ``2i`` and ``2i + 1``. ``leaves`` is a power of two ≥ the rows."""
    tree = np.full(2 * leaves, NO_ROOM, dtype=np.int64)
    for r in range(free.shape[0]):
        tree[leaves + r] = free[r]
    for i in range(leaves - 1, 0, -1):
        tree[i] = max(tree[2 * i], tree[2 * i + 1])
    return tree


@njit(cache=True, nogil=True)
def tree_set(tree: I64, leaves: int, rows: I64, free: I64) -> None:
    """Set the room of some rows and update their ancestors."""
    for t in range(rows.shape[0]):
        i = leaves + rows[t]
        tree[i] = free[t]
        i >>= 1
        while i >= 1:
            tree[i] = max(tree[2 * i], tree[2 * i + 1])
            i >>= 1


@njit(cache=True, nogil=True)
def tree_first(tree: I64, leaves: int, need: int, start: int) -> int:
    """The first row at or after ``start`` with room ≥ ``need``, or −1."""
    if start >= leaves:
        return -1
    i = leaves + start
    if tree[i] >= need:
        return start
    while i > 1:
        if i & 1 == 0 and tree[i + 1] >= need:
            i += 1
            while i < leaves:
                i = 2 * i if tree[2 * i] >= need else 2 * i + 1
            return i - leaves
        i >>= 1
    return -1
