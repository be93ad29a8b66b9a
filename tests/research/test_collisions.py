"""Collisions: the birthday table against seed 000, counts against brute force, the real corpus."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import time
from collections import Counter
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pytest

from neardup import Pipeline, make_spec
from neardup._kernels import collisions as kernels
from neardup.errors import DatasetError, InputError, SpecError
from neardup.fingerprints.hashing import (
    HashFamily,
    WideFamilySpec,
    expected_collisions,
    reference_fingerprint,
)
from neardup.research.collisions import (
    DEFAULT_FAMILIES,
    PAPER_TABLE_2,
    PROBABILITIES,
    CollisionCounter,
    ShingleChunk,
    birthday_table,
    corpus_files,
    count_collisions,
    expected_lost,
    expected_shared_values,
    family_label,
    iter_corpus,
    parse_families,
    parse_family,
)
from neardup.spec import FingerprintSpec

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


# --- the birthday bound ---------------------------------------------------------------------


def test_birthday_table_reproduces_seed_000_table_2() -> None:
    rows = birthday_table()
    assert [row.bits for row in rows] == [32, 40, 48, 56, 64, 72]
    for row in rows:
        paper = PAPER_TABLE_2[row.bits]
        assert row.likely_at == paper[0]
        for p, printed in zip(PROBABILITIES, paper[1:]):
            # the paper prints 10 significant digits
            assert row.shingles[p] == pytest.approx(printed, rel=1e-9)
    assert round(rows[0].shingles[0.01], 2) == 9291.49


def test_birthday_rows_are_consistent_with_the_probability() -> None:
    from neardup.fingerprints.hashing import collision_probability

    for row in birthday_table(widths=(20, 33, 64), probabilities=(0.05, 0.5, 0.99)):
        for p, n in row.shingles.items():
            assert collision_probability(n, row.bits) == pytest.approx(p, rel=1e-9)


def test_birthday_table_rejects_bad_input() -> None:
    with pytest.raises(InputError):
        birthday_table(widths=(0,))
    with pytest.raises(InputError):
        birthday_table(probabilities=(1.5,))


def test_row_to_dict_has_stable_keys() -> None:
    row = birthday_table(widths=(32, 16))
    first, second = row[0].to_dict(), row[1].to_dict()
    assert set(first) == {"bits", "range", "likely_at", "shingles_for_probability", "paper"}
    assert first["range"] == 2**32
    assert set(first["shingles_for_probability"]) == {"0.01", "0.1", "0.4"}
    assert first["paper"]["likely_at"] == 65536
    assert second["paper"] is None


# --- expectations ---------------------------------------------------------------------------


def test_expectations_match_a_simulation() -> None:
    """Throw n uniform values into 2^bits bins many times; the averages meet the formulas."""
    rng = np.random.default_rng(20260101)
    n, bits, trials = 4000, 20, 400
    pairs = shared = lost = 0
    for _ in range(trials):
        values = np.sort(rng.integers(0, 2**bits, size=n, dtype=np.uint64))
        p, s, lo = kernels.equal_runs(values)
        pairs, shared, lost = pairs + p, shared + s, lost + lo
    # expected pairs ≈ 7.63 per trial: over 400 trials the sd of the mean is ≈ 0.14
    assert pairs / trials == pytest.approx(expected_collisions(n, bits), abs=0.6)
    assert shared / trials == pytest.approx(expected_shared_values(n, bits), abs=0.6)
    assert lost / trials == pytest.approx(expected_lost(n, bits), abs=0.6)


@pytest.mark.parametrize("bits", [32, 48, 64])
@pytest.mark.parametrize("lam", [1e-9, 0.9999e-3, 1.0001e-3, 0.05, 2.0])
def test_expectations_are_exact_on_both_sides_of_the_series_threshold(
    bits: int, lam: float
) -> None:
    """Against 40-digit decimal arithmetic: M(1 - e^-λ(1 + λ)) and M(λ - 1 + e^-λ)."""
    with localcontext() as ctx:
        ctx.prec = 40
        m = Decimal(2) ** bits
        n = Decimal(lam) * m
        x = n / m
        shared = m * (1 - (-x).exp() * (1 + x))
        lost = m * (x - 1 + (-x).exp())
    assert expected_shared_values(float(n), bits) == pytest.approx(float(shared), rel=1e-11)
    assert expected_lost(float(n), bits) == pytest.approx(float(lost), rel=1e-11)


def test_expectations_agree_with_the_pair_count_for_small_load() -> None:
    assert expected_shared_values(10**7, 64) == pytest.approx(
        expected_collisions(10**7, 64), rel=1e-6
    )
    assert expected_lost(10**7, 64) == pytest.approx(expected_collisions(10**7, 64), rel=1e-6)


def test_equal_runs_counts_pairs_values_and_losses() -> None:
    values = np.array([1, 1, 1, 2, 3, 3, 7], dtype=np.uint32)
    assert kernels.equal_runs(values) == (4, 2, 3)
    assert kernels.equal_runs(np.zeros(0, dtype=np.uint64)) == (0, 0, 0)
    rng = np.random.default_rng(5)
    values64 = np.sort(rng.integers(0, 50, size=300).astype(np.uint64))
    runs = Counter(values64.tolist()).values()
    assert kernels.equal_runs(values64) == (
        sum(r * (r - 1) // 2 for r in runs),
        sum(r > 1 for r in runs),
        sum(r - 1 for r in runs),
    )


# --- the identity table ---------------------------------------------------------------------


def test_insert_new_marks_first_occurrences_and_grows() -> None:
    rng = np.random.default_rng(11)
    hi = rng.integers(0, 2**63, size=5000, dtype=np.uint64)
    lo = rng.integers(0, 2**63, size=5000, dtype=np.uint64)
    # repeats, and keys that share hi but not lo (they are different shingles)
    hi = np.concatenate([hi, hi[:1000], hi[:500]])
    lo = np.concatenate([lo, lo[:1000], lo[:500] ^ np.uint64(1)])
    cap = 8
    table_hi, table_lo, used = (
        np.zeros(cap, np.uint64),
        np.zeros(cap, np.uint64),
        np.zeros(cap, np.bool_),
    )
    table_hi, table_lo, used = kernels.rehash(table_hi, table_lo, used, 1 << 14)
    new, added = kernels.insert_new(table_hi, table_lo, used, hi, lo, 10**9)
    seen: set[tuple[int, int]] = set()
    expected = []
    for key in zip(hi.tolist(), lo.tolist()):
        expected.append(key not in seen)
        seen.add(key)
    assert new.tolist() == expected
    assert added == len(seen) == 5500
    # grow: the same set, nothing new when inserted again
    table_hi, table_lo, used = kernels.rehash(table_hi, table_lo, used, 1 << 15)
    again, added = kernels.insert_new(table_hi, table_lo, used, hi, lo, 10**9)
    assert added == 0 and not again.any()
    # the limit stops adding
    fresh = [
        np.zeros(1 << 14, np.uint64),
        np.zeros(1 << 14, np.uint64),
        np.zeros(1 << 14, np.bool_),
    ]
    new, added = kernels.insert_new(*fresh, hi, lo, 100)
    assert added == 100 and new.sum() == 100 and new[:100].all()


# --- families -------------------------------------------------------------------------------


def test_parse_family() -> None:
    assert parse_family("rabin:32") == FingerprintSpec("rabin", 32)
    assert parse_family("crc32") == FingerprintSpec("crc32", 32)
    assert parse_family("CRC64") == FingerprintSpec("crc64", 64)
    assert parse_family("xxh3:40:7") == FingerprintSpec("xxh3", 40, seed=7)
    assert parse_family("xxh3") == FingerprintSpec("xxh3", 64)
    assert [family_label(s) for s in parse_families(DEFAULT_FAMILIES)] == list(DEFAULT_FAMILIES)
    assert family_label(parse_family("crc64:48")) == "crc64:48"
    assert family_label(parse_family("rabin:64:9")) == "rabin:64:9"
    assert len(parse_families(["rabin:32,crc32", "crc32"])) == 2
    assert parse_family("md5") == WideFamilySpec("md5", 128)
    assert parse_family("MD5:64") == WideFamilySpec("md5", 64)
    assert family_label(parse_family("md5:128")) == "md5"
    assert family_label(parse_family("md5:96")) == "md5:96"


@pytest.mark.parametrize("text", ["sha1", "", "rabin:x", "rabin:32:1:2", "xxh3:64:-", ",,"])
def test_parse_family_rejects_bad_strings(text: str) -> None:
    with pytest.raises(InputError, match="bad family|no hash family"):
        parse_families([text]) if "," in text else parse_family(text)


@pytest.mark.parametrize(
    "text", ["rabin:72", "rabin:16", "crc32:48", "crc64:65", "crc32:32:5", "md5:16", "md5:129"]
)
def test_parse_family_rejects_bad_widths(text: str) -> None:
    with pytest.raises(SpecError, match="bad family"):
        parse_family(text)


# --- chunks ---------------------------------------------------------------------------------

TEXTS = [
    "Белая берёза под моим окном принакрылась снегом, точно серебром.",
    "",
    "Два слова",
    "раз два три четыре пять",  # exactly k = 5 tokens
    "На пушистых ветках снежною каймой распустились кисти белой бахромой. " * 3,
    "!!! ...",
    "One more English sentence, with some words in it, and numbers 3.14 and 2,5.",
]


@pytest.mark.parametrize(
    ("unit", "k", "step"),
    [("word", 5, 1), ("word", 3, 2), ("word", 2, 4), ("char", 7, 1), ("char", 4, 3)],
)
@pytest.mark.parametrize("family", ["rabin:64", "rabin:32", "crc32", "crc64:48", "xxh3:64:3"])
def test_chunk_hashes_equal_the_pipeline_per_document(
    unit: str, k: int, step: int, family: str
) -> None:
    spec = parse_family(family)
    pipeline = Pipeline(
        make_spec(
            "plain",
            unit=unit,
            k=k,
            step=step,
            family=spec.family,
            bits=spec.bits,
            seed=spec.seed,
            html="never",
        )
    )
    chunk = ShingleChunk.of(pipeline, TEXTS)
    got = chunk.hashes(HashFamily(spec), k)
    per_doc = [pipeline.shingles(t).hashes for t in TEXTS]
    assert len(chunk) == got.shape[0] == sum(h.shape[0] for h in per_doc)
    # rolled word shingles come first, then the lone shingles of short documents: same multiset
    assert sorted(got.tolist()) == sorted(np.concatenate(per_doc).tolist())
    if unit == "char" or all(len(pipeline.canonical(t)) >= k or not t for t in TEXTS):
        assert got.tolist() == np.concatenate(per_doc).tolist()


@pytest.mark.parametrize(("unit", "k", "step"), [("word", 5, 1), ("word", 2, 4), ("char", 4, 3)])
def test_chunk_byte_spans_are_the_shingles_in_hash_order(unit: str, k: int, step: int) -> None:
    pipeline = Pipeline(make_spec("plain", unit=unit, k=k, step=step, html="never"))
    chunk = ShingleChunk.of(pipeline, TEXTS)
    starts, ends = chunk.byte_spans(k)
    xxh3 = HashFamily(FingerprintSpec("xxh3", 64))
    assert xxh3.spans(chunk.buf, starts, ends).tolist() == chunk.hashes(xxh3, k).tolist()


def test_equal_runs_wide_needs_only_the_high_half_sorted() -> None:
    hi = np.array([1, 1, 1, 1, 2, 3, 3, 5], dtype=np.uint64)
    lo = np.array([9, 4, 9, 9, 0, 7, 8, 1], dtype=np.uint64)
    # (1, 9) three times: 3 pairs, 1 shared value, 2 lost; (3, 7) and (3, 8) differ
    assert kernels.equal_runs_wide(hi, lo) == (3, 1, 2)
    assert kernels.equal_runs_wide(hi[:0], lo[:0]) == (0, 0, 0)


def _words(count: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    codes = letters[rng.integers(0, 26, size=(count, 7))]
    return [bytes(row).decode() for row in codes]


@pytest.mark.slow
def test_counts_equal_brute_force_on_words_with_real_collisions() -> None:
    """300,000 random 7-letter words, one word a shingle (k = 1): about ten 32-bit collisions
    per family are expected, and the counts must equal a count over the plain definitions."""
    words = _words(300_000, seed=2016)
    distinct = list(dict.fromkeys(words))
    # repeats must not count: every word again in a second document, plus some thrice
    texts = [" ".join(words[i : i + 5000]) for i in range(0, len(words), 5000)]
    texts += [" ".join(words[:20000]), " ".join(words[::7])]
    families = parse_families(["rabin:32,crc32,xxh3:32,crc64:40,rabin:64"])
    report = count_collisions(
        texts, make_spec("plain", k=1, html="never"), families, chunk_chars=400_000
    )
    assert report.distinct == len(distinct)
    assert report.shingles == sum(len(t.split()) for t in texts)
    found_32 = 0
    for count in report.families:
        values = Counter(reference_fingerprint(count.spec, w.encode()) for w in distinct)
        runs = [r for r in values.values() if r > 1]
        assert count.pairs == sum(r * (r - 1) // 2 for r in runs), count.label
        assert count.shared_values == len(runs)
        assert count.lost == sum(r - 1 for r in runs)
        assert count.distinct == len(distinct)
        if count.spec.bits == 32:
            found_32 += count.pairs
            assert abs(count.z) < 4
    assert found_32 > 0


def test_md5_counts_equal_hashlib_over_the_distinct_shingles() -> None:
    """MD5 at 32, 64 and 128 bits over the same distinct shingles as the other families: the
    counts equal a count of hashlib's digests (the first BITS bits), and the 128-bit one finds
    none, as its birthday bound (~10^-28 pairs) says."""
    words = _words(300_000, seed=2016)
    distinct = list(dict.fromkeys(words))
    texts = [" ".join(words[i : i + 5000]) for i in range(0, len(words), 5000)]
    families = parse_families(["md5:32,md5:64,md5,md5:96,rabin:32"])
    report = count_collisions(
        texts, make_spec("plain", k=1, html="never"), families, chunk_chars=400_000
    )
    digests = [int(hashlib.md5(w.encode()).hexdigest(), 16) for w in distinct]
    for count in report.families:
        if count.spec.family == "md5":
            values = Counter(d >> (128 - count.spec.bits) for d in digests)
        else:
            values = Counter(reference_fingerprint(count.spec, w.encode()) for w in distinct)
        runs = [r for r in values.values() if r > 1]
        assert count.pairs == sum(r * (r - 1) // 2 for r in runs), count.label
        assert count.shared_values == len(runs) and count.lost == sum(r - 1 for r in runs)
        assert count.distinct == len(distinct)
    by_label = {c.label: c for c in report.families}
    assert by_label["md5:32"].pairs > 0 and abs(by_label["md5:32"].z) < 4
    assert by_label["md5"].pairs == 0 and by_label["md5"].expected_pairs < 1e-25
    assert by_label["md5"].to_dict()["bits"] == 128


def test_limit_keeps_the_first_distinct_shingles_in_reading_order() -> None:
    words = _words(20_000, seed=7)
    texts = [" ".join(words[i : i + 1000]) for i in range(0, len(words), 1000)] * 2
    spec = make_spec("plain", k=1, html="never")
    counter = CollisionCounter(spec, [FingerprintSpec("xxh3", 64)], limit=12_345)
    counter.add_all(texts, chunk_chars=20_000)
    report = counter.report()
    assert report.distinct == 12_345 and report.limit_reached
    first = list(dict.fromkeys(words))[:12_345]
    expected = sorted(reference_fingerprint(FingerprintSpec("xxh3", 64), w.encode()) for w in first)
    values = np.sort(np.concatenate(counter._values[0])).tolist()
    assert values == expected
    with pytest.raises(InputError):
        CollisionCounter(spec, [FingerprintSpec()], limit=0)


def test_distinct_shingles_of_the_ru_preset_match_their_text() -> None:
    texts = [t for t in TEXTS if t] * 3 + ["Мама мыла раму, а папа читал газету в кресле у окна."]
    spec = make_spec("ru", k=2, html="never")
    report = count_collisions(texts, spec, ["xxh3:64", "crc32"])
    pipeline = Pipeline(spec)
    distinct = set()
    for text in texts:
        terms = pipeline.canonical(text).terms
        if terms:
            distinct.update(" ".join(terms[i : i + 2]) for i in range(max(len(terms) - 1, 1)))
    assert report.distinct == len(distinct)
    assert report.documents == len(texts)
    assert [f["family"] for f in report.to_dict()["families"]] == ["xxh3:64", "crc32"]


# --- reading a corpus -----------------------------------------------------------------------


def test_iter_corpus_reads_jsonl_gz_text_files_and_directories(tmp_path: Path) -> None:
    records = [
        {"id": 1, "text": "первый текст"},
        {"id": 2, "text": None},
        {"id": 3, "body": "x", "text": "третий"},
    ]
    (tmp_path / "a.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n\n"
    )
    with gzip.open(tmp_path / "b.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"text": "сжатый"}, ensure_ascii=False) + "\n")
    sub = tmp_path / "texts"
    sub.mkdir()
    (sub / "one.txt").write_bytes(
        "Текст в cp1251, довольно длинный для определения кодировки.".encode("cp1251")
    )
    files = corpus_files([tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz", sub])
    consumed: list[int] = []
    texts = list(iter_corpus(files, progress=consumed.append))
    assert texts[:4] == ["первый текст", "", "третий", "сжатый"]
    assert texts[4].startswith("Текст в cp1251")
    assert sum(consumed) == sum(f.stat().st_size for f in files)
    (tmp_path / "c.jsonl").write_text('{"body": "другое поле"}\n')
    assert list(iter_corpus([tmp_path / "c.jsonl"], text_field="body")) == ["другое поле"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "ok"}\nnot json\n', "line 2: not valid JSON"),
        ('{"id": 1}\n', "line 1: no text field 'text'"),
        ('{"text": 5}\n', "must be a string"),
        ("[1, 2]\n", "expected a JSON object, got list"),
    ],
)
def test_iter_corpus_says_which_line_is_bad(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message):
        list(iter_corpus([path]))


def test_corpus_files_refuses_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        corpus_files([tmp_path / "missing.jsonl"])


# --- the real corpus (seed 000, Table 3) ----------------------------------------------------

PAPER_N = 10_376_876


@pytest.mark.slow
def test_collisions_on_ru_news_and_ruslit_agree_with_the_birthday_bound() -> None:
    """ru_news then ruslit, plain preset, word 5-shingles, the first 10,376,876 distinct
    shingles (the paper's count): 32-bit families collide as often as the birthday bound says,
    48 bits and wider (almost) never."""
    files = [DATA / "ru_news.jsonl.gz", DATA / "ruslit.jsonl.gz"]
    if not all(f.exists() for f in files):
        pytest.skip(f"the corpora are not in {DATA}")
    started = time.perf_counter()
    counter = CollisionCounter(
        make_spec("plain", k=5), parse_families(DEFAULT_FAMILIES), limit=PAPER_N
    )
    counter.add_all(iter_corpus(files))
    report = counter.report()
    seconds = time.perf_counter() - started
    assert report.distinct == PAPER_N and report.limit_reached
    expected_32 = expected_collisions(PAPER_N, 32)
    assert 12_500 < expected_32 < 12_600
    for count in report.families:
        if count.spec.bits == 32:
            assert abs(count.pairs - expected_32) < 4 * math.sqrt(expected_32), count.label
        else:
            # 48 bits: 0.19 pairs expected, P(3 or more) ≈ 0.001; wider: far fewer
            assert count.pairs <= 2, count.label
    print(
        f"\n{report.documents} documents, {report.distinct} distinct shingles, {seconds:.1f} s: "
        + ", ".join(f"{c.label} {c.pairs}" for c in report.families)
    )
