"""An LSH index's parameters: the spec it signs texts with, its bands × rows (from the
chooser, :func:`neardup.sketch.params.choose`), and the record of them a store keeps."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace

from neardup.errors import InputError, SpecError, SpecMismatchError
from neardup.lsh.store_base import FORMAT_VERSION
from neardup.sketch.params import choose
from neardup.spec import SketchSpec, Spec

#: The chooser's weights of false positives and false negatives an index takes by default:
#: a missed near copy is the error a user cannot see, while a candidate below the threshold
#: costs one similarity check and is dropped by it. At 0.7 and 128 functions this gives 23
#: bands of 5 (a document exactly at 0.7 becomes a candidate with probability 0.985, at 0.75
#: with 0.998) where equal weights give datasketch's 14 × 9 (0.44 and 0.67); from 0.3 to 0.95
#: a document at the threshold is a candidate with probability 0.96 or more.
RECALL_WEIGHTS = (0.02, 0.98)
#: How far below the threshold (in standard deviations of the estimate at the threshold,
#: ``sqrt(t(1 − t)/num_perm)``) a candidate's estimated similarity may be and still be
#: returned: 2.33 keeps 99 % of the documents exactly at the threshold, and every one above.
MARGIN_SIGMAS = 2.33


def estimate_floor(threshold: float, num_perm: int) -> float:
    """The least estimated similarity a query returns by default: :data:`MARGIN_SIGMAS`
    standard deviations of the MinHash estimate below ``threshold`` (at least 0)."""
    sigma = math.sqrt(threshold * (1.0 - threshold) / num_perm)
    return max(0.0, threshold - MARGIN_SIGMAS * sigma)


@dataclass(frozen=True)
class Params:
    """What an index is made with; :meth:`record` is what its store keeps."""

    threshold: float
    num_perm: int
    bands: int
    rows: int
    verify: bool
    #: The full spec (texts can be signed), or only its sketch part (signatures only).
    spec: Spec | SketchSpec

    @property
    def sketch(self) -> SketchSpec:
        if isinstance(self.spec, SketchSpec):
            return self.spec
        assert self.spec.sketch is not None  # made so by resolve()
        return self.spec.sketch

    @property
    def spec_fingerprint(self) -> str:
        """The spec's fingerprint (of the sketch part's JSON when there is no full spec)."""
        if isinstance(self.spec, Spec):
            return self.spec.fingerprint()
        return "sketch:" + json.dumps(self.spec.to_dict(), sort_keys=True)

    def record(self) -> dict[str, str]:
        spec_json = (
            self.spec.to_json()
            if isinstance(self.spec, Spec)
            else json.dumps(self.spec.to_dict(), sort_keys=True)
        )
        return {
            "format_version": FORMAT_VERSION,
            "threshold": repr(self.threshold),
            "num_perm": str(self.num_perm),
            "bands": str(self.bands),
            "rows": str(self.rows),
            "seed": str(self.sketch.seed),
            "verify": "1" if self.verify else "0",
            "spec_kind": "spec" if isinstance(self.spec, Spec) else "sketch",
            "spec": spec_json,
            "spec_fingerprint": self.spec_fingerprint,
        }

    def check_against(self, stored: dict[str, str], location: str) -> None:
        """Refuse a store made with other parameters, naming every difference."""
        if stored.get("format_version") != FORMAT_VERSION:
            raise SpecMismatchError(
                f"the LSH store {location} has format {stored.get('format_version')!r}; "
                f"this version of neardup reads format {FORMAT_VERSION!r}"
            )
        mine = self.record()
        names = ("threshold", "num_perm", "bands", "rows", "seed", "verify", "spec_fingerprint")
        diffs = [
            f"{name}: stored {stored.get(name)!r}, asked {mine[name]!r}"
            for name in names
            if stored.get(name) != mine[name]
        ]
        if diffs:
            raise SpecMismatchError(
                f"the LSH index in {location} was made with other parameters ("
                + "; ".join(diffs)
                + "): open it with the stored ones (LSHIndex.open(store) reads them) or use "
                "another store"
            )

    @classmethod
    def from_record(cls, stored: dict[str, str], location: str) -> Params:
        try:
            spec: Spec | SketchSpec = (
                Spec.from_json(stored["spec"])
                if stored["spec_kind"] == "spec"
                else SketchSpec.from_dict(json.loads(stored["spec"]))
            )
            return cls(
                threshold=float(stored["threshold"]),
                num_perm=int(stored["num_perm"]),
                bands=int(stored["bands"]),
                rows=int(stored["rows"]),
                verify=stored["verify"] == "1",
                spec=spec,
            )
        except (KeyError, ValueError) as exc:
            raise SpecError(
                f"the LSH store {location} holds no readable index parameters ({exc})"
            ) from None


def _check_numbers(threshold: float, num_perm: int, weights: tuple[float, float]) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise InputError(f"threshold must be a number in (0, 1), got {threshold!r}")
    if math.isnan(threshold) or not (0.0 < float(threshold) < 1.0):
        raise InputError(f"threshold must be in (0, 1), got {threshold!r}")
    if isinstance(num_perm, bool) or not isinstance(num_perm, int) or num_perm < 1:
        raise InputError(f"num_perm must be a positive integer, got {num_perm!r}")
    try:
        pair = [float(w) for w in weights]
    except (TypeError, ValueError):
        pair = []
    if len(pair) != 2:
        raise InputError(
            f"weights must be two numbers (false positive, false negative), got {weights!r}"
        )


def resolve(
    threshold: float,
    num_perm: int,
    weights: tuple[float, float],
    spec: Spec | SketchSpec | None,
    verify: bool,
) -> Params:
    """The parameters of a new index: the spec (the defaults' when ``None``) with a MinHash
    sketch of ``num_perm`` functions, banded as the spec's sketch says or, when it names no
    bands, as :func:`~neardup.sketch.params.choose` picks for ``threshold`` and ``weights``
    (false positive weight, false negative weight)."""
    _check_numbers(threshold, num_perm, weights)
    fp_weight, fn_weight = (float(w) for w in weights)
    if spec is None:
        from neardup.fingerprints.pipeline import default_spec

        spec = default_spec()
    if not isinstance(spec, Spec | SketchSpec):
        raise InputError(f"spec must be a Spec or a SketchSpec, got {type(spec).__name__}")
    sketch = spec if isinstance(spec, SketchSpec) else spec.sketch
    if sketch is None:
        sketch = SketchSpec(num_perm=num_perm)
    if sketch.method != "minhash":
        raise SpecError(f"an LSH index needs a MinHash sketch, not {sketch.method!r}")
    if sketch.num_perm != num_perm:
        raise SpecError(
            f"the spec's sketch has num_perm={sketch.num_perm} but the index was given "
            f"num_perm={num_perm}: give the same number to both"
        )
    if sketch.mega:
        raise SpecError("an LSH index bands signatures; megashingles (mega=True) are not for it")
    if sketch.bands:
        bands, rows = sketch.bands, sketch.rows
    else:
        choice = choose(float(threshold), num_perm, fp_weight=fp_weight, fn_weight=fn_weight)
        bands, rows = choice.bands, choice.rows
        sketch = replace(sketch, bands=bands, rows=rows)
    full: Spec | SketchSpec = sketch
    if isinstance(spec, Spec):
        full = spec.replace(sketch=sketch)
    return Params(float(threshold), num_perm, bands, rows, bool(verify), full)
