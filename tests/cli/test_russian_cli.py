"""The CLI under ``LANG=ru_RU.UTF-8`` says every line in Russian, from the one catalog: the
passages (panel titles with a decimal comma, the table's header, the summary), the spec line,
the errors of files and collections, and click's own usage errors; and no English sentence
leaks into what it prints."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from neardup.cli.usage import message_text
from neardup.messages import CATALOG
from tests.cli._run import run

LOCALE_VARIABLES = ("NEARDUP_LANG", "LC_ALL", "LC_MESSAGES", "LANG")

QUERY = (
    "Теория вероятностей изучает закономерности случайных явлений. Как писал Колмогоров, "
    "«вероятность события есть мера его возможности» [1]. Случайные величины описываются "
    "законами распределения, а их числовые характеристики позволяют сравнивать разные "
    "эксперименты между собой и делать выводы о поведении систем.\n\n"
    "Список литературы\n1. Колмогоров А. Н. Основные понятия теории вероятностей. М., 1974.\n"
)
SOURCE = (
    "Вводная глава. Случайные величины описываются законами распределения, а их числовые "
    "характеристики позволяют сравнивать разные эксперименты между собой и делать выводы о "
    "поведении систем. Дальше идут упражнения для самостоятельной работы студентов.\n"
)

# Words a Russian line may hold in Latin letters: names of things, not English sentences.
_LATIN_WORD = re.compile(r"\b[A-Za-z]{2,}\b")
_ENGLISH_WORDS = frozenset(
    "the of and to in is are was not no for with from at by on or be this that "
    "error usage try invalid value such missing option argument command query source "
    "passage passages words counted borrowed cited uniqueness similarity tokens shingles "
    "spec preset bit step exists file directory collection word char".split()
)


def english_leaks(output: str, names: tuple[str, ...] = ()) -> list[str]:
    """The pieces of ``output`` that read as English: two Latin words in a row, or one of the
    English words above, once the names the user gave (paths, ids), what is in quotes or
    backticks (an option, a command to type) and the box-drawing are set aside."""
    text = output
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"«[^»]*»|`[^`]*`|'[^']*'", " ", text)
    text = re.sub(r"--?[a-z][a-z-]*", " ", text)  # an option's name
    leaks = []
    for line in text.splitlines():
        words = [m for m in _LATIN_WORD.finditer(line)]
        for first, second in zip(words, words[1:], strict=False):
            between = line[first.end() : second.start()]
            if re.fullmatch(r"\s+", between):
                leaks.append(f"{first.group()} {second.group()} in {line.strip()!r}")
        leaks += [
            f"{w.group()} in {line.strip()!r}" for w in words if w.group().lower() in _ENGLISH_WORDS
        ]
    return leaks


def test_the_leak_check_finds_english() -> None:
    # a check that cannot fail is no check: it sees the English the CLI used to print
    assert english_leaks("b.txt: 38.5 % of the query, 65.2 % of this text", ("b.txt",))
    assert english_leaks("Ошибка: no collection at /x.db", ("/x.db",))
    assert english_leaks("спецификация 430a: пресет auto, шинглы (word) k=1")
    assert english_leaks("Error: Invalid value for '--top'")
    assert not english_leaks("спецификация 430a6f6b6d8cac0a: пресет auto, rabin 64 бит")
    assert not english_leaks("Ошибка: Нет такой команды «foo».")


@pytest.fixture
def russian(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")


@pytest.fixture
def texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.chdir(tmp_path)  # short names: rich wraps a long path inside a panel's title
    Path("a.txt").write_text(QUERY, encoding="utf-8")
    Path("b.txt").write_text(SOURCE, encoding="utf-8")
    return "a.txt", "b.txt"


def test_compare_with_fragments_in_russian(
    capsys: pytest.CaptureFixture[str], russian: None, texts: tuple[str, str]
) -> None:
    a, b = texts
    code, out, err = run(capsys, "compare", a, b, "--fragments")
    assert code == 0, err
    flat = " ".join(out.split())  # rich wraps long lines
    assert re.search(rf"{re.escape(b)}: \d+,\d % текста-запроса, \d+,\d % этого текста", flat)
    assert "┃ источник ┃ № ┃ символы запроса ┃ символы источника ┃ токены ┃ сходство ┃" in out
    assert re.search(
        r"уникальность \d+,\d %: заимствовано \d+,\d %, цитируется \d+,\d % "
        r"\(1 фрагмент; источников: 1; учтено слов: \d+\)",
        flat,
    )
    assert "шинглы из слов k=1, шаг 1" in flat
    assert "Уникальность — доля слов текста" in flat
    assert english_leaks(out, (a, b, f"A: {a}")) == []


def test_analyze_in_russian(
    capsys: pytest.CaptureFixture[str], russian: None, texts: tuple[str, str]
) -> None:
    code, out, _ = run(capsys, "analyze", texts[0], "--shingles")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == ["#", "терм", "позиции", "в", "тексте"]
    assert "шинглы и их отпечатки" in lines
    assert english_leaks("\n".join(line for line in lines if "'" not in line)) == []


def test_errors_of_files_and_collections(
    capsys: pytest.CaptureFixture[str], russian: None, texts: tuple[str, str], tmp_path: Path
) -> None:
    a, _ = texts
    missing = str(tmp_path / "nothing.txt")
    code, _, err = run(capsys, "compare", a, missing)
    assert (code, err) == (2, f"Ошибка: {missing}: нет такого файла или папки\n")
    db = str(tmp_path / "c.db")
    code, _, err = run(capsys, "index", "check", db, a)
    assert (code, err) == (
        2,
        f"Ошибка: коллекции {db} нет: такого файла нет (создайте её командой "
        f"`neardup index create {db}`)\n",
    )
    code, out, err = run(capsys, "index", "create", db)
    assert code == 0, err
    assert out.startswith(f"создана коллекция {db}: спецификация ")
    assert "(пресет auto, шинглы из слов по k=5 с шагом 1 (слова, k=1, для пар короче " in out
    assert "политика отклонять дубликаты, сходство (Жаккар) ≥ 0,7" in out
    assert english_leaks(out, (db,)) == []
    # an existing file: "already exists", not "the store is unavailable"
    code, _, err = run(capsys, "index", "create", db)
    assert (code, err) == (
        1,
        f"Ошибка: {db} уже существует: выберите другой путь или сначала удалите этот файл\n",
    )


def test_already_exists_in_english(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C")
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db)[0] == 0
    code, _, err = run(capsys, "index", "create", db)
    assert (code, err) == (1, f"Error: {db} already exists; choose a new path or remove it first\n")


@pytest.mark.parametrize(
    ("args", "usage", "said"),
    [
        (
            ["compare", "{a}", "--top", "3"],
            "Использование: neardup compare [ПАРАМЕТРЫ] A B",
            "Ошибка: Нет такого параметра «--top».",
        ),
        (
            ["compare", "{a}"],
            "Использование: neardup compare [ПАРАМЕТРЫ] A B",
            "Ошибка: Не указан аргумент «B».",
        ),
        (
            ["compare", "{a}", "{b}", "--step", "x"],
            "Использование: neardup compare [ПАРАМЕТРЫ] A B",
            "Ошибка: Неверное значение «--step»: «x» — не целое число.",
        ),
        (
            ["compare", "{a}", "{b}", "--method", "zz"],
            "Использование: neardup compare [ПАРАМЕТРЫ] A B",
            "Ошибка: Неверное значение «--method»: «zz» — не одно из значений 'combined', 'sets'.",
        ),
        (
            ["index", "check", "{a}", "{b}", "--top", "0"],
            "Использование: neardup index check [ПАРАМЕТРЫ] DB FILE",
            "Ошибка: Неверное значение «--top»: 0 вне допустимого диапазона 1<=x<=100.",
        ),
        (
            ["nonsense"],
            "Использование: neardup [ПАРАМЕТРЫ] КОМАНДА [АРГУМЕНТЫ]...",
            "Ошибка: Нет такой команды «nonsense».",
        ),
        (
            ["compare", "{a}", "{b}", "extra"],
            "Использование: neardup compare [ПАРАМЕТРЫ] A B",
            "Ошибка: Лишний аргумент (extra)",
        ),
    ],
)
def test_click_usage_errors_in_russian(
    capsys: pytest.CaptureFixture[str],
    russian: None,
    texts: tuple[str, str],
    args: list[str],
    usage: str,
    said: str,
) -> None:
    a, b = texts
    code, _, err = run(capsys, *(arg.format(a=a, b=b) for arg in args))
    lines = err.splitlines()
    assert code == 2
    assert lines[0] == usage
    assert lines[1].startswith("Справка: «neardup") and lines[1].endswith(" --help».")
    assert lines[3].startswith(said), lines[3]
    command = usage.split(" [")[0].removeprefix("Использование: ")
    assert english_leaks(err, (command, "DB FILE")) == []


def test_click_usage_errors_stay_english_in_english(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, texts: tuple[str, str]
) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    code, _, err = run(capsys, "index", "check", *texts, "--top", "0")
    assert code == 2
    assert err.splitlines()[-1] == (
        "Error: Invalid value for '--top': 0 is not in the range 1<=x<=100."
    )


def test_every_click_template_is_said_in_russian() -> None:
    # each English template, filled, is recognised and said with the same values
    for key, texts in CATALOG["usage"].items():
        values = {
            name: "'v'" if conversion == "r" else "7"
            for _, name, _, conversion in string.Formatter().parse(texts["en"])
            if name
        }
        english = texts["en"].replace("!r}", "}").format(**values)
        said = message_text(english, "ru")
        assert said != english or texts["ru"] == texts["en"], key
        assert english_leaks(said) == [], (key, said)
