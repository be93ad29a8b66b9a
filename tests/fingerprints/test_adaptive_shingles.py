"""The length-adaptive rule of the defaults: recorded in the spec, applied per pair, alike in
every entry point."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup import compare
from neardup.cli.main import main
from neardup.errors import SpecError
from neardup.eval import methods
from neardup.fingerprints.pipeline import Pipeline, default_spec, make_spec
from neardup.score.matrix import similarity_matrix
from neardup.spec import DEFAULT_SHORT_BELOW, ShingleSpec, Spec

SHORT_A = "Мама мыла раму утром, а папа читал газету."
SHORT_B = "Утром мама мыла окно, пока папа читал газету."
LONG = " ".join(f"{c}{v}{e}lin" for c in "bdfgk" for v in "aeiou" for e in "mnrst")
LONG_B = " ".join(LONG.split()[::-1])  # the same words, reversed: k=1 says 1.0, k=5 says 0.0
LONG_RU = " ".join(f"{c}{v}{e}лин" for c in "бдвгк" for v in "аеиоу" for e in "мнрст")
TEXTS = [SHORT_A, SHORT_B, LONG, LONG_B, SHORT_A + " " + LONG_RU]


def test_the_default_spec() -> None:
    spec = default_spec()
    assert spec.analyzer.preset == "auto"
    assert DEFAULT_SHORT_BELOW == 32
    assert spec.shingles.to_dict() == {
        "unit": "word",
        "k": 5,
        "step": 1,
        "short_below": 32,
        "short_unit": "word",
        "short_k": 1,
    }
    assert spec.fixed(short=True).shingles == ShingleSpec(unit="word", k=1)
    assert spec.fixed().shingles == ShingleSpec()
    assert Spec.from_json(spec.to_json()).fingerprint() == spec.fingerprint()


def test_specs_without_the_rule_are_unchanged() -> None:
    assert ShingleSpec().to_dict() == {"unit": "word", "k": 5, "step": 1}
    # the spec before the fold filter (issue 24) and the spec with it
    assert make_spec("plain", k=3, html="never", fold_tricks=False).fingerprint() == (
        "5d106f85b595378b"
    )
    assert make_spec("plain", k=3, html="never").fingerprint() == "98985e9a94cc605b"
    old = {"unit": "word", "k": 5, "step": 1}
    assert ShingleSpec.from_dict(old) == ShingleSpec()
    assert default_spec().fingerprint() != make_spec("auto").fingerprint()
    with pytest.raises(SpecError):
        ShingleSpec(short_below=-1)


def test_the_rule_is_by_the_shorter_text() -> None:
    rule = ShingleSpec(short_below=64)
    assert rule.short_pairs(63, 1000) is True
    assert rule.short_pairs(1000, 63) is True
    assert rule.short_pairs(64, 64) is False
    assert ShingleSpec().short_pairs(1, 1) is False
    grid = rule.short_pairs(np.array([[10], [100]]), np.array([[50, 70]]))
    assert grid.tolist() == [[True, True], [True, False]]


def test_compare_takes_word_1_grams_below_32_tokens() -> None:
    pipeline = Pipeline(default_spec())
    assert len(pipeline.canonical(LONG)) == 125
    short = pipeline.compare(SHORT_A, SHORT_B)
    assert short == Pipeline(make_spec("auto", k=1)).compare(SHORT_A, SHORT_B)
    assert short.resemblance == pytest.approx(6 / 8)  # утро мама мыть папа читать газета
    long = pipeline.compare(LONG, LONG_B)
    assert long == Pipeline(make_spec("auto")).compare(LONG, LONG_B)
    assert long.resemblance == 0.0
    # a short text against a long one: one kind of shingle on both sides (word 1-grams)
    assert len(pipeline.canonical(SHORT_A + " " + LONG_RU)) > 32
    mixed = pipeline.compare(SHORT_A, SHORT_B + " " + LONG_RU)
    assert mixed.containment_ab == pytest.approx(6 / 7)  # рама is not in the long text
    fixed = Pipeline(make_spec("auto")).compare(SHORT_A, SHORT_B + " " + LONG_RU)
    assert fixed.containment_ab < 0.5


def test_every_entry_point_applies_the_rule_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = default_spec()
    for method in ("resemblance", "containment"):
        matrix = similarity_matrix(TEXTS, method=method).matrix
        scorer = methods.build(method, spec)
        table = scorer.features(TEXTS)
        n = len(TEXTS)
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        evaluated = scorer.score(table, i.ravel(), j.ravel()).reshape(n, n)
        for a in range(n):
            for b in range(n):
                if a == b:
                    continue
                c = compare(TEXTS[a], TEXTS[b])
                expected = (
                    c.resemblance
                    if method == "resemblance"
                    else max(c.containment_ab, c.containment_ba)
                )
                assert evaluated[a, b] == pytest.approx(expected, abs=1e-12)
                if method == "resemblance":
                    assert matrix[a, b] == pytest.approx(expected, abs=1e-12)
                else:  # the matrix's containment is row-in-column
                    assert matrix[a, b] == pytest.approx(c.containment_ab, abs=1e-12)
        found_i, found_j, _ = scorer.neighbours(table, 0.5)
        pairs = set(zip(found_i.tolist(), found_j.tolist(), strict=True))
        expected_pairs = {
            (x, y) for x in range(n) for y in range(x + 1, n) if evaluated[x, y] >= 0.5
        }
        assert pairs == expected_pairs
        assert (0, 1) in pairs and (2, 3) not in pairs
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text(SHORT_A, encoding="utf-8")
    b.write_text(SHORT_B, encoding="utf-8")
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["resemblance"] == pytest.approx(6 / 8)
    assert main(["compare", str(a), str(b), "--json", "--short-below", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["resemblance"] == 0.0
