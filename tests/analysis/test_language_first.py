"""Under ``auto`` the language is decided before the tokenizer runs, so it runs once."""

from __future__ import annotations

import pytest

from neardup.analysis.analyzer import Analyzer
from neardup.analysis.chain import Chain
from neardup.analysis.presets import preset

ENGLISH = "The mayor opened the new bridge across the river on Monday morning — “at last”."
RUSSIAN = "Мэр открыл новый мост через реку в понедельник утром — «наконец-то» №5."


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (ENGLISH, "en"),
        (RUSSIAN, "ru"),
        ("ﬁne ™ ＡＢＣ words", "en"),  # letters that NFKC makes: the filtered text decides
        ("Ｋ ｍｏｓｔ мост", "en"),
    ],
)
def test_one_scan_and_the_same_answer(
    text: str, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    analyzer = Analyzer(preset("auto"))
    # what the chain of the text's language gives, run alone
    alone = Analyzer(preset(language)).canonical(text)
    scans: list[str] = []
    original = Chain.fast_scan

    def counting(chain: Chain, t: str, count_letters: bool = False) -> object:
        scans.append(t)
        return original(chain, t, count_letters)

    monkeypatch.setattr(Chain, "fast_scan", counting)
    got = analyzer.canonical(text)
    assert got.language == language
    assert got.terms == alone.terms
    assert (got.starts.tolist(), got.ends.tolist()) == (alone.starts.tolist(), alone.ends.tolist())
    if text in (ENGLISH, RUSSIAN):  # only characters whose letters no filter changes
        assert len(scans) == 1
