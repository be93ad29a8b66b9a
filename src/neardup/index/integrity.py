"""The integrity part of the collection: every stored invariant checked, the problems listed.

It reads the storage alone and re-analyses stored texts with the collection's analyzer where
an invariant depends on the analysis (the word samples of a length-adaptive spec, the
sentence keys).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from neardup._sorted import distinct
from neardup.index.analyzing import IndexAnalyzer
from neardup.index.candidates import BloomRowsSource
from neardup.index.finding import CandidateFinder
from neardup.index.groups import components
from neardup.index.verify import set_size
from neardup.spec import IndexSpec
from neardup.storage import Storage
from neardup.storage.base import DocInfo, StoredFingerprints

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class IntegrityCheck:
    """``verify_integrity``."""

    def __init__(
        self,
        storage: Storage,
        index_spec: IndexSpec,
        analyzer: IndexAnalyzer,
        finder: CandidateFinder,
    ) -> None:
        self.storage = storage
        self.index_spec = index_spec
        self.analyzer = analyzer
        self.finder = finder
        self.short = analyzer.short
        self.multiset = analyzer.multiset

    def run(self) -> list[str]:
        """Problems found by checking every stored invariant (an empty list means consistent).

        Every fingerprint array is sorted and distinct, its samples among it, with the
        recorded (non-negative) size; postings are exactly the samples of the stored
        documents, and looking those samples up finds every one of them; links join stored
        documents, newer to older; every document's group is the smallest key of its linked
        component; the key counter is past every key; stored texts belong to stored documents;
        the pseudo-matrix filter (``pmbf``/``both``) places every stored document with its
        size and its rows are exactly the bits of the parts placed in them.
        """
        problems: list[str] = []
        with self.storage.snapshot():
            meta = self.storage.read_meta()
            keys, sizes, samples = self._fingerprint_integrity(problems)
            infos = {
                d.key: d
                for batch in self.storage.iter_docs(text=self.index_spec.store_text)
                for d in batch
            }
            if sorted(infos) != keys:
                problems.append("docs and fingerprints disagree on the stored keys")
            for k, d in infos.items():
                if d.size < 0 or (k in sizes and sizes[k] != d.size):
                    problems.append(
                        f"doc {k} ({d.id}) records size {d.size}, its fingerprints {sizes.get(k)}"
                    )
            self._posting_integrity(problems, keys, samples)
            for source in self.finder.sources:
                if isinstance(source, BloomRowsSource):
                    problems.extend(source.problems(self.storage))
            self._group_integrity(problems, keys, infos)
            counter = meta.get("next_key", "0")
            if not counter.lstrip("-").isdigit():
                problems.append(f"key counter {counter!r} is not an integer")
            elif keys and int(counter) <= max(keys):
                problems.append(f"key counter {counter} is not past the largest key {max(keys)}")
        return problems

    def _fingerprint_integrity(
        self, problems: list[str]
    ) -> tuple[list[int], dict[int, int], tuple[U64, I64]]:
        """Check each stored fingerprint array; its keys, sizes and every ``(sample, key)``."""
        values: list[U64] = []
        owners: list[I64] = []
        keys: list[int] = []
        sizes: dict[int, int] = {}
        stray: list[StoredFingerprints] = []
        for batch in self.storage.iter_fingerprints():
            for f in batch:
                keys.append(f.key)
                sizes[f.key] = set_size(f.values, f.counts)
                v = f.values
                if v.shape[0] > 1 and not bool(np.all(v[1:] > v[:-1])):
                    problems.append(f"doc {f.key}: fingerprints not sorted and distinct")
                if f.samples.shape[0] and not bool(np.all(np.isin(f.samples, v))):
                    stray.append(f)
                if (f.counts is None) == self.multiset:
                    problems.append(
                        f"doc {f.key}: counts {'missing' if self.multiset else 'unexpected'}"
                    )
                values.append(f.samples)
                owners.append(np.full(f.samples.shape[0], f.key, dtype=np.int64))
        self._short_sample_integrity(problems, stray)
        ev = np.concatenate(values) if values else np.zeros(0, np.uint64)
        ek = np.concatenate(owners) if owners else np.zeros(0, np.int64)
        return keys, sizes, (ev, ek)

    def _short_sample_integrity(
        self, problems: list[str], stray: Sequence[StoredFingerprints]
    ) -> None:
        """Samples outside a document's fingerprints are its word samples, posted under a
        length-adaptive spec (:meth:`~neardup.index.short.ShortRule.samples`), and its
        sentence keys (``sentence_bands``): they must be what its stored text posts again.
        Anything else is damage."""
        texts: dict[int, str | None] = {}
        reposts = self.short is not None or bool(self.index_spec.sentence_bands)
        if reposts:
            for start in range(0, len(stray), 1000):
                keys = [f.key for f in stray[start : start + 1000]]
                texts.update(
                    (d.key, d.text) for d in self.storage.docs(keys, text=True, meta=False)
                )
        for f in stray:
            text = texts.get(f.key)
            if text is None or not np.array_equal(
                np.sort(f.samples), self.analyzer.analyze(text).samples
            ):
                problems.append(
                    f"doc {f.key}: samples not among its fingerprints"
                    + (" nor what its stored text posts" if reposts else "")
                )

    def _posting_integrity(
        self, problems: list[str], keys: list[int], samples: tuple[U64, I64]
    ) -> None:
        """Postings (full scan and lookup path) are exactly the stored samples."""
        ev, ek = samples
        o2 = np.lexsort((ek, ev))
        pv, pk = self.storage.all_postings()
        o1 = np.lexsort((pk, pv))
        if pv.shape != ev.shape or not (
            np.array_equal(pv[o1], ev[o2]) and np.array_equal(pk[o1], ek[o2])
        ):
            orphans = int(np.count_nonzero(~np.isin(pk, np.array(keys, dtype=np.int64))))
            problems.append(
                f"postings ({pv.shape[0]}) differ from the stored samples "
                f"({ev.shape[0]}); {orphans} postings point at no document"
            )
        # the lookup path (tiers, filters) must find them all, not only the full scan
        found_v, found_k = self.storage.postings(distinct(ev))
        o3 = np.lexsort((found_k, found_v))
        if found_v.shape != ev.shape or not (
            np.array_equal(found_v[o3], ev[o2]) and np.array_equal(found_k[o3], ek[o2])
        ):
            problems.append(
                f"looking every sample up finds {found_v.shape[0]} postings, not the "
                f"{ev.shape[0]} stored (a damaged filter or tail)"
            )

    def _group_integrity(
        self, problems: list[str], keys: list[int], infos: Mapping[int, DocInfo]
    ) -> None:
        """Links join stored documents newer to older; groups are their components."""
        key_set = set(keys)
        pairs = []
        for lk in self.storage.iter_links():
            if lk.a not in key_set or lk.b not in key_set:
                problems.append(f"link {lk.a}–{lk.b} points at a missing document")
            elif lk.a <= lk.b:
                problems.append(f"link {lk.a}–{lk.b} is not newer-to-older")
            pairs.append((lk.a, lk.b))
        roots = components(keys, pairs)
        for k, d in infos.items():
            if roots.get(k) != d.group:
                problems.append(f"doc {k} ({d.id}) is in group {d.group}, expected {roots.get(k)}")
            if self.index_spec.store_text and d.text is None:
                problems.append(f"doc {k} ({d.id}) has no stored text")
