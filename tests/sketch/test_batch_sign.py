"""The batch signing path (one nogil kernel call per batch) against the per-document path:
the same signatures for texts it takes and for the ones it sends back to the general path."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup import make_spec
from neardup.sketch import MinHasher, parallel
from neardup.sketch.parallel import sign_all
from neardup.spec import SketchSpec

WORDS = [
    "погода",
    "город",
    "Ёлка",
    "мо́локо",
    "Straße",
    "ǅemal",
    "İstanbul",
    "ΣΟΦΟΣ",
    "ﬁnal",
    "don't",
    "well-known",
    "3,14",
    "1.5",
    "café",
    "№7",
    "x<y",
    "日本語",
    "😀",
    "a",
    "the",
    "e\u0301t\u00e9",
    "ＡＢＣ",
    "½",
    "—",
    "...",
]

TEXTS = [
    "",
    "   ",
    "одно",
    "три слова тут",
    "Первый текст о погоде в городе, и ещё пять слов после него.",
    "<html><body><p>Это страница HTML с текстом внутри неё, длинная строка.</p></body></html>",
    "a < b but not html at all: x <y> z, more words follow here",
    "ﬁ №1 Straße ǅ İstanbul ΣΑΣ words more words here and there",
    "мо́локо ёлка café résumé don't well-known 3,14 1.5 — конец",
    "\ud800 lone surrogate text a b c d e f",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral letters and 😀 emoji between the words of this text",
]


def generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.randrange(0, 40)
        out.append(" ".join(rng.choice(WORDS) for _ in range(n)))
    return out


def per_document(hasher: MinHasher, texts: list[str]) -> np.ndarray:
    return hasher._finish(hasher._sign_texts_each(texts))


@pytest.mark.parametrize(
    ("k", "step", "bits", "value_bits"), [(5, 1, 64, 64), (3, 2, 56, 32), (1, 1, 32, 64)]
)
def test_batch_equals_per_document(k: int, step: int, bits: int, value_bits: int) -> None:
    spec = make_spec("plain", k=k, step=step, bits=bits).replace(
        sketch=SketchSpec(num_perm=64, value_bits=value_bits)
    )
    hasher = MinHasher(spec)
    assert hasher._batch_plan() is not None
    texts = TEXTS + generated(200, seed=k)
    got = hasher.sign_texts(texts)
    want = per_document(hasher, texts)
    assert got.dtype == want.dtype and got.shape == (len(texts), 64)
    assert np.array_equal(got, want)
    # order and batch composition do not matter
    assert np.array_equal(hasher.sign_texts(texts[::-1]), want[::-1])
    assert np.array_equal(hasher.sign_texts(texts[5:6]), want[5:6])


def test_batch_takes_plain_texts_and_returns_the_rest() -> None:
    from neardup._kernels.sign_batch import sign_rabin_words
    from neardup.analysis.char_filters import might_be_html

    hasher = MinHasher(make_spec("plain").replace(sketch=SketchSpec(num_perm=16)))
    plan = hasher._batch_plan()
    assert plan is not None and plan.plans[0][1].html_check
    args = (*plan.plans[0][1].kernel_args(), *plan.signing_args())
    texts = ["простой текст без особых знаков", "ΣΟΦΟΣ: final sigma sends it back", "", "x"]
    todo = np.array([not might_be_html(t) for t in texts])
    lengths = [len(t) for t in texts]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    cps = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    out = np.zeros((4, 16), dtype=np.uint64)
    done = sign_rabin_words(cps, offsets, todo, *args, out)
    # final sigma is marked by the fused table: the kernel leaves that row to the caller
    assert done.tolist() == [True, False, True, True]
    assert out[1].tolist() == [0] * 16
    assert out[2].tolist() == [2**64 - 1] * 16  # no tokens: the empty-set signature
    assert np.array_equal(out[[0, 2, 3]], per_document(hasher, [texts[0], texts[2], texts[3]]))


def test_bytes_and_ineligible_specs_still_sign() -> None:
    spec = make_spec("plain").replace(sketch=SketchSpec(num_perm=32))
    hasher = MinHasher(spec)
    texts = ["текст в байтах, пять слов и ещё".encode(), "обычный текст из нескольких слов тут"]
    assert np.array_equal(hasher.sign_texts(texts), per_document(hasher, texts))
    for other in (
        make_spec("plain", family="xxh3"),
        make_spec("plain", unit="char"),
        make_spec("plain", multiset=True),
        make_spec("plain", html="always"),
    ):
        assert MinHasher(other)._batch_plan() is None


def test_thread_path_matches() -> None:
    spec = make_spec("plain").replace(sketch=SketchSpec(num_perm=32))
    texts = TEXTS + generated(300, seed=7)
    want = per_document(MinHasher(spec), texts)
    got = sign_all(spec, texts, jobs=2, batch_size=37, executor="thread")
    assert np.array_equal(got, want)


def test_the_cli_picks_threads_only_where_the_batch_kernel_applies() -> None:
    from neardup.fingerprints.pipeline import make_spec
    from neardup.sketch.parallel import PROCESS_MIN_BYTES, choose_executor
    from neardup.spec import SketchSpec

    big = PROCESS_MIN_BYTES
    assert choose_executor(make_spec("plain").replace(sketch=SketchSpec()), big, 2) == "thread"
    assert choose_executor(make_spec("ru").replace(sketch=SketchSpec()), big, 2) == "thread"
    # two chains routed by language: one kernel call per chain, so threads
    assert choose_executor(make_spec("auto").replace(sketch=SketchSpec()), big, 2) == "thread"
    # char shingles: signed document by document, so processes
    char = make_spec("auto", unit="char").replace(sketch=SketchSpec())
    assert choose_executor(char, big, 2) == "process"


def test_auto_signs_each_text_through_its_languages_chain() -> None:
    """Under ``auto`` the batch goes to each chain's kernel with the texts its letters choose;
    the signatures are the per-document path's, on one thread and on two."""
    spec = make_spec("auto").replace(sketch=SketchSpec(num_perm=32))
    hasher = MinHasher(spec)
    plan = hasher._batch_plan()
    assert plan is not None and [language for language, _ in plan.plans] == ["ru", "en"]
    rng = random.Random(5)
    english = ["reading", "books", "the", "river", "bridges", "quickly", "2024", "Zubarikov"]
    texts = TEXTS + [
        " ".join(rng.choice(RU_WORDS if i % 2 else english) for _ in range(rng.randrange(0, 30)))
        for i in range(200)
    ]
    texts += [f"{a} {b}" for a, b in zip(texts[-20:-10], texts[-10:], strict=True)]
    want = per_document(MinHasher(spec), texts)
    assert np.array_equal(hasher.sign_texts(texts), want)
    assert np.array_equal(sign_all(spec, texts, jobs=2, batch_size=17, executor="thread"), want)


RU_WORDS = [
    "читали",
    "красивые",
    "книги",
    "зубарикове",
    "кулебякина",
    "в",
    "и",
    "году",
    "2024",
    "iphone",
    "Ёлка",
    "ΣΟΦΟΣ",
    "пыхтелкам",
    "он",
]


@pytest.mark.parametrize("preset", ["ru", "en"])
def test_batch_with_compiled_filters_equals_per_document(preset: str) -> None:
    spec = make_spec(preset).replace(sketch=SketchSpec(num_perm=32))
    hasher = MinHasher(spec)
    plan = hasher._batch_plan()
    assert plan is not None and plan.plans[0][1].compiled is not None
    hasher.pipeline.analyzer.forget_learned()  # every unknown form is learned in the batch
    rng = random.Random(3)
    texts = TEXTS + [
        " ".join(rng.choice(RU_WORDS) for _ in range(rng.randrange(0, 30))) for _ in range(200)
    ]
    got = hasher.sign_texts(texts)
    reference = MinHasher(spec)
    reference.pipeline.analyzer.forget_learned()
    want = per_document(reference, texts)
    assert np.array_equal(got, want)
    assert np.array_equal(sign_all(spec, texts, jobs=2, batch_size=17, executor="thread"), want)


def test_unknown_forms_of_a_batch_are_reported_once_each() -> None:
    from neardup._kernels import sign_batch

    hasher = MinHasher(make_spec("ru").replace(sketch=SketchSpec(num_perm=8)))
    plan = hasher._batch_plan()
    assert plan is not None and plan.plans[0][1].compiled is not None
    compiled = plan.plans[0][1].compiled
    compiled.forget()
    texts = ["Кулебякина читала", "ΣΟΦΟΣ", "пыхтелкам кулебякина", "книги"]
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int64)
    cps = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    todo = np.array([True, True, True, True])
    out = np.zeros((4, 8), dtype=np.uint64)
    status, h1, h2, forms = sign_batch.sign_filtered_words(
        cps,
        offsets,
        todo,
        *plan.plans[0][1].kernel_args(),
        *compiled.kernel_tables(compiled.learned().view),
        *plan.signing_args(),
        out,
    )
    unknown, general, signed = sign_batch.UNKNOWN_FORMS, sign_batch.GENERAL, sign_batch.SIGNED
    assert status.tolist() == [unknown, general, unknown, signed]
    assert forms.tobytes().decode() == "кулебякина пыхтелкам"
    assert h1.shape == h2.shape == (2,)
    assert out[0].tolist() == [0] * 8 and out[3].tolist() != [0] * 8


def test_threads_learning_at_once_and_starting_over_sign_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two threads share one table of forms learned: each adds forms while the other reads
    it, and the table starts over often (a small cap); every signature is still the one the
    per-document path gives."""
    from neardup.analysis import compiled

    spec = make_spec("en").replace(sketch=SketchSpec(num_perm=16))
    rng = random.Random(11)
    syllables = ["ka", "lo", "mi", "ter", "sun", "ed", "ing", "ro", "va", "ness"]
    texts = [
        " ".join(
            "".join(rng.choice(syllables) for _ in range(rng.randrange(1, 4)))
            for _ in range(rng.randrange(0, 25))
        )
        for _ in range(300)
    ]
    reference = MinHasher(spec)
    want = per_document(reference, texts)
    monkeypatch.setattr(compiled, "MAX_LEARNED", 60)
    parallel._hashers.clear()
    try:
        got = sign_all(spec, texts, jobs=2, batch_size=5, executor="thread")
    finally:
        parallel._hashers.clear()
    assert np.array_equal(got, want)
