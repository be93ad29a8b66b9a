"""The classic MinHash family ``(a·x + b) mod (2^61 - 1)``: golden values, the kernel against
plain-integer arithmetic, the estimator's accuracy, and the default left unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from neardup import make_spec
from neardup.errors import SpecError
from neardup.fingerprints.hashing import splitmix64
from neardup.fingerprints.similarity import Fingerprints
from neardup.sketch import MinHasher, reference_signature
from neardup.sketch.minhash import affine_coefficients, affine_reference
from neardup.spec import SketchSpec, Spec
from tests.sketch.test_minhash import T1, T2, _pairs

P = 2**61 - 1
GAMMA = 0x9E3779B97F4A7C15
POSITIONS = (0, 1, 64, 127)

# (fingerprint family, sketch seed, value bits) → literal values at POSITIONS of T1 and T2
GOLDEN = [
    (
        "rabin",
        0,
        64,
        [364309840869606977, 354291795036426916, 62975330769486828, 81459092171685716],
        [21754316147243566, 47564803386706301, 92324195263444109, 58531308340380780],
    ),
    (
        "xxh3",
        42,
        64,
        [354788538534624668, 117110920410211565, 750874023490278296, 181058236164154149],
        [98624954192662240, 32009193282446791, 118296739742392846, 50071372955113740],
    ),
    (
        "rabin",
        7,
        32,
        [144443225, 527794118, 34271741, 591132996],
        [280515923, 295378421, 49037883, 273537666],
    ),
]


def affine_hasher(
    family: str = "rabin", seed: int = 0, bits: int = 64, num_perm: int = 128
) -> MinHasher:
    sketch = SketchSpec(num_perm=num_perm, seed=seed, value_bits=bits, family="affine")
    return MinHasher(make_spec("plain", k=3, family=family).replace(sketch=sketch))


@pytest.mark.parametrize(("family", "seed", "bits", "first", "second"), GOLDEN)
def test_golden_signatures(
    family: str, seed: int, bits: int, first: list[int], second: list[int]
) -> None:
    sigs = affine_hasher(family, seed, bits).sign_texts([T1, T2])
    assert sigs.dtype == (np.uint64 if bits == 64 else np.uint32)
    assert [int(sigs[0, i]) for i in POSITIONS] == first
    assert [int(sigs[1, i]) for i in POSITIONS] == second


def test_coefficients_come_from_the_seeded_generator() -> None:
    mult, add = affine_coefficients(5, 3)
    stream = [splitmix64((5 + j * GAMMA) % 2**64) for j in range(6)]
    assert mult.tolist() == [1 + stream[2 * i] % (P - 1) for i in range(3)]
    assert add.tolist() == [stream[2 * i + 1] % P for i in range(3)]
    assert all(1 <= a < P for a in mult.tolist()) and all(0 <= b < P for b in add.tolist())
    longer_mult, longer_add = affine_coefficients(5, 40)
    assert longer_mult[:3].tolist() == mult.tolist() and longer_add[:3].tolist() == add.tolist()


def test_kernel_equals_exact_integer_arithmetic() -> None:
    """Edge values of the modular reduction (0, p - 1, p, 2^61, 2^64 - 1) and random ones."""
    rng = np.random.default_rng(61)
    edges = [0, 1, P - 1, P, P + 1, 2**61, 2**62, 2**63, 2**64 - 2, 2**64 - 1]
    values = edges + rng.integers(0, 2**64, 300, dtype=np.uint64).tolist()
    h = MinHasher(SketchSpec(num_perm=64, seed=3, family="affine"))
    one_each = h.sign_hashes([np.array([v], dtype=np.uint64) for v in values])
    mult, add = affine_coefficients(3, 64)
    expected = [
        [(a * (v % P) + b) % P for a, b in zip(mult.tolist(), add.tolist(), strict=True)]
        for v in values
    ]
    assert one_each.tolist() == expected
    assert affine_reference(2**64 - 1, 3, 4) == (3 * ((2**64 - 1) % P) + 4) % P
    whole = h.sign(Fingerprints(np.array(sorted(set(values)), dtype=np.uint64)))
    assert whole.tolist() == reference_signature(values, 64, 3, family="affine")
    assert whole.tolist() == np.array(expected).min(axis=0).tolist()


def test_batched_and_per_document_paths_agree() -> None:
    h = affine_hasher()
    assert h.signs_in_batches
    texts = [T1, T2, "", "одно слово", "<p>html goes the general way</p>"]
    batched = h.sign_texts(texts)
    each = np.array([h.sign(h.pipeline.fingerprints(t)) for t in texts])
    assert batched.tolist() == each.tolist()
    assert batched[2].tolist() == [2**64 - 1] * 128  # the empty set


def test_32_bits_keep_the_top_of_the_61() -> None:
    h64 = affine_hasher(num_perm=32)
    h32 = affine_hasher(bits=32, num_perm=32)
    fps = h64.pipeline.fingerprints(T1)
    assert h32.sign(fps).tolist() == (h64.sign(fps) >> np.uint64(29)).tolist()
    assert h32.sign(fps).tolist() == reference_signature(
        fps.values.tolist(), 32, value_bits=32, family="affine"
    )


def test_estimate_matches_exact_jaccard_within_the_statistical_bound() -> None:
    """Fixed seed: the error's RMS within 15% of sqrt(s(1-s)/N), no bias beyond 4 standard
    errors of the mean, every single estimate within 5 standard deviations."""
    rng = np.random.default_rng(20261123)
    a_list, b_list, truth = _pairs(rng, 400, 240)
    for n in (64, 256):
        h = MinHasher(SketchSpec(num_perm=n, seed=n, family="affine"))
        est = h.estimate_many(h.sign_many(a_list), h.sign_many(b_list))
        err = est - truth
        theory = float(np.sqrt(np.mean(truth * (1 - truth)) / n))
        rms = float(np.sqrt(np.mean(err**2)))
        assert 0.85 * theory < rms < 1.15 * theory, (n, rms, theory)
        assert abs(float(np.mean(err))) < 4 * rms / np.sqrt(len(err))
        sd = np.sqrt(truth * (1 - truth) / n)
        assert np.all(np.abs(err) <= 5 * sd + 1e-12)


def test_multisets_under_the_affine_family() -> None:
    h = MinHasher(SketchSpec(num_perm=512, seed=9, family="affine"))
    values = np.arange(1, 201, dtype=np.uint64)
    a = Fingerprints(values, np.full(200, 2, dtype=np.int64))
    b = Fingerprints(values, np.ones(200, dtype=np.int64))
    # Σ min / Σ max = 200 / 400
    assert h.estimate(h.sign(a), h.sign(b)) == pytest.approx(0.5, abs=5 * np.sqrt(0.25 / 512))
    assert h.sign(a).tolist() != h.sign(b).tolist()


def test_the_default_is_unchanged_and_the_family_is_in_the_fingerprint() -> None:
    assert SketchSpec().family == "splitmix"
    assert "family" not in SketchSpec().to_dict()
    assert SketchSpec(family="splitmix").to_dict() == SketchSpec().to_dict()
    affine = SketchSpec(family="affine")
    assert affine.to_dict()["family"] == "affine"
    assert SketchSpec.from_dict(affine.to_dict()) == affine
    spec = make_spec("plain", k=3)
    with_default = spec.replace(sketch=SketchSpec())
    with_affine = spec.replace(sketch=affine)
    assert with_default.fingerprint() != with_affine.fingerprint()
    assert Spec.from_json(with_affine.to_json()).sketch == affine
    plain = affine_hasher(num_perm=16).sign_texts([T1])
    default = MinHasher(spec.replace(sketch=SketchSpec(num_perm=16))).sign_texts([T1])
    assert plain.tolist() != default.tolist()


def test_family_checks() -> None:
    with pytest.raises(SpecError, match="MinHash family"):
        SketchSpec(family="md5")
    with pytest.raises(SpecError, match="for method 'minhash', not bottom_k"):
        SketchSpec(method="bottom_k", family="affine")
