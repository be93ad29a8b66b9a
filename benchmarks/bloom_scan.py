"""Row scan speed of the pseudo-matrix filter: AND + popcount over every row, one core.

The scan reads each row once (``neardup._kernels.pmbf.and_popcount``, ``nogil``, one thread),
so it is memory-bound; the figure is bytes of rows read per second. Rows are the paper's
(n = 123,000, p = 0.05: m = 766,933 bits, 95,872 bytes), filled like rows at capacity (each bit
set with probability 1/2); the query is the filter of 1,000 fingerprints. The membership scan
(query shingles whose k bits are all in the row) is timed beside it, row by row
(``member_counts``) and over the bit-sliced copy (``sliced_member_counts``).

    .venv/bin/python benchmarks/bloom_scan.py [--rows 1000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np

from neardup._kernels import pmbf
from neardup.bloom import bloom_size


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "uptime not available"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--n", type=int, default=123_000)
    ap.add_argument("--p", type=float, default=0.05)
    ap.add_argument("--query", type=int, default=1000, help="query fingerprints")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    size = bloom_size(args.n, args.p)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 2**63, size=(args.rows, size.words), dtype=np.uint64)
    rows ^= rng.integers(0, 2, size=rows.shape, dtype=np.uint64) << np.uint64(63)
    tail = size.m - (size.words - 1) * 64  # bits past m stay 0 in a filter row
    rows[:, -1] &= np.uint64((1 << tail) - 1) if tail < 64 else np.uint64(2**64 - 1)
    values = np.unique(rng.integers(0, 2**63, size=args.query, dtype=np.uint64))
    query = np.zeros(size.words, dtype=np.uint64)
    pmbf.set_bits(query, values, size.k, size.m, 0)
    pos = pmbf.positions(values, size.k, size.m, 0)
    pmbf.and_popcount(rows[:2], query, 2)  # compile / load from cache
    pmbf.member_counts(rows[:2], pos, size.k, 2)
    print(f"before: {uptime()}")
    print(f"{os.cpu_count()} cores, shared with 5 other developers' jobs while this ran")
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        pmbf.and_popcount(rows, query, args.rows)
        times.append(time.perf_counter() - t0)
    member_times = []
    for _ in range(max(1, args.repeat // 2)):
        t0 = time.perf_counter()
        pmbf.member_counts(rows, pos, size.k, args.rows)
        member_times.append(time.perf_counter() - t0)
    sliced = np.zeros((size.m, -(-args.rows // 64)), dtype=np.uint64)
    t0 = time.perf_counter()
    pmbf.slice_rows(rows, np.arange(args.rows, dtype=np.int64), size.m, sliced, False)
    slicing = time.perf_counter() - t0
    pmbf.sliced_member_counts(sliced, pos[: size.k], size.k, args.rows)
    sliced_times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        got = pmbf.sliced_member_counts(sliced, pos, size.k, args.rows)
        sliced_times.append(time.perf_counter() - t0)
    assert np.array_equal(got, pmbf.member_counts(rows, pos, size.k, args.rows))
    print(f"after: {uptime()}")
    gb = rows.nbytes / 1e9
    best, med = min(times), float(np.median(times))
    print(
        f"AND + popcount: {args.rows:,} rows × {size.bytes:,} B = {rows.nbytes / 2**20:,.1f} MiB; "
        f"best {best * 1e3:.1f} ms ({gb / best:.2f} GB/s), median {med * 1e3:.1f} ms "
        f"({gb / med:.2f} GB/s) over {args.repeat} runs"
    )
    mb, mm = min(member_times), float(np.median(member_times))
    print(
        f"membership ({values.size:,} query shingles, k = {size.k}): best {mb * 1e3:.1f} ms "
        f"({args.rows / mb:,.0f} rows/s), median {mm * 1e3:.1f} ms"
    )
    sb, sm = min(sliced_times), float(np.median(sliced_times))
    print(
        f"membership over the bit-sliced copy (built in {slicing:.2f} s): best {sb * 1e3:.2f} ms "
        f"({args.rows / sb:,.0f} rows/s), median {sm * 1e3:.2f} ms; same counts"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
