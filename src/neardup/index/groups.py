"""Duplicate groups: connected components of the near-duplicate links, by union-find.

A group's id is the smallest internal key among its members, which is also its first admitted
member (keys are given out in admission order), so ids stay put while the membership does and
the representative is the group's id.
"""

from __future__ import annotations

from collections.abc import Iterable


class UnionFind:
    """Disjoint sets over integer keys; every set's root is its smallest key."""

    def __init__(self, keys: Iterable[int] = ()) -> None:
        self.parent: dict[int, int] = {int(k): int(k) for k in keys}

    def add(self, key: int) -> None:
        self.parent.setdefault(int(key), int(key))

    def find(self, key: int) -> int:
        parent = self.parent
        root = parent.setdefault(key, key)
        while parent[root] != root:
            root = parent[root]
        while parent[key] != root:  # path compression
            parent[key], key = root, parent[key]
        return root

    def union(self, a: int, b: int) -> int:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        lo, hi = (ra, rb) if ra < rb else (rb, ra)
        self.parent[hi] = lo
        return lo

    def roots(self) -> dict[int, int]:
        """Every key's root."""
        return {k: self.find(k) for k in list(self.parent)}


def components(keys: Iterable[int], pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    """The root (smallest key of its component) of each key, given the linked pairs."""
    uf = UnionFind(keys)
    for a, b in pairs:
        if a in uf.parent and b in uf.parent:
            uf.union(a, b)
    return uf.roots()
