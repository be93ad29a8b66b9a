"""The generator's truth and the exact-duplicate groups on the real corpora (../shared/data)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from neardup.eval import formats, methods, run
from neardup.eval import generate as gen
from neardup.eval.formats import ClusterDataset, LabelledText
from neardup.fingerprints.pipeline import make_spec

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (DATA / "ru_news.jsonl.gz").exists() or not (DATA / "reuters21578.jsonl.gz").exists(),
        reason=f"the corpora are not in {DATA}",
    ),
]


@pytest.mark.slow
def test_generated_near_duplicates_of_real_news(tmp_path: Path) -> None:
    pytest.importorskip("pymorphy3")
    config = gen.GenerateConfig(
        corpus=str(DATA / "ru_news.jsonl.gz"),
        lang="ru",
        docs=3,
        levels=(0.1, 0.3),
        kinds=("mixed", "inflect", "reorder", "boilerplate"),
        negatives=("random",),
        seed=5,
    )
    dataset = gen.generate(config)
    gen.write_dataset(dataset, tmp_path)
    docs = formats.read_documents(tmp_path / "documents.jsonl")
    for pair in dataset.pairs:
        if pair["label"] != 1:
            continue
        edits = pair["edits"]
        words = edits["words"]
        level = pair["level"]
        if pair["kind"] == "mixed":
            for edit in ("substitute", "insert", "delete"):
                assert abs(edits[edit] - level / 3 * words) <= 0.5
            after = len(gen.WORD_RE.findall(docs[pair["b_id"]]))
            assert after == words + edits["insert"] - edits["delete"]
        elif pair["kind"] == "inflect":
            assert abs(edits["inflect"] - level * words) <= 0.5
        elif pair["kind"] == "reorder":
            assert abs(edits["reorder"] - level * edits["sentences"]) <= 1
        elif pair["kind"] == "boilerplate":
            assert docs[pair["a_id"]] in docs[pair["b_id"]]
    assert {p["kind"] for p in dataset.pairs if p["label"] == 0} == {"random"}


def test_generated_partial_copies_of_real_news(tmp_path: Path) -> None:
    pytest.importorskip("pymorphy3")
    config = gen.GenerateConfig(
        corpus=str(DATA / "ru_news.jsonl.gz"),
        lang="ru",
        task="partial",
        docs=3,
        shares=(0.05, 0.5),
        obfuscation=(0.0, 0.1),
        negatives=("random",),
        seed=5,
    )
    gen.write_dataset(gen.generate(config), tmp_path)
    docs = formats.read_documents(tmp_path / "documents.jsonl")
    cases = formats.read_fragments(tmp_path / "fragments.jsonl", docs)
    assert len(cases) == 12
    for case in cases:
        source = docs[case.source_id][case.source_offset : case.source_offset + case.source_length]
        pasted = docs[case.suspicious_id][
            case.suspicious_offset : case.suspicious_offset + case.suspicious_length
        ]
        assert abs(case.source_length / len(docs[case.source_id]) - case.level) < 0.01
        if case.kind == "partial":
            assert pasted == source
        else:
            assert pasted != source
            # a tenth of the words edited: most of the passage is still the source's words
            same = set(gen.WORD_RE.findall(pasted)) & set(gen.WORD_RE.findall(source))
            assert len(same) >= 0.8 * len(set(gen.WORD_RE.findall(source)))


def test_every_exact_duplicate_group_of_reuters_is_found() -> None:
    texts: list[tuple[str, str]] = []
    with gzip.open(DATA / "reuters21578.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if (record.get("text") or "").strip():
                texts.append((str(record["id"]), record["text"]))
    keys = [" ".join(t.split()) for _, t in texts]
    sizes = Counter(keys)
    grouped = [
        (doc_id, text, key)
        for (doc_id, text), key in zip(texts, keys, strict=True)
        if sizes[key] > 1
    ]
    assert len({key for *_, key in grouped}) == 279  # the README's count (whitespace collapsed)
    dataset = ClusterDataset(
        "reuters", [LabelledText(doc_id, text, key) for doc_id, text, key in grouped]
    )
    spec = make_spec("en")
    report, _ = run.evaluate_clusters(
        dataset, methods.build("resemblance", spec), spec, threshold=0.9
    )
    assert report["true_groups"] == 279
    assert report["group_recall"] == 1.0 and report["direct_pair_recall"] == 1.0
