"""neardup's LSHIndex side by side with datasketch ``MinHashLSH``, rensa ``RMinHashLSH`` and
gaoya ``MinHash64StringIntIndexVec``, in one run on the same documents.

Documents are generated token sets (``--docs``, 70 % originals of 50–150 distinct random
64-bit tokens, 30 % near copies of a random original at a resemblance drawn uniformly from
[0.5, 1]); tokens of different originals are independent random values, so pairs across groups
share no token and the exact Jaccard of every pair within a group is the whole truth (the
brute force over all pairs reduces to it). Every index uses the same banding, the one
``LSHIndex`` takes by default for ``--threshold`` at 128 functions (the chooser with the recall
weights 0.02 / 0.98: 23 bands × 5 rows at 0.7; ``--weights 0.5,0.5`` gives datasketch's 14 × 9):

* neardup: signatures of the token values (``MinHasher.sign_hashes``), ``add_batch``; its
  queries check every candidate's estimate against the threshold less the estimate's margin
  (``neardup.lsh.params.estimate_floor``), the peers return every candidate;
* datasketch: ``MinHashLSH(params=(14, 9))`` fed ``LeanMinHash`` objects holding neardup's
  signatures (the same signatures), inserted in an ``insertion_session``;
* rensa: ``RMinHashLSH(threshold, 126, 14)``; its ``RMinHash`` objects are made from the
  tokens as decimal strings (rensa takes no integers), inserted with ``insert_many``;
* gaoya: ``MinHash64StringIntIndexVec(0.0, 14, 9, 126)`` (threshold 0: every candidate, as
  the others return), fed the decimal string tokens with ``bulk_insert_tokens``, which signs
  too (gaoya takes no signatures): compare it with neardup's "sign + insert" column. gaoya
  runs in its own venv (``--gaoya-python``, default ``build/venv-gaoya/bin/python``; make it
  with ``python3 -m venv build/venv-gaoya && build/venv-gaoya/bin/pip install gaoya numpy``).

Each library runs in a child process of its own (the data in ``.npy`` files of a temporary
folder). Rates are per CPU second of that process (``time.process_time``: the machine is shared);
memory is the growth of the process's RSS while the index is built (the inputs are made
before, and ``malloc_trim`` hands the C heap's free pages back first, so an index that fills
the memory its inputs' temporaries freed is charged for it too); queries ask for every stored
document one at a time, then (where the library has one) in batches. Recall: the share of
within-group pairs of exact Jaccard ≥ threshold that a query returns; precision: the share of
the pairs returned that are at or above it.

Run (``--update-docs`` writes the table into docs/benchmarks.md, "LSHIndex against its
peers")::

    .venv/bin/python benchmarks/lsh_peers.py --docs 100000 --update-docs
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
NUM_PERM = 128
#: Runs of every timed step (the least CPU time counts): ``--repeat``.
REPEAT = 3
PEERS = ("neardup", "datasketch", "rensa", "gaoya")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def trim() -> None:
    """Give the C heap's free pages back to the system (glibc), so that the RSS growth of a
    build counts the memory the index holds, whether or not it was freed by something else."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# --- the data ---------------------------------------------------------------------------------
def make_data(docs: int, seed: int, threshold: float) -> dict[str, np.ndarray]:
    """``flat``/``offsets`` token sets, and the truth: within-group pairs with their exact
    Jaccard at or above ``threshold``."""
    rng = np.random.default_rng(seed)
    originals = int(docs * 0.7)
    sets: list[np.ndarray] = []
    group: list[int] = []
    for g in range(originals):
        sets.append(rng.integers(1, 2**63, int(rng.integers(50, 151)), dtype=np.uint64))
        group.append(g)
    for _ in range(docs - originals):
        g = int(rng.integers(0, originals))
        base = sets[g]
        j = rng.uniform(0.5, 1.0)
        swapped = int(round(len(base) * (1 - j) / (1 + j)))
        member = base.copy()
        member[:swapped] = rng.integers(1, 2**63, swapped, dtype=np.uint64)
        sets.append(rng.permutation(member))
        group.append(g)
    order = rng.permutation(docs)  # copies are not all at the end
    sets = [sets[i] for i in order]
    groups = np.asarray(group, dtype=np.int64)[order]
    members: dict[int, list[int]] = {}
    for d, g in enumerate(groups.tolist()):
        members.setdefault(g, []).append(d)
    truth = []
    for ds in members.values():
        for x in range(len(ds)):
            for y in range(x + 1, len(ds)):
                a, b = sets[ds[x]], sets[ds[y]]
                shared = np.intersect1d(a, b, assume_unique=True).shape[0]
                if shared / (len(a) + len(b) - shared) >= threshold:
                    truth.append((min(ds[x], ds[y]), max(ds[x], ds[y])))
    offsets = np.zeros(docs + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=offsets[1:])
    return {
        "flat": np.concatenate(sets),
        "offsets": offsets,
        "truth": np.asarray(sorted(truth), dtype=np.int64).reshape(-1, 2),
    }


def token_sets(folder: Path) -> list[np.ndarray]:
    flat = np.load(folder / "flat.npy")
    offsets = np.load(folder / "offsets.npy")
    return [flat[offsets[i] : offsets[i + 1]] for i in range(offsets.shape[0] - 1)]


def string_tokens(sets: list[np.ndarray]) -> list[list[str]]:
    return [[str(x) for x in s.tolist()] for s in sets]


# --- one library in one process ---------------------------------------------------------------
class Run:
    """Timing and memory of one library, measured in its own process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.out: dict[str, Any] = {}
        self.truth = {tuple(p) for p in np.load(folder / "truth.npy").tolist()}

    def timed(self, name: str, fn: Callable[[], Any]) -> Any:
        """The least CPU time of ``REPEAT`` runs of ``fn`` (the machine is shared)."""
        best = float("inf")
        value = None
        for _ in range(REPEAT):
            t0 = time.process_time()
            value = fn()
            best = min(best, time.process_time() - t0)
        self.out[name] = best
        return value

    def build(self, make: Callable[[], Any], fill: Callable[[Any], Any]) -> Any:
        """An index made ``REPEAT`` times (``make``, untimed; ``fill``, timed: the least CPU
        time counts); memory is the RSS growth of the first fill."""
        best = float("inf")
        index = None
        for attempt in range(REPEAT):
            index = None
            index = make()
            trim()
            before = rss()
            t0 = time.process_time()
            fill(index)
            best = min(best, time.process_time() - t0)
            if attempt == 0:
                self.out["memory_mb"] = (rss() - before) / 1e6
        self.out["insert_s"] = best
        return index

    def recall(self, found: Iterable[Iterable[int]]) -> None:
        pairs = set()
        candidates = 0
        queries = 0
        for i, ids in enumerate(found):
            queries += 1
            for j in ids:
                j = int(j)
                if j != i:
                    candidates += 1
                    pairs.add((min(i, j), max(i, j)))
        self.out["recall"] = len(pairs & self.truth) / max(1, len(self.truth))
        self.out["precision"] = len(pairs & self.truth) / max(1, len(pairs))
        self.out["candidates_per_query"] = candidates / max(1, queries)

    def finish(self, n: int) -> None:
        self.out["docs"] = n
        print(json.dumps(self.out))


def run_neardup(folder: Path, threshold: float, bands: int, rows: int) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from neardup import LSHIndex, MinHasher
    from neardup.spec import SketchSpec

    sets = token_sets(folder)
    run = Run(folder)
    hasher = MinHasher(SketchSpec(num_perm=NUM_PERM))
    banded = SketchSpec(num_perm=NUM_PERM, bands=bands, rows=rows)
    warm = LSHIndex(threshold, NUM_PERM, spec=banded)
    warm.add_batch([0, 1], hasher.sign_hashes(sets[:2]))
    warm.query_batch(hasher.sign_hashes(sets[:2]))
    warm.query(hasher.sign_hashes(sets[:1])[0])
    sigs = run.timed("sign_s", lambda: hasher.sign_hashes(sets))
    n = sigs.shape[0]
    keys = list(range(n))
    index = run.build(
        lambda: LSHIndex(threshold, NUM_PERM, spec=banded),
        lambda ix: ix.add_batch(keys, sigs),
    )
    run.out["bands_rows"] = f"{index.bands}x{index.rows}"
    found = run.timed("query_s", lambda: [[r.id for r in index.query(sigs[i])] for i in range(n)])
    run.timed(
        "batch_query_s",
        lambda: [index.query_batch(sigs[i : i + 10000]) for i in range(0, n, 10000)],
    )
    run.recall(found)
    run.finish(n)


def run_datasketch(folder: Path, threshold: float, bands: int, rows: int) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from datasketch import LeanMinHash, MinHashLSH

    from neardup import MinHasher
    from neardup.spec import SketchSpec

    sets = token_sets(folder)
    run = Run(folder)
    sigs = MinHasher(SketchSpec(num_perm=NUM_PERM)).sign_hashes(sets)
    n = sigs.shape[0]
    # 64-bit values, as neardup's (datasketch only hashes them into its band keys)
    objs = [LeanMinHash(seed=1, hashvalues=sigs[i], scheme="affine64") for i in range(n)]

    def insert(lsh: Any) -> None:
        with lsh.insertion_session() as session:
            for i in range(n):
                session.insert(i, objs[i], check_duplication=False)

    lsh = run.build(
        lambda: MinHashLSH(threshold=threshold, num_perm=NUM_PERM, params=(bands, rows)), insert
    )
    found = run.timed("query_s", lambda: [lsh.query(objs[i]) for i in range(n)])
    run.recall(found)
    run.finish(n)


def run_rensa(folder: Path, threshold: float, bands: int, rows: int) -> None:
    from rensa import RMinHash, RMinHashLSH

    sets = token_sets(folder)
    run = Run(folder)
    strings = string_tokens(sets)
    perm = bands * rows
    objs = run.timed("sign_s", lambda: RMinHash.from_token_sets(strings, perm, 1))
    n = len(objs)
    lsh = run.build(lambda: RMinHashLSH(threshold, perm, bands), lambda ix: ix.insert_many(objs, 0))
    found = run.timed("query_s", lambda: [lsh.query(objs[i]) for i in range(n)])
    run.timed(
        "batch_query_s", lambda: [lsh.query_all(objs[i : i + 10000]) for i in range(0, n, 10000)]
    )
    run.recall(found)
    run.finish(n)


def run_gaoya(folder: Path, threshold: float, bands: int, rows: int) -> None:
    import gaoya

    sets = token_sets(folder)
    run = Run(folder)
    strings = string_tokens(sets)
    n = len(strings)
    keys = list(range(n))
    index = run.build(
        lambda: gaoya.gaoya.minhash.MinHash64StringIntIndexVec(0.0, bands, rows, bands * rows),
        lambda ix: ix.bulk_insert_tokens(keys, strings),
    )
    found = run.timed("query_s", lambda: [index.query_tokens(strings[i]) for i in range(n)])
    run.timed(
        "batch_query_s",
        lambda: [index.par_bulk_query_tokens(strings[i : i + 10000]) for i in range(0, n, 10000)],
    )
    run.recall(found)
    run.finish(n)


# --- the driver -------------------------------------------------------------------------------
def child(args: argparse.Namespace) -> None:
    global REPEAT
    REPEAT = args.repeat
    folder = Path(args.data)
    if args.child == "neardup":
        run_neardup(folder, args.threshold, args.bands, args.rows)
    elif args.child == "datasketch":
        run_datasketch(folder, args.threshold, args.bands, args.rows)
    elif args.child == "rensa":
        run_rensa(folder, args.threshold, args.bands, args.rows)
    else:
        run_gaoya(folder, args.threshold, args.bands, args.rows)


def rate(n: int, seconds: float | None) -> str:
    return "—" if not seconds else f"{n / seconds:,.0f}"


def table(results: dict[str, dict[str, Any] | str], n: int) -> str:
    me = results["neardup"]
    assert isinstance(me, dict)
    lines = [
        "| library | inserts/s | sign + insert /s | queries/s (one by one) | queries/s (batch) "
        "| memory (MB) | recall | precision | results/query |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def ratio(mine: float | None, theirs: float | None, higher: bool = True) -> str:
        if not mine or not theirs:
            return ""
        r = mine / theirs if higher else theirs / mine
        return f" ({r:.1f}×)"

    for name in PEERS:
        res = results.get(name)
        if not isinstance(res, dict):
            lines.append(f"| {name} | {res or 'not run'} | | | | | | | |")
            continue
        insert = None if name == "gaoya" else res["insert_s"]
        sign_insert = res["insert_s"] + res.get("sign_s", 0) if name != "datasketch" else None
        cells = [
            rate(n, insert) + ("" if name == "neardup" else ratio(me["insert_s"], insert, False)),
            rate(n, sign_insert)
            + (
                ""
                if name == "neardup"
                else ratio(me["insert_s"] + me["sign_s"], sign_insert, False)
            ),
            rate(n, res["query_s"])
            + ("" if name == "neardup" else ratio(me["query_s"], res["query_s"], False)),
            rate(n, res.get("batch_query_s"))
            + (
                ""
                if name == "neardup"
                else ratio(me["batch_query_s"], res.get("batch_query_s"), False)
            ),
            f"{res['memory_mb']:.0f}"
            + ("" if name == "neardup" else ratio(res["memory_mb"], me["memory_mb"], False)),
            f"{res['recall']:.4f}",
            f"{res.get('precision', 0.0):.4f}",
            f"{res['candidates_per_query']:.2f}",
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


SECTION = "<!-- section: lsh-peers -->"
SECTION_END = "<!-- end: lsh-peers -->"
NOTES = "<!-- lsh-peers: notes -->"


def section(summary: dict[str, Any], caption: str, command: str) -> str:
    """The docs/benchmarks.md section of one run."""
    return "\n".join(
        [
            "## LSHIndex against its peers",
            "",
            "neardup's `LSHIndex` side by side with datasketch `MinHashLSH`, rensa "
            "`RMinHashLSH` and gaoya `MinHash64StringIntIndexVec` (gaoya in its own venv, not "
            "in the package's extras), each in a process of its own, on the same generated "
            "documents (`benchmarks/lsh_peers.py` says how they are made and fed to each). "
            "Measured on a shared, loaded 2-core machine: rates are per CPU second of the "
            "library's process, the best of the runs; memory is the RSS growth while the index "
            "is built. Produced by:",
            "",
            "```text",
            command,
            "```",
            "",
            caption,
            "",
            table(summary["results"], summary["docs"]),
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=50000)
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--weights",
        default="",
        help="the chooser's false positive,negative weights (default: LSHIndex's own)",
    )
    ap.add_argument("--gaoya-python", default=str(ROOT / "build" / "venv-gaoya" / "bin" / "python"))
    ap.add_argument("--only", default=",".join(PEERS), help="comma-separated libraries")
    ap.add_argument("--repeat", type=int, default=REPEAT, help="runs of each timed step")
    ap.add_argument(
        "--update-docs", action="store_true", help="write the table into docs/benchmarks.md"
    )
    ap.add_argument("--child", choices=PEERS, help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--bands", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rows", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from neardup.lsh.params import RECALL_WEIGHTS
    from neardup.sketch import choose

    fp_weight, fn_weight = (
        [float(w) for w in args.weights.split(",")] if args.weights else RECALL_WEIGHTS
    )
    choice = choose(args.threshold, NUM_PERM, fp_weight=fp_weight, fn_weight=fn_weight)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="lsh_peers_") as tmp:
        folder = Path(tmp)
        log(f"making {args.docs} documents …")
        for name, arr in make_data(args.docs, args.seed, args.threshold).items():
            np.save(folder / f"{name}.npy", arr)
        truth = np.load(folder / "truth.npy").shape[0]
        log(f"{truth} pairs at Jaccard ≥ {args.threshold}; banding {choice.bands}×{choice.rows}")
        results: dict[str, dict[str, Any] | str] = {}
        for name in args.only.split(","):
            python = sys.executable
            if name == "gaoya":
                if not Path(args.gaoya_python).exists():
                    results[name] = f"not installed ({args.gaoya_python} missing)"
                    continue
                python = args.gaoya_python
            cmd = [python, __file__, "--child", name, "--data", tmp]
            cmd += ["--threshold", str(args.threshold), "--bands", str(choice.bands)]
            cmd += ["--rows", str(choice.rows), "--repeat", str(args.repeat)]
            log(f"running {name} …")
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode:
                results[name] = "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
                log(proc.stderr[-2000:])
                continue
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
            log(json.dumps(results[name]))
    load_after = os.getloadavg()[0]
    summary = {"docs": args.docs, "truth_pairs": truth, "results": results}
    print(json.dumps(summary, indent=1))
    caption = (
        f"{args.docs:,} documents, {truth:,} pairs at Jaccard ≥ {args.threshold}, "
        f"{choice.bands} bands × {choice.rows} rows for all; best of {args.repeat} runs; "
        f"load average {load_before:.2f} before, {load_after:.2f} after; "
        "(n×) = neardup's rate ÷ the peer's, and for memory neardup's ÷ the peer's"
    )
    print()
    print(caption)
    print()
    print(table(results, args.docs))
    if args.update_docs:
        from doc_sections import rewrite_section

        command = ".venv/bin/python benchmarks/lsh_peers.py " + " ".join(sys.argv[1:])
        rewrite_section(
            ROOT / "docs" / "benchmarks.md",
            SECTION,
            SECTION_END,
            section(summary, caption, command),
            keep=NOTES,
        )


if __name__ == "__main__":
    main()
