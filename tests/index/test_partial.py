"""Partial copies (issue 26): the default candidates find a 5 % paste of a stored text; a
collection created before keeps the candidates it was created with."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from neardup.errors import SpecMismatchError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import PostingsSource
from tests import _textgen as tg

SPEC = make_spec("plain")
WORDS = 300
PASTE = 15  # 5 % of 300 words: 11 word 5-shingles of the source
N = 40
#: the index spec every collection had before issue 26 (window 24, samples looked up, no
#: sentence keys)
OLD = {"window": 24, "lookup": "samples", "sentence_bands": 0}


def sources() -> list[tuple[str, str]]:
    return [(f"s{i}", tg.text(WORDS, 3000 + i)) for i in range(N)]


def essay(i: int, source: str) -> str:
    """A fresh 300-word text with 15 words of ``source`` pasted into its middle."""
    words = tg.words(WORDS, 9000 + i)
    start = (37 * i) % (WORDS - PASTE)
    words[150:150] = source.split()[start : start + PASTE]
    return " ".join(words)


def found(col: Collection, items: list[tuple[str, str]]) -> list[int]:
    """The pastes whose source the collection's check names, with 11 shingles shared."""
    out = []
    for i, (sid, text) in enumerate(items):
        shared = {
            m.id: m.shared
            for m in col.look_up(col.analyze(essay(i, text)), top=None, policy=None).matches
        }
        if sid in shared:
            assert shared[sid] == PASTE - 4
            out.append(i)
    return out


@pytest.mark.parametrize("location", ["memory:", "sqlite"])
def test_default_finds_every_5_percent_paste(location: str, tmp_path: Path) -> None:
    items = sources()
    where = location if location == "memory:" else str(tmp_path / "new.db")
    new = Collection.create(where, SPEC, IndexSpec(policy="allow"))
    new.add_many(items)
    assert new.index_spec.window == 11 and new.index_spec.lookup == "shingles"
    assert found(new, items) == list(range(N))
    old = Collection.create("memory:", SPEC, IndexSpec(policy="allow", **OLD))
    old.add_many(items)
    missed = sorted(set(range(N)) - set(found(old, items)))
    assert missed == MISSED_BY_OLD
    # the stored side alone denser (window 11, samples looked up) finds them too: any run of
    # 11 shared shingles holds a window whose minimum both sides choose
    dense = Collection.create("memory:", SPEC, IndexSpec(policy="allow", lookup="samples"))
    dense.add_many(items)
    assert found(dense, items) == list(range(N))


#: the pastes the candidates of before issue 26 miss: half of them
MISSED_BY_OLD = [0, 1, 3, 5, 6, 8, 9, 10, 11, 12, 15, 18, 19, 24, 26, 32, 34, 36, 37, 38]


def test_looking_up_every_shingle_finds_runs_the_samples_miss() -> None:
    """With the same stored postings (window 24), a 15-word paste is found when one of the
    source's samples lies inside it, whatever the essay's words around it choose."""
    items = sources()
    col = Collection.create("memory:", SPEC, IndexSpec(policy="allow", **OLD))
    col.add_many(items)
    samples_only = set(found(col, items))
    # the postings alone (sentence keys would add candidates of their own)
    every = Collection.create(
        "memory:", SPEC, IndexSpec(policy="allow", window=24, sentence_bands=0)
    )
    every.add_many(items)
    with_all = set(found(every, items))
    assert samples_only <= with_all
    for i, (_, text) in enumerate(items):
        src = every.analyze(text)
        pasted = every.analyze(" ".join(essay(i, text).split()[150 : 150 + PASTE]))
        inside = bool(set(src.samples.tolist()) & set(pasted.values.tolist()))
        assert (i in with_all) == inside


def _as_before(path: Path) -> None:
    """Rewrite the stored index spec as a version before issue 26 wrote it (no ``lookup``,
    no ``sentence_bands``)."""
    conn = sqlite3.connect(path)
    with conn:
        (raw,) = conn.execute("SELECT value FROM meta WHERE key = 'index_spec'").fetchone()
        stored = json.loads(raw)
        del stored["lookup"], stored["sentence_bands"]
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'index_spec'",
            (json.dumps(stored, sort_keys=True),),
        )
    conn.close()


def test_a_collection_created_before_keeps_its_candidates(tmp_path: Path) -> None:
    items = sources()
    path = tmp_path / "old.db"
    made = IndexSpec(policy="allow", window=24, sentence_bands=0)
    with Collection.create(str(path), SPEC, made) as col:
        col.add_many(items)
    _as_before(path)
    with Collection.open(str(path)) as col:
        assert col.index_spec.window == 24 and col.index_spec.lookup == "samples"
        assert col.index_spec.sentence_bands == 0
        (source,) = col.sources
        assert isinstance(source, PostingsSource) and source.lookup == "samples"
        assert sorted(set(range(N)) - set(found(col, items))) == MISSED_BY_OLD
        assert col.stats()["index_spec"]["lookup"] == "samples"
    # opened with today's defaults, it says which settings differ
    with pytest.raises(SpecMismatchError, match="window: stored 24, given 11") as err:
        Collection.open(str(path), index_spec=IndexSpec(policy="allow"))
    assert "lookup: stored 'samples', given 'shingles'" in str(err.value)


def test_the_cli_notes_an_old_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from neardup.cli.main import main

    items = sources()[:3]
    path = tmp_path / "old.db"
    with Collection.create(str(path), SPEC, IndexSpec(policy="allow", window=24)) as col:
        col.add_many(items)
    query = tmp_path / "essay.txt"
    query.write_text(essay(0, items[0][1]), encoding="utf-8")
    new = tmp_path / "new.db"
    with Collection.create(str(new), SPEC, IndexSpec(policy="allow")) as col:
        col.add_many(items)
    assert main(["index", "check", str(new), str(query), "--json"]) == 0
    assert "note:" not in capsys.readouterr().err
    _as_before(path)
    assert main(["index", "check", str(path), str(query), "--json"]) == 0
    captured = capsys.readouterr()
    assert "note: this collection was made by an earlier version (window 24" in captured.err
    assert "uniqueness" in json.loads(captured.out)  # the note stays out of the JSON
