"""Union-find: roots are the smallest key of each component."""

from __future__ import annotations

from neardup.index.groups import UnionFind, components


def test_components_roots_are_smallest_keys() -> None:
    roots = components([1, 2, 3, 4, 5, 6], [(5, 3), (6, 5), (2, 1)])
    assert roots == {1: 1, 2: 1, 3: 3, 4: 4, 5: 3, 6: 3}


def test_links_to_unknown_keys_are_ignored() -> None:
    assert components([1, 2], [(2, 9), (3, 1)]) == {1: 1, 2: 2}


def test_union_find_chain() -> None:
    uf = UnionFind()
    for k in range(100, 0, -1):
        uf.union(k, k + 1)
    assert {uf.find(k) for k in range(1, 102)} == {1}
