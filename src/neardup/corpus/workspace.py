"""The on-disk state of the signing, candidate and verification stages (``OUT.partial/work``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.corpus.arrays import I64, U64, SignedChunk


class Workspace:
    """The on-disk state of stages 1–3 under ``OUT.partial/work``."""

    def __init__(
        self,
        root: Path,
        num_perm: int,
        dtype: np.dtype[Any],
        exact: bool,
        signatures: bool = True,
    ) -> None:
        self.root = root
        root.mkdir(parents=True)
        self.num_perm = num_perm
        self.dtype = dtype
        self.exact = exact
        #: whether the signatures are kept (the estimate's verification reads them)
        self.keeps_signatures = signatures
        self.sig_file = open(root / "signatures.bin", "wb")  # noqa: SIM115 - closed in finish
        self.fp_file = open(root / "fingerprints.u64", "wb")  # noqa: SIM115
        self.count_file: Any = None
        self.sample_file: Any = None
        self.sample_sizes: list[I64] = []
        self.key_chunks: list[tuple[int, int]] = []  # (start, size)
        self.lengths: list[I64] = []
        self.set_sizes: list[I64] = []
        self.n = 0

    def add(self, chunk: SignedChunk, keys: U64, text_lengths: I64) -> None:
        sigs, values, lengths, counts = chunk
        docs = int(keys.shape[0])
        if self.keeps_signatures:
            self.sig_file.write(np.ascontiguousarray(sigs).tobytes())
        np.save(self.root / f"keys_{len(self.key_chunks)}.npy", np.ascontiguousarray(keys.T))
        self.key_chunks.append((self.n, docs))
        if self.exact:
            self.fp_file.write(values.tobytes())
            if counts is not None:
                if self.count_file is None:
                    self.count_file = open(self.root / "counts.i64", "wb")  # noqa: SIM115
                self.count_file.write(counts.tobytes())
            self.set_sizes.append(lengths)
        self.lengths.append(text_lengths)
        self.n += docs

    def add_samples(self, values: U64, sizes: I64) -> None:
        if self.sample_file is None:
            self.sample_file = open(self.root / "samples.u64", "wb")  # noqa: SIM115
        self.sample_file.write(np.ascontiguousarray(values, dtype=np.uint64).tobytes())
        self.sample_sizes.append(sizes)

    def samples(self) -> tuple[U64, I64]:
        """Every winnowed sample, and the document (row) each belongs to."""
        if self.sample_file is None:
            return np.zeros(0, np.uint64), np.zeros(0, np.int64)
        values = np.fromfile(self.root / "samples.u64", dtype=np.uint64)
        sizes = np.concatenate(self.sample_sizes)
        return values, np.repeat(np.arange(self.n, dtype=np.int64), sizes)

    def finish(self) -> None:
        self.sig_file.close()
        self.fp_file.close()
        if self.count_file is not None:
            self.count_file.close()
        if self.sample_file is not None:
            self.sample_file.close()

    def band_column(self, band: int) -> U64:
        """Band ``band``'s key of every document, in input order."""
        return band_columns(self.root, self.key_chunks, self.n, range(band, band + 1))[0]

    def signatures(self) -> npt.NDArray[Any]:
        assert self.keeps_signatures, "the signatures were not kept"
        if self.n == 0:
            return np.zeros((0, self.num_perm), dtype=self.dtype)
        return np.memmap(
            self.root / "signatures.bin", dtype=self.dtype, mode="r", shape=(self.n, self.num_perm)
        )

    def fingerprints(self) -> tuple[U64, I64, I64 | None]:
        """Flat values (memory-mapped), offsets, counts of every document's fingerprint set."""
        sizes = np.concatenate(self.set_sizes) if self.set_sizes else np.zeros(0, np.int64)
        offsets = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        total = int(offsets[-1])
        if total == 0:
            values = np.zeros(1, dtype=np.uint64)
        else:
            values = np.memmap(self.root / "fingerprints.u64", np.uint64, "r", shape=(total,))
        counts = None
        if self.count_file is not None:
            counts = np.asarray(np.fromfile(self.root / "counts.i64", dtype=np.int64))
        return values, offsets, counts


def band_columns(root: Path, key_chunks: list[tuple[int, int]], n: int, bands: range) -> U64:
    """The keys of bands ``bands`` of every document (a row per band, in input order) from a
    workspace's files, each file read once for all of them (opening the files again for each
    band cost more than sorting the band)."""
    out = np.empty((len(bands), n), dtype=np.uint64)
    for c, (start, size) in enumerate(key_chunks):
        keys = np.load(root / f"keys_{c}.npy")
        out[:, start : start + size] = keys[bands.start : bands.stop : bands.step]
    return out
