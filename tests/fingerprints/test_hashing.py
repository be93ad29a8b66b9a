"""Hash families: kernels equal the plain-Python definition, and golden vectors pin values."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import Pipeline, make_spec
from neardup.fingerprints.hashing import (
    HashFamily,
    collision_probability,
    expected_collisions,
    rabin_modulus,
    reference_fingerprint,
    shingles_for_probability,
)
from neardup.spec import FingerprintSpec

POEM = "Белая берёза под моим окном принакрылась снегом, точно серебром."

# The first three 3-word shingles of POEM under the plain preset ("белая берёза под",
# "берёза под моим", "под моим окном"). These numbers must never change: an index built
# today must be readable by every later release.
GOLDEN = {
    ("rabin", 64, 0): [9882133494622995649, 4723720034804322455, 9775651416558977492],
    ("rabin", 56, 0): [58614677154959847, 57155047795598140, 8764669199597718],
    ("rabin", 32, 7): [1927007347, 859995655, 1977646486],
    ("crc32", 32, 0): [2579953307, 3722005373, 4283307296],
    ("crc64", 64, 0): [11328717697811501170, 2779208333506995912, 3418803284278338531],
    ("xxh3", 64, 0): [1354545621436946177, 4721140534414780391, 4616361877634085218],
    ("xxh3", 40, 42): [124746667522, 1044546277387, 59334839406],
}


@pytest.mark.parametrize(("family", "bits", "seed"), sorted(GOLDEN))
def test_golden_vectors(family: str, bits: int, seed: int) -> None:
    pipeline = Pipeline(make_spec("plain", k=3, family=family, bits=bits, seed=seed, html="never"))
    assert pipeline.shingles(POEM).hashes[:3].tolist() == GOLDEN[(family, bits, seed)]


@pytest.mark.parametrize(("family", "bits", "seed"), sorted(GOLDEN))
def test_golden_vectors_match_the_definition(family: str, bits: int, seed: int) -> None:
    spec = FingerprintSpec(family=family, bits=bits, seed=seed)
    shingles = ["белая берёза под", "берёза под моим", "под моим окном"]
    assert [reference_fingerprint(spec, s.encode()) for s in shingles] == GOLDEN[
        (family, bits, seed)
    ]


def test_same_values_in_another_process() -> None:
    code = (
        "from neardup import Pipeline, make_spec;"
        f"p = Pipeline(make_spec('plain', k=3, html='never'));"
        f"print(p.shingles({POEM!r}).hashes[:3].tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(GOLDEN[("rabin", 64, 0)])


WORDS = st.lists(
    st.text(alphabet="абвгдеёжзийклмн xyz0123456789", min_size=1, max_size=12).map(
        lambda w: w.replace(" ", "") or "ы"
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(
    words=WORDS,
    k=st.integers(1, 6),
    step=st.integers(1, 7),
    family=st.sampled_from(["rabin", "crc32", "crc64", "xxh3"]),
    bits=st.integers(32, 64),
    seed=st.integers(0, 2**64 - 1),
)
def test_rolling_kernels_equal_definition(
    words: list[str], k: int, step: int, family: str, bits: int, seed: int
) -> None:
    if family == "crc32":
        bits = 32
    if family not in ("rabin", "xxh3"):
        seed = 0
    spec = FingerprintSpec(family=family, bits=bits, seed=seed)
    text = " ".join(words).encode()
    starts, ends, pos = [], [], 0
    for w in words:
        starts.append(pos)
        ends.append(pos + len(w.encode()))
        pos += len(w.encode()) + 1
    first = np.arange(0, max(len(words) - k + 1, 1), step, dtype=np.int64)
    got = HashFamily(spec).word_shingles(
        np.frombuffer(text, np.uint8), np.array(starts), np.array(ends), first, k
    )
    for f, value in zip(first.tolist(), got.tolist()):
        last = min(f + k, len(words)) - 1
        assert value == reference_fingerprint(spec, text[starts[f] : ends[last]])
        assert value < 2**bits


def test_rabin_modulus_is_the_largest_prime_below() -> None:
    assert rabin_modulus(32) == (2**32 - 5, 5)
    assert rabin_modulus(64) == (2**64 - 59, 59)
    assert rabin_modulus(61) == (2**61 - 1, 1)


def test_birthday_bound_reproduces_seed_000_table_2() -> None:
    # seed 000, Table 2: 2^32 → 9291.486835 (P=0.01), 30083.8817 (0.1), 66241.66888 (0.4)
    assert shingles_for_probability(0.01, 32) == pytest.approx(9291.486835, rel=1e-6)
    assert shingles_for_probability(0.1, 32) == pytest.approx(30083.8817, rel=1e-6)
    assert shingles_for_probability(0.4, 32) == pytest.approx(66241.66888, rel=1e-6)
    assert shingles_for_probability(0.01, 64) == pytest.approx(608926881.2, rel=1e-6)
    assert collision_probability(shingles_for_probability(0.1, 48), 48) == pytest.approx(0.1)
    assert expected_collisions(2**16, 32) == pytest.approx(0.5, rel=1e-4)
