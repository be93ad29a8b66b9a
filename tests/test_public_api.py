"""The public surface is deliberate: adding or removing a name is a decision, made here."""

from __future__ import annotations

import subprocess
import sys

import neardup


def test_all_is_pinned() -> None:
    assert sorted(neardup.__all__) == [
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
        "DEFAULTS",
        "DamagedCheckError",
        "DamagedCollectionError",
        "DamagedFileError",
        "DatasetError",
        "Decision",
        "DecodeError",
        "DedupOptions",
        "DedupResult",
        "Defaults",
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
    for name in neardup.__all__:
        assert hasattr(neardup, name), name


def test_dedup_is_a_plain_function() -> None:
    """``neardup.dedup`` is the function, whichever module was imported first: the job's
    package is :mod:`neardup.corpus`, so no module shadows the name."""
    import inspect

    import neardup.corpus

    assert inspect.isfunction(neardup.dedup)
    assert neardup.dedup is neardup.corpus.dedup


def test_errors_form_one_tree() -> None:
    for name in neardup.__all__:
        obj = getattr(neardup, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, neardup.NeardupError), name


def test_the_names_a_user_guesses_come_from_their_modules() -> None:
    from neardup import Aligner, Collection, MinHasher, compare
    from neardup.index import Collection as IndexCollection
    from neardup.passages.align import Aligner as AlignAligner
    from neardup.score.comparison import compare as comparison_compare
    from neardup.sketch import MinHasher as SketchMinHasher

    assert (Aligner, Collection, MinHasher, compare) == (
        AlignAligner,
        IndexCollection,
        SketchMinHasher,
        comparison_compare,
    )
    assert "compare" in dir(neardup) and "Collection" in dir(neardup)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        neardup.Nope  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "Nope" in str(exc)
    else:
        raise AssertionError("neardup.Nope did not raise")


def test_import_is_light() -> None:
    code = (
        "import sys, neardup; "
        "heavy = ['numba', 'numpy', 'neardup.index', 'neardup.fingerprints.pipeline', "
        "'neardup.sketch']; "
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_one_document_class() -> None:
    import neardup.eval
    import neardup.eval.formats

    assert neardup.Document.__module__ == "neardup.index.results"
    assert "Document" not in neardup.eval.__all__
    assert not hasattr(neardup.eval.formats, "Document")
    assert neardup.eval.LabelledText.__name__ == "LabelledText"


def test_every_error_class_is_public() -> None:
    """Every class of the one exception tree, wherever it is raised, is a public name."""
    import importlib
    import pkgutil

    for info in pkgutil.walk_packages(neardup.__path__, "neardup."):
        if info.name.startswith(("neardup.spark", "neardup.web")) or ".cli" in info.name:
            continue  # optional extras: imported below when present
        importlib.import_module(info.name)
    importlib.import_module("neardup.web.app")
    seen: set[type] = set()
    todo: list[type] = [neardup.NeardupError]
    while todo:
        cls = todo.pop()
        seen.add(cls)
        todo.extend(c for c in cls.__subclasses__() if c not in seen)
    private = sorted(c.__name__ for c in seen if c.__name__.startswith("_"))
    public = {c.__name__ for c in seen} - set(private)
    assert public <= set(neardup.__all__), public - set(neardup.__all__)
