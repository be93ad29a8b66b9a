"""The batch shingling path (:class:`neardup.fingerprints.batch.BatchShingler`) against the
per-document path it stands in for: the same canonical token count, the same shingle hashes
in text order and the same short shingles, for every text it takes; ``None`` exactly for the
texts it must leave (bytes, HTML to strip, a character the fused table marks, words its
chain's filters drop every one of); and ``of`` is ``None`` for the specs it cannot run."""

from __future__ import annotations

from collections.abc import Container, Sequence

import numpy as np
import pytest

from neardup._kernels import sign_batch
from neardup.analysis import chunked
from neardup.analysis.analyzer import Analyzer
from neardup.analysis.chunked import CHUNK_CHARS
from neardup.fingerprints.batch import BatchShingler, TextShingles
from neardup.fingerprints.pipeline import Pipeline, default_spec, make_spec
from neardup.fingerprints.shingles import shingle_hashes
from neardup.spec import AnalyzerSpec, ChainSpec, ShingleSpec, Spec
from tests import _batch_texts as bt

PRESETS = ["ru", "en", "plain"]


def per_document(pipeline: Pipeline, text: str | bytes) -> TextShingles:
    """What the per-document path gives for ``text``, in the batch path's shape."""
    canonical = pipeline.canonical(text)
    shingles = pipeline.spec.shingles
    short = (
        shingle_hashes(canonical, shingles.fixed(short=True), pipeline.family)
        if shingles.adaptive
        else None
    )
    return TextShingles(len(canonical), shingle_hashes(canonical, shingles, pipeline.family), short)


def assert_same(got: TextShingles, want: TextShingles, what: str) -> None:
    assert got.tokens == want.tokens, what
    assert got.hashes.dtype == np.uint64, what
    assert np.array_equal(got.hashes, want.hashes), what
    if want.short is None:
        assert got.short is None, what
    else:
        assert got.short is not None and got.short.dtype == np.uint64, what
        assert np.array_equal(got.short, want.short), what


def all_dropped(spec: Spec, text: str | bytes) -> bool:
    """Whether ``text`` has words and its chain's token filters drop every one of them: the
    kernel leaves such a text to the per-document path, where the chain decides whether it
    keeps them (``keep_if_all_dropped``)."""
    if not isinstance(text, str):
        return False

    def chains(bare: bool) -> AnalyzerSpec:
        return AnalyzerSpec(
            spec.analyzer.preset,
            tuple(
                (lang, ChainSpec(c.char_filters, c.tokenizer, () if bare else c.token_filters))
                for lang, c in spec.analyzer.chains
            ),
        )

    words = Analyzer(chains(bare=True)).canonical(text)
    return len(words) > 0 and len(Analyzer(chains(bare=False)).canonical(text)) == 0


def check_batch(
    spec: Spec,
    texts: Sequence[str | bytes],
    left: Container[int] = (),
    shingler: BatchShingler | None = None,
) -> list[TextShingles | None]:
    """Shingle ``texts`` in one batch under ``spec`` (by ``shingler``, or one of a fresh
    pipeline) and check each against the per-document path of another fresh pipeline: the
    texts at ``left`` come back ``None``, every other text as the per-document path gives
    it."""
    if shingler is None:
        shingler = BatchShingler.of(Pipeline(spec), short=spec.shingles.adaptive)
    assert shingler is not None
    got = shingler.shingle(texts)
    assert len(got) == len(texts)
    reference = Pipeline(spec)
    for i, (text, found) in enumerate(zip(texts, got, strict=True)):
        what = f"text {i}: {text[:60]!r}"
        if i in left or all_dropped(spec, text):
            assert found is None, what
            continue
        assert found is not None, what
        assert_same(found, per_document(reference, text), what)
    return got


def edge_cases() -> tuple[list[str | bytes], set[int]]:
    """Every hand-written edge case, and the positions of those the kernel leaves."""
    texts: list[str | bytes] = [t for _, t in bt.TAKEN]
    left = set(range(len(texts), len(texts) + len(bt.LEFT) + 1))
    texts += [t for _, t in bt.LEFT] + [bt.BYTES[1]]
    return texts, left


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("adaptive", [False, True], ids=["fixed", "short"])
def test_edge_cases_equal_the_per_document_path(preset: str, adaptive: bool) -> None:
    spec = default_spec(preset) if adaptive else make_spec(preset)
    assert spec.shingles.adaptive == adaptive
    texts, left = edge_cases()
    check_batch(spec, texts, left)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    ("k", "step", "bits", "seed", "short_below", "short_k"),
    [
        (5, 1, 64, 0, 0, 1),
        (3, 2, 64, 0, 0, 1),
        (1, 1, 32, 0, 32, 1),
        (4, 3, 56, 9, 20, 2),
        (7, 7, 64, 3, 40, 3),
    ],
)
def test_generated_texts_equal_the_per_document_path(
    preset: str, k: int, step: int, bits: int, seed: int, short_below: int, short_k: int
) -> None:
    spec = make_spec(preset, k=k, step=step, bits=bits, seed=seed).replace(
        shingles=ShingleSpec(k=k, step=step, short_below=short_below, short_k=short_k)
    )
    texts: list[str | bytes] = [
        *bt.russian(60, seed=k),
        *bt.english(60, seed=k),
        *[t for _, t in bt.TAKEN],
    ]
    got = check_batch(spec, texts)
    # the same hashes whichever batch a text is in, and alone
    check_batch(spec, texts[::-1])
    alone = BatchShingler.of(Pipeline(spec), short=True)
    assert alone is not None
    for i in (0, 61, len(texts) - 1):
        single = alone.shingle([texts[i]])[0]
        want = got[i]
        assert single is not None and want is not None
        assert_same(single, want, f"text {i} alone")


@pytest.mark.parametrize("preset", ["ru", "en"])
def test_unknown_forms_are_learned_between_two_kernel_calls(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch holding forms no table knows: the first call leaves their texts, the forms
    are learned, a second call shingles those texts, and every text is as the per-document
    path gives it (the texts the first call did are kept, not done again)."""
    calls: list[int] = []
    kernel = sign_batch.shingle_words_batch

    def counted(*args: object) -> object:
        todo = args[2]
        assert isinstance(todo, np.ndarray)
        calls.append(int(todo.sum()))
        return kernel(*args)

    monkeypatch.setattr(sign_batch, "shingle_words_batch", counted)
    known = "кошка собака корова лошадь овца коза" if preset == "ru" else "cat dog cow horse"
    texts: list[str | bytes] = [
        known,
        "хливкие шорьки пырялись по наве, и хрюкотали зелюки, как мюмзики в мове",
        "бармаглотовы шорьки",
        "",
        *bt.russian(40, seed=5, invented=True),
        "ΣΟΦΟΣ бармаглотовы",  # left at the fused table, before its forms are looked up
    ]
    spec = default_spec(preset)
    pipeline = Pipeline(spec)
    pipeline.analyzer.forget_learned()
    shingler = BatchShingler.of(pipeline, short=True)
    assert shingler is not None
    got = check_batch(spec, texts, {len(texts) - 1}, shingler)
    assert len(calls) == 2
    # the first call tried every text (the kernel itself finds the one the fused table
    # marks); the second only those with unknown forms
    assert calls[0] == len(texts)
    assert 2 <= calls[1] < calls[0]
    assert got[0] is not None and got[0].tokens > 0
    # the same batch again: its forms are known now, so one call does it
    calls.clear()
    check_batch(spec, texts, {len(texts) - 1}, shingler)
    assert calls == [len(texts)]


def test_a_text_longer_than_a_chunk_is_left_to_the_chunked_path() -> None:
    """The per-document path analyzes a text above ``CHUNK_CHARS`` a piece at a time, in
    bounded memory; the batch kernel leaves it to that path and takes the texts around it."""
    long_text = " ".join(bt.russian(1600, seed=2, most=60))
    assert len(long_text) > CHUNK_CHARS
    assert chunked.canonical(Pipeline(default_spec("ru")).analyzer, long_text) is not None
    check_batch(default_spec("ru"), ["город", long_text, "конец"], left={1})
    check_batch(make_spec("plain", k=3, step=2), [long_text[:CHUNK_CHARS], long_text], left={1})


def test_auto_routes_each_text_to_its_languages_chain() -> None:
    """Under ``auto`` (a chain per language) each text goes through the chain its letters
    choose, as the per-document path decides: Russian and English texts mixed in one batch,
    and texts with both alphabets."""
    russian = bt.russian(30, seed=21, invented=True)
    english = bt.english(30, seed=22)
    mixed = [f"{r} {e}" for r, e in zip(russian[:10], english[:10], strict=True)]
    texts = [t for pair in zip(russian, english, strict=True) for t in pair] + mixed
    for spec in (default_spec(), make_spec("auto"), make_spec("auto", k=3, step=2)):
        check_batch(spec, texts)
    edge, left = edge_cases()
    check_batch(default_spec(), edge, left)


@pytest.mark.parametrize("preset", PRESETS)
def test_html_never_takes_the_html_texts(preset: str) -> None:
    """Without the html filter there is nothing to strip: the kernel takes the HTML texts and
    its tokens are the per-document path's (tags read as words)."""
    texts = [t for name, t in bt.LEFT if name.startswith("html")]
    assert len(texts) == 2
    check_batch(make_spec(preset, html="never"), texts)


@pytest.mark.parametrize("preset", PRESETS)
def test_short_shingles_only_when_asked(preset: str) -> None:
    adaptive = Pipeline(default_spec(preset))
    fixed = Pipeline(make_spec(preset))
    texts: list[str | bytes] = ["кошка собака корова лошадь овца коза", "bridges rivers"]
    for pipeline, short, has_short in (
        (adaptive, True, True),
        (adaptive, False, False),
        (fixed, True, False),  # a spec without the rule has no short shingles to give
    ):
        shingler = BatchShingler.of(pipeline, short=short)
        assert shingler is not None
        for found, text in zip(shingler.shingle(texts), texts, strict=True):
            assert found is not None
            assert (found.short is not None) == has_short
            want = per_document(pipeline, text)
            assert found.tokens == want.tokens
            assert np.array_equal(found.hashes, want.hashes)


@pytest.mark.parametrize(
    ("spec", "short"),
    [
        (make_spec("plain", unit="char"), False),
        (make_spec("ru", unit="char", k=4), True),
        (make_spec("plain", family="xxh3"), False),
        (make_spec("ru", family="crc32"), False),
        (make_spec("en", family="crc64"), True),
        (make_spec("auto", family="xxh3"), False),
        (make_spec("plain", html="always"), False),
        # the rule's short shingles are char n-grams: not the kernel's when asked for
        (
            make_spec("plain").replace(
                shingles=ShingleSpec(short_below=32, short_unit="char", short_k=3)
            ),
            True,
        ),
    ],
    ids=[
        "char",
        "char-short",
        "xxh3",
        "crc32",
        "crc64",
        "auto-xxh3",
        "html-always",
        "char-short-shingles",
    ],
)
def test_specs_it_refuses(spec: Spec, short: bool) -> None:
    assert BatchShingler.of(Pipeline(spec), short=short) is None


def test_char_short_shingles_are_refused_only_when_asked() -> None:
    spec = make_spec("plain").replace(
        shingles=ShingleSpec(short_below=32, short_unit="char", short_k=3)
    )
    shingler = BatchShingler.of(Pipeline(spec), short=False)
    assert shingler is not None
    found = shingler.shingle(["один два три четыре пять шесть"])[0]
    assert found is not None and found.short is None
    want = per_document(Pipeline(spec.fixed()), "один два три четыре пять шесть")
    assert np.array_equal(found.hashes, want.hashes)
