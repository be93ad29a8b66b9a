"""The ``oph1`` MinHash family: one permutation hashing with optimal densification. The kernels
meet the plain-Python definition, golden vectors pin its values, the fused text path gives the
per-document values, the spec (and so a signature file) names it, and its agreement estimates
the resemblance."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup import MinHasher, default_spec
from neardup.errors import SpecError
from neardup.fingerprints.similarity import Fingerprints
from neardup.sketch.minhash import oph_reference, reference_signature
from neardup.sketch.signatures import SignatureWriter, read_signatures
from neardup.spec import SketchSpec
from tests._textgen import edit, text

OPH = SketchSpec(family="oph1", num_perm=64)


@pytest.mark.parametrize("size", [0, 1, 5, 63, 64, 300])
def test_the_kernel_is_the_definition(size: int) -> None:
    rng = np.random.default_rng(size)
    values = rng.integers(0, 2**64, size, dtype=np.uint64)
    got = MinHasher(OPH).sign_hashes([values])[0].tolist()
    assert got == oph_reference([int(x) for x in values], 64, 0)
    narrow = MinHasher(SketchSpec(family="oph1", num_perm=64, value_bits=32))
    want32 = reference_signature([int(x) for x in values], 64, 0, 32, "oph1")
    assert narrow.sign_hashes([values])[0].tolist() == want32


def test_golden_vectors() -> None:
    hasher = MinHasher(SketchSpec(family="oph1", num_perm=8))
    assert hasher.sign_hashes([np.arange(1, 101, dtype=np.uint64)])[0].tolist() == [
        383702764315059222,
        2322739030055082020,
        4972067004891204947,
        7020496733397613123,
        9380279296227191228,
        11740486085074910579,
        14413299582960625981,
        16284520652405861442,
    ]
    # three elements in eight bins: five bins densified from the three filled ones
    assert hasher.sign_hashes([np.arange(1, 4, dtype=np.uint64)])[0].tolist() == [
        10199714216523646185,
        2322739030055082020,
        10199714216523646185,
        10199714216523646185,
        10199714216523646185,
        17272933220729176609,
        17272933220729176609,
        17272933220729176609,
    ]
    narrow = MinHasher(SketchSpec(family="oph1", num_perm=8, value_bits=32))
    assert narrow.sign_hashes([np.arange(1, 101, dtype=np.uint64)])[0].tolist() == [
        89337761,
        540804823,
        1157649561,
        1634586773,
        2184016466,
        2733544931,
        3355857819,
        3791535425,
    ]


def test_an_empty_set_is_all_empty_and_a_multiset_counts_repeats() -> None:
    hasher = MinHasher(OPH)
    assert set(hasher.sign_hashes([np.zeros(0, dtype=np.uint64)])[0].tolist()) == {2**64 - 1}
    values = np.arange(1, 40, dtype=np.uint64)
    once = Fingerprints(values, np.ones(39, dtype=np.int64), "")
    twice = Fingerprints(values, np.full(39, 2, dtype=np.int64), "")
    a, b = hasher.sign_many([once, twice])
    assert 0.3 < float(np.mean(a == b)) < 0.7  # Σmin/Σmax = 0.5
    assert not np.array_equal(a, b)


def test_the_fused_text_path_gives_the_per_document_values() -> None:
    hasher = MinHasher(default_spec().replace(sketch=SketchSpec(family="oph1")))
    texts = [text(40 * (i + 1), i) for i in range(6)] + ["", "одно слово"]
    batch = hasher.sign_texts(texts)
    each = np.stack([hasher.sign(hasher.pipeline.fingerprints(t)) for t in texts])
    assert np.array_equal(batch, each)


def test_the_spec_and_a_signature_file_name_the_family(tmp_path: Path) -> None:
    spec = default_spec().replace(sketch=SketchSpec(family="oph1"))
    classic = default_spec().replace(sketch=SketchSpec())
    assert spec.to_dict()["sketch"]["family"] == "oph1"
    assert "family" not in classic.to_dict()["sketch"]  # the classic default stays unchanged
    assert spec.fingerprint() == "e29a4af625525f68" != classic.fingerprint()
    hasher = MinHasher(spec)
    out = tmp_path / "sigs"
    with SignatureWriter(out, spec) as writer:
        writer.write(["a"], hasher.sign_texts([text(80, 1)]))
    assert json.loads((out / "spec.json").read_text())["spec"]["sketch"]["family"] == "oph1"
    assert read_signatures(out).spec.sketch.family == "oph1"  # type: ignore[union-attr]
    with pytest.raises(SpecError):
        SketchSpec(family="oph1", method="bottom_k")


def test_agreement_estimates_the_resemblance() -> None:
    base = text(400, 7)
    near = edit(base, 0.05, 3)
    hasher = MinHasher(default_spec().replace(sketch=SketchSpec(family="oph1", num_perm=256)))
    a, b = hasher.sign_texts([base, near])
    fa, fb = hasher.pipeline.fingerprints(base), hasher.pipeline.fingerprints(near)
    shared = np.intersect1d(fa.values, fb.values).shape[0]
    exact = shared / (fa.values.shape[0] + fb.values.shape[0] - shared)
    assert abs(float(np.mean(a == b)) - exact) < 0.1
