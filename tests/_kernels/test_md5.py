"""The MD5 kernel: bit-exact with hashlib for every padding case, spans inside one buffer."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from neardup._kernels.md5 import K, md5_bytes, md5_spans
from neardup.errors import SpecError
from neardup.fingerprints.hashing import WideFamilySpec, WideHashFamily, reference_wide_fingerprint

# RFC 1321, appendix A.5: the test suite's digests.
RFC_1321 = [
    (b"", "d41d8cd98f00b204e9800998ecf8427e"),
    (b"a", "0cc175b9c0f1b6a831c399e269772661"),
    (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
    (b"message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (b"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
    (
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (b"1234567890" * 8, "57edf4a22be3c955ac49da2e2107b67a"),
]


@pytest.mark.parametrize(("data", "hexdigest"), RFC_1321)
def test_rfc_1321_test_suite(data: bytes, hexdigest: str) -> None:
    assert md5_bytes(data) == int(hexdigest, 16)
    assert md5_bytes(data) == int(hashlib.md5(data).hexdigest(), 16)


def test_every_length_around_the_block_and_padding_edges_equals_hashlib() -> None:
    """Lengths 0…300 (one or two tail blocks: 55, 56, 63, 64, 119, 120 …) and long ones."""
    rng = np.random.default_rng(1321)
    for n in [*range(301), 1000, 4096, 65_537]:
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert md5_bytes(data) == int(hashlib.md5(data).hexdigest(), 16), n


def test_spans_of_one_buffer_and_utf8_text() -> None:
    texts = ["белая берёза под моим окном", "", "naïve café", "x" * 200, "鳥 🐦"]
    parts = [t.encode("utf-8") for t in texts]
    buf = np.frombuffer(b"##" + b"".join(parts), dtype=np.uint8)
    lengths = np.array([len(p) for p in parts], dtype=np.int64)
    ends = np.cumsum(lengths) + 2
    hi, lo = md5_spans(buf, ends - lengths, ends)
    for p, h, low in zip(parts, hi.tolist(), lo.tolist(), strict=True):
        digest = hashlib.md5(p).digest()
        assert h == int.from_bytes(digest[:8], "big") and low == int.from_bytes(digest[8:], "big")


def test_constants_are_the_rfc_ones() -> None:
    assert K[:4].tolist() == [0xD76AA478, 0xE8C7B756, 0x242070DB, 0xC1BDCEEE]
    assert K[63] == 0xEB86D391


@pytest.mark.parametrize("bits", [32, 48, 64, 65, 96, 127, 128])
def test_wide_family_keeps_the_first_bits_of_the_digest(bits: int) -> None:
    parts = [b"", b"abc", "шингл из пяти слов подряд".encode(), b"z" * 77]
    buf = np.frombuffer(b"".join(parts), dtype=np.uint8)
    lengths = np.array([len(p) for p in parts], dtype=np.int64)
    ends = np.cumsum(lengths)
    spec = WideFamilySpec("md5", bits)
    hi, lo = WideHashFamily(spec).spans(buf, ends - lengths, ends)
    got = [(h << 64) | low for h, low in zip(hi.tolist(), lo.tolist(), strict=True)]
    assert got == [int(hashlib.md5(p).hexdigest(), 16) >> (128 - bits) for p in parts]
    assert got == [reference_wide_fingerprint(spec, p) for p in parts]
    assert all(v < 2**bits for v in got)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"family": "sha1"}, "unknown wide hash family 'sha1'"),
        ({"bits": 16}, "32 to 128 bits, got 16"),
        ({"bits": True}, "takes a width in bits"),
        ({"seed": 1}, "takes no seed"),
    ],
)
def test_wide_family_spec_checks(changes: dict, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        WideFamilySpec(**changes)
