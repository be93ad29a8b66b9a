"""The public surface is deliberate: adding or removing a name is a decision, made here."""

from __future__ import annotations

import neardup


def test_all_is_pinned() -> None:
    assert sorted(neardup.__all__) == sorted(
        [
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
    )
    for name in neardup.__all__:
        assert hasattr(neardup, name), name


def test_errors_form_one_tree() -> None:
    for name in neardup.__all__:
        obj = getattr(neardup, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, neardup.NeardupError), name
