"""The combined score: coefficients loaded as shipped, features exact, every entry point alike."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from neardup import _combined_coefficients as shipped
from neardup import compare
from neardup.cli.main import main
from neardup.combined import (
    FEATURES,
    IDF_ONE_SIDE,
    MODEL,
    CombinedFeatures,
    CombinedModel,
    combined_score,
    pair_features,
)
from neardup.eval import methods
from neardup.matrix import similarity_matrix
from neardup.pipeline import default_spec, make_spec

SHORT_A = "Мама мыла раму утром, а папа читал газету."
SHORT_B = "Утром мама мыла раму, пока папа читал газету."
LONG = " ".join(f"{c}{v}{e}lin" for c in "bdfgk" for v in "aeiou" for e in "mnrst")
LONG_EDITED = LONG.replace("bamlin", "zorlin").replace("kusrlin", "kusrlin kusrlin")
TEXTS = [SHORT_A, SHORT_B, LONG, LONG_EDITED, "The cat sat on the mat."]


def test_the_shipped_coefficients_are_the_model() -> None:
    assert MODEL.features == FEATURES == tuple(shipped.FEATURES)
    assert MODEL.weights == tuple(shipped.WEIGHTS)
    assert MODEL.intercept == shipped.INTERCEPT
    assert len(MODEL.weights) == 9
    assert "fit_combined.py" in MODEL.trained_on
    assert shipped.VERSION == 2  # refit on the harder sets of issue #16
    assert MODEL.version == 3 and MODEL.floor_below == 16  # with the floor of the dev sets
    assert MODEL.to_dict()["version"] == 3


def test_the_model_is_a_logistic_of_its_coefficients() -> None:
    row = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]])
    z = shipped.INTERCEPT + sum(w * x for w, x in zip(shipped.WEIGHTS, row[0], strict=True))
    assert MODEL.apply(row)[0] == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-12)
    custom = CombinedModel(FEATURES, (1.0,) + (0.0,) * 8, -0.5, "test")
    assert custom.apply(np.array([[0.5] + [9.0] * 8]))[0] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        CombinedModel(FEATURES, (1.0,), 0.0, "too few")


def test_features_of_identical_and_disjoint_texts() -> None:
    table = CombinedFeatures(default_spec()).table([LONG, LONG, "The cat sat on the mat."])
    n = int(table.tokens[0])
    assert n == 125
    same = pair_features(table, [0], [1])[0]
    assert same.tolist() == [1.0] * 8 + [16 / (16 + n)]
    disjoint = pair_features(table, [0], [2])[0]
    assert disjoint[:7].tolist() == [0.0] * 7
    assert disjoint[7] == table.tokens[2] / n


def test_the_pair_tfidf_cosine_by_hand() -> None:
    # a: x x y; b: x z — after the en chain these stay three distinct stems
    table = CombinedFeatures(make_spec("plain")).table(["xa xa yb", "xa zc"])
    f = pair_features(table, [0], [1])[0]
    w = IDF_ONE_SIDE
    dot = 2 * 1
    norm_a = math.sqrt(2**2 + (1 * w) ** 2)
    norm_b = math.sqrt(1**2 + (1 * w) ** 2)
    assert f[6] == pytest.approx(dot / (norm_a * norm_b), abs=1e-12)
    assert f[2] == pytest.approx(1 / 3)  # word 1-gram resemblance: {xa} of {xa, yb, zc}
    assert f[3] == pytest.approx(1 / 2)  # containment: {xa} of the smaller {xa, zc}


def test_every_entry_point_gives_the_same_combined_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = default_spec()
    matrix = similarity_matrix(TEXTS, method="combined").matrix
    scorer = methods.build("combined", spec)
    features = scorer.features(TEXTS)
    files = []
    for i, text in enumerate(TEXTS):
        path = tmp_path / f"{i}.txt"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    for i in range(len(TEXTS)):
        for j in range(len(TEXTS)):
            if i == j:
                continue
            library = compare(TEXTS[i], TEXTS[j]).combined
            assert library == combined_score(TEXTS[i], TEXTS[j], spec)
            assert matrix[i, j] == pytest.approx(library, abs=1e-12)
            evaluated = scorer.score(features, np.array([i]), np.array([j]))[0]
            assert evaluated == pytest.approx(library, abs=1e-12)
    capsys.readouterr()
    assert main(["compare", files[0], files[1], "--method", "combined", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["combined"] == pytest.approx(compare(SHORT_A, SHORT_B).combined)


def test_the_combined_score_ranks_a_rewrite_above_a_stranger() -> None:
    rewrite = compare(SHORT_A, SHORT_B).combined
    stranger = compare(SHORT_A, TEXTS[4]).combined
    assert rewrite is not None and stranger is not None
    assert rewrite > 0.5 > stranger
    assert compare(SHORT_A, SHORT_B, method="sets").combined is None
    assert "combined" not in compare(SHORT_A, SHORT_B, method="sets").to_dict()


def test_the_collection_scores_its_matches_alike() -> None:
    from neardup.errors import ConfigurationError
    from neardup.index import Collection, IndexSpec

    with Collection.create("memory:", default_spec(), IndexSpec(policy="allow")) as col:
        assert col.spec == default_spec()  # the length-adaptive rule is kept (index.short)
        col.add("long", LONG)
        col.add("edited", LONG_EDITED)
        result = col.check(LONG, combined=True)
        by_id = {m.id: m.combined for m in result.matches}
        assert by_id["long"] == pytest.approx(combined_score(LONG, LONG, default_spec()))
        assert by_id["long"] > 0.999
        assert by_id["edited"] == pytest.approx(combined_score(LONG, LONG_EDITED, default_spec()))
        assert "combined" in result.to_dict()["matches"][0]
        assert col.check(LONG).matches[0].combined is None
    spec = default_spec()
    with Collection.create("memory:", spec, IndexSpec(store_text=False)) as bare:
        with pytest.raises(ConfigurationError):
            bare.check(LONG, combined=True)
