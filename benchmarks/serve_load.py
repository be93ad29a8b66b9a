"""Load test of `neardup serve` on loopback: concurrent clients, checks and adds mixed.

Makes a fresh collection (SQLite file or PostgreSQL schema), seeds it with generated texts,
starts `neardup serve` as a subprocess, and runs N concurrent clients for S seconds, each
sending `POST /api/check` (a text quoting a passage of a stored one, with fragments for a
share of them) or `POST /api/documents` (a new text, unique id) in a seeded mix. Reports
errors (any non-2xx or transport failure), p50/p99 latency per kind, requests a second; then
stops the server and checks that nothing was lost: `neardup index verify` on the collection,
and its size equals the seeds plus every add the server acknowledged as accepted.

Texts are generated here (Cyrillic syllable words with a Zipf-like frequency): no corpus text.

    .venv/bin/python benchmarks/serve_load.py --db /tmp/load.db
    .venv/bin/python benchmarks/serve_load.py \\
        --db 'postgresql://postgres@127.0.0.1:5432/test?schema=neardup_load' --workers 2

The clients run on the same machine as the server: on a shared 2-core machine they take CPU
from it, so the figures are a floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NEARDUP = str(Path(sys.executable).with_name("neardup"))
TOKEN = "load-test-token"
_CONSONANTS = "бвгдзклмнпрстфх"
_VOWELS = "аеиоуыя"


def vocabulary(size: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    out: set[str] = set()
    while len(out) < size:
        out.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(out)


@dataclass
class Corpus:
    words: list[str]
    weights: np.ndarray
    rng: np.random.Generator

    @classmethod
    def make(cls, seed: int) -> Corpus:
        words = vocabulary(5000, seed)
        weights = 1.0 / np.arange(1, len(words) + 1) ** 0.9
        return cls(words, weights / weights.sum(), np.random.default_rng(seed))

    def text(self, n: int) -> str:
        idx = self.rng.choice(len(self.words), size=n, p=self.weights)
        out = [self.words[int(i)] for i in idx]
        for i in range(12, n, 15):  # sentences
            out[i] += "."
        return " ".join(out)


def quoting(corpus: Corpus, source: str, rng: random.Random) -> str:
    """A new text that quotes 40-120 words of ``source``."""
    words = source.split()
    n = min(len(words), rng.randint(40, 120))
    start = rng.randint(0, len(words) - n)
    quoted = " ".join(words[start : start + n])
    return f"{corpus.text(rng.randint(80, 200))} {quoted} {corpus.text(60)}"


def make_collection(db: str, seeds: list[tuple[str, str]]) -> None:
    from neardup.index import Collection, IndexSpec
    from neardup.pipeline import make_spec

    if db.startswith("postgresql://"):
        from neardup.storage import open_storage

        storage = open_storage(db, create=True)
        try:
            storage.drop()  # type: ignore[attr-defined]
        finally:
            storage.close()
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(db + suffix).unlink(missing_ok=True)
    with Collection.create(db, make_spec("ru"), IndexSpec(policy="group", threshold=0.5)) as col:
        col.add_many(seeds, batch_size=256)


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    accepted_adds: int = 0
    refused_adds: int = 0
    examples: list[str] = field(default_factory=list)

    def record(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def error(self, kind: str, what: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {what}")


async def client(
    number: int,
    base: str,
    until: float,
    texts: list[str],
    corpus: Corpus,
    add_share: float,
    fragments_share: float,
    stats: Stats,
) -> None:
    rng = random.Random(1000 + number)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    serial = 0
    body: dict[str, Any]
    async with httpx.AsyncClient(base_url=base, timeout=120.0) as http:
        while time.monotonic() < until:
            if rng.random() < add_share:
                kind = "add"
                serial += 1
                body = {"documents": [{"id": f"load-{number}-{serial}", "text": corpus.text(250)}]}
                url = "/api/documents"
            else:
                kind = "check+fragments" if rng.random() < fragments_share else "check"
                body = {"text": quoting(corpus, rng.choice(texts), rng)}
                if kind == "check+fragments":
                    body["fragments"] = True
                url = "/api/check"
            started = time.perf_counter()
            try:
                r = await http.post(url, json=body, headers=headers)
            except httpx.HTTPError as exc:
                stats.error(kind, f"{type(exc).__name__}: {exc}")
                continue
            elapsed = time.perf_counter() - started
            if r.status_code != 200:
                stats.error(kind, f"{r.status_code} {r.text[:200]}")
                continue
            stats.record(kind, elapsed)
            if kind == "add":
                out = r.json()
                stats.accepted_adds += out["accepted"]
                stats.refused_adds += out["rejected"]


def wait_ready(base: str, proc: subprocess.Popen[bytes], seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with code {proc.returncode}")
        try:
            if httpx.get(base + "/api/stats", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("the server did not answer in time")


def warm_up(base: str, corpus: Corpus, texts: list[str], workers: int) -> int:
    """Untimed requests until every worker has loaded its dictionaries and compiled its
    kernels; returns how many documents they added."""
    rng = random.Random(0)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    added = 0
    started = time.perf_counter()
    for i in range(4 * workers):
        body = {"text": quoting(corpus, rng.choice(texts), rng), "fragments": True}
        httpx.post(base + "/api/check", json=body, headers=headers, timeout=300).raise_for_status()
        doc = {"documents": [{"id": f"warmup-{i}", "text": corpus.text(250)}]}
        r = httpx.post(base + "/api/documents", json=doc, headers=headers, timeout=300)
        r.raise_for_status()
        added += r.json()["accepted"]
    print(f"warmed up in {time.perf_counter() - started:.1f} s", flush=True)
    return added


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) * 1000.0 if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db", required=True, help="A SQLite path or a postgresql:// URL (recreated)."
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=1, help="Server processes (PostgreSQL).")
    parser.add_argument("--seeds", type=int, default=500, help="Documents in the collection first.")
    parser.add_argument("--add-share", type=float, default=0.3)
    parser.add_argument("--fragments-share", type=float, default=0.2)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--json", dest="json_out", default=None, help="Also write the results here."
    )
    args = parser.parse_args()

    corpus = Corpus.make(args.seed)
    seeds = [
        (f"seed-{i}", corpus.text(int(corpus.rng.integers(150, 400)))) for i in range(args.seeds)
    ]
    t0 = time.perf_counter()
    make_collection(args.db, seeds)
    print(
        f"collection of {args.seeds} documents made in {time.perf_counter() - t0:.1f} s", flush=True
    )
    base = f"http://127.0.0.1:{args.port}"
    env = dict(os.environ, NEARDUP_TOKEN=TOKEN)
    cmd = [
        NEARDUP,
        "serve",
        args.db,
        "--port",
        str(args.port),
        "--workers",
        str(args.workers),
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(cmd, env=env)
    try:
        wait_ready(base, proc)
        warmups = warm_up(base, corpus, texts=[t for _, t in seeds], workers=args.workers)
        stats = Stats()
        texts = [t for _, t in seeds]
        uptime_before = _uptime()
        started = time.monotonic()
        until = started + args.seconds

        async def run() -> None:
            await asyncio.gather(
                *(
                    client(
                        i, base, until, texts, corpus, args.add_share, args.fragments_share, stats
                    )
                    for i in range(args.clients)
                )
            )

        asyncio.run(run())
        wall = time.monotonic() - started
        uptime_after = _uptime()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    verify = subprocess.run([NEARDUP, "index", "verify", args.db], capture_output=True, text=True)
    from neardup.index import Collection

    with Collection.open(args.db, readonly=True) as col:
        size = len(col)
    expected = args.seeds + warmups + stats.accepted_adds
    total = sum(len(v) for v in stats.latencies.values())
    errors = sum(stats.errors.values())
    result = {
        "db": args.db.split("?")[0] if "postgresql" in args.db else "sqlite",
        "workers": args.workers,
        "clients": args.clients,
        "seconds": round(wall, 1),
        "requests": total + errors,
        "errors": errors,
        "requests_per_second": round((total + errors) / wall, 1),
        "kinds": {
            kind: {
                "n": len(v),
                "p50_ms": round(percentile(v, 50), 1),
                "p99_ms": round(percentile(v, 99), 1),
            }
            for kind, v in sorted(stats.latencies.items())
        },
        "all": {
            "p50_ms": round(percentile([x for v in stats.latencies.values() for x in v], 50), 1),
            "p99_ms": round(percentile([x for v in stats.latencies.values() for x in v], 99), 1),
        },
        "adds_accepted": stats.accepted_adds,
        "adds_refused": stats.refused_adds,
        "documents_after": size,
        "documents_expected": expected,
        "verify": verify.stdout.strip() or verify.stderr.strip(),
        "verify_exit": verify.returncode,
        "uptime_before": uptime_before,
        "uptime_after": uptime_after,
        "error_examples": stats.examples,
    }
    print(json.dumps(result, ensure_ascii=False, indent=2))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    ok = errors == 0 and verify.returncode == 0 and size == expected
    print("OK: 0 errors, nothing lost" if ok else "FAILED", flush=True)
    return 0 if ok else 1


def _uptime() -> str:
    path = shutil.which("uptime")
    if path is None:
        return ""
    return subprocess.run([path], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
