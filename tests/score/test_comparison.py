"""``neardup.compare``: the measures of two texts under a preset or a spec, fragments on request."""

from __future__ import annotations

import pytest

from neardup import Comparison, ConfigurationError, InputError, SpecError, compare, make_spec
from neardup.fingerprints.pipeline import Pipeline, default_spec

A = "Мэр города открыл новый мост через реку. Движение по мосту начнётся в понедельник утром."
B = A + " Строительство заняло два года и обошлось дешевле, чем планировали."


def test_compare_agrees_with_the_pipeline() -> None:
    got = compare(A, B, preset="plain")
    want = Pipeline(default_spec("plain")).compare(A, B)
    assert isinstance(got, Comparison)
    assert (got.resemblance, got.containment_ab, got.containment_ba, got.sorensen) == (
        want.resemblance,
        want.containment_ab,
        want.containment_ba,
        want.sorensen,
    )
    # 14 and 23 words: below 64, so the defaults compare word 1-grams
    assert (got.shingles_a, got.shingles_b, got.shared) == (14, 23, 14)
    assert got.containment_ab == 1.0 and got.resemblance == pytest.approx(14 / 23)
    fixed = compare(A, B, spec=make_spec("plain"))  # word 5-shingles whatever the length
    assert (fixed.shingles_a, fixed.shingles_b, fixed.shared) == (10, 19, 10)
    assert got.fragments == ()


def test_a_spec_replaces_the_preset_and_bytes_are_decoded() -> None:
    spec = make_spec("plain", k=2)
    assert compare(A.encode("cp1251"), B, spec=spec) == compare(A, B, spec=spec)
    assert compare(A, B, spec=spec).shingles_a == 13


def test_fragments_on_request() -> None:
    result = compare(A, B, preset="ru", fragments=True)
    assert len(result.fragments) == 1
    passage = result.fragments[0]
    assert A[passage.a_start : passage.a_end] == B[passage.b_start : passage.b_end]
    assert result.to_dict()["fragments"][0]["similarity"] == 1.0


def test_bad_options_are_named() -> None:
    with pytest.raises(ConfigurationError, match="preset must be one of"):
        compare(A, B, preset="klingon")
    with pytest.raises(ConfigurationError, match="fragments must be true or false, got 1"):
        compare(A, B, fragments=1)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="spec must be a Spec, got str"):
        compare(A, B, spec="plain")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="method must be one of"):
        compare(A, B, method="magic")


@pytest.mark.parametrize("bad", [5, 1.5, None, bytearray(b"x"), memoryview(b"x"), ["x"]])
def test_a_text_that_is_not_str_or_bytes_is_an_input_error(bad: object) -> None:
    with pytest.raises(InputError, match=f"a text must be str or bytes, got {type(bad).__name__}"):
        compare(A, bad)  # type: ignore[arg-type]


def test_the_library_gives_the_clis_default_answer() -> None:
    """The defaults of neardup.defaults: the combined score first, as the CLI prints it."""
    result = compare(A, B)
    assert result.combined is not None and 0.0 <= result.combined <= 1.0
    assert compare(A, B, method="sets").combined is None
    assert result.to_dict()["combined"] == result.combined
