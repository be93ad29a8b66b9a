"""Words counted by kind (neardup.passages.counting): precedence, runs, what sources not listed
add."""

from __future__ import annotations

import numpy as np

from neardup.passages.counting import (
    CountedRun,
    WordCounts,
    counts_of,
    covered,
    kinds_of_runs,
    only_in_unlisted,
    runs_of,
    word_kinds,
)

#: Ten tokens of two characters each, one space apart: token t spans [3t, 3t + 2).
STARTS = np.arange(10, dtype=np.int64) * 3
ENDS = STARTS + 2


def test_covered_is_the_union_of_ranges_clipped_to_the_text() -> None:
    assert covered(6, [(1, 3), (2, 4), (5, 9)]).tolist() == [0, 1, 1, 1, 0, 1]
    assert covered(3, []).tolist() == [0, 0, 0]
    assert covered(0, [(0, 4)]).tolist() == []


def test_each_word_has_one_kind_cited_then_copied_then_rewritten() -> None:
    inside = np.zeros(10, dtype=np.bool_)
    inside[[0, 4, 9]] = True  # token 9 is quoted but in no passage: not counted
    kinds = word_kinds(10, copied=[(0, 3), (6, 7)], rewritten=[(2, 6)], inside=inside)
    counts = counts_of(kinds)
    # 0 cited; 1, 2 copied (2 also rewritten); 3, 5 rewritten; 4 cited; 6 copied; 7-9 unique
    assert counts == WordCounts(words=10, copied=3, rewritten=2, cited=2)
    assert (counts.borrowed_words, counts.cited_words, counts.unique_words) == (5, 2, 3)
    assert (counts.borrowed, counts.cited_share) == (0.5, 0.2)
    assert counts.to_dict() == {
        "borrowed_words": 5,
        "cited_words": 2,
        "unique_words": 3,
        "by_kind": {"copied": 3, "rewritten": 2, "cited": 2},
    }
    runs = runs_of(kinds, STARTS, ENDS)
    assert [(r.kind, r.first, r.end, r.start, r.stop) for r in runs] == [
        ("cited", 0, 1, 0, 2),
        ("copied", 1, 3, 3, 8),
        ("rewritten", 3, 4, 9, 11),
        ("cited", 4, 5, 12, 14),
        ("rewritten", 5, 6, 15, 17),
        ("copied", 6, 7, 18, 20),
    ]
    assert runs[1].to_dict() == {"kind": "copied", "start": 3, "end": 8, "words": 2}
    assert (kinds_of_runs(10, runs) == kinds).all()
    assert WordCounts(0).borrowed == 0.0 and runs_of(np.zeros(0, np.int8), STARTS, ENDS) == ()


def test_the_words_only_the_sources_not_listed_found() -> None:
    runs = (CountedRun("copied", 0, 6, 0, 17), CountedRun("cited", 8, 10, 24, 29))
    words, spans = only_in_unlisted(runs, 10, [(2, 4), (8, 9)], STARTS, ENDS)
    # counted 0-5 and 8-9; listed 2-3 and 8: the others found 0, 1, 4, 5 and 9
    assert words == 5
    assert spans == ((0, 5), (12, 17), (27, 29))
