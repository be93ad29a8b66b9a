"""neardup: find near-duplicate and reused text.

The public surface; everything else is private. A test pins ``__all__``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from neardup.errors import (
    ConfigurationError,
    DecodeError,
    InputError,
    MissingDependencyError,
    NeardupError,
    NotFoundError,
    NotSupportedError,
    SpecError,
    SpecMismatchError,
    StorageError,
)
from neardup.pipeline import Pipeline, make_spec
from neardup.similarity import Fingerprints, Measures, compare
from neardup.spec import AnalyzerSpec, ChainSpec, Component, FingerprintSpec, ShingleSpec, Spec

__all__ = [
    "AnalyzerSpec",
    "ChainSpec",
    "Component",
    "ConfigurationError",
    "DecodeError",
    "FingerprintSpec",
    "Fingerprints",
    "InputError",
    "Measures",
    "MissingDependencyError",
    "NeardupError",
    "NotFoundError",
    "NotSupportedError",
    "Pipeline",
    "ShingleSpec",
    "Spec",
    "SpecError",
    "SpecMismatchError",
    "StorageError",
    "__version__",
    "compare",
    "make_spec",
]
