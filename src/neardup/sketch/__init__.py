"""Sketches of fingerprint sets: MinHash signatures, mod-m and bottom-k samples, supershingles,
megashingles and LSH band keys, the probability curves that choose their parameters, and the
signature file format.

Guide: docs/sketches.md. Hot loops live in :mod:`neardup._kernels.minhash`.
"""

from __future__ import annotations

from neardup.sketch.minhash import (
    MinHasher,
    estimate,
    function_seeds,
    reference_signature,
    standard_error,
)
from neardup.sketch.params import (
    Choice,
    candidate_probability,
    choose,
    megashingle_probability,
    plot_s_curves,
    probability,
)
from neardup.sketch.sampling import BottomK, BottomKSample, ModM, ModSample
from neardup.sketch.signatures import (
    FORMAT_VERSION,
    Signatures,
    SignatureWriter,
    read_signatures,
    write_signatures,
)
from neardup.sketch.supershingles import Banding, band_keys, megashingles, shares_key, supershingles

__all__ = [
    "FORMAT_VERSION",
    "Banding",
    "BottomK",
    "BottomKSample",
    "Choice",
    "MinHasher",
    "ModM",
    "ModSample",
    "SignatureWriter",
    "Signatures",
    "band_keys",
    "candidate_probability",
    "choose",
    "estimate",
    "function_seeds",
    "megashingle_probability",
    "megashingles",
    "plot_s_curves",
    "probability",
    "read_signatures",
    "reference_signature",
    "shares_key",
    "standard_error",
    "supershingles",
    "write_signatures",
]
