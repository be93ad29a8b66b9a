"""The reader part of the collection: a document by id, membership, size, duplicate groups,
statistics and every document in admission order — everything that reads the storage and never
writes it, so a read-only collection needs nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from neardup.errors import NotFoundError
from neardup.index.items import check_id
from neardup.index.results import Document, Group
from neardup.index.stored_spec import describe_spec
from neardup.spec import IndexSpec, Spec
from neardup.storage import Storage


class Reader:
    """Read-only access to the stored documents."""

    def __init__(self, storage: Storage, spec: Spec, index_spec: IndexSpec) -> None:
        self.storage = storage
        self.spec = spec
        self.index_spec = index_spec

    @property
    def location(self) -> str:
        return self.storage.location

    def get(self, doc_id: str, *, text: bool = True) -> Document:
        """A stored document by id; NotFoundError if it is not there."""
        keys = self.storage.keys_for_ids([check_id(doc_id)])
        if doc_id not in keys:
            raise NotFoundError(f"no document {doc_id!r} in the collection {self.location}")
        infos = self.storage.docs([keys[doc_id]], text=text)
        if not infos:
            raise NotFoundError(f"no document {doc_id!r} in the collection {self.location}")
        d = infos[0]
        return Document(d.id, d.key, d.group, d.size, d.meta, d.text)

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and bool(self.storage.keys_for_ids([doc_id]))

    def __len__(self) -> int:
        return self.storage.counts()["docs"]

    def groups(self, *, min_size: int = 2) -> list[Group]:
        """Duplicate groups with at least ``min_size`` members, by id."""
        members: dict[int, list[tuple[int, str]]] = {}
        with self.storage.snapshot():
            for batch in self.storage.iter_docs():
                for d in batch:
                    members.setdefault(d.group, []).append((d.key, d.id))
        out = []
        for gid in sorted(members):
            rows = sorted(members[gid])
            if len(rows) >= min_size:
                out.append(Group(gid, rows[0][1], tuple(i for _, i in rows)))
        return out

    def stats(self) -> dict[str, Any]:
        """Counts, sizes and settings of the collection."""
        counts = self.storage.counts()
        sizes: dict[int, int] = {}
        shingles = 0
        with self.storage.snapshot():
            for batch in self.storage.iter_docs():
                for d in batch:
                    sizes[d.group] = sizes.get(d.group, 0) + 1
                    shingles += d.size
        docs = counts["docs"]
        nbytes = self.storage.size_bytes()
        return {
            "location": self.location,
            "backend": self.storage.kind,
            "documents": docs,
            "groups": counts["groups"],
            "grouped_documents": sum(s for s in sizes.values() if s > 1),
            "largest_group": max(sizes.values(), default=0),
            "links": counts["links"],
            "postings": counts["postings"],
            "shingles": shingles,
            "mean_shingles": shingles / docs if docs else 0.0,
            "postings_per_document": counts["postings"] / docs if docs else 0.0,
            "bytes": nbytes,
            "bytes_per_document": (nbytes / docs if docs and nbytes is not None else None),
            "spec_fingerprint": self.spec.fingerprint(),
            "spec": describe_spec(self.spec),
            "index_spec": self.index_spec.to_dict(),
        }

    def iter_documents(self, *, text: bool = True) -> Iterator[tuple[Document, str]]:
        """Every document in admission order with its group representative's id."""
        rep: dict[int, str] = {}
        for batch in self.storage.iter_docs(text=text):
            missing = sorted({d.group for d in batch if d.group not in rep and d.group != d.key})
            for info in self.storage.docs(missing):
                rep[info.key] = info.id
            for d in batch:
                if d.key == d.group:
                    rep[d.key] = d.id
                yield Document(d.id, d.key, d.group, d.size, d.meta, d.text), rep.get(d.group, d.id)
