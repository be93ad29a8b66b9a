"""TF-IDF cosine over canonical terms (seed 003)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="TF-IDF needs scikit-learn: pip install 'neardup[tfidf]'")

from neardup.errors import ConfigurationError, InputError
from neardup.fingerprints.pipeline import make_spec
from neardup.score.tfidf import (
    CanonicalTerms,
    DocumentFrequencies,
    TfidfModel,
    cosine_matrix,
    idf_weights,
    reference_similarities,
    rerank,
    similarity,
)
from tests._aligntext import ESSAY, OTHER

PLAIN = make_spec("plain")


def test_canonical_terms_are_the_analyzers_and_pickle() -> None:
    terms = CanonicalTerms()("Старые дубы растут в тёмном лесу у реки.")
    assert terms == ["старый", "дуб", "расти", "темный", "лес", "река"]  # lemmas, "в", "у" dropped
    assert CanonicalTerms()(["уже", "термины"]) == ["уже", "термины"]
    clone = pickle.loads(pickle.dumps(CanonicalTerms(PLAIN)))
    assert clone("Лес Утром") == ["лес", "утром"]
    with pytest.raises(InputError):
        CanonicalTerms()(42)  # type: ignore[arg-type]


def test_identical_disjoint_and_symmetric() -> None:
    docs = [["a", "b", "c"], ["a", "b", "c"], ["x", "y"], ["a", "x"]]
    m = cosine_matrix(docs)
    assert m[0, 1] == pytest.approx(1.0)
    assert m[0, 2] == 0.0
    assert np.allclose(m, m.T)
    assert np.all(np.diag(m) == 1.0)
    assert 0.0 < m[0, 3] < 1.0


def test_hand_computed_cosine_with_smooth_idf() -> None:
    # N = 2; "a" in both: idf = ln(3/3) + 1 = 1; "b", "c" in one: idf = ln(3/2) + 1
    w = math.log(1.5) + 1.0
    expected = 1.0 / (1.0 + w * w)  # (1·1) / (|(1, w)| · |(1, w)|)
    assert similarity(["a", "b"], ["a", "c"]) == pytest.approx(expected)
    assert similarity(["a", "b"], ["a", "c"], idf="plain") == pytest.approx(
        1.0 / (1.0 + (math.log(2.0) + 1.0) ** 2)
    )


def test_paper_idf_gives_no_weight_to_terms_in_every_document() -> None:
    docs = [["common", "x"], ["common", "y"], ["common", "z", "x"]]
    m = cosine_matrix(docs, idf="paper")
    assert m[0, 1] == 0.0  # they share only "common", which weighs ln(3/3) = 0
    assert m[0, 2] > 0.0
    model = TfidfModel(idf="paper").fit(docs)
    assert model.weights(["common"]) == {}
    assert model.idf_[model.vocabulary["common"]] == 0.0


def test_binary_counts_each_term_once() -> None:
    repeated = ["a", "a", "a", "b"]
    once = ["a", "b"]
    other = ["a", "c"]
    assert cosine_matrix([repeated, once, other], binary=True)[0, 1] == pytest.approx(1.0)
    assert cosine_matrix([repeated, once, other], binary=False)[0, 1] < 1.0


def test_texts_are_analyzed_with_lemmas() -> None:
    a = "Старые дубы растут в тёмном лесу у реки."
    b = "Старый дуб растёт в тёмных лесах у рек."
    assert similarity(a, b) == pytest.approx(1.0)  # the same lemmas, repeats aside
    assert similarity(a, b, spec=PLAIN) < 0.5
    assert similarity(ESSAY, OTHER) < 0.1


def test_reference_against_a_set() -> None:
    scores = reference_similarities(ESSAY, [ESSAY, OTHER, ESSAY[:200]])
    assert scores.shape == (3,)
    assert scores[0] == pytest.approx(1.0)
    assert scores[1] < scores[2] < scores[0]


def test_empty_documents() -> None:
    m = cosine_matrix(["", ESSAY, "…!?"])  # no words at all
    assert m[0, 0] == 0.0 and m[0, 1] == 0.0 and m[2, 2] == 0.0 and m[1, 1] == 1.0
    # stop words only: they are kept (a text with words never has no terms)
    m = cosine_matrix(["и в на", ESSAY])
    assert m[0, 0] == 1.0 and m[0, 1] == 0.0
    assert np.all(cosine_matrix(["", ""]) == 0.0)


def test_model_must_be_fitted_and_idf_mode_checked() -> None:
    with pytest.raises(ConfigurationError):
        TfidfModel().transform(["текст"])
    with pytest.raises(ConfigurationError):
        TfidfModel(idf="bogus")  # type: ignore[arg-type]
    model = TfidfModel(spec=PLAIN).fit(["лес поле река", "лес город"])
    assert set(model.vocabulary) == {"лес", "поле", "река", "город"}
    assert model.transform(["неизвестные слова"]).nnz == 0


def test_rerank_uses_the_callers_document_frequencies() -> None:
    query = ["rare", "common"]
    candidates = {"has-rare": ["rare", "x"], "has-common": ["common", "y"], "nothing": ["z"]}
    # in a big collection "common" is everywhere and "rare" is rare: the rare match wins
    ranked = rerank(
        query, candidates, df={"common": 990, "rare": 2, "x": 5, "y": 5, "z": 5}, n_docs=1000
    )
    assert [i for i, _ in ranked] == ["has-rare", "has-common", "nothing"]
    assert ranked[-1][1] == 0.0
    # with the frequencies the other way round, so is the order
    flipped = rerank(
        query, candidates, df={"common": 2, "rare": 990, "x": 5, "y": 5, "z": 5}, n_docs=1000
    )
    assert [i for i, _ in flipped][:2] == ["has-common", "has-rare"]
    assert rerank(query, {}, df={}, n_docs=0) == []
    assert rerank(ESSAY, [("same", ESSAY)], df={}, n_docs=10)[0][1] == pytest.approx(1.0)


def test_idf_weights_formulas() -> None:
    df = {"a": 9, "b": 1}
    assert idf_weights(df, 9, ["a", "b", "new"], "smooth") == pytest.approx(
        [math.log(10 / 10) + 1, math.log(10 / 2) + 1, math.log(10 / 1) + 1]
    )
    assert idf_weights(df, 9, ["a", "b", "new"], "paper") == pytest.approx(
        [0.0, math.log(9), math.log(9)]
    )
    assert idf_weights({"a": 20}, 9, ["a"], "paper")[0] == 0.0  # stale counts never go negative


def test_document_frequencies_track_a_changing_collection() -> None:
    dfs = DocumentFrequencies()
    dfs.add(["лес", "лес", "река"])
    dfs.add(["лес", "город"])
    assert dfs.n_docs == 2 and dfs.df["лес"] == 2 and dfs.df["река"] == 1
    dfs.remove(["река", "лес"])
    assert dfs.n_docs == 1 and "река" not in dfs.df and dfs.df["лес"] == 1
    clone = DocumentFrequencies.from_dict(dfs.to_dict())
    assert clone.to_dict() == dfs.to_dict() == {"n_docs": 1, "df": {"город": 1, "лес": 1}}
    assert dfs.idf("лес") == pytest.approx(1.0)
    with pytest.raises(InputError):
        dfs.remove(["нет-такого"])
    with pytest.raises(InputError):
        DocumentFrequencies.from_dict({"df": {}})
