"""The method registry and the methods registered in it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from neardup.errors import ConfigurationError, SpecError
from neardup.eval import methods
from neardup.eval.methods import MethodContext
from neardup.fingerprints.pipeline import Pipeline, make_spec
from tests.eval.texts import EN, RU

PLAIN = make_spec("plain", k=3)


def test_registered_names() -> None:
    assert {"resemblance", "containment", "sorensen", "tfidf", "minhash"} <= set(
        methods.method_names()
    )
    assert "shingle-spans" in methods.FRAGMENT_METHODS


def test_unknown_method() -> None:
    with pytest.raises(ConfigurationError, match="unknown method 'nope'; known: .*resemblance"):
        methods.build("nope", PLAIN)
    with pytest.raises(ConfigurationError, match="parameter num_perm='x': expected int"):
        methods.build("minhash", PLAIN, {"num_perm": "x"})
    with pytest.raises(
        ConfigurationError,
        match="method 'tfidf' has no parameter ngram; it takes: binary, idf, sublinear",
    ):
        methods.build("tfidf", PLAIN, {"ngram": "2"})
    with pytest.raises(ConfigurationError, match="parameter idf='log'"):
        methods.build("tfidf", PLAIN, {"idf": "log"})


@pytest.mark.parametrize("name", ["resemblance", "containment", "sorensen"])
def test_set_measures_agree_with_pipeline_compare(name: str) -> None:
    pipeline = Pipeline(PLAIN)
    edited = EN[0].replace("spring", "autumn").replace("three years", "two long years")
    a = [EN[0], EN[0], EN[1], "", EN[2][: EN[2].index(" ", 200)]]
    b = [edited, EN[0], EN[2], EN[3], EN[2]]
    scores = methods.score_pairs(name, a, b, PLAIN)
    for x, y, got in zip(a, b, scores.tolist()):
        m = pipeline.compare(x, y)
        want = {
            "resemblance": m.resemblance,
            "sorensen": m.sorensen,
            "containment": max(m.containment_ab, m.containment_ba),
        }[name]
        assert got == pytest.approx(want)
    assert scores[1] == 1.0 and scores[3] == 0.0
    if name == "containment":
        assert scores[4] == 1.0  # a prefix is wholly contained


def test_multiset_spec_counts_repeats() -> None:
    spec = make_spec("plain", k=1, multiset=True)
    scores = methods.score_pairs("resemblance", ["a a b"], ["a b b"], spec)
    assert scores[0] == pytest.approx(2 / 4)  # Σmin / Σmax = (1 + 1) / (2 + 2)


@pytest.mark.parametrize("name", ["resemblance", "containment", "sorensen", "tfidf"])
def test_neighbours_equal_brute_force(name: str) -> None:
    texts = [
        *EN,
        EN[0] + " One more sentence at the end.",
        EN[1].replace("bank", "lender"),
        EN[2][:300],
    ]
    scorer: Any = methods.build(name, PLAIN)
    features = scorer.features(texts)
    i, j = np.triu_indices(len(texts), k=1)
    brute = scorer.score(features, i.astype(np.int64), j.astype(np.int64))
    for threshold in (0.05, 0.3, 0.8):
        ni, nj, ns = scorer.neighbours(features, threshold)
        got = {(int(a), int(b)): float(s) for a, b, s in zip(ni, nj, ns)}
        want = {(int(a), int(b)): float(s) for a, b, s in zip(i, j, brute) if s >= threshold}
        assert got.keys() == want.keys()
        for key, value in want.items():
            assert got[key] == pytest.approx(value, abs=1e-9)


def test_minhash_estimates_resemblance() -> None:
    edited = EN[0].replace("spring", "autumn").replace("three years", "two long years")
    a = [EN[0], EN[0], EN[1]]
    b = [edited, EN[0], EN[2]]
    exact = methods.score_pairs("resemblance", a, b, PLAIN)
    estimate = methods.score_pairs("minhash", a, b, PLAIN, {"num_perm": "512"})
    assert estimate[1] == 1.0 and estimate[2] < 0.05
    assert abs(estimate[0] - exact[0]) < 4 * np.sqrt(exact[0] * (1 - exact[0]) / 512) + 1e-9
    again = methods.score_pairs("minhash", a, b, PLAIN, {"num_perm": "512"})
    assert np.array_equal(estimate, again)
    affine = methods.score_pairs(
        "minhash", a, b, PLAIN, {"num_perm": "512", "minhash_family": "affine"}
    )
    assert affine[1] == 1.0 and affine[2] < 0.05
    assert abs(affine[0] - exact[0]) < 4 * np.sqrt(exact[0] * (1 - exact[0]) / 512) + 1e-9
    assert not np.array_equal(affine, estimate)  # other functions, another estimate
    with pytest.raises(SpecError, match="MinHash family"):
        methods.score_pairs("minhash", a, b, PLAIN, {"minhash_family": "md5"})


def test_tfidf_uses_canonical_terms() -> None:
    pytest.importorskip("pymorphy3")
    ru = make_spec("ru")
    one = "Крупные компании надеются на дешёвые кредиты."
    two = "Крупная компания надеялась на дешёвый кредит."
    assert methods.score_pairs("tfidf", [one], [two], ru)[0] == pytest.approx(1.0)
    assert methods.score_pairs("tfidf", [one], [two], make_spec("plain"))[0] < 0.5
    assert methods.score_pairs("tfidf", [RU[0]], [RU[3]], ru)[0] < 0.3


def test_a_new_method_is_one_function_and_one_line() -> None:
    class Lengths:
        def features(self, texts: Sequence[str], progress: Any = None) -> np.ndarray:
            return np.asarray([len(t) for t in texts], dtype=np.float64)

        def score(self, features: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return np.minimum(features[a], features[b]) / np.maximum(
                np.maximum(features[a], features[b]), 1
            )

    @methods.register("test-lengths", "ratio of the lengths (a test method)")
    def _lengths(ctx: MethodContext) -> methods.Scorer:
        return Lengths()

    try:
        assert "test-lengths" in methods.method_names()
        scores = methods.score_pairs("test-lengths", ["abcd", "ab"], ["ab", "ab"], PLAIN)
        assert scores.tolist() == [0.5, 1.0]
    finally:
        del methods.METHODS["test-lengths"]


def test_unavailable_method_says_what_is_missing() -> None:
    methods.METHODS["test-missing"] = methods.Method(
        "test-missing", "x", lambda ctx: None, requires=("no_such_module_here",)
    )
    try:
        from neardup.errors import MissingDependencyError

        with pytest.raises(MissingDependencyError, match="no_such_module_here"):
            methods.build("test-missing", PLAIN)
    finally:
        del methods.METHODS["test-missing"]


def test_shingle_span_detector_finds_a_pasted_passage() -> None:
    detector = methods.build_fragments("shingle-spans", make_spec("plain", k=3))
    source = EN[2]
    start = source.index("They fixed")
    end = source.index("rivers.") + len("rivers")
    passage = source[start : end + 1]  # the spans are of words: the final period is not in them
    host = EN[5]
    at = host.index("Residents")
    suspicious = host[:at] + passage + " " + host[at:]
    spans = detector.detect(source, suspicious)
    assert len(spans) == 1
    s_off, s_len, u_off, u_len = spans[0]
    assert (s_off, s_off + s_len) == (start, end)
    assert (u_off, u_off + u_len) == (at, at + len(passage) - 1)
    assert detector.detect(EN[0], EN[1]) == []


def test_align_detector_finds_a_pasted_passage() -> None:
    pytest.importorskip("neardup.passages.align")
    detector = methods.build_fragments("align", make_spec("plain"))
    source = EN[2]
    start = source.index("They fixed")
    end = source.index("rivers.") + len("rivers")
    host = EN[5]
    at = host.index("Residents")
    suspicious = host[:at] + source[start : end + 1] + " " + host[at:]
    spans = detector.detect(source, suspicious)
    assert len(spans) == 1
    s_off, s_len, u_off, u_len = spans[0]
    assert (s_off, s_off + s_len) == (start, end)
    assert (u_off, u_off + u_len) == (at, at + end - start)


@pytest.mark.parametrize("measure", ["resemblance", "containment"])
def test_collection_reports_the_exact_measure_for_the_pairs_it_finds(measure: str) -> None:
    from tests import _textgen as tg

    base = [tg.text(300, seed) for seed in range(4)]
    texts = [
        *base,
        tg.edit(base[0], 0.03, 11),
        tg.edit(base[1], 0.05, 12),
        base[2][: len(base[2]) // 2],
    ]
    scorer: Any = methods.build("collection", PLAIN, {"measure": measure})
    features = scorer.features(texts)
    i, j = np.triu_indices(len(texts), k=1)
    got = scorer.score(features, i.astype(np.int64), j.astype(np.int64))
    exact = methods.score_pairs(measure, [texts[x] for x in i], [texts[y] for y in j], PLAIN)
    found = got > 0
    # every pair the collection reports carries the exact value; the near-copies are all found
    assert np.allclose(got[found], exact[found])
    for a, b in ((0, 4), (1, 5), (2, 6)):
        pair = np.flatnonzero((i == a) & (j == b))[0]
        assert got[pair] == pytest.approx(exact[pair]) and got[pair] > 0.4
    ni, nj, ns = scorer.neighbours(features, 0.5)
    assert {(int(x), int(y)) for x, y in zip(ni, nj)} == {
        (int(x), int(y)) for x, y, s in zip(i, j, got) if s >= 0.5
    }
    with pytest.raises(ConfigurationError, match="resemblance or containment"):
        methods.build("collection", PLAIN, {"measure": "sorensen"}).features(texts)


def _choices(command: Any, option: str) -> list[str]:
    param = next(p for p in command.params if option in getattr(p, "opts", ()))
    return list(param.type.choices)


def test_every_method_of_compare_and_index_check_is_accepted_by_eval(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue #23: `eval pairs --method sets` was refused though compare and index offer it
    import json

    from neardup.cli.compare import compare
    from neardup.cli.index import check
    from neardup.cli.main import main

    offered = set(_choices(compare, "--method")) | set(_choices(check, "--method"))
    assert offered >= {"combined", "sets"}
    assert offered <= set(methods.method_names())
    a, copy, other = EN[0], EN[0][: len(EN[0]) // 2], EN[3]
    path = tmp_path / "pairs.jsonl"
    rows = [{"a": a, "b": copy, "label": 1}, {"a": a, "b": other, "label": 0}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    scores = tmp_path / "scores.jsonl"
    for method in sorted(offered):
        code = main(["eval", "pairs", str(path), "--method", method, "--json"])
        assert code == 0, method
        assert json.loads(capsys.readouterr().out)["method"] == method
    args = ["eval", "pairs", str(path), "-m", "sets", "--json", "--scores-out", str(scores)]
    assert main(args) == 0
    capsys.readouterr()
    written = [json.loads(line)["score"] for line in scores.read_text().splitlines()]
    # sets ranks by the strongest set measure: the larger containment, as index check does
    from neardup.fingerprints.pipeline import default_spec

    expected = methods.score_pairs("containment", [a, a], [copy, other], default_spec())
    assert written == [round(float(v), 6) for v in expected]
    assert written[0] == 1.0 > written[1]
