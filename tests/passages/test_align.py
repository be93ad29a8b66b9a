"""Matched fragments: passages, their spans in the original inputs, borrowed %, the kernels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup._kernels import align as kernels
from neardup.errors import ConfigurationError
from neardup.fingerprints.pipeline import make_spec
from neardup.passages.align import Aligner, Alignment, Prepared, align, align_pair
from tests._aligntext import ESSAY, OTHER, VOCAB, text, words

FRAGMENT = ESSAY[ESSAY.index("Старые") : ESSAY.index("Опытный") - 1]  # two whole sentences


@pytest.fixture(scope="module")
def aligner() -> Aligner:
    return Aligner()


@pytest.fixture(scope="module")
def plain() -> Aligner:
    return Aligner(make_spec("plain"))


def test_verbatim_copy_is_one_passage_with_exact_spans(aligner: Aligner) -> None:
    query = OTHER + "\n" + FRAGMENT + "\nКонец заметки о библиотеке."
    result = aligner.pair(query, ESSAY)
    assert len(result.passages) == 1
    p = result.passages[0]
    # the passage runs from the first to the last content word of the pasted sentences
    assert p.a_text == FRAGMENT.rstrip(".")
    assert p.b_text == FRAGMENT.rstrip(".")
    assert query[p.a_start : p.a_end] == p.a_text
    assert ESSAY[p.b_start : p.b_end] == p.b_text
    assert p.b_start == ESSAY.index("Старые")
    assert p.similarity == 1.0 and p.a_changed == () and p.b_changed == ()
    assert p.matched_a == p.tokens_a == p.tokens_b
    assert 0.0 < result.borrowed < 1.0
    assert result.uniqueness == pytest.approx(1.0 - result.borrowed)
    canon = aligner.pipeline.canonical(query)
    inside = (canon.starts >= p.a_start) & (canon.ends <= p.a_end)
    assert result.borrowed == pytest.approx(inside.sum() / len(canon))


def test_passage_of_the_golden_pair_is_pinned(aligner: Aligner) -> None:
    query = OTHER + "\n" + FRAGMENT + "\nКонец заметки о библиотеке."
    p = aligner.pair(query, ESSAY).passages[0]
    assert (p.a_start, p.a_end, p.b_start, p.b_end) == (265, 430, 64, 229)
    assert (p.a_tokens, p.b_tokens, p.matched_a, p.matched_b) == ((28, 49), (8, 29), 21, 21)


def test_light_edits_keep_one_passage_and_lower_similarity(aligner: Aligner) -> None:
    edited = FRAGMENT.replace("крепкие", "большие").replace("рано утром", "ранним утром")
    edited = edited.replace("ещё лежит", "ещё стоит")
    query = "Заметка о природе.\n" + edited + "\nВот и всё."
    result = aligner.pair(query, ESSAY)
    assert len(result.passages) == 1
    p = result.passages[0]
    assert p.a_text.startswith("Старые дубы") and p.a_text.endswith("на траве")
    assert p.b_text.startswith("Старые дубы") and p.b_text.endswith("на траве")
    assert 0.7 < p.similarity < 1.0
    assert p.matched_a < p.tokens_a
    # the edited words are in the unmatched runs, in both texts (words between two edits
    # closer than k are unmatched too: no k-word shingle fits between them)
    changed_a = " | ".join(query[a:b] for a, b in p.a_changed)
    changed_b = " | ".join(ESSAY[a:b] for a, b in p.b_changed)
    assert (
        changed_a.startswith("большие | ") and "ранним" in changed_a and changed_a.endswith("стоит")
    )
    # "рано" is a content word (the long stop lists dropped it): "ранним" stands for it
    assert changed_b == "крепкие | рано | лежит"
    assert "дубы" not in changed_a
    # with no gap allowed, the changed words cut the passage (or shrink it)
    strict = Aligner(gap=0).pair(query, ESSAY)
    assert len(strict.passages) != 1 or strict.passages[0].tokens_a < p.tokens_a


def test_unrelated_texts_share_no_passage(aligner: Aligner) -> None:
    result = aligner.pair(ESSAY, OTHER)
    assert result.passages == []
    assert result.borrowed == 0.0 and result.uniqueness == 1.0
    assert result.sources[0].source_used == 0.0


def test_several_sources_borrowed_per_source_and_total(plain: Aligner) -> None:
    src1, src2 = text(300, seed=1), text(300, seed=2)
    w1, w2 = src1.split(), src2.split()
    filler = words(100, seed=3)
    query_words = filler[:40] + w1[100:160] + filler[40:70] + w2[10:50] + filler[70:]
    result = plain.align(
        " ".join(query_words), {"one": src1, "two": src2, "none": text(200, seed=4)}
    )
    assert [s.id for s in result.sources] == ["one", "two", "none"]
    one, two, none = result.sources
    n = len(query_words)
    assert len(one.passages) == 1 and len(two.passages) == 1 and not none.passages
    assert one.borrowed == pytest.approx(60 / n, abs=2 / n)
    assert two.borrowed == pytest.approx(40 / n, abs=2 / n)
    assert result.borrowed == pytest.approx(one.borrowed + two.borrowed)  # disjoint passages
    assert one.source_used == pytest.approx(60 / 300, abs=2 / 300)
    assert one.passages[0].b_tokens[0] == pytest.approx(100, abs=1)
    # both passages come back in query order from .passages
    assert [p.source for p in result.passages] == ["one", "two"]


def test_total_borrowed_counts_overlapping_sources_once(plain: Aligner) -> None:
    src = text(200, seed=5)
    query = " ".join(words(30, seed=6) + src.split()[50:120] + words(30, seed=7))
    result = plain.align(query, [("a", src), ("b", src)])
    assert result.sources[0].borrowed == pytest.approx(result.sources[1].borrowed)
    assert result.borrowed == pytest.approx(result.sources[0].borrowed)


def test_html_input_spans_point_into_the_html(plain: Aligner) -> None:
    body = text(80, seed=8).split()
    copied = body[20:50]
    html_doc = (
        "<!DOCTYPE html><html><head><title>t</title><style>p{}</style></head><body><p>"
        + " ".join(body[:20])
        + " <b>"
        + " ".join(copied[:10])
        + "</b> "
        + " ".join(copied[10:])
        + " &amp; "
        + " ".join(body[50:])
        + "</p></body></html>"
    )
    query = text(40, seed=9) + " " + " ".join(copied) + " " + text(40, seed=10)
    result = plain.pair(html_doc, query)
    assert len(result.passages) == 1
    p = result.passages[0]
    assert html_doc[p.a_start : p.a_end] == p.a_text
    assert p.a_text.startswith(copied[0]) and p.a_text.endswith(copied[-1])
    assert "</b>" in p.a_text  # the span is of the HTML as given, markup included
    assert p.b_text == " ".join(copied)


def test_empty_and_short_texts(aligner: Aligner) -> None:
    assert aligner.pair("", ESSAY).passages == []
    assert aligner.pair(ESSAY, "").borrowed == 0.0
    empty = aligner.pair("", "")
    assert empty.tokens == 0 and empty.borrowed == 0.0
    # fewer matched words than min_tokens in a longer text: no passage
    longer = "Старые дубы стоят вдоль узкой тропы, а мы шли молча к дальнему озеру за холмом."
    assert aligner.pair(longer, ESSAY).passages == []
    assert Aligner(min_tokens=3).pair(longer, ESSAY).passages


def test_a_text_shorter_than_a_passage_is_one_passage_when_taken_whole(aligner: Aligner) -> None:
    sentence = "Старые дубы стоят вдоль узкой тропы."
    result = aligner.pair(sentence, ESSAY)
    assert [(p.a_text, p.a_tokens, p.similarity) for p in result.passages] == [
        ("Старые дубы стоят вдоль узкой тропы", (0, 5), 1.0)
    ]
    assert result.uniqueness == 0.0 and result.words.copied == 5
    # one word changed: not all of it was taken, so no passage (as a longer text needs
    # min_tokens matched words)
    assert aligner.pair("Старые дубы стоят вдоль широкой тропы.", ESSAY).passages == []
    # fewer words than a shingle: one passage where the words stand in a row in the source
    two = aligner.pair("Узкой тропы!", ESSAY)
    assert [(p.a_text, p.b_text, p.tokens_a) for p in two.passages] == [
        ("Узкой тропы", "узкой тропы", 2)
    ]
    assert aligner.pair("Тропы узкой", ESSAY).passages == []  # not in that order
    assert aligner.pair("Тропы узкой", "тропы").passages == []  # a source shorter than it


def test_prepared_texts_are_reused_and_checked(aligner: Aligner) -> None:
    prepared = aligner.prepare(ESSAY)
    assert isinstance(prepared, Prepared) and len(prepared) > 0
    assert aligner.prepare(prepared) is prepared
    direct = aligner.pair(OTHER + " " + FRAGMENT, ESSAY)
    reused = aligner.pair(OTHER + " " + FRAGMENT, prepared)
    assert direct.to_dict() == reused.to_dict()
    with pytest.raises(ConfigurationError):
        Aligner(k=4).pair(ESSAY, prepared)


@pytest.mark.parametrize(
    "bad",
    [{"k": 0}, {"gap": -1}, {"min_tokens": 0}, {"max_occurrences": 0}, {"k": 2.5}, {"gap": True}],
)
def test_bad_parameters_are_configuration_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        Aligner(**bad)  # type: ignore[arg-type]


def test_function_forms_and_dict_output() -> None:
    query = OTHER + " " + FRAGMENT
    a = align(query, {"essay": ESSAY})
    b = align_pair(query, ESSAY)
    assert isinstance(a, Alignment)
    assert a.passages[0].a_start == b.passages[0].a_start
    out = a.to_dict(with_text=True)
    assert out["sources"][0]["id"] == "essay" and out["text"] == query
    assert out["params"] == {
        "k": 3,
        "gap": 8,
        "min_tokens": 8,
        "max_occurrences": 50,
        "rewrites": 1,
    }
    assert a.source("essay").passages == a.sources[0].passages
    with pytest.raises(KeyError):
        a.source("missing")


def test_frequent_shingles_make_no_seeds() -> None:
    refrain = "ля ля ля ля"
    source = " ".join([refrain] * 30)
    query = " ".join([refrain] * 5)
    plain = make_spec("plain")
    assert Aligner(plain, max_occurrences=10).pair(query, source).passages == []
    assert Aligner(plain, max_occurrences=1000).pair(query, source).passages


def test_alignment_is_deterministic(plain: Aligner) -> None:
    src = text(150, seed=12)
    query = " ".join(words(20, seed=13) + src.split()[30:90] + words(20, seed=14))
    first = plain.pair(query, src).to_dict()
    assert all(Aligner(make_spec("plain")).pair(query, src).to_dict() == first for _ in range(2))


# --- the kernels -----------------------------------------------------------------------------


@given(
    st.lists(st.integers(0, 6), max_size=40),
    st.lists(st.integers(0, 6), max_size=40),
    st.integers(1, 5),
)
@settings(max_examples=60, deadline=None)
def test_find_seeds_is_every_equal_pair(qa: list[int], sb: list[int], cap: int) -> None:
    query = np.array(qa, dtype=np.uint64)
    source = np.array(sb, dtype=np.uint64)
    order = np.argsort(source, kind="stable").astype(np.int64)
    si, sj = kernels.find_seeds(query, source[order], order, cap)
    counts = {v: sb.count(v) for v in set(sb)}
    expected = [
        (i, j) for i, x in enumerate(qa) for j, y in enumerate(sb) if x == y and counts[y] <= cap
    ]
    assert list(zip(si.tolist(), sj.tolist(), strict=True)) == expected


def test_chain_seeds_bridges_gaps_up_to_the_limit() -> None:
    # a diagonal run, a hole of 3 tokens (k=3: 5 missing shingles), another run
    si = np.array([0, 1, 2, 8, 9, 10], dtype=np.int64)
    sj = si + 5
    chains = kernels.chain_seeds(si, sj, 3, 20, 30, 3)
    assert [c.tolist() for c in chains[:6]] == [[0], [13], [5], [18], [10], [10]]
    assert chains[6].tolist() == [0] * 6  # every seed joined chain 0
    split = kernels.chain_seeds(si, sj, 3, 20, 30, 2)
    assert split[0].tolist() == [0, 8] and split[1].tolist() == [5, 13]


def test_chain_seeds_prefers_the_diagonal_over_a_repeat() -> None:
    # query position 1 matches source 1 (the diagonal) and source 3 (a repeat further on)
    si = np.array([0, 1, 1, 2], dtype=np.int64)
    sj = np.array([0, 1, 3, 2], dtype=np.int64)
    a_first, a_end, b_first, b_end, _, _, _ = kernels.chain_seeds(si, sj, 1, 3, 4, 2)
    assert (a_first[0], a_end[0], b_first[0], b_end[0]) == (0, 3, 0, 3)


def test_select_non_overlapping_keeps_the_best() -> None:
    keep = kernels.select_non_overlapping(
        np.array([0, 5, 12], dtype=np.int64),
        np.array([10, 15, 20], dtype=np.int64),
        np.array([10, 20, 5], dtype=np.int64),
        20,
    )
    assert keep.tolist() == [False, True, False]
    assert (
        kernels.covered_tokens(
            np.array([0, 5], dtype=np.int64), np.array([10, 15], dtype=np.int64), 20
        )
        == 15
    )


# --- the property: every span is exactly what the passage says, HTML included -------------------


def _render(tokens: list[str], style: list[int], html: bool) -> str:
    if not html:
        return " ".join(tokens)
    parts = []
    for t, s in zip(tokens, style, strict=False):
        parts.append(f"<i>{t}</i>" if s == 1 else f"{t}&nbsp;" if s == 2 else t)
    return "<html><body><p>" + " ".join(parts) + "</p><p>&lt;конец&gt;</p></body></html>"


@given(
    source_idx=st.lists(st.integers(0, 400), min_size=5, max_size=80),
    host_idx=st.lists(st.integers(0, 400), min_size=0, max_size=60),
    copy=st.tuples(st.integers(0, 79), st.integers(1, 60)),
    at=st.integers(0, 60),
    edits=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 400)), max_size=4),
    style=st.lists(st.integers(0, 2), min_size=200, max_size=200),
    html=st.booleans(),
    gap=st.integers(0, 6),
)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_passage_spans_map_exactly_to_the_inputs(
    source_idx: list[int],
    host_idx: list[int],
    copy: tuple[int, int],
    at: int,
    edits: list[tuple[int, int]],
    style: list[int],
    html: bool,
    gap: int,
) -> None:
    source = [VOCAB[i] for i in source_idx]
    start = min(copy[0], len(source) - 1)
    fragment = source[start : start + copy[1]]
    for pos, word in edits:
        if pos < len(fragment):
            fragment[pos] = VOCAB[word]
    at = min(at, len(host_idx))
    host = [VOCAB[i] for i in host_idx]
    query = host[:at] + fragment + host[at:]
    text_a = _render(query, style, html)
    text_b = _render(source, style[::-1], html)
    aligner = Aligner(make_spec("plain"), k=2, gap=gap, min_tokens=2)
    result = aligner.pair(text_a, text_b)
    ca = aligner.pipeline.canonical(text_a)
    cb = aligner.pipeline.canonical(text_b)
    terms_a, terms_b = ca.terms, cb.terms
    last_end = -1
    for p in result.passages:
        assert 0 <= p.a_start < p.a_end <= len(text_a) and 0 <= p.b_start < p.b_end <= len(text_b)
        assert text_a[p.a_start : p.a_end] == p.a_text
        assert text_b[p.b_start : p.b_end] == p.b_text
        # spans are those of the first and last token, and the tokens are the words in the input
        (a0, a1), (b0, b1) = p.a_tokens, p.b_tokens
        assert (p.a_start, p.a_end) == (ca.starts[a0], ca.ends[a1 - 1])
        assert (p.b_start, p.b_end) == (cb.starts[b0], cb.ends[b1 - 1])
        assert text_a[ca.starts[a0] : ca.ends[a0]] == terms_a[a0]
        assert text_b[cb.ends[b1 - 1] - len(terms_b[b1 - 1]) : cb.ends[b1 - 1]] == terms_b[b1 - 1]
        if len(terms_a) < 2:  # a query shorter than a shingle: all of it, in a row in B
            assert (a0, a1) == (0, len(terms_a)) and terms_a == terms_b[b0:b1]
        else:  # a passage starts and ends with a matching shingle of k = 2 words
            assert terms_a[a0 : a0 + 2] == terms_b[b0 : b0 + 2]
            assert terms_a[a1 - 2 : a1] == terms_b[b1 - 2 : b1]
        assert 0.0 < p.similarity <= 1.0
        for changed, lo, hi, canon in (
            (p.a_changed, p.a_start, p.a_end, ca),
            (p.b_changed, p.b_start, p.b_end, cb),
        ):
            for x, y in changed:  # edited words: whole tokens strictly inside the passage
                assert (
                    lo < x < y < hi
                    and x in set(canon.starts.tolist())
                    and y in set(canon.ends.tolist())
                )
        assert (p.similarity == 1.0) == (not p.a_changed and not p.b_changed)
        assert p.a_start >= last_end  # passages of one source do not overlap in the query
        last_end = p.a_end
    if not edits and len(fragment) >= 3:
        # a verbatim copy of 3+ words is inside one passage
        first_tok = len(host[:at])
        assert any(
            p.a_tokens[0] <= first_tok and p.a_tokens[1] >= first_tok + len(fragment)
            for p in result.passages
        )


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("k", 2**63, f"k must be an integer in [1, 1024], got {2**63}"),
        ("k", True, "k must be an integer in [1, 1024], got True"),
        ("gap", -1, "gap must be an integer in [0, 1000000], got -1"),
        ("min_tokens", 1.5, "min_tokens must be an integer in [1, 1000000], got 1.5"),
        ("max_occurrences", 0, "max_occurrences must be an integer in [1, 1000000000], got 0"),
    ],
)
def test_aligner_settings_are_bounded(option: str, value: object, message: str) -> None:
    from neardup.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        Aligner(**{option: value})  # type: ignore[arg-type]
    assert str(info.value) == message


def test_a_lone_text_is_not_a_list_of_sources() -> None:
    with pytest.raises(TypeError, match="sources must be a mapping"):
        Aligner().align("один текст", "другой текст")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"each source must be an \(id, text\) pair"):
        Aligner().align("один текст", ["другой текст"])  # type: ignore[list-item]
