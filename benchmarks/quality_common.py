"""Shared parts of the quality benchmarks (quality_pairs.py, quality_clusters.py,
quality_partial.py): the datasets, our methods and the other tools' beside them, and the
writing of results into docs/quality.md.

The other tools, as their users run them:

* **datasketch MinHash** — lowercase whitespace-split words, shingles of ``k`` words joined by
  spaces, ``MinHash(num_perm=128)`` fed with ``update_batch`` of the UTF-8 shingles, scored
  by ``MinHash.jaccard``; **datasketch MinHashLSH** — the same MinHashes in a
  ``MinHashLSH(threshold=t)``, a pair found when one is returned by querying the other.
* **scikit-learn TF-IDF** — ``TfidfVectorizer()`` with its defaults (lowercase, word tokens
  of 2+ characters, smoothed IDF, L2 norm) fitted on the dataset's texts, cosine.

Nothing here re-implements our methods: ours come from ``neardup.eval.methods``.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
WORK = ROOT / "build" / "quality"
DOCS = ROOT / "docs" / "quality.md"
IMG = ROOT / "docs" / "img"
MYTHES_RU = Path("/usr/share/mythes/th_ru_RU_v2.dat")

sys.path.insert(0, str(ROOT / "src"))

from doc_sections import rewrite_section

from neardup.eval import generate as gen
from neardup.eval import methods
from neardup.fingerprints.pipeline import make_spec
from neardup.spec import Spec


def need_data(*names: str) -> None:
    missing = [n for n in names if not (DATA / n).exists()]
    if missing:
        print(f"this benchmark needs {', '.join(missing)} in {DATA}", file=sys.stderr)
        raise SystemExit(2)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# datasets


def ensure_dataset(name: str, config: gen.GenerateConfig, work: Path = WORK) -> Path:
    """The generated dataset ``name`` in ``work``: reused when its meta.json records the same
    parameters and corpus, generated otherwise."""
    out = work / name
    meta_path = out / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if (
            meta.get("params") == config.to_dict()
            and meta.get("generator_version") == gen.GENERATOR_VERSION
        ):
            log(f"[{name}] using {out}")
            return out
    log(f"[{name}] generating into {out} …")
    t0 = time.perf_counter()
    dataset = gen.generate(config)
    gen.write_dataset(dataset, out)
    log(
        f"[{name}] {dataset.meta['counts']['documents']} documents, "
        f"{dataset.meta['counts']['pairs']} pairs in {time.perf_counter() - t0:.0f} s; skipped: "
        f"{dataset.meta['skipped'] or 'nothing'}"
    )
    return out


# ---------------------------------------------------------------------------------------------
# the entries of a comparison


@dataclass
class Entry:
    """One row of a comparison: a label, a scorer, and where it comes from."""

    label: str
    scorer: Any
    origin: str  # "neardup" or the other tool's name
    method: str = ""
    spec: Spec | None = None
    params: dict[str, str] = field(default_factory=dict)


def ours(
    method: str,
    preset: str,
    label: str | None = None,
    *,
    k: int = 5,
    synonyms: str | None = None,
    params: dict[str, str] | None = None,
) -> Entry:
    spec = make_spec(preset, k=k, synonyms=synonyms)
    name = label or f"{method} [{preset}{'+syn' if synonyms else ''}]"
    return Entry(
        name, methods.build(method, spec, params), "neardup", method, spec, dict(params or {})
    )


_WS = re.compile(r"\s+")


def plain_shingles(text: str, k: int) -> list[bytes]:
    """What datasketch users feed it: lowercase words split on whitespace, ``k`` at a time."""
    words = _WS.split(text.lower().strip())
    words = [w for w in words if w]
    if len(words) < k:
        return [" ".join(words).encode("utf-8")] if words else []
    return [" ".join(words[i : i + k]).encode("utf-8") for i in range(len(words) - k + 1)]


class DatasketchMinHash:
    """datasketch's MinHash of lowercase word shingles, scored by ``MinHash.jaccard``."""

    def __init__(self, k: int = 5, num_perm: int = 128) -> None:
        import datasketch

        self.datasketch = datasketch
        self.k = k
        self.num_perm = num_perm

    def features(self, texts: Sequence[str], progress: Any = None) -> list[Any]:
        out = []
        for text in texts:
            m = self.datasketch.MinHash(num_perm=self.num_perm)
            m.update_batch(plain_shingles(text, self.k))
            out.append(m)
        return out

    def score(self, features: list[Any], a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(
            [features[i].jaccard(features[j]) for i, j in zip(a.tolist(), b.tolist())],
            dtype=np.float64,
        )

    def neighbours(
        self, features: list[Any], threshold: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidates from ``MinHashLSH(threshold)``, kept when ``jaccard`` is at least it."""
        lsh = self.datasketch.MinHashLSH(threshold=threshold, num_perm=self.num_perm)
        for i, m in enumerate(features):
            lsh.insert(i, m, check_duplication=False)
        out_i, out_j, out_s = [], [], []
        for i, m in enumerate(features):
            for j in lsh.query(m):
                if j > i:
                    s = m.jaccard(features[j])
                    if s >= threshold and s > 0:
                        out_i.append(i)
                        out_j.append(j)
                        out_s.append(s)
        return (
            np.asarray(out_i, dtype=np.int64),
            np.asarray(out_j, dtype=np.int64),
            np.asarray(out_s, dtype=np.float64),
        )


class DatasketchLSH(DatasketchMinHash):
    """datasketch's MinHashLSH as a yes/no answer: 1.0 when querying ``a`` returns ``b``."""

    def __init__(self, threshold: float, k: int = 5, num_perm: int = 128) -> None:
        super().__init__(k, num_perm)
        self.threshold = threshold

    def features(self, texts: Sequence[str], progress: Any = None) -> tuple[list[Any], Any]:
        hashes = super().features(texts)
        lsh = self.datasketch.MinHashLSH(threshold=self.threshold, num_perm=self.num_perm)
        for i, m in enumerate(hashes):
            lsh.insert(i, m, check_duplication=False)
        return hashes, lsh

    def score(self, features: Any, a: np.ndarray, b: np.ndarray) -> np.ndarray:  # type: ignore[override]
        hashes, lsh = features
        cache: dict[int, set[int]] = {}
        out = np.zeros(a.shape[0], dtype=np.float64)
        for p, (i, j) in enumerate(zip(a.tolist(), b.tolist())):
            if i not in cache:
                cache[i] = set(lsh.query(hashes[i]))
            out[p] = 1.0 if j in cache[i] else 0.0
        return out


class SklearnTfidf:
    """scikit-learn's ``TfidfVectorizer()`` with its defaults on the raw texts, cosine."""

    def features(self, texts: Sequence[str], progress: Any = None) -> Any:
        from sklearn.feature_extraction.text import TfidfVectorizer

        return TfidfVectorizer().fit_transform(list(texts)).tocsr()

    def score(self, features: Any, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return methods.rowwise_cosine(features, a, b)

    def neighbours(
        self, features: Any, threshold: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return methods.cosine_neighbours(features, threshold)


def theirs(lsh_threshold: float = 0.5, k: int = 5) -> list[Entry]:
    return [
        Entry(f"datasketch MinHash (k={k})", DatasketchMinHash(k), "datasketch"),
        Entry(
            f"datasketch MinHashLSH t={lsh_threshold:g} (k={k})",
            DatasketchLSH(lsh_threshold, k),
            "datasketch",
        ),
        Entry("scikit-learn TF-IDF", SklearnTfidf(), "scikit-learn"),
    ]


# ---------------------------------------------------------------------------------------------
# features shared between methods of one spec


class FeatureCache:
    """Features computed once per (kind of scorer, spec): resemblance, containment and Sørensen
    of one spec share their fingerprint table."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], Any] = {}

    def features(self, entry: Entry, texts: Sequence[str], key: str) -> Any:
        if isinstance(entry.scorer, methods.SetScorer) and entry.spec is not None:
            cache_key = (key, entry.spec.fingerprint())
            if cache_key not in self._cache:
                self._cache[cache_key] = entry.scorer.features(texts)
            return self._cache[cache_key]
        return entry.scorer.features(texts)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# docs/quality.md


def update_section(name: str, body: str, path: Path = DOCS) -> None:
    """Replace the text between ``<!-- results: name -->`` and ``<!-- end: name -->``."""
    rewrite_section(path, f"<!-- results: {name} -->", f"<!-- end: {name} -->", body)


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return "\n".join(lines)


def machine_note() -> str:
    import os
    import platform

    return (
        f"Python {platform.python_version()}, {os.cpu_count()} cores shared with other jobs; "
        f"{time.strftime('%Y-%m-%d')}"
    )
