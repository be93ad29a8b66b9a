"""The word-form table: built from forms and their facts, saved atomically, loaded by key,
rebuilt when missing, damaged or of another key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neardup.analysis import morph_table
from neardup.analysis.morph_table import APRO, FormTable, build_table, load_or_build

FACTS = {
    "стол": ("стол", "NOUN", frozenset({"inan", "masc"})),
    "стола": ("стол", "NOUN", frozenset({"inan", "masc"})),
    "мой": ("мой", "ADJF", frozenset({"Apro", "Subx"})),
    "в": ("в", "PREP", frozenset()),
    "красивую": ("красивый", "ADJF", frozenset({"Qual"})),
    "тест": ("тест", "", frozenset()),
}


def small(key: str = "k1") -> FormTable:
    return build_table(FACTS, FACTS.__getitem__, key)


def test_build_holds_each_form_with_its_facts() -> None:
    table = small()
    assert len(table) == 6
    assert table.pos_names == ("", "NOUN", "ADJF", "PREP")
    entries = table.find(["стола", "мой", "в", "столы", "красивую", "тест", "стол", ""])
    assert entries[3] == -1 and entries[7] == -1
    found = [int(e) for e in entries if e >= 0]
    assert sorted(found) == list(range(6))
    assert [table.lemma(e) for e in found] == ["стол", "мой", "в", "красивый", "тест", "стол"]
    assert [table.pos(e) for e in found] == ["NOUN", "ADJF", "PREP", "ADJF", "", "NOUN"]
    assert [table.is_apro(e) for e in found] == [False, True, False, False, False, False]
    # two forms of one lemma share its bytes
    assert table.lemma_offsets.tolist() == [0, 8, 14, 16, 32, 40]
    assert table.lemma_bytes.tobytes().decode("utf-8") == "столмойвкрасивыйтест"
    assert int(table.tags[found[1]]) == 2 | APRO


def test_hashes_are_sorted_with_a_bucket_index() -> None:
    table = small()
    assert table.bits == 2
    assert np.all(np.diff(table.hashes.astype(np.float64)) >= 0)
    shift = np.uint64(64 - table.bits)
    for b in range(1 << table.bits):
        inside = table.hashes[table.buckets[b] : table.buckets[b + 1]]
        assert np.all((inside >> shift) == b)
    assert table.buckets[0] == 0 and table.buckets[-1] == 6


def test_save_and_load_by_key(tmp_path: Path) -> None:
    table = small()
    path = tmp_path / "forms.bin"
    morph_table.save_table(table, path)
    assert [p.name for p in tmp_path.iterdir()] == ["forms.bin"]  # no temporary left
    loaded = morph_table.load_table(path, "k1")
    assert loaded is not None
    assert loaded.pos_names == table.pos_names
    for name in ("buckets", "records", "tags", "lemma_offsets", "lemma_bytes"):
        assert getattr(loaded, name).tolist() == getattr(table, name).tolist()
    assert loaded.find(["стола"]).tolist() == table.find(["стола"]).tolist()
    assert morph_table.load_table(path, "k2") is None
    assert morph_table.load_table(tmp_path / "missing.bin", "k1") is None


def _counting_build(calls: list[int]) -> tuple[object, object]:
    def forms() -> list[str]:
        calls.append(1)
        return list(FACTS)

    return forms, FACTS.__getitem__


class _Terminal:
    def __init__(self) -> None:
        self.written: list[str] = []

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_a_build_is_announced_at_a_terminal_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    forms, facts = _counting_build([])
    load_or_build(tmp_path / "a.bin", "k1", forms, facts)  # type: ignore[arg-type]
    assert capsys.readouterr().err == ""  # not a terminal: silent
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    load_or_build(tmp_path / "b.bin", "k1", forms, facts)  # type: ignore[arg-type]
    load_or_build(tmp_path / "b.bin", "k1", forms, facts)  # type: ignore[arg-type]  # loaded
    assert "".join(terminal.written) == (
        "neardup: building the Russian word-form table once for this dictionary version "
        f"(about a minute; kept in {tmp_path / 'b.bin'})\n"
    )


def test_built_once_then_loaded(tmp_path: Path) -> None:
    calls: list[int] = []
    forms, facts = _counting_build(calls)
    path = tmp_path / "forms.bin"
    first = load_or_build(path, "k1", forms, facts)  # type: ignore[arg-type]
    second = load_or_build(path, "k1", forms, facts)  # type: ignore[arg-type]
    assert calls == [1]
    assert second.find(["мой"]).tolist() == first.find(["мой"]).tolist()
    load_or_build(path, "k2", forms, facts)  # another dictionary version: built again
    assert calls == [1, 1]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:100],  # cut short
        lambda data: b"XX" + data[2:],  # not a table
        lambda data: data[:-40] + bytes([data[-40] ^ 1]) + data[-39:],  # a byte of the lemmas
        lambda data: b"",
    ],
)
def test_damaged_file_is_rebuilt_not_a_crash(tmp_path: Path, damage: object) -> None:
    calls: list[int] = []
    forms, facts = _counting_build(calls)
    path = tmp_path / "forms.bin"
    load_or_build(path, "k1", forms, facts)  # type: ignore[arg-type]
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert morph_table.load_table(path, "k1") is None
    table = load_or_build(path, "k1", forms, facts)  # type: ignore[arg-type]
    assert calls == [1, 1]
    assert table.lemma(int(table.find(["красивую"])[0])) == "красивый"
    assert morph_table.load_table(path, "k1") is not None


def test_tables_and_learned_forms_share_neardups_cache_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One cache folder for every table (neardup._table_cache.cache_dir); off turns both off."""
    from neardup.analysis import learned_cache

    monkeypatch.delenv("NEARDUP_LEARNED_DIR", raising=False)
    monkeypatch.setenv("NEARDUP_CACHE_DIR", "/tmp/a")
    assert morph_table.cache_dir() == Path("/tmp/a")
    assert learned_cache.learned_root() == Path("/tmp/a/learned")
    monkeypatch.setenv("NEARDUP_CACHE_DIR", "")
    assert morph_table.cache_dir() is None
    assert learned_cache.learned_root() is None


def test_dictionary_table_gives_parse_facts_of_its_forms() -> None:
    from neardup.analysis import resources

    table = morph_table.dictionary_table()
    assert len(table) > 3_000_000
    assert morph_table.TABLE_VERSION == 1 and table.key == morph_table.dictionary_key()
    words = ["стола", "все", "всё", "мой", "в", "красивую", "читали", "ежик", "кто-то"]
    entries = table.find(words)
    assert entries[2] == -1  # the table holds forms as ru tokens are: ё written е
    analyzer = resources.morph().analyzer
    for word, entry in zip(words, entries.tolist()):
        if entry < 0:
            continue
        lemma, pos, grammemes = resources.parse_facts(analyzer, word)
        assert (table.lemma(entry), table.pos(entry), table.is_apro(entry)) == (
            lemma,
            pos,
            "Apro" in grammemes,
        )
    assert [table.lemma(e) for e in entries.tolist() if e >= 0] == [
        "стол",
        "все",
        "мой",
        "в",
        "красивый",
        "читать",
        "ежик",
        "кто-то",
    ]


def test_a_cache_that_cannot_be_written_builds_in_memory(tmp_path: Path) -> None:
    calls: list[int] = []
    forms, facts = _counting_build(calls)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    path = blocker / "forms.bin"
    table = load_or_build(path, "k1", forms, facts)  # type: ignore[arg-type]
    assert calls == [1]
    assert table.lemma(int(table.find(["стола"])[0])) == "стол"
    assert not path.exists()


def test_dictionary_key_reads_the_dictionarys_meta_without_loading_it() -> None:
    from neardup.analysis import resources

    resources.morph.cache_clear()
    resources.dictionary_meta.cache_clear()
    key = morph_table.dictionary_key()
    assert resources.morph.cache_info().currsize == 0  # pymorphy3's dictionary not loaded
    loaded = resources.morph().analyzer.dictionary.meta
    assert resources.dictionary_meta() == dict(loaded)
    assert f"-rev-{loaded['source_revision']}-{loaded['corpus_revision']}-" in key
