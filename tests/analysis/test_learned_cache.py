"""The forms a chain predicted, kept on disk: files round-trip, keys keep chains apart,
processes' files merge, damaged files are dropped, a folder that cannot be written leaves the
cache in memory, and a new process reads what an earlier one predicted with the same output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from neardup.analysis import learned_cache
from neardup.analysis.analyzer import Analyzer
from neardup.analysis.compiled import CompiledFilters
from neardup.analysis.learned_cache import LearnedForms, LearnedStore
from neardup.analysis.presets import preset
from neardup.spec import AnalyzerSpec

pytest.importorskip("pymorphy3")


def _forms(pairs: list[tuple[int, bytes]]) -> LearnedForms:
    h1 = np.array([p[0] for p in pairs], dtype=np.uint64)
    return LearnedForms.of(h1, h1 * np.uint64(3), [p[1] for p in pairs])


def test_a_file_round_trips_and_a_damaged_one_is_refused() -> None:
    forms = _forms([(5, "кот".encode()), (9, b""), (2, b"abc")])
    raw = learned_cache.encode(forms)
    back = learned_cache.decode(raw)
    assert back is not None
    assert back.h1.tolist() == [5, 9, 2]
    assert back.h2.tolist() == [15, 27, 6]
    assert back.outputs() == ["кот".encode(), b"", b"abc"]
    assert learned_cache.decode(raw[:-1]) is None  # cut short
    flipped = bytearray(raw)
    flipped[-1] ^= 1
    assert learned_cache.decode(bytes(flipped)) is None  # checksum
    assert learned_cache.decode(b"NDLEARN\x02" + raw[8:]) is None  # another format
    assert learned_cache.decode(b"") is None


def test_merge_keeps_each_form_once_and_the_cap() -> None:
    merged = learned_cache.merge(
        [_forms([(1, b"a"), (2, b"b")]), _forms([(2, b"b"), (3, b"c")]), LearnedForms.empty()]
    )
    assert merged.h1.tolist() == [1, 2, 3]
    assert merged.outputs() == [b"a", b"b", b"c"]
    assert learned_cache.merge([_forms([(1, b"a"), (2, b"b"), (3, b"c")])], 2).h1.tolist() == [
        1,
        2,
    ]


def test_merge_of_one_distinct_part_is_that_part() -> None:
    one = _forms([(3, b"c"), (1, b"a"), (2, b"")])
    assert learned_cache.merge([one]) is one
    repeated = learned_cache.merge([_forms([(1, b"a"), (2, b"b"), (1, b"a")])])
    assert repeated.h1.tolist() == [1, 2] and repeated.outputs() == [b"a", b"b"]
    # the same h1 with another h2 is another form
    same_h1 = LearnedForms.of(
        np.array([1, 1], dtype=np.uint64), np.array([5, 6], dtype=np.uint64), [b"a", b"b"]
    )
    assert learned_cache.merge([same_h1]).h2.tolist() == [5, 6]


def test_processes_write_their_own_files_and_loading_merges_them(tmp_path: Path) -> None:
    folder = tmp_path / "key"
    one, two = LearnedStore(folder), LearnedStore(folder)
    assert one.own != two.own
    assert one.save(_forms([(1, b"a"), (2, b"b")]))
    assert two.save(_forms([(2, b"b"), (3, b"c")]))
    assert one.save(_forms([(1, b"a"), (2, b"b"), (4, b"d")]))  # replaces its own file
    assert len(list(folder.glob("*.bin"))) == 2
    merged = LearnedStore(folder).load()
    assert sorted(zip(merged.h1.tolist(), merged.outputs(), strict=True)) == [
        (1, b"a"),
        (2, b"b"),
        (3, b"c"),
        (4, b"d"),
    ]
    assert not list(folder.glob("*.tmp"))


def test_damaged_files_are_skipped_and_removed(tmp_path: Path) -> None:
    folder = tmp_path / "key"
    assert LearnedStore(folder).save(_forms([(1, b"a")]))
    (folder / "999-broken.bin").write_bytes(b"NDLEARN\x01 not a whole file")
    (folder / "998-empty.bin").write_bytes(b"")
    merged = LearnedStore(folder).load()
    assert merged.h1.tolist() == [1]
    assert len(list(folder.glob("*.bin"))) == 1


def test_many_files_are_merged_into_one(tmp_path: Path) -> None:
    folder = tmp_path / "key"
    for i in range(learned_cache.MAX_FILES + 1):
        assert LearnedStore(folder).save(_forms([(i + 1, str(i).encode())]))
    store = LearnedStore(folder)
    assert len(store.load()) == learned_cache.MAX_FILES + 1
    files = list(folder.glob("*.bin"))
    assert [f.name.startswith("merged-") for f in files] == [True]
    assert len(LearnedStore(folder).load()) == learned_cache.MAX_FILES + 1


def test_the_cap_bounds_what_a_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(learned_cache, "MAX_DISK_FORMS", 3)
    folder = tmp_path / "key"
    assert LearnedStore(folder).save(_forms([(1, b"a"), (2, b"b")]))
    store = LearnedStore(folder)
    assert len(store.load()) == 2
    assert store.save(_forms([(5, b"e"), (6, b"f")]))  # one more fits
    assert sorted(LearnedStore(folder).load().h1.tolist()) == [1, 2, 5]


def test_an_unwritable_folder_keeps_the_forms_in_memory() -> None:
    store = LearnedStore(Path("/proc/neardup-cannot-write-here/key"))  # not even root can
    assert len(store.load()) == 0
    assert not store.save(_forms([(1, b"a")]))


def test_a_folder_that_is_a_file_keeps_the_forms_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "key"
    blocker.write_bytes(b"")
    store = LearnedStore(blocker)
    assert len(store.load()) == 0
    assert not store.save(_forms([(1, b"a")]))


def test_chains_with_other_filters_have_other_keys() -> None:
    ru = preset("ru").chains[0][1].to_dict()
    other = preset("ru", stop_words=("кот",)).chains[0][1].to_dict()
    assert learned_cache.chain_key("t", ru) == learned_cache.chain_key("t", dict(ru))
    assert learned_cache.chain_key("t", ru) != learned_cache.chain_key("t", other)
    assert learned_cache.chain_key("t", ru) != learned_cache.chain_key("u", ru)


TEXTS = [
    "Зубариков и Шмыгловская приехали в Крыжополь 12 мая",
    "Kaspersky и iPhone xiv 2024 года: Зубарикову понравилось",
]


def _first_ru_analyzer(
    folder: Path, monkeypatch: pytest.MonkeyPatch, texts: list[str]
) -> tuple[AnalyzerSpec, CompiledFilters, list[list[str]]]:
    """The ``ru`` spec, the compiled filters of a first analyzer keeping its forms in
    ``folder``, and the terms it gave for ``texts``."""
    monkeypatch.setenv("NEARDUP_LEARNED_DIR", str(folder))
    spec = preset("ru")
    first = Analyzer(spec)
    expected = [first.canonical(t).terms for t in texts]
    compiled = first._chains["*"].compiled
    assert compiled is not None
    return spec, compiled, expected


def test_the_ru_chain_writes_its_predicted_forms_and_a_new_chain_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, compiled, expected = _first_ru_analyzer(tmp_path, monkeypatch, TEXTS)
    assert len(compiled.on_disk()) == 0
    compiled.save_learned()
    (folder,) = tmp_path.iterdir()
    (file,) = folder.glob("*.bin")
    kept = learned_cache.decode(file.read_bytes())
    assert kept is not None
    # the predicted forms only: ASCII words and numbers are decided by the kernel's rule
    outputs = sorted(o.decode() for o in kept.outputs())
    assert "зубариков" in outputs and "крыжополь" in outputs
    assert not any(o.isascii() for o in outputs)
    second = Analyzer(spec)
    again = second._chains["*"].compiled
    assert again is not None
    assert len(again.on_disk()) == len(kept)
    assert [second.canonical(t).terms for t in TEXTS] == expected
    assert again.learned().count == len(kept)  # nothing predicted again
    reference = Analyzer(spec, compile_filters=False)
    assert [reference.canonical(t).terms for t in TEXTS] == expected
    other = Analyzer(preset("ru", stop_words=("кот",)))._chains["*"].compiled
    assert other is not None and len(other.on_disk()) == 0


def test_the_disk_is_read_at_the_first_form_the_dictionary_table_does_not_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, compiled, (expected,) = _first_ru_analyzer(tmp_path, monkeypatch, TEXTS[:1])
    compiled.save_learned()
    second = Analyzer(spec)
    again = second._chains["*"].compiled
    assert again is not None
    known = second.canonical("Городская библиотека открылась после ремонта")
    assert known.terms == ["городской", "библиотека", "открыться", "ремонт"]
    assert again._on_disk is None  # every form in the dictionary table: nothing read
    assert second.canonical(TEXTS[0]).terms == expected
    assert again._on_disk is not None and len(again.on_disk()) > 0
    assert again.learned().count == len(again.on_disk())  # nothing predicted again


_WRITER = """
import sys
from neardup.analysis.analyzer import Analyzer
from neardup.analysis.presets import preset
analyzer = Analyzer(preset("ru"))
for word in sys.argv[1:]:
    analyzer.canonical(word)
"""


def test_concurrent_processes_each_write_a_whole_file(tmp_path: Path) -> None:
    env = dict(os.environ, NEARDUP_LEARNED_DIR=str(tmp_path))
    words = [["Зубариков", "Шмыгловская"], ["Крыжополь", "Зубариков"], ["Пупырчатовский"]]
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, *w], env=env) for w in words]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0]
    (folder,) = tmp_path.iterdir()
    assert len(list(folder.glob("*.bin"))) == 3  # one per process, written at exit
    merged = LearnedStore(folder).load()
    reference = Analyzer(preset("ru"), compile_filters=False)
    expected = {
        w.lower(): " ".join(reference.canonical(w).terms).encode() for ws in words for w in ws
    }
    got = sorted(merged.outputs())
    assert got == sorted(set(expected.values()))


def test_an_ascii_stop_word_turns_the_kernel_rule_off() -> None:
    spec = preset("ru", stop_words=("ok", "2024"))
    text = "ok кот 2024 iphone"
    assert Analyzer(spec).canonical(text).terms == ["кот", "iphone"]
    assert Analyzer(spec, compile_filters=False).canonical(text).terms == ["кот", "iphone"]
    assert Analyzer(preset("ru")).canonical(text).terms == ["ok", "кот", "2024", "iphone"]


def test_a_chain_whose_cache_cannot_be_written_gives_the_same_terms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NEARDUP_LEARNED_DIR", "/proc/neardup-cannot-write-here")
    analyzer = Analyzer(preset("ru"))
    compiled = analyzer._chains["*"].compiled
    assert compiled is not None
    got = [analyzer.canonical(t).terms for t in TEXTS]
    compiled.save_learned()  # logs a warning, raises nothing
    reference = Analyzer(preset("ru"), compile_filters=False)
    assert got == [reference.canonical(t).terms for t in TEXTS]


def _sign_in_worker(words: list[str]) -> int:
    analyzer = Analyzer(preset("ru"))
    return sum(len(analyzer.canonical(w)) for w in words)


def test_a_worker_process_writes_its_forms_when_the_pool_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    monkeypatch.setenv("NEARDUP_LEARNED_DIR", str(tmp_path))
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        assert pool.apply(_sign_in_worker, (["Зубариков", "Крыжополь"],)) == 2
        pool.close()
        pool.join()
    (folder,) = tmp_path.iterdir()
    merged = LearnedStore(folder).load()
    reference = Analyzer(preset("ru"), compile_filters=False)
    expected = [" ".join(reference.canonical(w).terms).encode() for w in ["Зубариков", "Крыжополь"]]
    assert len(merged) == 2
    assert sorted(merged.outputs()) == sorted(expected)
