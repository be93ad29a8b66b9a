"""MinHasher: golden signatures, the estimator's accuracy, the empty-set rule, spec checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from neardup import make_spec
from neardup.errors import SpecError, SpecMismatchError
from neardup.fingerprints.similarity import Fingerprints
from neardup.sketch import MinHasher, estimate, reference_signature, standard_error
from neardup.spec import SketchSpec

T1 = "Белая берёза под моим окном принакрылась снегом, точно серебром."
T2 = "The quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat."
MAX64 = 2**64 - 1

# (family, sketch seed, value bits) → literal values at positions 0, 1, 64, 127 of T1 and T2.
GOLDEN = [
    (
        "rabin",
        0,
        64,
        [4423657466800619640, 5417494158703956554, 1195817464162002418, 1158363303351311551],
        [2623156573685546567, 3005956958310086220, 19050393150130980, 139784320069060623],
    ),
    (
        "xxh3",
        42,
        64,
        [167087892682833128, 2749673725483126847, 3097878033672312649, 6480451097913193245],
        [769878566228365642, 913958234496698902, 22248158732610175, 401896307545257317],
    ),
    (
        "rabin",
        7,
        32,
        [719045928, 205958224, 128376148, 511882300],
        [432051672, 770834909, 525245579, 528328844],
    ),
]
POSITIONS = (0, 1, 64, 127)


def hasher(
    family: str = "rabin", seed: int = 0, bits: int = 64, num_perm: int = 128, **kw: object
) -> MinHasher:
    spec = make_spec("plain", k=3, family=family, **kw)  # type: ignore[arg-type]
    return MinHasher(spec.replace(sketch=SketchSpec(num_perm=num_perm, seed=seed, value_bits=bits)))


@pytest.mark.parametrize(("family", "seed", "bits", "first", "second"), GOLDEN)
def test_golden_signatures(
    family: str, seed: int, bits: int, first: list[int], second: list[int]
) -> None:
    sigs = hasher(family, seed, bits).sign_texts([T1, T2])
    assert sigs.dtype == (np.uint64 if bits == 64 else np.uint32)
    assert [int(sigs[0, i]) for i in POSITIONS] == first
    assert [int(sigs[1, i]) for i in POSITIONS] == second


def test_golden_signatures_in_a_fresh_process() -> None:
    code = (
        "import json, sys\n"
        "from neardup import make_spec\n"
        "from neardup.sketch import MinHasher\n"
        "from neardup.spec import SketchSpec\n"
        "out = []\n"
        f"for fam, seed, bits in {[(g[0], g[1], g[2]) for g in GOLDEN]!r}:\n"
        "    h = MinHasher(make_spec('plain', k=3, family=fam).replace("
        "sketch=SketchSpec(seed=seed, value_bits=bits)))\n"
        f"    s = h.sign_texts({[T1, T2]!r})\n"
        f"    out.append([[int(s[r, i]) for i in {POSITIONS!r}] for r in (0, 1)])\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[g[3], g[4]] for g in GOLDEN]


def test_kernel_equals_the_python_definition_and_32_bits_is_the_top_half() -> None:
    h64 = hasher(num_perm=48)
    h32 = hasher(bits=32, num_perm=48)
    fps = h64.pipeline.fingerprints(T1)
    sig = h64.sign(fps)
    assert sig.tolist() == reference_signature(fps.values.tolist(), 48)
    assert h32.sign(fps).tolist() == (sig >> np.uint64(32)).astype(np.uint32).tolist()
    assert h32.sign(fps).tolist() == reference_signature(fps.values.tolist(), 48, value_bits=32)


def test_fewer_functions_are_a_prefix() -> None:
    long = hasher(num_perm=256).sign_texts([T1])[0]
    short = hasher(num_perm=64).sign_texts([T1])[0]
    assert short.tolist() == long[:64].tolist()


def test_sign_texts_sign_many_and_sign_agree() -> None:
    h = hasher()
    texts = [T1, T2, "", "одно слово"]
    fps = [h.pipeline.fingerprints(t) for t in texts]
    by_text = h.sign_texts(texts)
    by_fps = h.sign_many(fps)
    assert by_text.shape == (4, 128)
    assert by_text.tolist() == by_fps.tolist()
    assert h.sign_many(texts).tolist() == by_text.tolist()
    assert h.sign(fps[1]).tolist() == by_text[1].tolist()


def test_empty_set_signature_and_estimates() -> None:
    h = hasher()
    empty, full = h.sign_texts(["", T1])
    assert empty.tolist() == [MAX64] * 128
    assert h.estimate(empty, full) == 0.0
    assert h.estimate(empty, empty) == 0.0  # two empty texts: no evidence of likeness
    assert h.estimate(full, full) == 1.0
    h32 = hasher(bits=32)
    e32 = h32.sign_texts([""])[0]
    assert e32.tolist() == [2**32 - 1] * 128 and h32.estimate(e32, e32) == 0.0
    assert estimate(empty, empty) == 0.0 and estimate(full, full) == 1.0


def test_multiset_signatures_estimate_multiset_resemblance() -> None:
    h = hasher(num_perm=512, multiset=True)
    a = "альфа бета " * 20 + "гамма дельта"
    b = "альфа бета " * 5 + "гамма дельта"
    fa, fb = h.pipeline.fingerprints(a), h.pipeline.fingerprints(b)
    assert fa.counts is not None and fb.counts is not None
    exact = h.pipeline.compare(a, b).resemblance
    est = h.estimate(*h.sign_texts([a, b]))
    assert abs(est - exact) < 4 * standard_error(exact, 512)


def test_spec_checks() -> None:
    h = hasher()
    other = hasher(num_perm=64)
    a = h.sign_texts([T1])[0]
    with pytest.raises(SpecMismatchError):
        h.estimate(a, other.sign_texts([T1])[0])
    with pytest.raises(SpecMismatchError):
        h.estimate(a, hasher(bits=32).sign_texts([T1])[0])
    with pytest.raises(SpecMismatchError):
        estimate(a, a[:64])
    foreign = hasher(family="xxh3").pipeline.fingerprints(T1)
    with pytest.raises(SpecMismatchError):
        h.sign(foreign)
    with pytest.raises(SpecError):
        MinHasher(SketchSpec(method="bottom_k"))
    with pytest.raises(SpecError):
        MinHasher(SketchSpec()).sign_texts([T1])  # no analyzer to make fingerprints with


def test_signing_fingerprints_without_a_full_spec() -> None:
    h = MinHasher(SketchSpec(num_perm=32))
    fps = Fingerprints(np.array([1, 2, 3], dtype=np.uint64))
    assert h.sign(fps).tolist() == reference_signature([1, 2, 3], 32)


def _pairs(
    rng: np.random.Generator, count: int, union: int
) -> tuple[list[Fingerprints], list[Fingerprints], np.ndarray]:
    a_list, b_list, truth = [], [], []
    for _ in range(count):
        shared = int(rng.integers(1, union))
        only_a = int(rng.integers(0, union - shared + 1))
        only_b = union - shared - only_a
        values = rng.choice(2**62, size=union, replace=False).astype(np.uint64)
        a = np.sort(values[: shared + only_a])
        b = np.sort(np.concatenate([values[:shared], values[shared + only_a :]]))
        assert len(b) == shared + only_b
        a_list.append(Fingerprints(a))
        b_list.append(Fingerprints(b))
        truth.append(shared / union)
    return a_list, b_list, np.array(truth)


def test_error_is_unbiased_and_shrinks_like_one_over_sqrt_n() -> None:
    rng = np.random.default_rng(20240611)
    a_list, b_list, truth = _pairs(rng, 400, 240)
    rms = {}
    for n in (32, 128, 512):
        h = MinHasher(SketchSpec(num_perm=n, seed=n))
        est = h.estimate_many(h.sign_many(a_list), h.sign_many(b_list))
        err = est - truth
        theory = float(np.sqrt(np.mean(truth * (1 - truth)) / n))
        rms[n] = float(np.sqrt(np.mean(err**2)))
        assert 0.85 * theory < rms[n] < 1.15 * theory, (n, rms[n], theory)
        assert abs(float(np.mean(err))) < 4 * rms[n] / np.sqrt(len(err)), (n, float(np.mean(err)))
    assert 3.4 < rms[32] / rms[512] < 4.7
    assert 1.7 < rms[32] / rms[128] < 2.35


def test_estimate_many_against_one_row() -> None:
    h = hasher()
    sigs = h.sign_texts([T1, T2, T1])
    assert h.estimate_many(sigs, sigs[0]).tolist() == [1.0, h.estimate(sigs[1], sigs[0]), 1.0]
    with pytest.raises(ValueError):
        h.estimate_many(sigs, sigs[:2])
