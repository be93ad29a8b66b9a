"""What a dedup run is asked for and what it records: :class:`DedupOptions`, the spec with
its MinHash sketch (:func:`dedup_spec`), the ``spec.json`` record and the check of an existing
output, and :class:`DedupResult` (``summary.json``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from neardup._constraints import Integer, OneOf, Real, check_fields, constraint_of, param
from neardup._version import __version__
from neardup.defaults import DEFAULTS
from neardup.errors import DatasetError, InputError, SpecMismatchError
from neardup.spec import SketchSpec, Spec

SPEC_FILE = "spec.json"
SUMMARY_FILE = "summary.json"
FORMAT_NAME = "neardup.dedup"  # the file format's name, older than the package name: kept
FORMAT_VERSION = 1
#: How much more a missed pair weighs than a false candidate when the bands are chosen: every
#: candidate is verified, so a false one costs a merge, a missed one costs a near-copy left in
#: the corpus (at 0.5: 32 bands × 4 rows, P(candidate | s = 0.5) = 0.87 instead of 25 × 5, 0.55).
FN_WEIGHT = 10.0
#: The most MinHash functions a dedup takes (``--num-perm``). The chooser of bands × rows
#: (:func:`neardup.sketch.params.choose`) grows faster than linearly with it (on a loaded
#: 2-core machine: 4.5 s at 1,024, 27 s at 4,096, over two minutes at 16,384, before the first
#: document is read), while exact verification makes a larger sketch useless: it only finds
#: candidates, whose measures are then computed exactly.
MAX_NUM_PERM = 1024
#: Output columns added to every record.
ADDED_FIELDS = ("group", "kept", "similarity", "representative")

Verify = Literal["exact", "estimate"]
Measure = Literal["resemblance", "containment"]


# --- input ---------------------------------------------------------------------------------


def read_documents(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    fmt: str | None = None,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(id, text, meta)`` of every input document, streamed: the ONE place dedup reads input
    (through :mod:`neardup.inputs`, the project's reader)."""
    from neardup.inputs import iter_inputs

    for doc in iter_inputs(inputs, id_field=id_field, text_field=text_field, fmt=fmt):
        yield doc.id, doc.text, doc.meta


# --- options -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DedupOptions:
    """What, besides the spec, decides the groups (written to ``spec.json``)."""

    threshold: float = param(DEFAULTS.threshold, Real(0.0, 1.0, low_open=True))
    measure: Measure = param("resemblance", OneOf(("resemblance", "containment")))
    verify: Verify = param("exact", OneOf(("exact", "estimate")))
    keep: str = "first"
    num_perm: int = param(128, Integer(1, MAX_NUM_PERM))
    bands: int = param(0, constraint_of(SketchSpec, "bands"))
    rows: int = param(0, constraint_of(SketchSpec, "rows"))
    #: The *bucket window* of the candidate stage: two documents with the same band key pair
    #: when at most this many places apart in their bucket (input order). Not winnowing's
    #: window (``winnow``); the name is kept as ``window`` for ``--window`` and ``spec.json``.
    window: int = param(50, Integer(1, 1 << 20))
    #: 0: candidates by the LSH bands only. W: also every pair of documents that share a
    #: winnowed sample (the collection's :class:`~neardup.index.candidates.Winnowing` over
    #: windows of W shingles): any shared run of W shingles, however small a part of the
    #: longer text, becomes a candidate — the partial copies containment is for.
    winnow: int = param(0, Integer(0, 4096))

    def __post_init__(self) -> None:
        check_fields(self, "dedup", InputError)
        if not isinstance(self.keep, str):
            raise InputError(
                f"keep must be a string (first, longest, max:FIELD or min:FIELD), got {self.keep!r}"
            )
        if self.measure == "containment" and self.verify == "estimate":
            raise InputError("containment needs exact verification (--verify exact)")
        if self.winnow and self.verify == "estimate":
            raise InputError("winnowed candidates need exact verification (--verify exact)")
        parse_keep(self.keep)
        if self.window < 1:
            raise InputError(f"the bucket window must be at least 1, got {self.window}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_keep(keep: str) -> tuple[str, str | None]:
    """``first`` | ``longest`` | ``max:FIELD`` | ``min:FIELD`` → ``(rule, field)``."""
    if keep in ("first", "longest"):
        return keep, None
    rule, _, name = keep.partition(":")
    if rule in ("max", "min") and name:
        return rule, name
    raise InputError(f"unknown keep rule {keep!r}; expected first, longest, max:FIELD or min:FIELD")


def dedup_spec(spec: Spec, options: DedupOptions) -> Spec:
    """The spec dedup applies, and records in ``spec.json``: ``spec`` with the MinHash sketch
    the options ask for (bands × rows from the chooser of :mod:`neardup.sketch.params` for the
    threshold, unless given; the seed and family — ``splitmix`` or ``affine`` — of
    ``spec.sketch``, when it has one, are kept), and without the short-text rule
    (``short_below``): that rule shingles a *pair* by the length of its shorter text, while
    MinHash LSH signs each document once, by the spec's own shingles, so dedup compares every
    pair on those (:meth:`~neardup.spec.Spec.fixed`) and says so in the spec it writes."""
    bands, rows = options.bands, options.rows
    if not bands or not rows:
        from neardup.sketch.params import choose

        lsh_threshold = min(options.threshold, 0.99)
        if options.measure == "containment":
            # containment c of a short text in a long one is resemblance of at least c·|A|/|B|:
            # search lower than the threshold so containment pairs become candidates
            lsh_threshold = max(0.05, lsh_threshold / 2)
        choice = choose(lsh_threshold, options.num_perm, fn_weight=FN_WEIGHT)
        bands, rows = choice.bands, choice.rows
    # the seed and the MinHash family of a sketch given with the spec are kept
    given = spec.sketch if spec.sketch is not None else SketchSpec()
    sketch = SketchSpec(
        method="minhash",
        num_perm=options.num_perm,
        seed=given.seed,
        bands=bands,
        rows=rows,
        family=given.family,
    )
    return spec.fixed().replace(sketch=sketch)


# --- results -------------------------------------------------------------------------------


@dataclass
class DedupResult:
    """What a run did; ``summary.json`` holds the same."""

    out: Path
    documents: int
    groups: int
    duplicate_groups: int
    removed: int
    candidate_pairs: int
    verified_pairs: int
    seconds: dict[str, float]
    bands: int
    rows: int
    bytes_read: int = 0
    capped_buckets: int = 0
    largest_bucket: int = 0
    files: dict[str, str] = field(default_factory=dict)
    #: CPU seconds per stage: this process and its finished worker processes.
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    #: Documents with tricks undone (hidden-text evasion): ``documents`` (any), ``suspicious``
    #: (past a kind's threshold) and ``kinds`` (documents of each kind, ``hidden_text`` included).
    tricks: dict[str, Any] = field(default_factory=dict)
    #: Peak resident memory in MB of this process (``main``) and of the largest finished
    #: worker process (``workers``; 0 with ``jobs=1``), as the kernel counts it: pages of a
    #: file the job maps (the input, while its records are written) count while mapped.
    peak_memory_mb: dict[str, float] = field(default_factory=dict)
    #: Only when cleaning was asked (``--exact``, ``--level``): ``exact_duplicates`` (the
    #: documents found exact copies of an earlier one; they are counted in ``removed`` too)
    #: and ``spans`` (the level, spans removed, characters removed, documents cut and dropped,
    #: the counting and its error bound). Written to ``summary.json`` at its top level.
    cleaning: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["out"] = str(self.out)
        out.update(out.pop("cleaning"))
        return out


def spec_record(
    spec: Spec, options: DedupOptions, clean: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``spec.json``'s record; ``clean`` (the cleaning options, when any is asked) is written
    under ``clean``, so an output made without cleaning keeps the record it had."""
    record = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "spec": spec.to_dict(),
        "spec_fingerprint": spec.fingerprint(),
        "dedup": options.to_dict(),
        "created_by": f"neardup {__version__}",
    }
    if clean:
        record["clean"] = clean
    return record


def write_spec(
    folder: Path, spec: Spec, options: DedupOptions, clean: dict[str, Any] | None = None
) -> None:
    """``spec.json``: the spec applied and the dedup options (every engine writes it so)."""
    record = spec_record(spec, options, clean)
    (folder / SPEC_FILE).write_text(
        json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )


def check_output(
    out: Path,
    spec: Spec,
    options: DedupOptions,
    overwrite: bool,
    clean: dict[str, Any] | None = None,
) -> None:
    """Refuse an output that cannot be made there (under a file, or in a folder this user may
    not search), an existing one (unless ``overwrite``), and always one made under another
    spec or other dedup options, or a folder that is not a dedup output (``overwrite`` would
    remove it)."""
    try:
        _check_output(out, spec, options, overwrite, clean)
    except OSError as exc:
        raise InputError(
            f"cannot write the output to {out}: {exc.strerror or exc}; check that you may "
            "write its folder, or choose another --out",
            code="path_denied",
            params={"path": str(out), "reason": exc.strerror or str(exc), "verb": "write"},
        ) from None


def _check_output(
    out: Path, spec: Spec, options: DedupOptions, overwrite: bool, clean: dict[str, Any] | None
) -> None:
    if not out.absolute().name:
        raise InputError(f"cannot write the output to {out}: choose a folder to create, not /")
    for parent in out.absolute().parents:
        if parent.exists() and not parent.is_dir():
            raise InputError(f"cannot write {out}: {parent} is a file, not a folder")
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(f"{out} is a file, not a dedup output folder; choose another --out")
    stored = out / SPEC_FILE
    if not stored.is_file() and any(out.iterdir()):
        raise InputError(
            f"{out} is a folder that holds no dedup output (no {SPEC_FILE}); choose another "
            "--out, or remove it first"
        )
    if stored.is_file():
        try:
            meta = json.loads(stored.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DatasetError(f"{stored}: not readable JSON ({exc})") from None
        mine = spec_record(spec, options, clean)
        if (
            meta.get("spec_fingerprint") != mine["spec_fingerprint"]
            or meta.get("dedup") != mine["dedup"]
            or meta.get("clean") != mine.get("clean")
        ):
            raise SpecMismatchError(
                f"{out} holds a dedup made under spec {meta.get('spec_fingerprint')} with "
                f"options {json.dumps(meta.get('dedup'), sort_keys=True)}; this run's spec is "
                f"{mine['spec_fingerprint']} with {json.dumps(mine['dedup'], sort_keys=True)}. "
                "Choose another --out, or remove it first"
            )
    if not overwrite:
        raise InputError(f"{out} already exists; choose another --out or pass --overwrite")


def publish(partial: Path, out: Path) -> None:
    """Rename a finished ``OUT.partial`` to ``OUT``. An existing ``OUT`` is renamed aside
    (``OUT.old``) first and removed after, so whenever the process is killed ``OUT`` is a
    complete output (the old one or the new) or absent, never half removed or half written."""
    old = out.with_name(out.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if out.exists():
        os.replace(out, old)
    os.replace(partial, out)
    shutil.rmtree(old, ignore_errors=True)
