"""Hostile inputs for the command line and the library, and a judge that tells a clear
refusal from a crash.

Each case is a command line (``compare``, ``analyze``, ``matrix`` with ``--plot``, ``sign``,
``params``, ``index create/add/check``, ``dedup``, ``bloom size/build/query``, ``serve``'s
arguments) over files made for it: broken encodings, NUL bytes, lone surrogates in JSON, deep
nesting, rich markup and terminal escapes in ids and texts, unterminated CSV quotes, binary
files given as thesauri, hostile numbers for every numeric option, damaged ``.pmbf`` filter
files; or a library call (``@library``: ``neardup.compare``, ``Pipeline``, ``Collection``,
``Aligner`` given texts that are not strings; ``@signatures``: a damaged signature directory
read back). The generator is seeded: the same seed gives the same cases on every machine.

This module only makes cases and judges one that ran in this process (:func:`run_case`); it
sets no alarm and no time limit. The cases run in worker processes that ``runner.py`` bounds
from outside: a case that runs past the generous hang limit has its whole worker killed and
replaced, so nothing can ever be interrupted half-way (a numba compilation included) in a
process that goes on to run another case.

A case passes when the command exits 0, 1 or 2, nothing escapes ``main`` (an escaping exception
is a traceback the user would have seen), a non-zero exit prints a line starting with ``Error``
or ``Usage``/click's own message, and it ends within the hang limit.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HOSTILE_INTS = [
    "0",
    "-1",
    "1",
    "2",
    "7",
    "-9223372036854775809",
    "9223372036854775808",
    "18446744073709551616",
    "1e9",
    "1.5",
    "nan",
    "inf",
    "",
    "abc",
    "0x10",
    "٣",
    "99999999999999999999999999999",
]
HOSTILE_FLOATS = ["0", "1", "0.5", "-0.1", "1.1", "nan", "inf", "-inf", "1e308", "x", "", "0,5"]
HOSTILE_STRINGS = [
    "[/b]",
    "[bold red]x[/]",
    "\x1b[2J\x1b[31mred",
    "\u202eevil",
    "a\tb",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "%s%n%x",
    "../../etc/passwd",
    "ё" * 300,
    "",
    " ",
]
WORDS_RU = (
    "парк город река дом улица школа учитель ученик книга газета новость власть "
    "зима лето весна осень дерево лист вода море небо солнце ветер дорога"
).split()
WORDS_EN = "park city river house street school teacher book paper news winter tree".split()


@dataclass
class Outcome:
    """What one case did."""

    argv: list[str]
    exit_code: int | None
    verdict: str  # "ok", "refused", "traceback", "hang", "unclear", "memory"
    detail: str = ""
    peak: int = 0  # the worker's peak resident bytes during the case (0: not measured)
    input_bytes: int = 0  # the bytes of the files the case was given


def command_of(argv: list[str]) -> str:
    """The command a case runs, as the tallies name it (``index add``, ``bloom query``,
    ``@library compare``)."""
    words = [a for a in argv[:3] if not a.startswith("-") and "/" not in a]
    if words and words[0] in ("index", "bloom", "@library"):
        return " ".join(words[:2])
    return words[0] if words else "?"


#: A case's memory may reach the larger of these (issue 27): 10 × its input's bytes, or 1 GiB.
MEMORY_FACTOR, MEMORY_FLOOR = 10, 1024**3

BAD = ("traceback", "hang", "unclear", "memory")


@dataclass
class Tally:
    """Counts over a run, the peak memory per command, and the first few failures of each
    kind."""

    cases: int = 0
    by_verdict: dict[str, int] = field(default_factory=dict)
    by_command: dict[str, int] = field(default_factory=dict)
    peak_by_command: dict[str, int] = field(default_factory=dict)
    failures: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        bound = max(MEMORY_FACTOR * outcome.input_bytes, MEMORY_FLOOR)
        if outcome.verdict in ("ok", "refused") and outcome.peak > bound:
            outcome.verdict = "memory"
            outcome.detail = f"peak {outcome.peak:,} bytes over {bound:,}"
        self.cases += 1
        self.by_verdict[outcome.verdict] = self.by_verdict.get(outcome.verdict, 0) + 1
        command = command_of(outcome.argv)
        self.by_command[command] = self.by_command.get(command, 0) + 1
        self.peak_by_command[command] = max(self.peak_by_command.get(command, 0), outcome.peak)
        if outcome.verdict in BAD and len(self.failures) < 50:
            self.failures.append(outcome)

    @property
    def bad(self) -> int:
        return sum(self.by_verdict.get(v, 0) for v in BAD)


def run_case(argv: list[str]) -> Outcome:
    """Run ``neardup ARGV`` in this process and judge how it ended (no time limit here: the
    runner bounds the whole worker process from outside)."""
    from neardup.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:  # click may exit directly in some paths
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - the point is to catch what escapes
        tail = "".join(traceback.format_exception(exc)[-3:])
        return Outcome(argv, None, "traceback", f"{type(exc).__name__}: {exc}\n{tail}")
    stderr = err.getvalue()
    if "Traceback (most recent call last)" in stderr + out.getvalue():
        return Outcome(argv, code, "traceback", stderr[-800:])
    if code == 0:
        return Outcome(argv, code, "ok")
    if code in (1, 2) and _says_why(stderr):
        return Outcome(argv, code, "refused")
    return Outcome(argv, code, "unclear", f"exit {code}; stderr: {stderr[-400:]!r}")


def _says_why(stderr: str) -> bool:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return any(
        line.startswith(("Error", "Usage:", "Aborted", "Interrupted", "Try "))
        or "error" in line.lower()
        for line in lines
    )


# ---- hostile files ---------------------------------------------------------------------------


def _words(rng: random.Random, n: int) -> str:
    vocabulary = WORDS_RU if rng.random() < 0.7 else WORDS_EN
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def _invalid_utf8(rng: random.Random, base: str) -> bytes:
    raw = base.encode()
    cut = rng.randrange(len(raw) + 1)
    return raw[:cut] + bytes([0xFF, 0xC3, 0x28, 0xE2, 0x82]) + raw[cut:]


def _deep_html(rng: random.Random, base: str) -> bytes:
    depth = rng.randrange(10, 3000)
    return ("<div>" * depth + base + "</div>" * (depth // 2)).encode()


TEXT_KINDS: list[Callable[[random.Random, str], bytes]] = [
    lambda rng, base: rng.randbytes(rng.randrange(0, 4000)),
    _invalid_utf8,
    lambda rng, base: base.encode(rng.choice(["cp1251", "koi8-r", "utf-16", "utf-8-sig"])),
    lambda rng, base: (base + "\x00" * rng.randrange(1, 20) + base).encode(),
    lambda rng, base: (rng.choice(HOSTILE_STRINGS) + " " + base).encode(),
    lambda rng, base: b"",
    lambda rng, base: (" \n\t" * rng.randrange(1, 50)).encode(),
    _deep_html,
    lambda rng, base: ("<html><script>alert(1)</script><p>" + base + "</p>").encode(),
    lambda rng, base: ("\u0301" * rng.randrange(1, 500) + base).encode(),
    lambda rng, base: ("\ufeff" + base + "\u200b" * 50 + "\u202e" + base).encode(),
    lambda rng, base: ("x" * rng.randrange(1000, 200_000)).encode(),
    lambda rng, base: "\n".join(_words(rng, 12) for _ in range(rng.randrange(1, 40))).encode(),
    lambda rng, base: (base + " [/b] [bold]" + base + "\x1b[2J").encode(),
]


def _text_bytes(rng: random.Random) -> bytes:
    kind = rng.randrange(len(TEXT_KINDS))
    return TEXT_KINDS[kind](rng, _words(rng, rng.randrange(0, 120)))


def _json_value(rng: random.Random) -> object:
    return rng.choice(
        [
            True,
            False,
            None,
            0,
            -1,
            2**70,
            1.5,
            float("nan"),
            "",
            "[/b]",
            "\x1b[2J",
            "\ud800",
            [1, 2],
            {"a": 1},
            _words(rng, 5),
        ]
    )


def _jsonl_bytes(rng: random.Random) -> bytes:
    lines: list[str] = []
    for i in range(rng.randrange(0, 8)):
        kind = rng.randrange(9)
        if kind == 0:
            depth = rng.randrange(100, 50_000)
            lines.append("[" * depth + "]" * depth)
        elif kind == 1:
            lines.append('{"id": "x", "text": "\\ud800 ' + _words(rng, 10) + '"}')
        elif kind == 2:
            lines.append(json.dumps({"id": _json_value(rng), "text": _words(rng, 20)}))
        elif kind == 3:
            lines.append(json.dumps({"id": f"d{i}", "text": _json_value(rng)}))
        elif kind == 4:
            lines.append(json.dumps({"id": f"d{i}"}))
        elif kind == 5:
            lines.append('{"id": "d", "text": "unterminated')
        elif kind == 6:
            lines.append(json.dumps({"id": "same", "text": _words(rng, 30)}))
        elif kind == 7:
            lines.append(json.dumps(["not", "an", "object"]))
        else:
            lines.append(json.dumps({"id": rng.choice(HOSTILE_STRINGS), "text": _words(rng, 40)}))
    return ("\n".join(lines) + rng.choice(["", "\n", "\n\n"])).encode("utf-8", "surrogatepass")


def _csv_bytes(rng: random.Random) -> bytes:
    kind = rng.randrange(5)
    rows = [f'"d{i}","{_words(rng, 15)}"' for i in range(rng.randrange(0, 5))]
    if kind == 0:
        return ("id,text\n" + "\n".join(rows) + '\n"d9","never closed').encode()
    if kind == 1:
        return ("\n".join(rows)).encode()
    if kind == 2:
        return ("id,text,extra\n" + "\n".join(rows) + "\nlonely").encode()
    if kind == 3:
        return ("id,text\n" + "\n".join(rows) + "\nd\x00,te\x00xt").encode()
    return ("id,text\n" + "\n".join(rows)).encode()


def _write(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


def _some_file(rng: random.Random, folder: Path, stem: str) -> str:
    kind = rng.randrange(10)
    if kind < 5:
        return _write(folder / f"{stem}.txt", _text_bytes(rng))
    if kind == 5:
        return _write(folder / f"{stem}.html", _text_bytes(rng))
    if kind == 6:
        return _write(folder / f"{stem}.jsonl", _jsonl_bytes(rng))
    if kind == 7:
        return _write(folder / f"{stem}.csv", _csv_bytes(rng))
    if kind == 8:
        return rng.choice([str(folder / "missing.txt"), "/dev/zero", str(folder), "/proc/self/mem"])
    return _write(folder / f"{stem}.bin", rng.randbytes(rng.randrange(0, 3000)))


def _spec_options(rng: random.Random, folder: Path) -> list[str]:
    options: list[str] = []
    if rng.random() < 0.5:  # half the cases valid, so the commands get past their options
        return ["-k", str(rng.randrange(1, 9))] if rng.random() < 0.5 else []
    for _ in range(rng.randrange(0, 3)):
        choice = rng.randrange(9)
        if choice == 0:
            options += ["-k", rng.choice(HOSTILE_INTS)]
        elif choice == 1:
            options += ["--step", rng.choice(HOSTILE_INTS)]
        elif choice == 2:
            options += ["--bits", rng.choice(HOSTILE_INTS)]
        elif choice == 3:
            options += ["--seed", rng.choice(HOSTILE_INTS)]
        elif choice == 4:
            options += ["--preset", rng.choice(["plain", "ru", "en", "auto", "xx", ""])]
        elif choice == 5:
            options += ["--unit", rng.choice(["word", "char", "byte"])]
        elif choice == 6:
            options += ["--synonyms", _some_file(rng, folder, "thesaurus")]
        elif choice == 7:
            options += ["--stop-words", _some_file(rng, folder, "stop")]
        else:
            options += ["--hash", rng.choice(["crc32", "crc64", "rabin", "xxh3", "md5"])]
    return options


def _compare(rng: random.Random, folder: Path) -> list[str]:
    argv = ["compare", _some_file(rng, folder, "a"), _some_file(rng, folder, "b")]
    argv += _spec_options(rng, folder)
    if rng.random() < 0.4:
        argv.append("--fragments")
        if rng.random() < 0.3:
            argv += ["--align-k", rng.choice(HOSTILE_INTS)]
        if rng.random() < 0.3:
            argv += ["--gap", rng.choice(HOSTILE_INTS)]
    if rng.random() < 0.3:
        argv.append("--json")
    if rng.random() < 0.15:
        argv += ["--html", rng.choice([str(folder / "r.html"), "/nonexistent/dir/r.html", "/"])]
    return argv


def _analyze(rng: random.Random, folder: Path) -> list[str]:
    argv = ["analyze", _some_file(rng, folder, "a"), *_spec_options(rng, folder)]
    if rng.random() < 0.5:
        argv.append("--json")
    if rng.random() < 0.3:
        argv.append("--shingles")
    return argv


def _matrix(rng: random.Random, folder: Path) -> list[str]:
    files = [_some_file(rng, folder, f"m{i}") for i in range(rng.randrange(1, 5))]
    argv = ["matrix", *files, *_spec_options(rng, folder)]
    if rng.random() < 0.4:
        argv += ["-m", rng.choice(["containment", "resemblance", "minhash", "tfidf", "x"])]
    if rng.random() < 0.2:
        argv += ["--num-perm", rng.choice(HOSTILE_INTS)]
    return argv


def _sign(rng: random.Random, folder: Path) -> list[str]:
    argv = ["sign", _some_file(rng, folder, "s"), "-o", str(folder / "sig"), "--force", "-q"]
    argv += _spec_options(rng, folder)
    if rng.random() < 0.3:
        argv += ["-N", rng.choice(HOSTILE_INTS)]
    if rng.random() < 0.2:
        argv += ["--jobs", "1"]
    return argv


def _index(rng: random.Random, folder: Path) -> list[str]:
    db = str(folder.parent / "index.db")  # one collection that the index cases grow and query
    step = rng.randrange(4)
    if step == 0 or not Path(db).exists():
        Path(db).unlink(missing_ok=True)
        argv = ["index", "create", db]
        if rng.random() < 0.3:
            argv += _spec_options(rng, folder)
        if rng.random() < 0.2:
            argv += ["--threshold", rng.choice(HOSTILE_FLOATS)]
        if rng.random() < 0.1:
            argv += ["--window", rng.choice(HOSTILE_INTS)]
        if rng.random() < 0.1:
            argv += ["--group-cap", rng.choice(HOSTILE_INTS)]
        return argv
    if step in (1, 2):
        argv = ["index", "add", db, _some_file(rng, folder, "add")]
        if rng.random() < 0.3:
            argv += ["--batch-size", rng.choice(HOSTILE_INTS)]
        if rng.random() < 0.3:
            argv += ["--id-field", rng.choice(["id", "text", "nope", ""])]
        return argv
    argv = ["index", "check", db, _some_file(rng, folder, "q")]
    if rng.random() < 0.4:
        argv.append("--fragments")
    if rng.random() < 0.4:
        argv.append("--json")
    if rng.random() < 0.2:
        argv += ["--top", rng.choice(HOSTILE_INTS)]
    return argv
