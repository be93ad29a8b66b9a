"""The similarity matrix: every text against every other, and seed 003's Table 1."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup.errors import ConfigurationError, InputError
from neardup.fingerprints.pipeline import Pipeline, make_spec
from neardup.score.matrix import similarity_matrix
from neardup.sketch import MinHasher
from neardup.spec import SketchSpec
from tests._aligntext import ESSAY, OTHER, text

PLAIN2 = make_spec("plain", k=2)
# words of two letters: a run of five one-letter words reads as letter spacing (issue 24)
TEXTS = ["aa bb cc dd ee", "aa bb cc xx yy zz", "pp qq rr", ""]
SEED003 = Path(__file__).resolve().parents[3] / "shared" / "data" / "seed003_news.jsonl"


def test_containment_is_row_in_column_and_asymmetric() -> None:
    r = similarity_matrix(TEXTS, method="containment", spec=PLAIN2)
    # A = {ab, bc, cd, de}, B = {ab, bc, cx, xy, yz}: shared 2
    assert r.matrix[0, 1] == pytest.approx(2 / 4)
    assert r.matrix[1, 0] == pytest.approx(2 / 5)
    assert r.matrix[0, 2] == 0.0
    assert not r.symmetric and r.ids == ("0", "1", "2", "3")


def test_symmetric_set_measures() -> None:
    res = similarity_matrix(TEXTS, method="resemblance", spec=PLAIN2).matrix
    sor = similarity_matrix(TEXTS, method="sorensen", spec=PLAIN2).matrix
    assert res[0, 1] == res[1, 0] == pytest.approx(2 / 7)
    assert sor[0, 1] == sor[1, 0] == pytest.approx(4 / 9)
    assert np.allclose(res, res.T) and np.allclose(sor, sor.T)


def test_the_matrix_agrees_with_pairwise_compare() -> None:
    texts = [text(120, seed=s) for s in range(4)]
    texts.append(" ".join(texts[0].split()[:80] + texts[1].split()[:30]))
    spec = make_spec("plain", k=3)
    r = similarity_matrix(texts, method="containment", spec=spec)
    pipeline = Pipeline(spec)
    for i in range(len(texts)):
        for j in range(len(texts)):
            if i != j:
                assert r.matrix[i, j] == pytest.approx(
                    pipeline.compare(texts[i], texts[j]).containment_ab
                )


def test_empty_text_scores_zero_even_against_itself() -> None:
    for method in ("containment", "resemblance", "minhash", "tfidf"):
        m = similarity_matrix(TEXTS, method=method, spec=PLAIN2).matrix
        assert np.all(m[3] == 0.0) and np.all(m[:, 3] == 0.0), method
        assert np.all(np.diag(m)[:3] == 1.0), method


def test_multiset_spec_counts_repeats() -> None:
    spec = make_spec("plain", k=1, multiset=True)
    m = similarity_matrix(["a a a b", "a b"], method="containment", spec=spec).matrix
    assert m[0, 1] == pytest.approx(2 / 4)  # Σmin = min(3,1) + min(1,1)
    assert m[1, 0] == pytest.approx(1.0)


def test_minhash_estimates_the_resemblance() -> None:
    texts = [text(300, seed=1), text(300, seed=2)]
    texts.append(" ".join(texts[0].split()[:200] + texts[1].split()[:100]))
    spec = make_spec("plain", k=3)
    exact = similarity_matrix(texts, method="resemblance", spec=spec).matrix
    est = similarity_matrix(texts, method="minhash", spec=spec, num_perm=512)
    assert np.allclose(est.matrix, est.matrix.T)
    assert np.abs(est.matrix - exact).max() < 0.1
    assert est.params["num_perm"] == 512
    # the MinHash family of the spec's sketch is kept when num_perm is given
    affine = spec.replace(sketch=SketchSpec(family="affine"))
    est_affine = similarity_matrix(texts, method="minhash", spec=affine, num_perm=512)
    hasher = MinHasher(spec.replace(sketch=SketchSpec(num_perm=512, family="affine")))
    sigs = hasher.sign_texts(texts)
    assert est_affine.matrix[0, 2] == hasher.estimate(sigs[0], sigs[2])
    assert np.abs(est_affine.matrix - exact).max() < 0.1


def test_tfidf_matrix_is_symmetric() -> None:
    r = similarity_matrix([ESSAY, OTHER, ESSAY[:300]], method="tfidf", idf="paper", binary=True)
    assert r.symmetric and np.allclose(r.matrix, r.matrix.T)
    assert r.matrix[0, 2] > r.matrix[0, 1]
    assert r.params["idf"] == "paper"


def test_outputs_and_errors() -> None:
    r = similarity_matrix(TEXTS[:2], ids=["x", "y"], method="containment", spec=PLAIN2)
    data = r.to_dict()
    assert data["ids"] == ["x", "y"] and data["matrix"] == [[1.0, 0.5], [0.4, 1.0]]
    assert json.loads(json.dumps(data)) == data
    assert r.to_csv().splitlines() == ["id,x,y", "x,1.000000,0.500000", "y,0.400000,1.000000"]
    with pytest.raises(ConfigurationError):
        similarity_matrix(TEXTS, method="cosine")
    with pytest.raises(InputError):
        similarity_matrix(TEXTS, ids=["only-one"])


def test_heat_map(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="plots need matplotlib: pip install 'neardup[plot]'")
    from neardup.score.matrix import plot_heatmap

    path = tmp_path / "m.png"
    plot_heatmap(similarity_matrix(TEXTS, spec=PLAIN2), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_seed003_table1_structure() -> None:
    if not SEED003.exists():
        pytest.skip(f"no seed 003 texts at {SEED003} (../shared/data is not there)")
    docs = [
        json.loads(line)
        for line in SEED003.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    texts = [d["text"] for d in docs]
    c = similarity_matrix(texts, method="containment", spec=make_spec("ru", k=4)).matrix
    # texts 1 and 2 similar, asymmetric: nearly all of 2 is in 1 (paper 0.9153), about half of
    # 1 in 2 (paper 0.5667); 3 and 4 share no shingle with anything
    assert abs(c[1, 0] - 0.9153) < 0.05 and abs(c[0, 1] - 0.5667) < 0.05
    assert c[1, 0] > c[0, 1]
    off = c.copy()
    off[0, 1] = off[1, 0] = 0.0
    np.fill_diagonal(off, 0.0)
    assert np.all(off == 0.0)
    t = similarity_matrix(texts, method="tfidf").matrix
    assert np.allclose(t, t.T)
    assert t[0, 1] > 0.5
    others = [t[i, j] for i in range(4) for j in range(4) if i != j and {i, j} != {0, 1}]
    assert max(others) < t[0, 1] / 3
    paper = similarity_matrix(texts, method="tfidf", idf="paper", binary=True).matrix
    assert (
        abs(paper[0, 1] - 0.69504) < 0.1
        and max(paper[i, j] for i in range(4) for j in range(4) if i != j and {i, j} != {0, 1})
        < 0.06
    )
