"""The CLI in Russian when the locale is Russian, English otherwise: the language chosen from
the environment, plural forms and the decimal comma in what people read, ``--json`` the same
in every language, and errors in Russian."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from neardup.cli.messages import MESSAGES, language, say_in
from neardup.messages import CATALOG, chosen
from tests import _textgen as tg
from tests.cli._run import run

LOCALE_VARIABLES = ("NEARDUP_LANG", "LC_ALL", "LC_MESSAGES", "LANG")


def _locale(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, "en"),
        ({"LANG": "C"}, "en"),
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "ru_RU.UTF-8", "LC_ALL": "C.UTF-8"}, "en"),  # LC_ALL first
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "ru_UA.UTF-8"}, "ru"),
        ({"LANG": "ru_RU.UTF-8", "LC_ALL": ""}, "ru"),  # an empty variable is not set
        ({"LANG": "ru_RU.UTF-8", "NEARDUP_LANG": "en"}, "en"),  # the override
        ({"LANG": "C", "NEARDUP_LANG": "ru"}, "ru"),
        ({"LANG": "ru_RU.UTF-8", "NEARDUP_LANG": "fr"}, "ru"),  # not a language it speaks
    ],
)
def test_the_language_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], expected: str
) -> None:
    _locale(monkeypatch, **environment)
    assert language() == expected


def test_russian_needs_babel(monkeypatch: pytest.MonkeyPatch) -> None:
    _locale(monkeypatch, LANG="ru_RU.UTF-8")
    monkeypatch.setattr(chosen, "_babel", lambda: False)
    assert language() == "en"


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_has_both_languages_and_the_same_values() -> None:
    # the one catalog: the CLI's words, the page's, the PDF report's and the errors'
    for area, entries in CATALOG.items():
        for key, texts in entries.items():
            where = f"{area}.{key}"
            assert set(texts) == {"ru", "en"}, where
            assert texts["ru"], where
            if texts["en"]:  # cli.check_meaning: English says UNIQUENESS_MEANING, unchanged
                # the Russian words need no more values than the English ones are given
                assert _fields(texts["ru"]) <= _fields(texts["en"]), where
    assert all(MESSAGES[key] is CATALOG["cli"][key] for key in MESSAGES)


FORMS = {
    1: ("документ", "фрагмент", "шингл"),
    2: ("документа", "фрагмента", "шингла"),
    5: ("документов", "фрагментов", "шинглов"),
    11: ("документов", "фрагментов", "шинглов"),
    21: ("документ", "фрагмент", "шингл"),
}


@pytest.mark.parametrize("n", sorted(FORMS))
def test_counts_take_their_plural_form(n: int) -> None:
    document, passage, shingle = FORMS[n]
    assert say_in("ru", "index_removed", n=1, left=n) == f"удалено: 1; в коллекции {n} {document}"
    assert say_in("ru", "eval_fragments", n=n) == f", {n} {passage}"
    line = say_in("ru", "bloom_query", shingles=n, above=0, rows=10, candidates=0, verified=0)
    assert line.startswith(f"{n} {shingle}; ")
    # English keeps its words as they were (tests and doc examples pin them)
    assert (
        say_in("en", "index_removed", n=1, left=n) == f"removed 1; the collection has {n} documents"
    )


def test_numbers_take_the_decimal_comma_and_the_group_space() -> None:
    summary = say_in(
        "ru",
        "check_summary",
        uniqueness=73.44,
        borrowed=0.0,
        cited=say_in("ru", "check_cited", cited=26.56),
        words=94,
        verdict=say_in("ru", "check_would_add"),
    )
    assert summary == (
        "уникальность 73,4 %: заимствовано 0,0 %, цитируется 26,6 %, в тексте 94 слова; "
        "был бы добавлен"
    )
    built = say_in(
        "ru",
        "bloom_built",
        output="f.bloom",
        documents=1_234_567,
        shingles=2,
        rows=4096,
        m=1 << 20,
        k=3,
        row_bytes=1000,
        written=12_345,
    )
    nbsp = "\N{NO-BREAK SPACE}"  # Babel's group separator in Russian
    assert built.startswith(f"построен f.bloom: 1{nbsp}234{nbsp}567 документов, 2 шингла, ")
    assert f"m = 1{nbsp}048{nbsp}576 бит" in built
    assert say_in("ru", "index_created", **_created()).endswith("≥ 0,5; кандидаты lsh")
    assert say_in("en", "index_created", **_created()).endswith("≥ 0.5; candidates lsh")


def _created() -> dict[str, object]:
    return {
        "location": "c.db",
        "spec": "0" * 16,
        "described": "…",
        "policy": "group",
        "measure": "resemblance",
        "threshold": 0.5,
        "cap": "",
        "lengths": "",
        "candidates": "lsh",
    }


def test_a_collection_in_russian(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    texts: Path,
) -> None:
    db = str(tmp_path / "c.db")
    query = tmp_path / "query.txt"
    base = (texts / "base.txt").read_text(encoding="utf-8")
    query.write_text(base[: len(base) // 2] + " " + tg.text(150, 9), encoding="utf-8")

    _locale(monkeypatch, LANG="ru_RU.UTF-8")
    create = ("index", "create", db, "-p", "plain", "--policy", "group", "--threshold", "0.5")
    code, out, err = run(capsys, *create)
    assert code == 0, err
    assert out.startswith(f"создана коллекция {db}: спецификация ") and "≥ 0,5" in out
    code, out, err = run(capsys, "index", "add", db, str(texts))
    assert code == 0, err
    assert out.strip() == (
        "добавлено: 3 (в группу дубликатов: 1, новый текст: 2), отклонено: 0; "
        "в коллекции 3 документа"
    )
    code, out, _ = run(capsys, "index", "verify", db)
    assert (code, out.strip()) == (0, f"{db}: согласована (3 документа)")
    code, out, _ = run(capsys, "index", "groups", db)
    assert code == 0 and out.startswith("группа ") and "(2 участника)" in out

    code, human, err = run(capsys, "index", "check", db, str(query))
    assert code == 0, err
    code, ru_json, _ = run(capsys, "index", "check", db, str(query), "--json")
    assert code == 0
    result = json.loads(ru_json)
    percent = f"{100 * result['uniqueness']:.1f}".replace(".", ",")
    assert human.startswith(f"уникальность {percent} %: заимствовано ")
    assert "сходство" in human and "Uniqueness" not in human

    code, out, _ = run(capsys, "index", "remove", db, "other.txt")
    assert (code, out.strip()) == (0, "удалено: 1; в коллекции 2 документа")

    # --json is the same whatever the language; the English words are those of before
    _locale(monkeypatch, LANG="C")
    code, en_json, _ = run(capsys, "index", "check", db, str(query), "--json")
    assert code == 0 and en_json == ru_json
    code, out, _ = run(capsys, "index", "verify", db)
    assert (code, out.strip()) == (0, f"{db}: consistent (2 documents)")


def test_compare_in_russian_and_its_json_in_any_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    base = tg.text(200, 4)
    a.write_text(base, encoding="utf-8")
    b.write_text(tg.edit(base, 0.1, 5), encoding="utf-8")
    pair = (str(a), str(b), "-p", "plain")
    code, en_json, _ = run(capsys, "compare", *pair, "--json")
    assert code == 0
    _locale(monkeypatch, LANG="ru_RU.UTF-8")
    code, ru_json, _ = run(capsys, "compare", *pair, "--json")
    assert code == 0 and ru_json == en_json
    code, out, err = run(capsys, "compare", *pair)
    assert code == 0, err
    resemblance = json.loads(ru_json)["resemblance"]
    assert f"{resemblance:.4f}".replace(".", ",") in out
    assert "сходство (Жаккар)" in out and "спецификация " in out


def test_errors_in_russian(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    binary = tmp_path / "n.txt"
    binary.write_bytes(b"abc\x00def")
    other = tmp_path / "b.txt"
    other.write_text(tg.text(50, 6), encoding="utf-8")
    missing = str(tmp_path / "missing.db")

    _locale(monkeypatch, LANG="ru_RU.UTF-8")
    # an error the page has words for: said in Russian by its class and message
    code, _, err = run(capsys, "compare", str(binary), str(other))
    assert code == 2
    assert err == "Ошибка: Текст файла не удалось прочитать ни в одной известной кодировке.\n"
    # a missing collection is said by its code too
    code, _, err = run(capsys, "index", "stats", missing)
    assert code == 2 and err.startswith(f"Ошибка: коллекции {missing} нет: такого файла нет")

    _locale(monkeypatch, LANG="C")
    code, _, err = run(capsys, "index", "stats", missing)
    assert code == 2 and err.startswith(f"Error: no collection at {missing}")
