"""The words of the ``neardup`` command in Russian and English: one catalog for every command's
human output (summaries, progress labels, warnings and the error handler's messages).

The language is chosen from the environment on each call (cheap, and tests can change it):
``NEARDUP_LANG=ru|en`` if set, else the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is
set and not empty — a value starting with ``ru`` is Russian, anything else English. Russian
needs Babel (the ``web`` or ``report`` extra) for its plural forms and decimal comma; without
it the CLI speaks English.

A catalog rather than gettext ``.po`` files: the page (:mod:`neardup.web.i18n`) already keeps
its words as a Python dict of ``{"ru": …, "en": …}``, the messages are few, and a dict needs no
compile step, no files in the package data and no extra tool for contributors; a test checks
that every key has both languages with the same placeholders.

Templates are :meth:`str.format` strings. English templates are exactly the CLI's former
strings (tests and doc examples pin them) and are formatted by :meth:`str.format` itself.
Russian templates are formatted with two more kinds of field spec, through
:mod:`neardup.report.plurals` (Babel's CLDR plural rules, as on the page and in the PDF report):

- ``{n:#document}`` — the count and its word in the right form ("21 документ", "5 документов");
- ``{n:~document}`` — the word alone;
- a float spec such as ``{x:.1f}`` or ``{x:.4f}`` gives the locale's decimal comma ("0,500"),
  ``{x:g}`` too.

``--json`` output never goes through here: it stays English and machine-readable.
"""

from __future__ import annotations

import importlib.util
import numbers
import os
import re
import string
from functools import cache
from typing import Any

LANGUAGES = ("ru", "en")

MESSAGES: dict[str, dict[str, str]] = {
    # --- the error handler (neardup.cli.main) ---
    "error": {"ru": "Ошибка: {detail}", "en": "Error: {detail}"},
    "aborted": {"ru": "Прервано.", "en": "Aborted."},
    "interrupted": {"ru": "Прервано.", "en": "Interrupted."},
    # --- index ---
    "index_created": {
        "ru": "создана коллекция {location}: спецификация {spec} ({described}); "
        "политика {policy}, {measure} ≥ {threshold:g}{cap}{lengths}; кандидаты {candidates}",
        "en": "created {location}: spec {spec} ({described}); "
        "policy {policy}, {measure} ≥ {threshold:g}{cap}{lengths}; candidates {candidates}",
    },
    "index_group_cap": {"ru": ", не больше {cap} в группе", "en": ", group cap {cap}"},
    "index_lengths": {"ru": "; тексты {lengths}", "en": "; texts of {lengths}"},
    "index_added": {
        "ru": "добавлено: {accepted}{why_added}, отклонено: {rejected}{why_refused}"
        "{skipped_text}; в коллекции {total:#document}",
        "en": "added {accepted}{why_added}, refused {rejected}{why_refused}{skipped_text}; "
        "the collection has {total} documents",
    },
    "index_reason": {"ru": "{reason}: {n}", "en": "{reason} {n}"},
    "index_skipped": {
        "ru": ", пропущено уже сохранённых: {skipped}",
        "en": ", skipped {skipped} already stored",
    },
    "index_add_stopped": {
        "ru": "{what}: до этого сохранено {done:#document} ({accepted} добавлено, {rejected} "
        "отклонено), не сохранено {left}; та же команда с --skip-existing добавит остальные",
        "en": "{what}: {done} documents were committed before ({accepted} added, "
        "{rejected} refused), {left} not; the same command with --skip-existing adds the rest",
    },
    "interrupted_what": {"ru": "прервано", "en": "interrupted"},
    "stopped_what": {"ru": "остановлено ошибкой", "en": "stopped by an error"},
    "progress_adding": {"ru": "добавление", "en": "adding"},
    "progress_added": {
        "ru": "добавлено {accepted}, отклонено {rejected}",
        "en": "{accepted} added, {rejected} refused",
    },
    "check_summary": {
        "ru": "уникальность {uniqueness:.1f} %: заимствовано {borrowed:.1f} %{cited}, "
        "в тексте {words:#word}; {verdict}",
        "en": "uniqueness {uniqueness:.1f} %: borrowed {borrowed:.1f} %{cited} "
        "of {words} words; {verdict}",
    },
    "check_cited": {"ru": ", цитируется {cited:.1f} %", "en": ", cited {cited:.1f} %"},
    "check_would_add": {"ru": "был бы добавлен", "en": "would be added"},
    "check_would_refuse": {
        "ru": "был бы отклонён ({reason}{detail})",
        "en": "would be refused ({reason}{detail})",
    },
    "check_meaning": {
        "ru": "Уникальность — доля слов текста, не найденных ни в одном источнике; "
        "заимствовано — доля, скопированная из источника; цитируется — доля, скопированная "
        "в кавычках или в предложении со своей ссылкой. Вместе три доли дают 100 %.",
        "en": "",  # the English line is neardup.report.fragments's UNIQUENESS_MEANING, unchanged
    },
    "check_no_sources": {
        "ru": "ни один документ коллекции не имеет общих шинглов с этим текстом",
        "en": "no document of the collection shares a shingle with it",
    },
    "check_html_written": {
        "ru": "HTML-отчёт записан в {path}",
        "en": "HTML report written to {path}",
    },
    "check_pdf_written": {"ru": "PDF-отчёт записан в {path}", "en": "PDF report written to {path}"},
    "index_removed": {
        "ru": "удалено: {n}; в коллекции {left:#document}",
        "en": "removed {n}; the collection has {left} documents",
    },
    "no_groups": {"ru": "групп дубликатов нет", "en": "no duplicate groups"},
    "group_line": {
        "ru": "группа {id} ({size:#member}): {representative} ← {others}",
        "en": "group {id} ({size}): {representative} ← {others}",
    },
    "verify_problems": {
        "ru": "проблем в {db}: {n}",
        "en": "{n} problem(s) in {db}",
    },
    "verify_ok": {
        "ru": "{db}: согласована ({count:#document})",
        "en": "{db}: consistent ({count} documents)",
    },
    "exported": {
        "ru": "записано {n:#document} в {out}",
        "en": "wrote {n} documents to {out}",
    },
    "warning": {"ru": "предупреждение: {detail}", "en": "warning: {detail}"},
    "note_old_lookup": {
        "ru": "примечание: коллекция создана прежней версией (окно {window}, поиск по выборке "
        "шинглов) и находит меньше коротких вставок; новая коллекция (index create, "
        "затем index add) находит 98 % вставок в 5 % текста",
        "en": "note: this collection was made by an earlier version (window {window}, "
        "samples looked up) and finds fewer short pastes; a new one (index create, then "
        "index add) finds 98 % of pastes of 5 % of a text",
    },
    # --- dedup ---
    "dedup_summary": {
        "ru": "{documents:#document}, {groups:#group} ({duplicate_groups} с почти копиями), "
        "удалено {removed}; проверено пар-кандидатов: {verified} из {candidates}; "
        "{seconds:.1f} с → {out}",
        "en": "{documents} documents, {groups} groups "
        "({duplicate_groups} with near-copies), {removed} removed; "
        "{verified} of {candidates} candidate pairs verified; {seconds:.1f} s → {out}",
    },
    "dedup_tricks": {
        "ru": "приёмы обхода проверки сняты: документов {documents}, подозрительных "
        "{suspicious}; {kinds}",
        "en": "tricks undone in {documents} documents ({suspicious} suspicious): {kinds}",
    },
    # --- serve ---
    "serve_banner": {
        "ru": "коллекция {location} ({count:#document}) доступна по адресу {url} — API под "
        "/api, его схема в /api/openapi.json; запись {writes}, чтение {reads}",
        "en": "serving {location} ({count} documents) at {url} — the API under "
        "/api, its schema at /api/openapi.json; writes {writes}, reads {reads}",
    },
    "serve_writes_token": {"ru": "по токену", "en": "need the token"},
    "serve_writes_off": {"ru": "выключена", "en": "are off"},
    "serve_reads_open": {"ru": "открыто", "en": "open"},
    "serve_reads_token": {"ru": "по токену", "en": "need the token"},
    # --- matrix ---
    "progress_analyzing": {"ru": "анализ", "en": "analyzing"},
    "matrix_symmetric": {"ru": "симметричная", "en": "symmetric"},
    "matrix_asymmetric": {
        "ru": "несимметричная: в строке i и столбце j — |Si∩Sj|/|Si|",
        "en": "asymmetric: row i in column j = |Si∩Sj|/|Si|",
    },
    "matrix_corner": {"ru": "текст i \\ j", "en": "text i \\ j"},
    "matrix_plot_written": {
        "ru": "тепловая карта записана в {path}",
        "en": "heat map written to {path}",
    },
    # --- sign, params ---
    "progress_signing": {"ru": "подписи", "en": "signing"},
    "progress_docs": {
        "ru": "документов: {{task.fields[docs]}}",
        "en": "{{task.fields[docs]}} docs",
    },
    "signatures_written": {
        "ru": "{count:#signature} по {num_perm} × {bits} бит записано в {output} "
        "(спецификация {spec})",
        "en": "{count} signature{s} of {num_perm} × {bits} bit written to {output} (spec {spec})",
    },
    "s_curves_written": {"ru": "S-кривые записаны в {path}", "en": "S-curves written to {path}"},
    # --- bloom ---
    "bloom_built": {
        "ru": "построен {output}: {documents:#document}, {shingles:#shingle}, строк: {rows:,} "
        "по m = {m:,} бит, k = {k} (строки — {row_bytes:,} Б; файл — {written:,} Б)",
        "en": "built {output}: {documents:,} documents, {shingles:,} shingles in {rows:,} rows "
        "of m = {m:,} bits, k = {k} ({row_bytes:,} bytes of rows; file {written:,} bytes)",
    },
    "bloom_query": {
        "ru": "{shingles:#shingle}; строк выше порога: {above:,} из {rows:,} → кандидатов: "
        "{candidates:,}, с общими шинглами: {verified:,}",
        "en": "{shingles:,} shingles; {above:,} of {rows:,} rows above the threshold → "
        "{candidates:,} candidates, {verified:,} sharing shingles",
    },
    "bloom_passage": {
        "ru": "{id} №{number}: текст {a_start}–{a_end}, документ {b_start}–{b_end}: {snippet}",
        "en": "{id} #{number}: text {a_start}–{a_end}, doc {b_start}–{b_end}: {snippet}",
    },
    # --- collisions ---
    "progress_reading": {"ru": "чтение", "en": "reading"},
    "progress_distinct": {
        "ru": "чтение: различных шинглов {count:,}",
        "en": "reading: {count:,} distinct shingles",
    },
    "progress_collisions": {
        "ru": "подсчёт коллизий семейств: {families}",
        "en": "counting collisions of {families} families",
    },
    "collisions_counts": {
        "ru": "{documents:#document}, {shingles:#shingle}, различных {distinct:,}{limit}",
        "en": "{documents:,} documents, {shingles:,} shingles, {distinct:,} distinct{limit}",
    },
    "collisions_limit": {"ru": " (предел достигнут)", "en": " (limit reached)"},
    "collisions_spec": {
        "ru": "пресет {preset}, шинглы ({unit}) k={k} step={step}; спецификация {spec}",
        "en": "preset {preset}, {unit} shingles k={k} step={step}; spec {spec}",
    },
    "collisions_time": {"ru": "время: {seconds}", "en": "time: {seconds}"},
    "seconds": {"ru": "с", "en": "s"},
    # --- eval ---
    "note": {"ru": "примечание: {detail}", "en": "note: {detail}"},
    "eval_not_installed": {"ru": "  (не установлен)", "en": "  (not installed)"},
    "progress_generating": {"ru": "генерация", "en": "generating"},
    "progress_texts": {"ru": "{method}: {n:#text}", "en": "{method}: {n} texts"},
    "progress_pairs": {"ru": "{method}: {n:#pair}", "en": "{method}: {n} pairs"},
    "eval_generated": {
        "ru": "исходных документов: {sources} (пригодных {usable}), {documents:#document}, "
        "{pairs:#pair} (положительных {positives}, отрицательных {negatives}){fragments}",
        "en": "{sources} source documents (of {usable} usable), {documents} documents, "
        "{pairs} pairs ({positives} positive, {negatives} negative){fragments}",
    },
    "eval_fragments": {"ru": ", {n:#passage}", "en": ", {n} fragments"},
    "eval_pairs": {
        "ru": "{n:#pair} (положительных {positives}, отрицательных {negatives}), ROC AUC {auc}",
        "en": "{n} pairs ({positives} positive, {negatives} negative), ROC AUC {auc}",
    },
    "eval_retrieval": {
        "ru": "отбор (помимо ранжирования): найдено {recall} положительных пар и {negatives} "
        "отрицательных, отобрано пар: {retrieved}; ROC AUC среди них {auc} (AUC выше считает "
        "неотобранные пары нулём)",
        "en": "retrieval (apart from the ranking): recall {recall} of the positive pairs, "
        "{negatives} of the negatives, {retrieved} pairs retrieved; ROC AUC among them {auc} "
        "(the AUC above scores pairs not retrieved as 0)",
    },
    "eval_spec": {
        "ru": "спецификация {spec}: пресет {preset}, шинглы ({unit}) k={k}",
        "en": "spec {spec}: preset {preset}, {unit} shingles k={k}",
    },
    "eval_plot": {"ru": "график: {path}", "en": "plot: {path}"},
    # --- compare, analyze ---
    "compare_title": {"ru": "{a} и {b}", "en": "{a} vs {b}"},
    "compare_short_rule": {
        "ru": " (в более коротком тексте токенов меньше {below})",
        "en": " (the shorter text has fewer than {below} tokens)",
    },
    "compare_spec": {
        "ru": "спецификация {spec}: пресет {preset}, шинглы ({unit}) k={k} step={step}{rule}, "
        "{family} {bits} бит",
        "en": "spec {spec}: preset {preset}, "
        "{unit} shingles k={k} step={step}{rule}, {family} {bits} bit",
    },
    "analyze_header": {
        "ru": "кодировка {encoding}, язык {language}, {tokens:#token}, спецификация {spec}",
        "en": "encoding {encoding}, language {language}, {tokens} tokens, spec {spec}",
    },
}

#: Column names of the CLI's tables (English: the name itself).
COLUMNS: dict[str, str] = {
    "id": "id",
    "resemblance": "сходство",
    "text in doc": "текст в документе",
    "doc in text": "документ в тексте",
    "shared": "общих",
    "group": "группа",
    "combined": "комбинированная",
    "a": "a",
    "b": "b",
    "score": "оценка",
    "file": "файл",
    "row z": "z строки",
    "measure": "мера",
    "value": "значение",
    "combined score": "комбинированная оценка",
    "resemblance (Jaccard)": "сходство (Жаккар)",
    "Sørensen–Dice": "Сёренсен — Дайс",
    "containment A in B": "вхождение A в B",
    "containment B in A": "вхождение B в A",
    "shingles A": "шинглов в A",
    "shingles B": "шинглов в B",
    "size": "размер",
}


def _babel_available() -> bool:
    return importlib.util.find_spec("babel") is not None


_babel = cache(_babel_available)


def language() -> str:
    """The CLI's language: ``NEARDUP_LANG``, else the locale (``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``); ``ru*`` is Russian, anything else English (and English without Babel)."""
    chosen = os.environ.get("NEARDUP_LANG", "").strip().lower()
    if chosen not in LANGUAGES:
        chosen = "en"
        for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
            value = os.environ.get(name, "")
            if value:
                chosen = "ru" if value.lower().startswith("ru") else "en"
                break
    if chosen == "ru" and not _babel():
        return "en"
    return chosen


def is_russian() -> bool:
    return language() == "ru"


_FLOAT_SPEC = re.compile(r"^,?(?:\.(\d+)f)?$")


#: Words only the CLI counts, by Babel's plural categories (the others:
# neardup.report.plurals.WORDS).
CLI_WORDS: dict[str, dict[str, str]] = {
    "token": {"one": "токен", "few": "токена", "many": "токенов", "other": "токена"},
    "pair": {"one": "пара", "few": "пары", "many": "пар", "other": "пары"},
    "file": {"one": "файл", "few": "файла", "many": "файлов", "other": "файла"},
    "cluster": {"one": "кластер", "few": "кластера", "many": "кластеров", "other": "кластера"},
    "signature": {"one": "подпись", "few": "подписи", "many": "подписей", "other": "подписи"},
    "item": {"one": "элемент", "few": "элемента", "many": "элементов", "other": "элемента"},
}


def _word(n: float, key: str) -> str:
    from neardup.report.plurals import WORDS, word

    if key in WORDS:
        return word(n, key, "ru")
    babel: Any = importlib.import_module("babel")
    forms = CLI_WORDS[key]
    return forms.get(babel.Locale.parse("ru").plural_form(n), forms["other"])


class _RussianFormatter(string.Formatter):
    """:meth:`str.format` with plural forms and the decimal comma (see the module's text)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        from neardup.report.plurals import number

        if format_spec.startswith("#"):
            return f"{number(value, 0, 'ru')} {_word(value, format_spec[1:])}"
        if format_spec.startswith("~"):
            return _word(value, format_spec[1:])
        found = _FLOAT_SPEC.match(format_spec)
        if format_spec and found is not None and isinstance(value, numbers.Real):
            return number(float(value), int(found.group(1) or 0), "ru")
        text = super().format_field(value, format_spec)
        if isinstance(value, float) and format_spec and format_spec[-1] in "gfe%":
            text = text.replace(".", ",")
        return text


_RUSSIAN = _RussianFormatter()


def say(key: str, /, **values: Any) -> str:
    """The message ``key`` in the CLI's language, with ``values`` put in."""
    return say_in(language(), key, **values)


def say_in(lang: str, key: str, /, **values: Any) -> str:
    """The message ``key`` in ``lang``, with ``values`` put in."""
    template = MESSAGES[key][lang]
    if lang == "en":
        return template.format(**values)
    return _RUSSIAN.format(template, **values)


def fmt(value: float, spec: str) -> str:
    """One number as ``format(value, spec)`` in English, with the decimal comma in Russian."""
    if language() == "en":
        return format(value, spec)
    return _RUSSIAN.format_field(value, spec)


def count(n: int, key: str) -> str:
    """ "5 документов" in Russian; the bare number in English (its words stay as they were)."""
    if language() == "en":
        return str(n)
    return _RUSSIAN.format_field(n, "#" + key)


def column(name: str) -> str:
    """A table's column name in the CLI's language."""
    return COLUMNS.get(name, name) if language() == "ru" else name


def reason(name: str) -> str:
    """An admission decision's reason (``new``, ``duplicate`` …) in the CLI's language."""
    if language() == "en":
        return name
    from neardup.web.i18n import REASONS

    return REASONS.get(name, {}).get("ru", name)


def error_message(exc: BaseException) -> str:
    """An error as the CLI prints it: in Russian by its class and message where the page has
    its words (:data:`neardup.web.i18n.ERRORS`), else the English message after "Ошибка:"."""
    detail = str(exc)
    if language() == "ru":
        try:
            from neardup.web.i18n import error_code, error_text

            code, params = error_code(exc, detail)
            if code != "other":
                return say_in("ru", "error", detail=error_text(code, params, "ru"))
        except ImportError:  # the page's words need the web extra's modules
            pass
    return say("error", detail=detail)


__all__ = [
    "MESSAGES",
    "column",
    "count",
    "error_message",
    "fmt",
    "is_russian",
    "language",
    "reason",
    "say",
]
