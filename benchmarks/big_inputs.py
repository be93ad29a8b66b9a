"""Peak memory and wall time of every command on one huge text (issue 11, item 18).

The goal: a text's memory is a small multiple of its size — peak RSS ≤ 10 × the input bytes
plus a constant — for ``compare`` (with and without ``--fragments``), ``analyze`` (table,
``--json``, ``--shingles``), ``index add``, ``index check`` (with and without ``--fragments``),
``matrix`` and ``sign``.

The texts are made at run time from the works of ``../shared/data/ruslit.jsonl.gz`` (nothing of
them is kept in the repository): text A is the works in file order, text B the same works in
reverse order, each cut to the size asked for (whole UTF-8 characters), so B shares most of its
passages with A — the heavy case for ``--fragments``. ``oneline`` joins everything into one
line (newlines become spaces), ``lines`` keeps the newlines.

Every command runs as its own subprocess (``python -m neardup.cli.main``); its peak RSS is the
``ru_maxrss`` that ``os.wait4`` reports for it, and a watchdog samples ``/proc/PID/status`` every
0.1 s and kills a run that passes ``--limit-mb`` (the machine is shared), which the table then
shows as ``> limit``. "input" is the bytes of every text file the command reads (A and B for
``compare``, ``matrix`` and ``index check``, whose collection holds A). The constant is the peak
of the same command on a 1 KB text; "× input" is (peak − constant) / input bytes.

    .venv/bin/python benchmarks/big_inputs.py --sizes 1 10
    .venv/bin/python benchmarks/big_inputs.py --sizes 1 10 100 --layouts oneline --write-docs
    .venv/bin/python benchmarks/big_inputs.py --check-pieces 2   # pieced == whole, 4 presets
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA_CANDIDATES = (ROOT.parent / "shared" / "data", Path("/work/shared/data"))
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- section: big-inputs -->"
END = "<!-- end: big-inputs -->"
MB = 1_000_000

#: (name, argv after ``neardup``); A, B, DB and OUT are replaced by paths.
# the readers refuse texts over 64 MiB by default (--max-bytes); these runs are about bigger ones
NO_SIZE_CAP = ["--max-bytes", "1G"]

COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("compare", ("compare", "A", "B")),
    ("compare --fragments", ("compare", "A", "B", "--fragments")),
    ("compare --fragments --json", ("compare", "A", "B", "--fragments", "--json")),
    ("analyze", ("analyze", "A")),
    ("analyze --json", ("analyze", "A", "--json")),
    ("analyze --shingles", ("analyze", "A", "--shingles")),
    ("analyze --shingles --json", ("analyze", "A", "--shingles", "--json")),
    ("index add", ("index", "add", "DB", "A")),
    ("index check", ("index", "check", "DB", "B")),
    ("index check --fragments", ("index", "check", "DB", "B", "--fragments")),
    ("matrix", ("matrix", "A", "B")),
    ("sign", ("sign", "A", "-o", "OUT")),
)


def data_dir() -> Path:
    for path in DATA_CANDIDATES:
        if (path / "ruslit.jsonl.gz").exists():
            return path
    raise SystemExit("ruslit.jsonl.gz not found in " + ", ".join(map(str, DATA_CANDIDATES)))


def works() -> list[str]:
    with gzip.open(data_dir() / "ruslit.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line).get("text") or "" for line in fh]


def _cycle(texts: list[str]) -> Iterator[bytes]:
    while True:
        for text in texts:
            yield text.encode("utf-8") + b"\n"


def write_text(path: Path, texts: list[str], size: int, oneline: bool) -> int:
    """Write ``size`` bytes (cut at a character boundary) of the texts joined; return bytes."""
    written = 0
    with open(path, "wb") as out:
        for data in _cycle(texts):
            if oneline:
                data = re.sub(rb"\s*\n\s*", b" ", data)
            data = data[: size - written]
            while data and (data[-1] & 0xC0) == 0x80:  # never end inside a character
                data = data[:-1]
            if data and data[-1] >= 0xC0:
                data = data[:-1]
            out.write(data)
            written += len(data)
            if written >= size - 4:
                break
    return written


@dataclass
class Run:
    peak_mb: float
    wall_s: float
    status: str


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(argv: list[str], limit_mb: float, timeout: float) -> Run:
    cmd = [sys.executable, "-m", "neardup.cli.main", *argv]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killed: list[str] = []

    def watch() -> None:
        while proc.returncode is None:
            if _rss_kb(proc.pid) > limit_mb * 1000:
                killed.append(f"> {limit_mb:.0f} MB")
                proc.send_signal(signal.SIGKILL)
                return
            if time.perf_counter() - start > timeout:
                killed.append(f"> {timeout:.0f} s")
                proc.send_signal(signal.SIGKILL)
                return
            time.sleep(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    watcher.join()
    if killed:
        state = "killed " + killed[0]
    elif proc.returncode != 0:
        state = f"exit {proc.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    else:
        state = "ok"
    return Run(usage.ru_maxrss / 1000, wall, state)


def bench_size(
    label: str,
    texts: list[str],
    size: int,
    oneline: bool,
    names: list[str],
    limit_mb: float,
    timeout: float,
    workdir: Path,
) -> list[dict[str, Any]]:
    a, b = workdir / "a.txt", workdir / "b.txt"
    a_bytes = write_text(a, texts, size, oneline)
    b_bytes = write_text(b, list(reversed(texts)), size, oneline)
    rows: list[dict[str, Any]] = []
    db = workdir / "c.db"
    for name, template in COMMANDS:
        if name not in names:
            continue
        if name.startswith("index"):
            if name == "index add" or not db.exists():
                db.unlink(missing_ok=True)
                subprocess.run(
                    [sys.executable, "-m", "neardup.cli.main", "index", "create", str(db)],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
            if name != "index add" and "index add" not in names:
                # the collection must hold A for check to have something to match
                add = run(["index", "add", str(db), str(a), *NO_SIZE_CAP], limit_mb, timeout)
                if add.status != "ok":
                    raise SystemExit(f"index add failed: {add.status}")
        out = workdir / "sig"
        shutil.rmtree(out, ignore_errors=True)
        subst = {"A": str(a), "B": str(b), "DB": str(db), "OUT": str(out)}
        argv = [subst.get(x, x) for x in template] + NO_SIZE_CAP
        reads_b = "B" in template or name.startswith("index check")
        reads_a = "A" in template or name.startswith("index check")
        input_bytes = (a_bytes if reads_a else 0) + (b_bytes if reads_b else 0)
        result = run(argv, limit_mb, timeout)
        row = {
            "size": label,
            "layout": "oneline" if oneline else "lines",
            "command": name,
            "input_bytes": input_bytes,
            "peak_mb": round(result.peak_mb, 1),
            "wall_s": round(result.wall_s, 2),
            "status": result.status,
        }
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    return rows


def check_pieces(texts: list[str], size: int, workdir: Path) -> bool:
    """The canonical stream of each preset made a piece at a time (pieces of 2^12 and 2^16
    characters) against the same text analyzed whole, on a one-line and a multi-line text of
    ``size`` bytes: every array must be equal."""
    import numpy as np

    from neardup.analysis import chunked
    from neardup.analysis.analyzer import Analyzer
    from neardup.analysis.decode import read_text
    from neardup.analysis.presets import preset

    ok = True
    for oneline in (True, False):
        path = workdir / "check.txt"
        write_text(path, texts, size, oneline)
        text = read_text(path).text
        for name in ("plain", "ru", "en", "auto"):
            analyzer = Analyzer(preset(name))
            saved = chunked.CHUNK_CHARS
            chunked.CHUNK_CHARS = len(text) + 1  # whole
            try:
                whole = analyzer.canonical(text)
            finally:
                chunked.CHUNK_CHARS = saved
            for piece in (1 << 12, 1 << 16):
                start = time.perf_counter()
                cut = chunked.canonical(analyzer, text, piece)
                same = cut is not None and cut.language == whole.language
                for field in ("buf", "byte_starts", "byte_ends", "starts", "ends"):
                    same = same and np.array_equal(getattr(cut, field), getattr(whole, field))
                ok = ok and same
                print(
                    f"pieces {'oneline' if oneline else 'lines'} {len(text):,} chars, {name}, "
                    f"pieces of {piece}: {len(whole):,} tokens, "
                    f"{'identical' if same else 'DIFFERENT'} ({time.perf_counter() - start:.1f} s)",
                    flush=True,
                )
    return ok


def table(rows: list[dict[str, Any]], base: dict[str, float]) -> str:
    lines = [
        "| size | layout | command | input MB | peak RSS MB | × input (over constant) "
        "| wall s | status |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        peak = float(r["peak_mb"])
        inp = int(r["input_bytes"])
        const = base.get(str(r["command"]), 0.0)
        ratio = (peak - const) * MB / inp if inp else 0.0
        peak_txt = f"{peak:,.0f}" if r["status"] == "ok" else f"{peak:,.0f} ({r['status']})"
        lines.append(
            f"| {r['size']} | {r['layout']} | `{r['command']}` | {inp / MB:,.1f} | {peak_txt} "
            f"| {ratio:.1f} | {float(r['wall_s']):,.1f} | {r['status']} |"
        )
    return "\n".join(lines)


def write_docs(body: str) -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = f"{BEGIN}\n{body.rstrip()}\n{END}"
    if BEGIN in text:
        text = re.sub(
            re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: section, text, count=1, flags=re.S
        )
    else:
        text = text.replace("\n## History", f"\n{section}\n\n## History", 1)
    DOCS.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10], help="MB of text A")
    parser.add_argument("--layouts", nargs="+", default=["oneline", "lines"])
    parser.add_argument("--commands", nargs="+", default=[n for n, _ in COMMANDS])
    parser.add_argument("--limit-mb", type=float, default=8000, help="kill a run above this RSS")
    parser.add_argument("--timeout", type=float, default=900, help="kill a run after seconds")
    parser.add_argument("--base-passes", type=int, default=1, help="runs on the 1 KB text")
    parser.add_argument("--json-out", type=Path, help="also write the rows as JSON")
    parser.add_argument(
        "--check-pieces",
        type=float,
        metavar="MB",
        help="only compare the pieced and whole canonical streams on a text of MB megabytes",
    )
    parser.add_argument("--write-docs", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    unknown = set(args.commands) - {n for n, _ in COMMANDS}
    if unknown:
        raise SystemExit(f"unknown commands {sorted(unknown)}")
    texts = works()
    if args.check_pieces:
        with tempfile.TemporaryDirectory(prefix="neardup-big-") as tmp:
            ok = check_pieces(texts, int(args.check_pieces * MB), Path(tmp))
        raise SystemExit(0 if ok else 1)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="neardup-big-") as tmp:
        workdir = Path(tmp)
        base_rows: list[dict[str, Any]] = []
        for _ in range(args.base_passes):  # a first pass after a change fills numba's cache
            base_rows = bench_size(
                "1 KB", texts, 1000, True, args.commands, args.limit_mb, args.timeout, workdir
            )
        base = {str(r["command"]): float(r["peak_mb"]) for r in base_rows}
        for size in args.sizes:
            for layout in args.layouts:
                rows += bench_size(
                    f"{size:g} MB",
                    texts,
                    int(size * MB),
                    layout == "oneline",
                    args.commands,
                    args.limit_mb,
                    args.timeout,
                    workdir,
                )
    load = os.getloadavg()
    body = "\n".join(
        [
            "## Huge single texts in bounded memory (issue 11)",
            "",
            f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
            "(2 cores shared with other work)",
            "",
            "constant (peak on a 1 KB text), MB: "
            + ", ".join(f"`{k}` {v:,.0f}" for k, v in base.items()),
            "",
            table(rows, base),
        ]
    )
    print(body)
    if args.json_out:
        args.json_out.write_text(json.dumps({"base": base, "rows": rows}, indent=1) + "\n")
    if args.write_docs:
        write_docs(body)


if __name__ == "__main__":
    main()
