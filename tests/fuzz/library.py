"""The fuzz cases that are not a bare command line: the library given texts that are not
strings, damaged signature directories read back, damaged ``.pmbf`` files queried.

A library call passes when it returns (bytes are a text the library decodes) or raises one of
neardup's errors; anything else (a plain ``TypeError``, ``AttributeError``, …) is a traceback
a library user would see.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fuzz.harness import Outcome, run_case

TEXT = "парк город река дом улица школа учитель ученик книга газета новость власть"

NON_STRING_VALUES: dict[str, Callable[[], object]] = {
    "int": lambda: 5,
    "float": lambda: 1.5,
    "none": lambda: None,
    "bytes": lambda: TEXT.encode(),
    "bytearray": lambda: bytearray(TEXT.encode()),
    "memoryview": lambda: memoryview(TEXT.encode()),
    "list": lambda: [TEXT],
}


def call_library(api: str, value: object) -> object:
    """Call the library's entry point ``api`` with ``value`` where it takes a text."""
    import neardup
    from neardup.fingerprints.pipeline import Pipeline, make_spec
    from neardup.index import Collection
    from neardup.passages.align import Aligner

    spec = make_spec("plain")
    if api == "compare":
        return neardup.compare(value, TEXT)  # type: ignore[arg-type]
    if api == "pipeline":
        return Pipeline(spec).fingerprints(value)  # type: ignore[arg-type]
    if api in ("collection_add", "collection_check"):
        with Collection.create("memory:", spec) as collection:
            collection.add("seed", TEXT)
            if api == "collection_add":
                return collection.add("new", value)  # type: ignore[arg-type]
            return collection.check(value)  # type: ignore[arg-type]
    if api == "aligner":
        return Aligner(spec).align(value, {"source": TEXT})  # type: ignore[arg-type]
    raise ValueError(f"no library entry point {api!r}")


def _library(argv: list[str]) -> Outcome:
    from neardup.errors import NeardupError

    _, api, kind = argv
    try:
        call_library(api, NON_STRING_VALUES[kind]())
    except NeardupError as exc:
        return Outcome(argv, 1, "refused", f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - what escapes is the finding
        tail = "".join(traceback.format_exception(exc)[-2:])
        return Outcome(argv, None, "traceback", f"{type(exc).__name__}: {exc}\n{tail}")
    return Outcome(argv, 0, "ok")


def damage(data: bytes, rng: random.Random) -> bytes:
    """``data`` with one seeded damage: a bit flipped, cut, a run zeroed or overwritten, or a
    run repeated."""
    if not data:
        return rng.randbytes(rng.randrange(0, 64))
    kind = rng.randrange(5)
    cut = rng.randrange(len(data))
    if kind == 0:
        flipped = bytearray(data)
        flipped[cut] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    if kind == 1:
        return data[:cut]
    if kind == 2:
        return data[:cut] + bytes(rng.randrange(1, 64)) + data[cut + 64 :]
    if kind == 3:
        return data[:cut] + rng.randbytes(rng.randrange(1, 200)) + data[cut + 200 :]
    return data[:cut] + data[cut : cut + 100] + data[cut:]


_BASES: dict[str, Path] = {}


def _base(kind: str, folder: Path) -> Path:
    """A whole filter file or signature directory, made once per worker."""
    if kind not in _BASES:
        home = folder.parent.parent / f"base-{kind}"
        home.mkdir(parents=True, exist_ok=True)
        corpus = home / "corpus.jsonl"
        corpus.write_text(
            "".join(f'{{"id": "d{i}", "text": "{TEXT} {i} {TEXT[i:]}"}}\n' for i in range(8))
        )
        target = home / ("base.pmbf" if kind == "pmbf" else "sig")
        command = ["bloom", "build", str(corpus), "-o", str(target), "--preset", "plain"]
        if kind != "pmbf":
            command = ["sign", str(corpus), "-o", str(target), "--force", "-q", "-N", "16"]
        outcome = run_case(command)
        if outcome.verdict != "ok":
            raise RuntimeError(f"cannot make the base {kind}: {outcome.detail}")
        _BASES[kind] = target
    return _BASES[kind]


def _damaged_pmbf(argv: list[str]) -> Outcome:
    _, seed, folder = argv
    rng = random.Random(int(seed))
    base = _base("pmbf", Path(folder))
    target = Path(folder) / "damaged.pmbf"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(damage(base.read_bytes(), rng))
    query = Path(folder) / "query.txt"
    query.write_text(TEXT)
    command = ["bloom", "query", str(target), str(query)]
    if rng.random() < 0.3:
        command.append("--json")
    outcome = run_case(command)
    outcome.argv = ["bloom", "query", f"<damaged {seed}>", *command[3:]]
    return outcome


def _signatures(argv: list[str]) -> Outcome:
    import shutil

    from neardup.errors import NeardupError
    from neardup.sketch.signatures import read_signatures

    _, seed, folder = argv
    rng = random.Random(int(seed))
    base = _base("sig", Path(folder))
    target = Path(folder) / "damaged-sig"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(base, target)
    files = sorted(p for p in target.rglob("*") if p.is_file())
    victim = rng.choice(files)
    if rng.random() < 0.15:
        victim.unlink()
    else:
        victim.write_bytes(damage(victim.read_bytes(), rng))
    shown = ["@signatures", f"<{victim.name} damaged, {seed}>"]
    try:
        signatures = read_signatures(target)
        total = 0
        for name in dir(signatures):
            value: Any = getattr(signatures, name, None)
            if hasattr(value, "sum") and hasattr(value, "dtype"):
                total += int(value.sum() & 1)
    except NeardupError as exc:
        return Outcome(shown, 1, "refused", f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - what escapes is the finding
        tail = "".join(traceback.format_exception(exc)[-2:])
        return Outcome(shown, None, "traceback", f"{type(exc).__name__}: {exc}\n{tail}")
    return Outcome(shown, 0, "ok")


def run_special(argv: list[str]) -> Outcome:
    """Run an ``@``-case (see the module's text)."""
    if argv[0] == "@library":
        return _library(argv)
    if argv[0] == "@signatures":
        return _signatures(argv)
    if argv[0] == "@damaged-pmbf":
        return _damaged_pmbf(argv)
    if argv[0] == "@hang":  # the runner's own test: a case that never ends
        import time

        while True:
            time.sleep(60)
    raise ValueError(f"unknown special case {argv[0]!r}")
