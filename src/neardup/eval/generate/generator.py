"""The generator: a dataset of labelled pairs and partial copies from a configuration, and
its files."""

from __future__ import annotations

import hashlib
import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from neardup.errors import ConfigurationError, InputError
from neardup.eval.formats import Fragment, write_jsonl
from neardup.eval.generate.corpus import CorpusDoc, _rare_word_matrix, _Reuse, read_corpus
from neardup.eval.generate.edits import (
    EditLog,
    add_boilerplate,
    apply_kind,
    edit_words,
    paste,
    take_fragment,
    word_spans,
)
from neardup.eval.generate.kinds import (
    DEFAULT_KINDS,
    DEFAULT_LEVELS,
    GENERATOR_VERSION,
    NEGATIVE_KINDS,
    WORD_RE,
    Progress,
    parse_kind,
)
from neardup.eval.generate.language import Language, load_synonyms
from neardup.eval.templates import SKINS


@dataclass(frozen=True)
class GenerateConfig:
    """Everything a generated dataset depends on (recorded in its ``meta.json``)."""

    corpus: str
    lang: str = "ru"
    task: str = "near"  # or "partial"
    docs: int = 100
    kinds: tuple[str, ...] = DEFAULT_KINDS
    levels: tuple[float, ...] = DEFAULT_LEVELS
    negatives: tuple[str, ...] = NEGATIVE_KINDS
    shares: tuple[float, ...] = DEFAULT_LEVELS
    obfuscation: tuple[float, ...] = (0.0, 0.1)
    min_chars: int = 2000
    max_chars: int = 6000
    thesaurus: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.task not in ("near", "partial"):
            raise ConfigurationError(f"task must be near or partial, got {self.task!r}")
        if self.lang not in ("ru", "en"):
            raise ConfigurationError(f"language must be ru or en, got {self.lang!r}")
        if self.docs <= 0:
            raise ConfigurationError(f"docs must be positive, got {self.docs}")
        for kind in self.kinds:
            parse_kind(kind)
        for value in (*self.levels, *self.shares, *self.obfuscation):
            if not 0.0 <= value <= 1.0:
                raise ConfigurationError(
                    f"levels, shares and obfuscation rates must be in [0, 1], got {value}"
                )
        for neg in self.negatives:
            if neg not in NEGATIVE_KINDS:
                raise ConfigurationError(
                    f"unknown negative kind {neg!r}; known: {', '.join(NEGATIVE_KINDS)}"
                )
        if not 0 <= self.seed < 2**63:
            raise ConfigurationError(f"seed must be in [0, 2^63), got {self.seed}")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out


@dataclass
class GeneratedDataset:
    """The generated records, ready to be written (see :func:`write_dataset`)."""

    meta: dict[str, Any]
    documents: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    fragments: list[Fragment]


def _file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _rng(seed: int, *parts: int | str) -> np.random.Generator:
    key = [seed] + [zlib.crc32(p.encode("utf-8")) if isinstance(p, str) else int(p) for p in parts]
    return np.random.default_rng(key)


def _level_key(level: float) -> int:
    return round(level * 1_000_000)


def _fmt_level(level: float) -> str:
    return f"{level:g}"


class _Generator:
    def __init__(self, config: GenerateConfig, progress: Progress) -> None:
        self.config = config
        self.progress = progress
        self.skipped: list[str] = []
        synonyms = None
        if config.thesaurus:
            synonyms = load_synonyms(config.thesaurus)
        self.language = Language(config.lang, synonyms)
        self.pool, self.read = read_corpus(
            config.corpus, config.lang, config.min_chars, config.max_chars
        )
        if len(self.pool) < 2:
            raise InputError(
                f"{config.corpus}: only {len(self.pool)} usable document(s) between "
                f"{config.min_chars} and {config.max_chars} characters in {config.lang} script "
                "(exact duplicates excluded)"
            )
        n = min(config.docs, len(self.pool) if config.task == "near" else len(self.pool) // 2)
        rng = _rng(config.seed, "sources")
        self.sources = [
            self.pool[i]
            for i in np.sort(rng.choice(len(self.pool), size=n, replace=False)).tolist()
        ]
        self.vocabulary = [
            w.lower() for d in self.sources for w in WORD_RE.findall(d.text) if w.isalpha()
        ]
        self.reuse = _Reuse()
        self.documents: dict[str, dict[str, Any]] = {}
        self.pairs: list[dict[str, Any]] = []
        self.fragments: list[Fragment] = []
        self._rare: Any = None

    def tick(self) -> None:
        if self.progress is not None:
            self.progress(1)

    def add_document(self, doc_id: str, text: str, cluster: str, kind: str, **extra: Any) -> None:
        if doc_id in self.documents:
            return
        record = {"id": doc_id, "text": text, "cluster": cluster, "kind": kind}
        record.update({k: v for k, v in extra.items() if v is not None})
        self.documents[doc_id] = record

    def add_corpus_doc(self, doc: CorpusDoc) -> None:
        self.add_document(doc.id, doc.text, doc.id, "corpus")

    # negatives --------------------------------------------------------------------------

    def _partners(self, doc: CorpusDoc, kind: str, rng: np.random.Generator) -> Iterable[CorpusDoc]:
        pool = self.pool
        if kind in ("random", "same_boilerplate"):
            return (pool[i] for i in rng.permutation(len(pool)).tolist())
        if kind == "same_source":
            if not doc.source:
                return ()
            return (
                pool[i] for i in rng.permutation(len(pool)).tolist() if pool[i].source == doc.source
            )
        if kind == "same_topic":
            if not doc.topics:
                return ()
            return (
                pool[i] for i in rng.permutation(len(pool)).tolist() if pool[i].topics == doc.topics
            )
        if kind == "rare_words":
            if self._rare is None:
                self._rare = _rare_word_matrix(pool)
            shared = np.asarray((self._rare[doc.index] @ self._rare.T).todense()).ravel()
            shared[doc.index] = 0
            order = np.lexsort((np.arange(len(pool)), -shared))
            return (pool[i] for i in order[:200].tolist() if shared[i] > 0)
        raise ConfigurationError(f"unknown negative kind {kind!r}")  # pragma: no cover

    def negative(
        self,
        doc: CorpusDoc,
        kind: str,
        exclude: Sequence[CorpusDoc] = (),
        limit: int = 400,
        salt: int = 0,
    ) -> CorpusDoc | None:
        rng = _rng(self.config.seed, "negative", kind, doc.index, salt)
        avoid = {doc.id, *(d.id for d in exclude)}
        for tried, partner in enumerate(self._partners(doc, kind, rng)):
            if tried >= limit:
                break
            if partner.id in avoid:
                continue
            if any(self.reuse.shared(partner, other) for other in (doc, *exclude)):
                continue
            return partner
        return None

    def add_negatives(
        self, doc: CorpusDoc, target_id: str, exclude: Sequence[CorpusDoc] = ()
    ) -> None:
        for kind in self.config.negatives:
            if kind == "same_boilerplate":
                continue
            partner = self.negative(doc, kind, exclude)
            if partner is None:
                continue
            self.add_corpus_doc(partner)
            self.pairs.append({"a_id": partner.id, "b_id": target_id, "label": 0, "kind": kind})

    # tasks ------------------------------------------------------------------------------

    def near(self) -> None:
        config = self.config
        kinds = list(config.kinds)
        if self.language.synonyms is None and any("synonym" in parse_kind(k) for k in kinds):
            dropped = [k for k in kinds if "synonym" in parse_kind(k)]
            kinds = [k for k in kinds if k not in dropped]
            self.skipped.append(f"no thesaurus given: skipped the kind(s) {', '.join(dropped)}")
        for doc in self.sources:
            self.add_corpus_doc(doc)
            for kind in kinds:
                for level in config.levels:
                    rng = _rng(config.seed, "variant", kind, doc.index, _level_key(level))
                    text, log = apply_kind(
                        doc.text, kind, level, rng, self.language, self.vocabulary
                    )
                    vid = f"{doc.id}~{kind}~{_fmt_level(level)}"
                    self.add_document(
                        vid,
                        text,
                        doc.id,
                        "variant",
                        origin=doc.id,
                        level=level,
                        edit=kind,
                        edits=log.to_dict(),
                    )
                    self.pairs.append(
                        {
                            "a_id": doc.id,
                            "b_id": vid,
                            "label": 1,
                            "kind": kind,
                            "level": level,
                            "edits": log.to_dict(),
                        }
                    )
                    self.tick()
            self.add_negatives(doc, doc.id)
            if "same_boilerplate" in config.negatives:
                self._boilerplate_negative(doc)
            self.tick()

    def _boilerplate_negative(self, doc: CorpusDoc) -> None:
        partner = self.negative(doc, "same_boilerplate")
        if partner is None:
            return
        rng = _rng(self.config.seed, "same_boilerplate", doc.index)
        skin = (int(rng.integers(len(SKINS[self.config.lang]))), int(rng.integers(16)))
        level = 0.2
        ids = []
        for d in (doc, partner):
            self.add_corpus_doc(d)
            text, log = add_boilerplate(d.text, level, rng, self.config.lang, skin=skin)
            vid = f"{d.id}~boilerplate-site{skin[0]}~{_fmt_level(level)}"
            self.add_document(
                vid,
                text,
                d.id,
                "variant",
                origin=d.id,
                level=level,
                edit="boilerplate",
                edits=log.to_dict(),
            )
            ids.append(vid)
        self.pairs.append(
            {"a_id": ids[0], "b_id": ids[1], "label": 0, "kind": "same_boilerplate", "level": level}
        )

    def partial(self) -> None:
        config = self.config
        for doc in self.sources:
            self.add_corpus_doc(doc)
            for share in config.shares:
                for obfuscation in config.obfuscation:
                    key = (doc.index, _level_key(share), _level_key(obfuscation))
                    rng = _rng(config.seed, "partial", *key)
                    host = self.negative(doc, "random", salt=1 + key[1] + key[2])
                    if host is None:
                        continue
                    offset, length = take_fragment(doc.text, share, rng)
                    piece = doc.text[offset : offset + length]
                    log = EditLog(words=len(word_spans(piece)))
                    if obfuscation > 0:
                        third = obfuscation / 3
                        piece, log = edit_words(
                            piece,
                            {"substitute": third, "insert": third, "delete": third},
                            rng,
                            self.language,
                            self.vocabulary,
                            log,
                        )
                    text, at = paste(host.text, piece, rng)
                    kind = "partial" if obfuscation == 0 else "partial-edited"
                    sid = f"{doc.id}~in~{host.id}~{_fmt_level(share)}~{_fmt_level(obfuscation)}"
                    self.add_document(
                        sid,
                        text,
                        sid,
                        "suspicious",
                        origin=doc.id,
                        host=host.id,
                        level=share,
                        obfuscation=obfuscation,
                    )
                    self.fragments.append(
                        Fragment(doc.id, sid, offset, length, at, len(piece), kind, share)
                    )
                    self.pairs.append(
                        {
                            "a_id": doc.id,
                            "b_id": sid,
                            "label": 1,
                            "kind": kind,
                            "level": share,
                            "obfuscation": obfuscation,
                            "edits": log.to_dict(),
                        }
                    )
                    self.tick()
            # negatives: other documents against one of this source's suspicious documents
            last = next((f for f in reversed(self.fragments) if f.source_id == doc.id), None)
            if last is not None:
                host_id = self.documents[last.suspicious_id]["host"]
                host = next(d for d in self.pool if d.id == host_id)
                self.add_negatives(doc, last.suspicious_id, exclude=(host,))
            self.tick()

    def run(self) -> GeneratedDataset:
        if self.config.task == "near":
            self.near()
        else:
            self.partial()
        documents = list(self.documents.values())
        counts: dict[str, Any] = {
            "documents": len(documents),
            "pairs": len(self.pairs),
            "positives": sum(p["label"] for p in self.pairs),
            "negatives": sum(1 - p["label"] for p in self.pairs),
            "pairs_by_kind": _count_by(p["kind"] for p in self.pairs),
            "sources": len(self.sources),
            "usable_corpus_documents": len(self.pool),
            "corpus_documents": self.read,
        }
        if self.config.task == "partial":
            counts["fragments"] = len(self.fragments)
        meta: dict[str, Any] = {
            "generator": "neardup.eval.generate",
            "generator_version": GENERATOR_VERSION,
            "params": self.config.to_dict(),
            "corpus_sha256": _file_sha256(self.config.corpus),
            "thesaurus_sha256": _file_sha256(self.config.thesaurus)
            if self.config.thesaurus
            else None,
            "skipped": self.skipped,
            "counts": counts,
            "files": {
                "documents": "documents.jsonl",
                "pairs": "pairs.jsonl",
                **({"fragments": "fragments.jsonl"} if self.config.task == "partial" else {}),
            },
        }
        edits = [p["edits"] for p in self.pairs if p["label"] == 1 and "edits" in p]
        if edits:
            meta["achieved_rates"] = _achieved(self.pairs)
        return GeneratedDataset(meta, documents, self.pairs, self.fragments)


def _count_by(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


def _achieved(pairs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Mean achieved share per kind, level and edit: what the edits actually did."""
    sums: dict[tuple[str, str, str], list[float]] = {}
    for p in pairs:
        if p["label"] != 1 or "edits" not in p:
            continue
        edits = p["edits"]
        for edit, n in edits.items():
            if edit in ("words", "sentences"):
                continue
            base = edits.get("sentences") if edit == "reorder" else edits.get("words")
            if base:
                sums.setdefault((p["kind"], _fmt_level(p["level"]), edit), []).append(n / base)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (kind, level, edit), values in sorted(sums.items()):
        out.setdefault(kind, {}).setdefault(level, {})[edit] = round(float(np.mean(values)), 4)
    return out


def generate(config: GenerateConfig, progress: Progress = None) -> GeneratedDataset:
    """Generate the dataset ``config`` describes (deterministic for its seed)."""
    return _Generator(config, progress).run()


def planned_steps(config: GenerateConfig) -> int:
    """How many progress ticks :func:`generate` makes (for a progress bar)."""
    per_source = (
        len(config.kinds) * len(config.levels)
        if config.task == "near"
        else len(config.shares) * len(config.obfuscation)
    )
    return config.docs * (per_source + 1)


def write_dataset(dataset: GeneratedDataset, out: str | Path) -> dict[str, Path]:
    """Write ``documents.jsonl``, ``pairs.jsonl``, ``fragments.jsonl`` (partial copies) and
    ``meta.json`` into the directory ``out``."""
    import json

    directory = Path(out)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {out}: {exc.strerror or exc}") from None
    written = {"documents": directory / "documents.jsonl", "pairs": directory / "pairs.jsonl"}
    write_jsonl(written["documents"], dataset.documents)
    write_jsonl(written["pairs"], dataset.pairs)
    if dataset.meta["params"]["task"] == "partial":
        written["fragments"] = directory / "fragments.jsonl"
        write_jsonl(written["fragments"], (f.to_dict() for f in dataset.fragments))
    written["meta"] = directory / "meta.json"
    written["meta"].write_text(
        json.dumps(dataset.meta, ensure_ascii=False, sort_keys=True, indent=2) + "\n",
        encoding="utf-8",
    )
    return written


def level_name(level: float) -> str:
    """How levels are written in ids and reports (``0.05``, ``0.3``)."""
    return _fmt_level(level) if not math.isnan(level) else "-"
