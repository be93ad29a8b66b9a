"""The Spark engine on a real multi-process cluster gives the local engine's groups (issue 26).

``neardup dedup --engine spark --master local-cluster[2,1,1024]`` runs in a child process:
Spark's ``local-cluster`` master starts a standalone master and two workers inside the driver
JVM, and each worker launches its executor as a JVM process of its own, with Python workers
beside it — the shuffles, the broadcasts and the checkpoints cross process boundaries as they
do on a cluster. The test watches the child's process tree and requires the two executor JVMs,
so a run that quietly fell back to local mode fails.

Java missing, or a cluster that cannot start, fails the test with the command's own error (as
the other Spark tests do through ``neardup.spark.session``), never a silent skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.corpus import partition, read_groups
from tests import _textgen

pytestmark = [pytest.mark.spark, pytest.mark.heavy]

MASTER = "local-cluster[2,1,1024]"
EXECUTOR_CLASS = "org.apache.spark.executor.CoarseGrainedExecutorBackend"
# a guard against a cluster that never gets its executors (Spark then waits for ever): the run
# took 2.5 minutes on the loaded 2-core machine
GUARD_S = 900


def cluster_corpus(n_base: int = 1500, seed: int = 26) -> list[dict[str, str]]:
    """``n_base`` texts of 80–400 words, then near-copies of a third of them at word-edit rates
    on both sides of t = 0.7 for 3-word shingles (exact copies, 1–8 % edited), chains of
    copies of copies (groups held together by pairs under the threshold end to end), and a
    text pasted in a longer one; all shuffled, so a group's members are far apart in input
    order."""
    rng = np.random.default_rng(seed)
    docs: list[tuple[str, str]] = []
    for i in range(n_base):
        docs.append((f"b{i}", _textgen.text(int(rng.integers(80, 401)), seed=10_000 + i)))
    rates = [0.0, 0.01, 0.02, 0.04, 0.06, 0.08]
    for i in range(0, n_base, 3):
        base = docs[i][1]
        rate = rates[(i // 3) % len(rates)]
        docs.append((f"b{i}~{rate}", _textgen.edit(base, rate, seed=20_000 + i)))
    for c in range(60):  # chains: each link a 5 % edit of the one before
        text = docs[int(rng.integers(n_base))][1]
        for link in range(4):
            text = _textgen.edit(text, 0.05, seed=30_000 + 10 * c + link)
            docs.append((f"chain{c}.{link}", text))
    for p in range(20):
        inner = docs[int(rng.integers(n_base))][1]
        docs.append((f"paste{p}", _textgen.text(40, seed=40_000 + p) + " " + inner))
    order = rng.permutation(len(docs))
    return [{"id": docs[j][0], "text": docs[j][1]} for j in order]


def descendants(root: int) -> dict[int, str]:
    """``{pid: command line}`` of every process under ``root`` (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        parent[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out: dict[int, str] = {}
    for pid in parent:
        p = pid
        while p in parent and p != root:
            p = parent[p]
        if p == root and pid != root:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    out[pid] = fh.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
    return out


def run_watched(cmd: list[str]) -> tuple[subprocess.CompletedProcess[str], set[int]]:
    """Run ``cmd``; the pids of the executor JVMs seen under it while it ran."""
    executors: set[int] = set()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.5):
            executors.update(
                pid for pid, line in descendants(proc.pid).items() if EXECUTOR_CLASS in line
            )

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        out, err = proc.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(
            f"{MASTER} did not finish in {GUARD_S} s (executors seen: {len(executors)}): the "
            f"cluster could not start or run its executors\n{err[-4000:]}"
        )
    finally:
        done.set()
        watcher.join()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), executors


def test_local_cluster_gives_the_local_engines_groups(tmp_path: Path) -> None:
    records = cluster_corpus()
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    neardup = str(Path(sys.executable).with_name("neardup"))
    common = ["-p", "plain", "-k", "3", "-t", "0.7", "--format", "jsonl", "-q"]
    local = subprocess.run(
        [neardup, "dedup", str(path), "--out", str(tmp_path / "local"), "--jobs", "2", *common],
        capture_output=True,
        text=True,
    )
    assert local.returncode == 0, local.stderr
    cluster, executors = run_watched(
        [neardup, "dedup", str(path), "--out", str(tmp_path / "cluster"), "--engine", "spark"]
        + ["--master", MASTER, *common]
    )
    assert cluster.returncode == 0, (
        f"`neardup dedup --engine spark --master {MASTER}` failed (exit {cluster.returncode}): "
        f"Java 17 and neardup[spark] are needed, and the cluster must start\n"
        f"{cluster.stderr[-4000:]}"
    )
    summary: dict[str, Any] = json.loads(cluster.stdout)
    assert (summary["engine"], summary["master"]) == ("spark", MASTER)
    assert len(executors) == 2, f"expected two executor JVMs under the run, saw {executors}"

    groups = read_groups(tmp_path / "cluster")
    local_groups = read_groups(tmp_path / "local")
    assert groups == local_groups  # every document's group id, not only the partition
    parts = partition(groups)
    assert summary["documents"] == len(records) == 2_260
    assert summary["groups"] == len(parts) == 1_666
    assert max(len(p) for p in parts) == 8

    def lines(folder: Path, name: str) -> list[str]:
        return (folder / name).read_text("utf-8").splitlines()

    # the same records (kept, similarity, representative) and the same verified pairs
    assert lines(tmp_path / "cluster", "documents.jsonl") == lines(
        tmp_path / "local", "documents.jsonl"
    )
    assert lines(tmp_path / "cluster", "edges.jsonl") == lines(tmp_path / "local", "edges.jsonl")
    assert summary["verified_pairs"] == 602
    # 49 groups hold two documents with no verified pair between them: joined through others,
    # which the cluster's component rounds must follow across executors
    edges = {
        tuple(sorted((e["a"], e["b"])))
        for e in map(json.loads, lines(tmp_path / "cluster", "edges.jsonl"))
    }
    transitive = [p for p in parts if any((a, b) not in edges for a in p for b in p if a < b)]
    assert len(transitive) == 49
