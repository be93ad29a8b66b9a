"""The ``fold`` char filter (issue 24): tricks that evade a uniqueness checker undone in the
analyzer and reported, real mixed-script words left alone, offsets into the original."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import compare
from neardup._kernels import text as text_kernels
from neardup.analysis import confusables
from neardup.analysis.analyzer import Analyzer, Canonical
from neardup.analysis.evasion import find_tricks, neutralize
from neardup.analysis.presets import preset
from neardup.analysis.tricks import Tricks
from neardup.fingerprints.pipeline import default_spec

SOURCE = (
    "Министр финансов России заявил, что бюджет страны будет исполнен с профицитом. "
    "Об этом сообщает агентство со ссылкой на источники в правительстве. Кроме того, "
    "расходы на оборону вырастут на пять процентов в следующем году, а на образование "
    "и здравоохранение останутся прежними."
)
ENGLISH = (
    "The finance minister said the budget would close with a surplus this year, according "
    "to people familiar with the matter. Spending on defence will rise by five percent next "
    "year, while education and health care stay flat."
)
# every Cyrillic letter with a Latin look-alike swapped for it (what a copywriter does)
_TO_LATIN = str.maketrans("аеорсхуАЕОРСХКМТВН", "aeopcxyAEOPCXKMTBH")
_TO_CYRILLIC = str.maketrans("aeopcxyAEOPCXKMTBH", "аеорсхуАЕОРСХКМТВН")


def _canonical(text: str, name: str = "plain", fold: bool = True) -> Canonical:
    return Analyzer(preset(name, fold_tricks=fold)).canonical(text)


def _terms(text: str, name: str = "plain", fold: bool = True) -> list[str]:
    return _canonical(text, name, fold).terms


# --- homoglyphs ------------------------------------------------------------------------------


def test_every_look_alike_swapped_folds_back() -> None:
    copy = SOURCE.translate(_TO_LATIN)
    assert _terms(copy) == _terms(SOURCE)
    assert _terms(copy, "ru") == _terms(SOURCE, "ru")
    tricks = find_tricks(copy)
    assert tricks.kinds == ("homoglyph",)
    assert tricks.suspicious
    homoglyph = tricks.get("homoglyph")
    assert homoglyph is not None
    changed = sum(1 for a, b in zip(copy, SOURCE, strict=True) if a != b)
    assert homoglyph.chars == changed
    # without the filter, the copy shares almost nothing with its source
    assert _terms(copy, fold=False) != _terms(SOURCE, fold=False)


def test_cyrillic_look_alikes_in_english_fold_back() -> None:
    copy = ENGLISH.translate(_TO_CYRILLIC)
    assert _terms(copy, "en") == _terms(ENGLISH, "en")
    assert find_tricks(copy).suspicious


CODES_EN = (
    "Airbus said the new A340 and A330-200 jets will cost 750p a share more than the 3B "
    "model, according to the company statement released on Monday in Toulouse."
)
CODES_RU = (
    "Стратегические ракетоносцы Ту-95МС и Су-30СМ вылетели с аэродрома, сообщили в "
    "министерстве обороны России. Их сопровождали истребители, а также самолёт A380."
)


@pytest.mark.slow
def test_codes_of_letters_and_digits_fold_back_in_a_copy() -> None:
    # the worst copies of the evasion benchmark: codes kept their swapped letters
    copy = CODES_EN.translate(_TO_CYRILLIC)
    assert "А340" in copy and "750р" in copy and "3В" in copy
    assert _terms(copy, "en") == _terms(CODES_EN, "en")
    # in a Russian copy, a code joined by a hyphen to a Russian word comes back; a Latin
    # code standing alone (A380) was Latin in the source too and stays Latin
    copy = CODES_RU.translate(_TO_LATIN)
    assert "Ty-95MC" in copy and "A380" in copy
    assert _terms(copy) == _terms(CODES_RU)
    # an honest text keeps its codes as they are (no evidence of swapped letters)
    honest = "Самолёт Ту-95MC и Airbus A380 прилетели; in English a code А340 stays."
    assert find_tricks(honest).get("homoglyph") is None
    assert "95mc" in " ".join(_terms(honest))


def test_a_few_letters_greek_and_digits() -> None:
    # Greek omicron in a Russian word, Latin p, a zero and a three used as letters
    text = "Пοлитика пpавительства: м0локо и 3има"
    assert _terms(text) == ["политика", "правительства", "молоко", "и", "зима"]
    homoglyph = find_tricks(text).get("homoglyph")
    assert homoglyph is not None
    assert homoglyph.chars == 4 and homoglyph.words == 4


def test_fullwidth_letters_fold_after_nfkc() -> None:
    assert _terms("пｐивет") == ["привет"]  # fullwidth p → p (NFKC) → р (fold)
    assert _terms("п𝐩ивет и м𝐨локо") == ["привет", "и", "молоко"]  # mathematical bold


@pytest.mark.parametrize(
    "text",
    [
        "Новый iPhone и SQL-запрос к базе данных",
        "Вирус COVID-19 и формула H2O, выбросы CO2",
        "В XX и XXI веках",
        "Самолёт Ту-154 и истребитель МиГ-29",
        "Компания Apple и сайт ria.ru сообщили, что всё OK",
        "Папа издал motu proprio о реформе курии",
        "Пишите на nm0w+@andrew.cmu.edu и качайте mp3, B2B",
        "The Kremlin said Путин would visit, and Газпром agreed.",
        "и т. д. и т. п., т.е. всё как обычно",
        "C/C/C/C/C/C/C/C/C/C/C/C",
    ],
)
def test_real_mixed_words_stay(text: str) -> None:
    assert not find_tricks(text)
    assert _terms(text, "plain") == _terms(text, "plain", fold=False)


def test_a_word_with_a_letter_that_has_no_look_alike_stays() -> None:
    # "SQLзапрос": S has a Cyrillic look-alike (Ѕ) but Q and L have none: a real mixed word
    assert neutralize("SQLзапрос")[0] == "SQLзапрос"


# --- invisible characters ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff", "\u202e", "\ufe0f"]
)
def test_invisible_after_every_letter(invisible: str) -> None:
    copy = " ".join(invisible.join(word) for word in SOURCE.split(" "))
    assert _terms(copy, "ru") == _terms(SOURCE, "ru")
    trick = find_tricks(copy).get("invisible")
    assert trick is not None and trick.suspicious
    assert trick.chars == copy.count(invisible)


def test_a_few_soft_hyphens_are_removed_but_not_suspicious() -> None:
    # a web page's hyphenation: soft hyphens in a long word or two
    text = (
        SOURCE
        + " Это ис\u00adполь\u00adзу\u00adет\u00adся в про\u00adмыш\u00adлен\u00adно\u00adсти."
    )
    tricks = find_tricks(text)
    assert tricks.kinds == ("invisible",)
    trick = tricks.get("invisible")
    assert trick is not None and trick.chars == 8 and trick.words == 2
    assert not tricks.suspicious
    assert _terms(text) == _terms(text.replace("\u00ad", ""))


def test_an_invisible_character_that_breaks_no_word_changes_nothing() -> None:
    # after a word, before a line break, in an emoji sequence: no token changes, and the text
    # keeps the fast path
    text = "Исследование цито\u00ad\nфлуориметрии 🏳️ показало\u200b рост"
    assert not find_tricks(text)
    assert _terms(text) == _terms(text, fold=False)


# --- letter spacing and stuffing -------------------------------------------------------------


def test_letter_spacing() -> None:
    assert _terms("Это т е к с т статьи") == ["это", "текст", "статьи"]
    assert _terms("Это т.е.к.с.т статьи") == ["это", "текст", "статьи"]
    spaced = "п р о ф и ц и т   б ю д ж е т а   в ы р о с"
    assert _terms(spaced) == ["профицит", "бюджета", "вырос"]
    trick = find_tricks(spaced).get("letter_spacing")
    assert trick is not None
    assert trick.chars == 20 and trick.words == 3
    assert trick.spans == ((0, len(spaced)),)


@pytest.mark.parametrize(
    ("spaced", "joined"),
    [
        # brackets, quotes and commas spaced with the letters (the evasion benchmark's worst
        # Reuters copies): a mark after a word break, several marks in a row
        ("P a r t y   ( P C P ) ,   w h o   h e l d", "Party (PCP), who held"),
        ("L e a h y   ( D - V t . )   s a i d   t h r e e", "Leahy (D-Vt.) said three"),
        ("P L C   < B C S . L > ,   a n d   d u e", "PLC <BCS.L>, and due"),
        ("с к а з а л   « н е т »   в ч е р а", "сказал «нет» вчера"),
    ],
)
def test_letter_spacing_with_punctuation(spaced: str, joined: str) -> None:
    text, _, tricks = neutralize(spaced)
    assert text == joined
    assert _terms(spaced) == _terms(joined)
    assert tricks.kinds == ("letter_spacing",)


def test_stuffing() -> None:
    assert _terms("пла\ue000гиат и пла1гиат") == ["плагиат", "и", "плагиат"]
    trick = find_tricks("пла\ue000гиат и пла1гиат").get("stuffing")
    assert trick is not None and trick.chars == 2
    assert trick.spans == ((3, 4), (14, 15))


def test_visible_symbols_between_words_are_not_stuffing() -> None:
    for text in ("американских🇺🇸властей", "Hockey❄is❄my❄Love", "сло♦во", "часа═тысячи", "word™"):
        assert not find_tricks(text).get("stuffing")


# --- offsets and the report ------------------------------------------------------------------


def test_spans_point_into_the_original() -> None:
    text = "Новый при\u200bвет и пpивет"
    canonical = _canonical(text)
    assert canonical.terms == ["новый", "привет", "и", "привет"]
    spans = list(zip(canonical.starts.tolist(), canonical.ends.tolist(), strict=True))
    assert spans == [(0, 5), (6, 13), (14, 15), (16, 22)]
    assert text[6:13] == "при\u200bвет"
    tricks = canonical.tricks
    assert tricks.kinds == ("homoglyph", "invisible")
    assert tricks.get("homoglyph").spans == ((16, 22),)  # type: ignore[union-attr]
    assert tricks.get("invisible").spans == ((9, 10),)  # type: ignore[union-attr]


def test_spans_through_html_and_nfkc() -> None:
    # the html filter and NFKC (ﬁ → fi) move characters: the spans still point into the input
    page = "<html><body><p>ﬁnal пpивет</p></body></html>"
    canonical = Analyzer(preset("plain", html="always")).canonical(page)
    assert canonical.terms == ["final", "привет"]
    homoglyph = canonical.tricks.get("homoglyph")
    assert homoglyph is not None
    ((start, end),) = homoglyph.spans
    assert page[start:end] == "пpивет"


def test_tricks_to_dict() -> None:
    tricks = find_tricks("т е к с т " * 10)
    data = tricks.to_dict()
    assert data["suspicious"] is True
    assert data["tricks"][0]["kind"] == "letter_spacing"
    assert set(data["tricks"][0]) == {"kind", "chars", "words", "spans", "share", "suspicious"}
    assert Tricks().to_dict() == {"suspicious": False, "tricks": []}


def test_clean_text_has_no_tricks() -> None:
    canonical = _canonical(SOURCE, "ru")
    assert not canonical.tricks
    assert not canonical.tricks.suspicious


# --- the score, the spec and the fast path ---------------------------------------------------


def test_compare_with_and_without_folding() -> None:
    copy = SOURCE.translate(_TO_LATIN)
    folded = compare(SOURCE, copy)
    raw = compare(SOURCE, copy, spec=default_spec("auto", fold_tricks=False))
    assert folded.resemblance == pytest.approx(1.0)
    assert raw.resemblance < 0.1


def test_fold_is_a_new_spec_and_off_is_the_old_chain() -> None:
    for name in ("plain", "ru", "en", "auto"):
        on, off = preset(name), preset(name, fold_tricks=False)
        for (_, chain_on), (_, chain_off) in zip(on.chains, off.chains, strict=True):
            names_on = [c.name for c in chain_on.char_filters]
            names_off = [c.name for c in chain_off.char_filters]
            assert names_on[names_on.index("nfkc") + 1] == "fold"
            assert names_off == [n for n in names_on if n != "fold"]
        assert (
            default_spec(name).fingerprint() != default_spec(name, fold_tricks=False).fingerprint()
        )


# Fingerprint digests of clean texts under the default spec, computed before the filter
# existed (commit 9abc8db): the filter must not change them.
#: Pinned for the default spec with the function-word stop lists (``function-1``).
GOLDEN = {"ru": "4aa37706e253327b", "en": "ac38cf9bce42b63b"}


@pytest.mark.parametrize("name,text", [("ru", SOURCE), ("en", ENGLISH)])
def test_clean_fingerprints_are_unchanged(name: str, text: str) -> None:
    from neardup.fingerprints.pipeline import Pipeline

    on = Pipeline(default_spec("auto")).fingerprints(text)
    off = Pipeline(default_spec("auto", fold_tricks=False)).fingerprints(text)
    assert np.array_equal(on.values, off.values)
    digest = _digest(on.values)
    assert digest == GOLDEN[name]


def _digest(values: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(values, dtype="<u8").tobytes()).hexdigest()[:16]


def test_clean_text_takes_the_fast_path() -> None:
    analyzer = Analyzer(preset("ru"))
    chain = next(iter(analyzer._chains.values()))
    assert chain.fast_scan(SOURCE) is not None
    assert chain.fast_scan(SOURCE.translate(_TO_LATIN)) is None


TRICKY = [
    SOURCE,
    ENGLISH,
    SOURCE.translate(_TO_LATIN),
    "при\u200bвет 🏳️ мир\u200b и #️⃣ \u00adслово",
    "т е к с т и т. д. и т. п. т.е.к.с.т",
    "пла\ue000гиат ﬁnal ｐривет 𝐩ривет м0локо",
    "Σίσυφος ΑΒΓ abc Ελλάδα κaι",
    "",
]


@pytest.mark.parametrize("text", TRICKY)
def test_the_fast_and_the_general_path_agree(text: str) -> None:
    for name in ("plain", "ru", "en"):
        analyzer = Analyzer(preset(name))
        chain = next(iter(analyzer._chains.values()))
        filtered, offsets = chain.filter_chars(text)
        general = chain.canonical(filtered, offsets, "*")
        fast = analyzer.canonical(text)
        assert fast.terms == general.terms
        assert fast.starts.tolist() == general.starts.tolist()
        assert fast.ends.tolist() == general.ends.tolist()


#: Pieces the superset test builds words and gaps of: letters of the three scripts with and
#: without look-alikes, digits that look like letters and ones that do not, characters NFKC
#: changes, invisible and private-use characters, marks.
_SCRIPTS = ["абвгдеорсхуяпзчАВЕОРС", "aeopcxyuvbnmhAEOPCBHKMT", "αβεοκΑΕΟ"]
_DIGITS = "0134567892\u0663"
_ODD = "\u200b\u00ad\ufe0f\ue000\u0301♦😀ﬁ𝐩ｃ½"
_ANY = "".join(_SCRIPTS) + _DIGITS + _ODD
_GAPS = [" ", " ", " ", "  ", ". ", ", ", "-", ".", "\n", " - ", " , ", "/"]


def _random_text(rng: np.random.Generator) -> str:
    parts: list[str] = []
    for _ in range(int(rng.integers(1, 14))):
        letters = _SCRIPTS[int(rng.integers(0, 3))] if rng.random() < 0.9 else _DIGITS
        word = [str(c) for c in rng.choice(list(letters), size=int(rng.integers(1, 7)))]
        if len(word) > 1 and rng.random() < 0.3:  # one character of anything in the word
            word[int(rng.integers(0, len(word)))] = str(rng.choice(list(_ANY)))
        parts.append("".join(word) + str(rng.choice(_GAPS)))
    return "".join(parts)


def test_the_scan_is_a_superset_of_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    # a text the scan passes is one the filter leaves with the same tokens: the filter is run
    # for every text here (its own scan forced true), so the test can see what the scan missed
    rng = np.random.default_rng(24)
    texts = [_random_text(rng) for _ in range(4000)] + TRICKY
    table = confusables.classes()
    scan = text_kernels.might_have_tricks
    passed = [t for t in texts if not scan(text_kernels.code_points(t), table)]
    assert 0.2 * len(texts) < len(passed) < 0.9 * len(texts)  # both kinds are tried
    monkeypatch.setattr(text_kernels, "might_have_tricks", lambda cps, table: True)
    folding = Analyzer(preset("plain", html="never"))
    plain = Analyzer(preset("plain", html="never", fold_tricks=False))
    for text in passed:
        assert folding.canonical(text).terms == plain.canonical(text).terms, repr(text)


def test_the_scan_passes_what_the_filter_leaves() -> None:
    # what an honest text holds is not flagged (it would take the slow path for nothing)
    table = confusables.classes()
    for text in (
        "См. 2 (9), ч. 2. ч. 5, 6",  # one-letter words with fewer than 3 letters
        "1 2 3 4 5 6 7 8",  # numbers
        "напряжение Uпр, Fщит",  # letters of two scripts with no look-alike to fold
        "отрази63 эффек17 2Рос 55а",  # digits beside Cyrillic the filter leaves
    ):
        assert not text_kernels.might_have_tricks(text_kernels.code_points(text), table), text
    for text in ("т е к с т", "м0локо", "3има", "cлово", "при\u200bвет", "a b a b a b a b a"):
        assert text_kernels.might_have_tricks(text_kernels.code_points(text), table), text


@pytest.mark.slow
def test_batch_signing_matches_one_by_one() -> None:
    from neardup.sketch.minhash import MinHasher
    from neardup.spec import SketchSpec

    spec = default_spec("auto").replace(sketch=SketchSpec(num_perm=32))
    hasher = MinHasher(spec)
    texts = TRICKY * 2
    batch = hasher.sign_texts(texts)
    for i, text in enumerate(texts):
        assert np.array_equal(batch[i], hasher.sign_texts([text])[0])
    # a copy signs as its source
    copy_sig = hasher.sign_texts([SOURCE.translate(_TO_LATIN)])[0]
    assert np.array_equal(copy_sig, hasher.sign_texts([SOURCE])[0])


@pytest.mark.parametrize("name", ["plain", "ru", "en", "auto"])
def test_batch_signing_of_flagged_texts_is_the_analyzers(name: str) -> None:
    # a batch signs the texts the fold scan passes in the kernel and the others one by one:
    # the signatures and the tricks are the analyzer's either way
    from neardup.sketch.minhash import MinHasher
    from neardup.spec import SketchSpec

    hasher = MinHasher(default_spec(name).replace(sketch=SketchSpec(num_perm=32)))
    rng = np.random.default_rng(26)
    texts = [*TRICKY, ENGLISH.translate(_TO_CYRILLIC)]
    texts += [_random_text(rng) for _ in range(600)]
    signatures, found = hasher.sign_texts_and_tricks(texts)
    one_by_one = hasher._finish(hasher._sign_texts_each(texts))
    for i, text in enumerate(texts):
        assert np.array_equal(signatures[i], one_by_one[i]), repr(text)
        assert found[i] == hasher.pipeline.canonical(text).tricks, repr(text)
    assert sum(1 for f in found if f) > 100  # tricks were found


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("абвгдеёжАБВЁabcopXYZ019 -.,\u00a0…ﬁİ\u0301\u200b\u00ad\ue000<>&;")
        ),
        max_size=80,
    )
)
def test_folded_spans_cover_their_tokens(text: str) -> None:
    canonical = Analyzer(preset("plain", html="never")).canonical(text)
    spans = list(zip(canonical.starts.tolist(), canonical.ends.tolist(), strict=True))
    for a, b in spans:
        assert 0 <= a < b <= len(text)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))
    for trick in canonical.tricks.found:
        assert all(0 <= a < b <= len(text) for a, b in trick.spans)


def test_a_collection_made_before_keeps_its_spec_and_says_so(tmp_path: Path) -> None:
    from neardup.errors import SpecMismatchError
    from neardup.fingerprints.pipeline import make_spec
    from neardup.index import Collection, IndexSpec

    db = str(tmp_path / "old.db")
    before = make_spec("plain", fold_tricks=False)  # the spec of a collection made before
    Collection.create(db, before, IndexSpec()).close()
    with Collection.open(db) as col:
        assert col.spec.fingerprint() == before.fingerprint()
    with pytest.raises(SpecMismatchError, match="was built under spec"):
        Collection.open(db, spec=make_spec("plain"))


def test_a_long_text_with_a_trick_is_analysed_whole() -> None:
    from neardup.analysis import chunked

    clean = (SOURCE + "\n") * (chunked.CHUNK_CHARS // len(SOURCE) + 2)
    # a few words with a Latin letter and a zero-width space (a few: whole words of Latin
    # look-alikes are folded only where words of two scripts are many, see the module)
    copy = clean[:1000] + "Пpи\u200bвет " + clean[1000:]
    analyzer = Analyzer(preset("plain"))
    assert chunked.canonical(analyzer, clean) is not None  # clean: still a piece at a time
    assert chunked.canonical(analyzer, copy) is None
    folded = analyzer.canonical(copy)
    assert folded.terms == analyzer.canonical(clean[:1000] + "Привет " + clean[1000:]).terms
    assert folded.tricks.kinds == ("homoglyph", "invisible")


# --- marks and controls (issue 35) ----------------------------------------------------------


def _every_word(text: str, change: object, step: int = 1) -> str:
    words = text.split(" ")
    return " ".join(
        change(w) if i % step == 0 and len(w) > 2 else w  # type: ignore[operator]
        for i, w in enumerate(words)
    )


def _accented(word: str) -> str:
    return word[:2] + "\u0301" + word[2:]


@pytest.mark.parametrize("name", ["plain", "ru", "en"])
def test_a_combining_mark_on_every_word_is_stripped_in_every_chain(name: str) -> None:
    for source in (SOURCE, ENGLISH):
        copy = _every_word(source, _accented)
        assert _terms(copy, name) == _terms(source, name)
        stuffing = find_tricks(copy).get("stuffing")
        assert stuffing is not None and stuffing.suspicious
        assert stuffing.words == sum(1 for w in source.split(" ") if len(w) > 2)
        # each span covers the word of the mark, in the original
        a, b = stuffing.spans[0]
        assert copy[a:b] == _accented(source.split(" ")[0])


def test_letters_typed_with_a_mark_stay_and_precomposed_accents_stay() -> None:
    decomposed = "Мои\u0306 ёж и е\u0308ж; café Zürich"
    assert _terms(decomposed) == ["мой", "ёж", "и", "ёж", "café", "zürich"]
    assert not find_tricks(decomposed)


def test_a_word_reversed_by_a_right_to_left_override_is_read_as_displayed() -> None:
    def reversed_word(word: str) -> str:
        return "\u202e" + word[::-1] + "\u202c"

    for source in (SOURCE, ENGLISH):
        copy = _every_word(source, reversed_word, 3)
        for name in ("plain", "ru", "en"):
            assert _terms(copy, name) == _terms(source, name)
        invisible = find_tricks(copy).get("invisible")
        assert invisible is not None and invisible.suspicious
        assert invisible.words == copy.count("\u202e")
    # an override to the end of the line; an isolate's end ends it
    assert _terms("a \u202eolleh\nworld") == ["a", "hello", "world"]
    assert _terms("x \u2067\u202eolleh\u2069 y") == ["x", "hello", "y"]
    canonical = _canonical("go \u202eolleh\u202c now")
    assert list(zip(canonical.starts.tolist(), canonical.ends.tolist())) == [
        (0, 2),
        (4, 9),
        (11, 14),
    ]


def test_variation_selectors_of_emoji_and_symbols_are_no_trick() -> None:
    # a Latin "c" for "с" takes the text to the filter, which drops the selectors
    text = "дом \u2764\ufe0f коты 1\ufe0f\u20e3 ©\ufe0f и cлон \u263a\ufe0e"
    tricks = find_tricks(text)
    assert tricks.kinds == ("homoglyph",)
    assert _terms(text) == ["дом", "коты", "1", "и", "слон"]
    inside = find_tricks("ко\ufe0fты")
    assert inside.kinds == ("invisible",)


MARKED = [
    "The he\u0301llo wo\u0301rld мо\u0301локо и\u0306од е\u0308ж",
    "go \u202eolleh\u202c now \u202etxet dna\u202c, \u202eend",
    "д½theА ½ a b c d ¼x y¨z",
]


@pytest.mark.parametrize("text", MARKED)
def test_the_fast_and_the_general_path_agree_on_marks(text: str) -> None:
    test_the_fast_and_the_general_path_agree(text)


# --- letter spacing word by word (issue 35) -------------------------------------------------


def test_neighbouring_spaced_words_are_not_glued() -> None:
    text = "Мои коллеги и Никки пришли так рано. к о л л е г и Н и к к и т а к пришли"
    assert _terms(text) == _terms("Мои коллеги и Никки пришли так рано. коллеги Никки так пришли")
    # a short spaced word joins in a text that spaces words (40 letters and 2 % of them);
    # "и в" may be two words
    spaced = "с о б а к а   р а с с к а з ы в а л а   с т р а н н ы е   и с т о р и и"
    text = f"Он т а к сказал и в доме: {spaced}, а {spaced}."
    plain = "собака рассказывала странные истории"
    assert _terms(text) == ["он", "так", "сказал", "и", "в", "доме", *plain.split(), "а"] + [
        *plain.split()
    ]
    spacing = find_tricks(text).get("letter_spacing")
    assert spacing is not None and spacing.words == 10  # так; 4 words; "а" and 4 words
    # in a text with a spaced heading only, single letters stay as they are (a formula)
    assert _terms("З а к л ю ч е н и е. Где R ω и т") == [
        "заключение",
        "где",
        "r",
        "ω",
        "и",
        "т",
    ]


def test_a_preposition_before_a_spaced_word_is_split_off_by_the_dictionary() -> None:
    text = "Команда впервые вышла в финал, в к о н е ч н о м итоге победив"
    assert _terms(text) == _terms("Команда впервые вышла в финал, в конечном итоге победив")


def test_names_spaced_with_no_break_spaces_are_joined_but_no_trick() -> None:
    nbsp = "\u00a0"
    names = ["Дон Жуан", "Сганарель", "Дона Анна", "Командор", "Лепорелло"]
    cast = ", ".join(f"{nbsp} {nbsp}".join(nbsp.join(w) for w in n.split()) for n in names)
    text = "ДЕЙСТВУЮЩИЕ ЛИЦА: " + cast + ". Сцена первая."
    assert _terms(text) == _terms("ДЕЙСТВУЮЩИЕ ЛИЦА: " + ", ".join(names) + ". Сцена первая.")
    assert not find_tricks(text)


# --- look-alikes of other scripts (issue 35) ------------------------------------------------


def test_rare_look_alikes_of_other_scripts_fold_back() -> None:
    # Cyrillic ѕ і ј һ ԁ and Armenian օ ո ս զ in English words, Greek χ ρ in both
    rare = str.maketrans("sijhdonuq", "ѕіјһԁօոսզ")
    copy = " ".join(w.translate(rare) if i % 2 else w for i, w in enumerate(ENGLISH.split(" ")))
    for name in ("plain", "en"):
        assert _terms(copy, name) == _terms(ENGLISH, name)
    homoglyph = find_tricks(copy).get("homoglyph")
    assert homoglyph is not None and homoglyph.suspicious
    assert _terms("В χоде работы, как eχρected") == _terms("В ходе работы, как expected")
    # a word of a script with no look-alike for a letter stays
    assert _terms("GPS수신 iPhone") == ["gps수신", "iphone"]
