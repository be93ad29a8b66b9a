"""Load test of `neardup serve` on loopback: concurrent clients, checks and adds mixed.

Makes a fresh collection (SQLite file or PostgreSQL schema) of news texts read from a corpus
file (``../shared/data/ru_news.jsonl.gz`` by default, read where it lies: no corpus text enters
the repository), starts `neardup serve` as a subprocess as it ships (its default workers and
its default retention of checks, so every check is kept in the collection's store), and runs N
concurrent clients for S seconds, each sending `POST /api/check` (another news text of the
corpus with a passage of a stored one pasted into its middle, with passages listed for a share
of them) or `POST /api/documents` (a news text not yet stored, under a new id) in a seeded mix.
Reports errors (any non-2xx, a transport failure, or a check answered without a kept id),
p50/p99 latency per kind, requests a second; then stops the server and checks that nothing was
lost: `neardup index verify` on the collection, its size equals the seeds plus every add the
server acknowledged as accepted, every acknowledged check id is in the store of kept checks,
and how many bytes the kept checks took.

    .venv/bin/python benchmarks/serve_load.py --db /tmp/load.db
    .venv/bin/python benchmarks/serve_load.py \\
        --db 'postgresql://postgres@127.0.0.1:5432/test?schema=neardup_load' --workers 2

A PostgreSQL schema is dropped afterwards (``--keep`` leaves it). The clients run on the same
machine as the server: on a shared 2-core machine they take CPU from it, so the figures are a
floor.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
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
CORPUS = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
NEARDUP = str(Path(sys.executable).with_name("neardup"))
TOKEN = "load-test-token"
Doc = tuple[str, str, dict[str, Any]]


def read_news(path: Path, least: int, most: int) -> list[Doc]:
    """The corpus's documents of ``least``–``most`` characters, each text once, as
    ``(id, text, meta)`` with the title and url as meta (sources shown by name and link)."""
    seen: set[str] = set()
    out: list[Doc] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            text = rec.get("text") or ""
            if not least <= len(text) <= most or text in seen:
                continue
            seen.add(text)
            meta = {k: rec[k] for k in ("title", "url") if rec.get(k)}
            out.append((str(rec["id"]), text, meta))
    return out


def quoting(base: str, source: str, rng: random.Random) -> str:
    """``base`` with 40-120 words of ``source`` pasted in at a paragraph or sentence break
    near its middle."""
    words = source.split()
    n = min(len(words), rng.randint(40, 120))
    start = rng.randint(0, len(words) - n)
    quoted = " ".join(words[start : start + n])
    middle = len(base) // 2
    cut = base.find("\n", middle)
    if cut < 0:
        cut = base.find(". ", middle)
        cut = len(base) if cut < 0 else cut + 1
    return f"{base[:cut]}\n{quoted}\n{base[cut:].lstrip()}"


def make_collection(db: str, seeds: list[Doc]) -> None:
    from neardup.fingerprints.pipeline import make_spec
    from neardup.index import Collection, IndexSpec

    if db.startswith("postgresql://"):
        drop_postgres(db)
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(db + suffix).unlink(missing_ok=True)
    with Collection.create(db, make_spec("ru"), IndexSpec(policy="group", threshold=0.5)) as col:
        col.add_many(seeds, batch_size=256)


def drop_postgres(db: str) -> None:
    from neardup.storage import open_storage

    storage = open_storage(db, create=True)
    try:
        storage.drop()  # type: ignore[attr-defined]
    finally:
        storage.close()


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    accepted_adds: int = 0
    refused_adds: int = 0
    check_ids: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    def record(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def error(self, kind: str, what: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {what}")


@dataclass
class Work:
    """What the clients send: check bases, stored texts to quote, and news not yet stored to
    add (taken in turn by all clients; one event loop, so no lock)."""

    bases: list[str]
    sources: list[str]
    adds: list[Doc]
    next_add: int = 0

    def add(self) -> Doc:
        doc = self.adds[self.next_add % len(self.adds)]
        self.next_add += 1
        return doc


async def client(
    number: int,
    base: str,
    until: float,
    work: Work,
    add_share: float,
    fragments_share: float,
    stats: Stats,
) -> None:
    rng = random.Random(1000 + number)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    serial = 0
    body: dict[str, Any]
    async with httpx.AsyncClient(base_url=base, timeout=300.0) as http:
        while time.monotonic() < until:
            if rng.random() < add_share:
                kind = "add"
                serial += 1
                _, text, meta = work.add()
                doc = {"id": f"load-{number}-{serial}", "text": text, "meta": meta}
                body = {"documents": [doc]}
                url = "/api/documents"
            else:
                kind = "check+fragments" if rng.random() < fragments_share else "check"
                text = quoting(rng.choice(work.bases), rng.choice(work.sources), rng)
                body = {"text": text}
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
            out = r.json()
            if kind == "add":
                stats.accepted_adds += out["accepted"]
                stats.refused_adds += out["rejected"]
            elif "check_id" in out:
                stats.check_ids.append(out["check_id"])
            else:  # the server logged why it could not keep the check
                stats.error(kind, "answered without a check_id: the check was not kept")
                continue
            stats.record(kind, elapsed)


def wait_ready(base: str, proc: subprocess.Popen[bytes], seconds: float = 180.0) -> None:
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


def warm_up(base: str, work: Work, workers: int) -> tuple[int, list[str]]:
    """Untimed requests on every worker before the clients start; how many documents they
    added and the ids of the checks they kept."""
    rng = random.Random(0)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    added = 0
    kept: list[str] = []
    started = time.perf_counter()
    for i in range(4 * workers):
        text = quoting(rng.choice(work.bases), rng.choice(work.sources), rng)
        r = httpx.post(
            base + "/api/check",
            json={"text": text, "fragments": True},
            headers=headers,
            timeout=300,
        )
        r.raise_for_status()
        kept.append(r.json()["check_id"])
        _, doc_text, meta = work.add()
        doc = {"documents": [{"id": f"warmup-{i}", "text": doc_text, "meta": meta}]}
        r = httpx.post(base + "/api/documents", json=doc, headers=headers, timeout=300)
        r.raise_for_status()
        added += r.json()["accepted"]
    print(f"warmed up in {time.perf_counter() - started:.1f} s", flush=True)
    return added, kept


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) * 1000.0 if values else float("nan")


def store_bytes(db: str) -> int:
    """Bytes the collection takes in its store: the SQLite file with its WAL, or the
    PostgreSQL schema's relations."""
    if not db.startswith("postgresql://"):
        return sum(Path(db + s).stat().st_size for s in ("", "-wal") if Path(db + s).exists())
    from neardup.storage import open_storage

    storage = open_storage(db)
    try:
        conn = storage._conn  # type: ignore[attr-defined]
        schema = storage.schema  # type: ignore[attr-defined]
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
            (schema,),
        ).fetchone()
        return int(row[0])
    finally:
        storage.close()


def kept_present(db: str, ids: list[str]) -> tuple[int, int]:
    """How many of ``ids`` the store of kept checks holds, and how many checks it holds."""
    from neardup.index import Collection
    from neardup.storage.checks import check_store

    with Collection.open(db, readonly=True) as col:
        store = check_store(col.storage)
        present = sum(store.get(i) is not None for i in ids)
        total = len(store.list(limit=10 * len(ids) + 1000))
    return present, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db", required=True, help="A SQLite path or a postgresql:// URL (recreated)."
    )
    parser.add_argument(
        "--corpus", type=Path, default=CORPUS, help="JSON Lines (gzipped) with id, text."
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--workers", type=int, default=None, help="Server processes (default: serve's own)."
    )
    parser.add_argument("--seeds", type=int, default=2000, help="Documents stored first.")
    parser.add_argument("--add-share", type=float, default=0.3)
    parser.add_argument("--fragments-share", type=float, default=0.2)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--keep", action="store_true", help="Leave a PostgreSQL schema.")
    parser.add_argument(
        "--json", dest="json_out", default=None, help="Also write the results here."
    )
    args = parser.parse_args()

    news = read_news(args.corpus, 500, 50_000)
    random.Random(args.seed).shuffle(news)
    seeds = news[: args.seeds]
    rest = news[args.seeds :]
    work = Work(
        bases=[t for _, t, _ in rest[: len(rest) // 2]],
        sources=[t for _, t, _ in seeds],
        adds=rest[len(rest) // 2 :],
    )
    lengths = [len(t) for _, t, _ in news]
    print(
        f"{len(news)} news texts of {args.corpus.name}, median {int(np.median(lengths)):,} "
        f"characters",
        flush=True,
    )
    t0 = time.perf_counter()
    make_collection(args.db, seeds)
    print(
        f"collection of {len(seeds)} documents made in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    bytes_before = store_bytes(args.db)
    base = f"http://127.0.0.1:{args.port}"
    env = dict(os.environ, NEARDUP_TOKEN=TOKEN)
    cmd = [NEARDUP, "serve", args.db, "--port", str(args.port), "--log-level", "warning"]
    if args.workers is not None:
        cmd += ["--workers", str(args.workers)]
    workers = args.workers or 1
    proc = subprocess.Popen(cmd, env=env)
    try:
        wait_ready(base, proc)
        warmups, warm_ids = warm_up(base, work, workers)
        stats = Stats()
        uptime_before = _uptime()
        started = time.monotonic()
        until = started + args.seconds

        async def run() -> None:
            await asyncio.gather(
                *(
                    client(i, base, until, work, args.add_share, args.fragments_share, stats)
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
    acknowledged = warm_ids + stats.check_ids
    present, kept_total = kept_present(args.db, acknowledged)
    bytes_after = store_bytes(args.db)
    expected = len(seeds) + warmups + stats.accepted_adds
    total = sum(len(v) for v in stats.latencies.values())
    errors = sum(stats.errors.values())
    checks = [x for k, v in stats.latencies.items() if k != "add" for x in v]
    every = [x for v in stats.latencies.values() for x in v]
    result = {
        "db": args.db.split("?")[0] if "postgresql" in args.db else "sqlite",
        "workers": args.workers if args.workers is not None else "default",
        "clients": args.clients,
        "seconds": round(wall, 1),
        "median_characters": int(np.median(lengths)),
        "requests": total + errors,
        "errors": errors,
        "errors_by_kind": stats.errors,
        "requests_per_second": round((total + errors) / wall, 1),
        "kinds": {
            kind: {
                "n": len(v),
                "per_second": round(len(v) / wall, 2),
                "p50_ms": round(percentile(v, 50), 1),
                "p99_ms": round(percentile(v, 99), 1),
            }
            for kind, v in sorted(stats.latencies.items())
        },
        "checks_all": {
            "n": len(checks),
            "p50_ms": round(percentile(checks, 50), 1),
            "p99_ms": round(percentile(checks, 99), 1),
        },
        "all": {
            "p50_ms": round(percentile(every, 50), 1),
            "p99_ms": round(percentile(every, 99), 1),
        },
        "adds_accepted": stats.accepted_adds,
        "adds_refused": stats.refused_adds,
        "documents_after": size,
        "documents_expected": expected,
        "checks_acknowledged": len(acknowledged),
        "checks_kept_present": present,
        "checks_in_store": kept_total,
        "store_bytes_before": bytes_before,
        "store_bytes_after": bytes_after,
        "verify": verify.stdout.strip() or verify.stderr.strip(),
        "verify_exit": verify.returncode,
        "uptime_before": uptime_before,
        "uptime_after": uptime_after,
        "error_examples": stats.examples,
    }
    if args.db.startswith("postgresql://") and not args.keep:
        drop_postgres(args.db)
    print(json.dumps(result, ensure_ascii=False, indent=2))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    ok = (
        errors == 0
        and verify.returncode == 0
        and size == expected
        and present == len(acknowledged) == kept_total
    )
    print("OK: 0 errors, nothing lost" if ok else "FAILED", flush=True)
    return 0 if ok else 1


def _uptime() -> str:
    path = shutil.which("uptime")
    if path is None:
        return ""
    return subprocess.run([path], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
