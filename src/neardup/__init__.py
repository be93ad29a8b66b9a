"""neardup: find near-duplicate and reused text.

The public surface; everything else is private. A test pins ``__all__``.

    from neardup import compare, Collection, MinHasher, Aligner

The errors and specs are imported at once (they are light); the rest is imported on first
use, so ``import neardup`` (and ``neardup --version``) stays fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from neardup._version import __version__
from neardup.defaults import DEFAULTS, Defaults
from neardup.errors import (
    ConfigurationError,
    DamagedCheckError,
    DamagedCollectionError,
    DamagedFileError,
    DatasetError,
    DecodeError,
    DuplicateIdError,
    InputError,
    InputTooLargeError,
    InvalidTextError,
    MissingDependencyError,
    NeardupError,
    NotFoundError,
    NotSupportedError,
    SpecError,
    SpecMismatchError,
    StorageError,
    TextLengthError,
    TooLargeError,
    UnsupportedTypeError,
    WrongTypeError,
)
from neardup.spec import (
    AnalyzerSpec,
    ChainSpec,
    Component,
    FingerprintSpec,
    IndexSpec,
    ShingleSpec,
    SketchSpec,
    Spec,
)

if TYPE_CHECKING:
    from neardup.analysis.analyzed import AnalyzedText
    from neardup.corpus import DedupOptions, DedupResult, dedup, read_groups
    from neardup.corpus.cleaning import CleanedText, CleanOptions, CleanResult, clean_texts
    from neardup.fingerprints.pipeline import Pipeline, default_spec, make_spec
    from neardup.fingerprints.similarity import Fingerprints, Measures
    from neardup.index import CheckResult, Collection, Decision, Document, Group, Match
    from neardup.lsh import LSHIndex
    from neardup.passages.align import Aligner, Alignment, Passage
    from neardup.score.comparison import Comparison, compare
    from neardup.score.matrix import SimilarityMatrix, similarity_matrix
    from neardup.sketch import Banding, MinHasher

#: Names imported on first use: name → the module that defines it.
_LAZY = {
    "Aligner": "neardup.passages.align",
    "Alignment": "neardup.passages.align",
    "AnalyzedText": "neardup.analysis.analyzed",
    "SimilarityMatrix": "neardup.score.matrix",
    "dedup": "neardup.corpus",
    "DedupOptions": "neardup.corpus",
    "DedupResult": "neardup.corpus",
    "read_groups": "neardup.corpus",
    "clean_texts": "neardup.corpus.cleaning",
    "CleanOptions": "neardup.corpus.cleaning",
    "CleanResult": "neardup.corpus.cleaning",
    "CleanedText": "neardup.corpus.cleaning",
    "default_spec": "neardup.fingerprints.pipeline",
    "similarity_matrix": "neardup.score.matrix",
    "Banding": "neardup.sketch",
    "Passage": "neardup.passages.align",
    "CheckResult": "neardup.index",
    "Collection": "neardup.index",
    "Comparison": "neardup.score.comparison",
    "Decision": "neardup.index",
    "Document": "neardup.index",
    "Fingerprints": "neardup.fingerprints.similarity",
    "LSHIndex": "neardup.lsh",
    "Group": "neardup.index",
    "Match": "neardup.index",
    "Measures": "neardup.fingerprints.similarity",
    "MinHasher": "neardup.sketch",
    "Pipeline": "neardup.fingerprints.pipeline",
    "compare": "neardup.score.comparison",
    "make_spec": "neardup.fingerprints.pipeline",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'neardup' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "DEFAULTS",
    "Aligner",
    "Alignment",
    "AnalyzedText",
    "AnalyzerSpec",
    "Banding",
    "ChainSpec",
    "CheckResult",
    "CleanOptions",
    "CleanResult",
    "CleanedText",
    "Collection",
    "Comparison",
    "Component",
    "ConfigurationError",
    "DamagedCheckError",
    "DamagedCollectionError",
    "DamagedFileError",
    "DatasetError",
    "Defaults",
    "Decision",
    "DecodeError",
    "DedupOptions",
    "DedupResult",
    "Document",
    "DuplicateIdError",
    "FingerprintSpec",
    "Fingerprints",
    "Group",
    "IndexSpec",
    "InputError",
    "InputTooLargeError",
    "InvalidTextError",
    "LSHIndex",
    "Match",
    "Measures",
    "MinHasher",
    "MissingDependencyError",
    "NeardupError",
    "NotFoundError",
    "NotSupportedError",
    "Passage",
    "Pipeline",
    "ShingleSpec",
    "SimilarityMatrix",
    "SketchSpec",
    "Spec",
    "SpecError",
    "SpecMismatchError",
    "StorageError",
    "TextLengthError",
    "TooLargeError",
    "UnsupportedTypeError",
    "WrongTypeError",
    "__version__",
    "clean_texts",
    "compare",
    "dedup",
    "default_spec",
    "make_spec",
    "read_groups",
    "similarity_matrix",
]
