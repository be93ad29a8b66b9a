"""Quality of ``neardup dedup`` against the generator's truth, beside datasketch's MinHashLSH.

Corpus: the real ru_news texts (1,000–20,000 characters, exact repeats dropped) and ``--variants``
edited copies of random real texts (``collection_data.edit``: each word replaced, deleted or
followed by an insert with probability ``rate``, ``rate`` uniform in [0.01, 0.35]), so the
true resemblance of a copy to its source spreads over 0.2–0.97.

Truth at a threshold ``t``: every pair whose exact resemblance (5-word shingles, the spec
below) is at least ``t``, among the pool of pairs anyone could know about: the generator's
pairs (copy–source, copies of one source) and every pair any method reported; the true groups
are the connected components of those pairs. (All-pairs scoring of 15k documents would be
10^8 merges; the pool is the standard way around it, and a method cannot be blamed for a pair
nobody found.)

Methods, in one run on the same input and the same 64-bit shingle fingerprints:

* **neardup dedup** — ``neardup.corpus`` at threshold ``t`` (bands × rows from the chooser,
  exact verification), its groups and edges.
* **datasketch MinHashLSH** — ``MinHash(num_perm=128, scheme='affine64', hashfunc=identity)``
  fed the same fingerprints, ``MinHashLSH(threshold=t)`` (and at its default 0.8); a pair is a
  document and any other its query returns (unverified, as LSH users typically take them);
  groups are the components of those pairs.
* **text-dedup** — its MinHash job (``python -m text_dedup.minhash``, 0.4.0: its own
  tokenization and SHA-1 hashing, 5-gram shingles, 128 permutations, its bands for ``t``) on
  the same JSONL, run from a separate environment (``--text-dedup-python``; text-dedup pins
  versions of rich and others that the project's environment does not take); its clusters
  (union-find of LSH collisions, unverified) are its groups, and its pairs every pair inside
  a cluster.

Run: ``.venv/bin/python benchmarks/dedup_quality.py [--real 9277] [--variants 6000]``; results
go to ``build/dedup_quality/results.json`` and are printed; docs/quality.md has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import collection_data as cd  # noqa: E402

from neardup._kernels.pairs import pair_overlaps  # noqa: E402
from neardup.corpus import DedupOptions, components, dedup  # noqa: E402
from neardup.fingerprints.pipeline import Pipeline, make_spec  # noqa: E402

WORK = ROOT / "build" / "dedup_quality"
# ../shared/data beside the checkout (or two levels up from a worktree under /work/wt/)
for _data in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"):
    if _data.is_dir():
        cd.DATA = _data
        break
THRESHOLDS = (0.5, 0.7, 0.9)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def build_corpus(n_real: int, n_var: int, seed: int) -> tuple[list[tuple[str, str]], list[int]]:
    """Documents and, for each, the index of its source (-1 for a real text)."""
    real = cd.load_texts("ru_news.jsonl.gz", n_real)
    rng = np.random.default_rng(seed)
    vocab = cd.vocabulary([t for _, t in real[:2000]])
    docs = list(real)
    source = [-1] * len(real)
    for j in range(n_var):
        src = int(rng.integers(len(real)))
        rate = float(rng.uniform(0.01, 0.35))
        docs.append((f"v{j}:{rate:.3f}:of:{real[src][0]}", cd.edit(real[src][1], rate, rng, vocab)))
        source.append(src)
    return docs, source


def pair_codes(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    lo, hi = np.minimum(a, b).astype(np.uint64), np.maximum(a, b).astype(np.uint64)
    return np.unique(lo * np.uint64(n) + hi)


def exact_resemblance(
    codes: np.ndarray, n: int, values: np.ndarray, offsets: np.ndarray
) -> np.ndarray:
    a = (codes // np.uint64(n)).astype(np.int64)
    b = (codes % np.uint64(n)).astype(np.int64)
    shared = pair_overlaps(values, offsets, a, b).astype(np.float64)
    sizes = np.diff(offsets).astype(np.float64)
    union = sizes[a] + sizes[b] - shared
    return np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)


def group_scores(pred: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Pairwise precision and recall of a clustering against the true one."""

    def pairs(counts: np.ndarray) -> float:
        c = counts.astype(np.float64)
        return float((c * (c - 1) / 2).sum())

    both = pairs(np.unique(np.stack([pred, truth]), axis=1, return_counts=True)[1])
    p_pairs = pairs(np.unique(pred, return_counts=True)[1])
    t_pairs = pairs(np.unique(truth, return_counts=True)[1])
    return (both / p_pairs if p_pairs else 1.0), (both / t_pairs if t_pairs else 1.0)


def datasketch_signatures(values: np.ndarray, offsets: np.ndarray) -> tuple[list[Any], float]:
    from datasketch import LeanMinHash, MinHash

    t0 = time.perf_counter()
    perms = MinHash(num_perm=128, scheme="affine64").permutations
    sigs = []
    for d in range(offsets.shape[0] - 1):
        m = MinHash(num_perm=128, scheme="affine64", hashfunc=lambda x: x, permutations=perms)
        m.update_batch(values[offsets[d] : offsets[d + 1]].tolist())
        sigs.append(LeanMinHash(m))
    return sigs, time.perf_counter() - t0


def datasketch_pairs(sigs: list[Any], threshold: float) -> tuple[np.ndarray, np.ndarray, float]:
    from datasketch import MinHashLSH

    t0 = time.perf_counter()
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    with lsh.insertion_session() as session:
        for d, m in enumerate(sigs):
            session.insert(d, m)
    a: list[int] = []
    b: list[int] = []
    for d, m in enumerate(sigs):
        for other in lsh.query(m):
            if other != d:
                a.append(d)
                b.append(int(other))
    return np.array(a, np.int64), np.array(b, np.int64), time.perf_counter() - t0


TD_CONVERT = """
import json, pickle, sys
uf = pickle.load(open(sys.argv[1], "rb"))
n = int(sys.argv[2])
print(json.dumps([int(uf.find(i)) for i in range(n)]))
"""


def text_dedup_groups(python: str, corpus: Path, n: int, threshold: float) -> tuple[Any, float]:
    """text-dedup's MinHash job (``python -m text_dedup.minhash``, its defaults but 5-word
    n-grams and 128 permutations) on the same JSONL, run by ``python`` (a separate
    environment: text-dedup pins versions this project's environment does not take); its
    union-find clusters (``--debug`` keeps ``uf.pkl``) as group roots by row."""
    import subprocess

    out = WORK / f"text_dedup_{threshold}"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    t0 = time.perf_counter()
    subprocess.run(
        [
            python,
            "-m",
            "text_dedup.minhash",
            "--path",
            "json",
            "--data_files",
            str(corpus),
            "--split",
            "train",
            "--column",
            "text",
            "--output",
            str(out),
            "--debug",
            "--threshold",
            str(threshold),
            "--num_perm",
            "128",
            "--ngram",
            "5",
            "--num_proc",
            "2",
            "--cache_dir",
            str(WORK / "hf_cache"),
        ],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    secs = time.perf_counter() - t0
    roots = subprocess.run(
        [python, "-c", TD_CONVERT, str(out / "uf.pkl"), str(n)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return np.array(json.loads(roots), np.int64), secs


def cluster_pairs(roots: np.ndarray, n: int) -> np.ndarray:
    """Every pair of documents in one cluster (how a clustering reports pairs)."""
    order = np.argsort(roots, kind="stable")
    starts = np.flatnonzero(np.concatenate(([True], roots[order][1:] != roots[order][:-1])))
    a: list[int] = []
    b: list[int] = []
    for lo, hi in zip(starts, np.append(starts[1:], n), strict=True):
        members = order[lo:hi]
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                a.append(int(members[i]))
                b.append(int(members[j]))
    return pair_codes(np.array(a, np.int64), np.array(b, np.int64), n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", type=int, default=9277)
    ap.add_argument("--variants", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--text-dedup-python",
        default="/work/bench_cache/td-venv/bin/python",
        help="a Python with text-dedup 0.4.0 installed (skipped when missing)",
    )
    args = ap.parse_args()
    has_td = Path(args.text_dedup_python).exists()
    WORK.mkdir(parents=True, exist_ok=True)
    spec = make_spec("plain", k=5)
    docs, source = build_corpus(args.real, args.variants, args.seed)
    n = len(docs)
    corpus = WORK / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for doc_id, text in docs:
            fh.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")
    n_real = n - args.variants
    log(f"{n} documents ({n_real} real, {args.variants} edited copies)")
    pipeline = Pipeline(spec)
    fps = [pipeline.fingerprints(t).values for _, t in docs]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum([f.shape[0] for f in fps], out=offsets[1:])
    values = np.concatenate(fps)
    del fps

    src = np.array(source, np.int64)
    var = np.flatnonzero(src >= 0)
    lineage = [pair_codes(var, src[var], n)]
    order = var[np.argsort(src[var], kind="stable")]  # copies of one source: siblings
    same = src[order][1:] == src[order][:-1]
    lineage.append(pair_codes(order[:-1][same], order[1:][same], n))
    lineage_codes = np.unique(np.concatenate(lineage))
    parent_codes = pair_codes(var, src[var], n)
    parent_res = exact_resemblance(parent_codes, n, values, offsets)

    found: dict[str, dict[float, Any]] = {"neardup": {}, "datasketch": {}, "text-dedup": {}}
    ds_sigs, ds_sign_s = datasketch_signatures(values, offsets)
    log(f"datasketch signatures: {ds_sign_s:.1f} s")
    for t in (*THRESHOLDS, 0.8):
        if t in THRESHOLDS:
            out = WORK / f"out_{t}"
            shutil.rmtree(out, ignore_errors=True)  # an earlier run's spec may differ
            result = dedup(
                [corpus], out, DedupOptions(threshold=t), spec=spec, jobs=args.jobs, overwrite=True
            )
            ids = {doc_id: i for i, (doc_id, _) in enumerate(docs)}
            ea, eb, groups = [], [], np.arange(n)
            with (out / "edges.jsonl").open(encoding="utf-8") as fh:
                for line in fh:
                    e = json.loads(line)
                    ea.append(ids[e["a"]])
                    eb.append(ids[e["b"]])
            with (out / "documents.jsonl").open(encoding="utf-8") as fh:
                for i, line in enumerate(fh):
                    groups[i] = ids[json.loads(line)["group"]]
            found["neardup"][t] = (
                pair_codes(np.array(ea, np.int64), np.array(eb, np.int64), n),
                groups,
                result.seconds["total"],
                (result.bands, result.rows),
            )
            log(f"neardup at {t}: {result.groups} groups, {result.seconds['total']:.1f} s")
        a, b, secs = datasketch_pairs(ds_sigs, t)
        secs += ds_sign_s
        codes = pair_codes(a, b, n)
        groups = components(n, a, b)
        found["datasketch"][t] = (codes, groups, secs, None)
        log(f"datasketch at {t}: {codes.shape[0]} pairs, {secs:.1f} s")
        if has_td:
            roots, secs = text_dedup_groups(args.text_dedup_python, corpus, n, t)
            found["text-dedup"][t] = (cluster_pairs(roots, n), roots, secs, None)
            log(f"text-dedup at {t}: {found['text-dedup'][t][0].shape[0]} pairs, {secs:.1f} s")

    pool = np.unique(
        np.concatenate([lineage_codes] + [v[0] for m in found.values() for v in m.values()])
    )
    pool_res = exact_resemblance(pool, n, values, offsets)
    results: dict[str, Any] = {
        "documents": n,
        "real": n_real,
        "variants": args.variants,
        "pool_pairs": int(pool.shape[0]),
        "rows": [],
    }
    band = (parent_res >= 0.5) & (parent_res < 0.8)
    results["copy_source_pairs_0.5_0.8"] = int(band.sum())
    band_a = (parent_codes[band] // np.uint64(n)).astype(np.int64)
    band_b = (parent_codes[band] % np.uint64(n)).astype(np.int64)
    for t in THRESHOLDS:
        true_codes = pool[pool_res >= t]
        ta = (true_codes // np.uint64(n)).astype(np.int64)
        tb = (true_codes % np.uint64(n)).astype(np.int64)
        truth_groups = components(n, ta, tb)
        for method in ("neardup", "datasketch", "text-dedup"):
            if not found[method]:
                continue
            settings = [0.5, 0.8] if method != "neardup" and t == 0.5 else [t]
            for setting in settings:
                codes, groups, secs, br = found[method][setting]
                hit = np.isin(codes, true_codes)
                row = {
                    "threshold": t,
                    "method": method,
                    "setting": setting,
                    "bands_rows": br,
                    "seconds": round(secs, 1),
                    "pairs_reported": int(codes.shape[0]),
                    "true_pairs": int(true_codes.shape[0]),
                    "pair_precision": round(float(hit.mean()) if hit.shape[0] else 1.0, 4),
                    "pair_recall": round(float(np.isin(true_codes, codes).mean()), 4),
                }
                gp, gr = group_scores(groups, truth_groups)
                row["group_precision"], row["group_recall"] = round(gp, 4), round(gr, 4)
                if t == 0.5:
                    row["recall_copies_0.5_0.8_same_group"] = round(
                        float((groups[band_a] == groups[band_b]).mean()), 4
                    )
                results["rows"].append(row)
                print(json.dumps(row), flush=True)
    (WORK / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k != "rows"}))


if __name__ == "__main__":
    main()
