"""Groups are the connected components of the verified edges, each labelled by its smallest
document, as SciPy's ``connected_components`` finds them."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.corpus.groups import components


def _scipy_minima(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(a.shape[0], dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=False)
    first = np.full(int(labels.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n, dtype=np.int64))
    return first[labels]


@pytest.mark.parametrize("seed", range(12))
def test_union_find_gives_scipys_components(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    m = int(rng.integers(0, 2 * n))
    a = rng.integers(0, n, m).astype(np.int64)
    b = rng.integers(0, n, m).astype(np.int64)
    assert np.array_equal(components(n, a, b), _scipy_minima(n, a, b))


def test_chains_and_no_edges() -> None:
    chain = np.arange(9, dtype=np.int64)
    assert components(10, chain[::-1].copy(), chain[::-1] + 1).tolist() == [0] * 10
    assert components(4, np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == [0, 1, 2, 3]
    assert components(0, np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []
