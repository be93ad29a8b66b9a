"""The page's words in Russian (the default) and English.

The language is chosen by ``?lang=ru|en`` (remembered in a cookie), else the cookie, else the
first supported language of the ``Accept-Language`` header, else Russian.

Counts take their plural form from Babel's plural rules (``plural(4, "document")`` is
"4 документа", ``plural(5, "document")`` "5 документов"), numbers the locale's decimal and
group separators (``number(0.5, 3)`` is "0,500" in Russian): :mod:`neardup.report.plurals`, which
the
PDF report shares. An error the server sends to the
page gets a stable code (:func:`error_code`: from its class and its English message) and is
shown in the page's language by that code (:func:`error_text`); the API's JSON stays English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from neardup.report.plurals import DEFAULT_LANGUAGE, LANGUAGES, number, plural, size

# the counts' words and forms live in neardup.report.plurals (the PDF report speaks through them
# too)
from neardup.report.plurals import WORDS as WORDS
from neardup.report.plurals import word as word

MESSAGES: dict[str, dict[str, str]] = {
    "title": {
        "ru": "neardup — проверка текста на заимствования",
        "en": "neardup — text reuse check",
    },
    "nav_check": {"ru": "Проверка", "en": "Check"},
    "nav_compare": {"ru": "Сравнение", "en": "Compare"},
    "nav_collection": {"ru": "Коллекция", "en": "Collection"},
    "nav_matrix": {"ru": "Матрица", "en": "Matrix"},
    "check_intro": {
        "ru": "Вставьте текст или загрузите файл (.txt, .html, .docx, .pdf): сервис найдёт, "
        "какие его фрагменты уже есть в коллекции и откуда они взяты.",
        "en": "Paste a text or upload a file (.txt, .html, .docx, .pdf): the service finds "
        "which passages of it are already in the collection and where they come from.",
    },
    "text": {"ru": "Текст", "en": "Text"},
    "or_file": {"ru": "или файл", "en": "or a file"},
    "check_button": {"ru": "Проверить", "en": "Check"},
    "compare_button": {"ru": "Сравнить", "en": "Compare"},
    "matrix_button": {"ru": "Построить матрицу", "en": "Build the matrix"},
    "uploading": {"ru": "Отправка…", "en": "Uploading…"},
    "processing": {"ru": "Обработка…", "en": "Processing…"},
    "uniqueness": {"ru": "Уникальность", "en": "Uniqueness"},
    "uniqueness_explained": {
        "ru": "доля слов текста (без служебных слов), не найденных ни в одном документе "
        "коллекции; заимствовано {borrowed} %, цитируется {cited} % (в кавычках или в "
        "предложении со своей ссылкой) — вместе 100 %. Фрагменты выделены ниже.",
        "en": "the share of the text's words (function words aside) found in no document of "
        "the collection; {borrowed} % is borrowed and {cited} % cited (in quotes, or in a "
        "sentence with its own reference) — 100 % together. The passages are highlighted "
        "below.",
    },
    "suspicious": {
        "ru": "Подозрительно: в тексте приёмы обхода проверки — {kinds}. Они сняты перед "
        "сравнением, цифры выше — по тексту, каким его видит читатель.",
        "en": "Suspicious: the text uses tricks to get past a checker — {kinds}. They were "
        "undone before comparing: the figures above are those of the text a reader sees.",
    },
    "tricks_found": {
        "ru": "В тексте найдено и снято: {kinds}.",
        "en": "Found in the text and undone: {kinds}.",
    },
    "trick_homoglyph": {"ru": "буквы другого алфавита", "en": "look-alike letters"},
    "trick_invisible": {"ru": "невидимые символы", "en": "invisible characters"},
    "trick_letter_spacing": {"ru": "разрядка букв", "en": "letter spacing"},
    "trick_stuffing": {"ru": "символы внутри слов", "en": "characters stuffed in words"},
    "trick_hidden_text": {
        "ru": "скрытый в файле текст (невидимый, белый, мелкий, за полями)",
        "en": "text hidden in the file (invisible, white, tiny, off the page)",
    },
    "sources": {"ru": "Источники", "en": "Sources"},
    "no_sources": {
        "ru": "Ни один документ коллекции не имеет общих шинглов с этим текстом.",
        "en": "No document of the collection shares a shingle with this text.",
    },
    "source": {"ru": "Источник", "en": "Source"},
    "borrowed_from": {"ru": "взято из него", "en": "taken from it"},
    "resemblance": {"ru": "сходство", "en": "resemblance"},
    "text_in_doc": {"ru": "текст в документе", "en": "text in doc"},
    "doc_in_text": {"ru": "документ в тексте", "en": "doc in text"},
    "passages": {"ru": "фрагменты", "en": "passages"},
    "your_text": {"ru": "Проверяемый текст", "en": "Your text"},
    "click_passage": {
        "ru": "Нажмите на выделенный фрагмент, чтобы увидеть его в источнике.",
        "en": "Click a highlighted passage to see it in its source.",
    },
    "would_add": {"ru": "при добавлении был бы принят", "en": "would be added"},
    "would_refuse": {"ru": "при добавлении был бы отклонён", "en": "would be refused"},
    "compare_intro": {
        "ru": "Два текста рядом; общие фрагменты выделены и связаны друг с другом.",
        "en": "Two texts side by side; the shared passages are highlighted and linked.",
    },
    "text_a": {"ru": "Текст A", "en": "Text A"},
    "text_b": {"ru": "Текст B", "en": "Text B"},
    "compare_summary": {
        "ru": "Уникальность текста A относительно B: {u} % (заимствовано {a} %, цитируется "
        "{q} %); текста B использовано в A: {b} %. Комбинированная оценка {c} (от 0,5 — "
        "вероятно, копия); сходство (Жаккар по шинглам) {r}, A в B {cab}, B в A {cba}.",
        "en": "Uniqueness of text A against B: {u} % (borrowed {a} %, cited {q} %); {b} % of "
        "text B is used in A. Combined score {c} (0.5 and above: probably a copy); "
        "resemblance (Jaccard of shingles) {r}, A in B {cab}, B in A {cba}.",
    },
    "collection": {"ru": "Коллекция", "en": "Collection"},
    "documents": {"ru": "документов", "en": "documents"},
    "groups": {"ru": "Группы дубликатов", "en": "Duplicate groups"},
    "no_groups": {"ru": "Групп дубликатов нет.", "en": "No duplicate groups."},
    "group": {"ru": "группа", "en": "group"},
    "representative": {"ru": "представитель", "en": "representative"},
    "members": {"ru": "участники", "en": "members"},
    "add_document": {"ru": "Добавить документ", "en": "Add a document"},
    "doc_id": {"ru": "Идентификатор", "en": "Id"},
    "policy": {"ru": "Политика", "en": "Policy"},
    "policy_default": {"ru": "как в коллекции", "en": "the collection's"},
    "token": {"ru": "Токен", "en": "Token"},
    "add_button": {"ru": "Добавить", "en": "Add"},
    "remove_button": {"ru": "Удалить", "en": "Remove"},
    "added": {"ru": "Документ {id} добавлен ({reason}).", "en": "Document {id} added ({reason})."},
    "refused": {
        "ru": "Документ {id} не добавлен ({reason}).",
        "en": "Document {id} was refused ({reason}).",
    },
    "removed": {"ru": "Документ {id} удалён.", "en": "Document {id} removed."},
    "document": {"ru": "Документ", "en": "Document"},
    "shingles": {"ru": "шинглов", "en": "shingles"},
    "meta": {"ru": "Метаданные", "en": "Meta"},
    "no_text": {"ru": "Коллекция не хранит тексты.", "en": "The collection keeps no texts."},
    "writes_off": {
        "ru": "Сервис запущен без токена: добавление и удаление выключены.",
        "en": "The service was started without a token: adding and removing are off.",
    },
    "matrix_intro": {
        "ru": "До {n} текстов: по одному в поле или файлами; тексты в одном поле разделяйте "
        "строкой из трёх дефисов (---). Ячейка строки i и столбца j — текст i против текста j.",
        "en": "Up to {n} texts: one per field, or as files; separate texts in one field with a "
        "line of three hyphens (---). Row i, column j is text i against text j.",
    },
    "method": {"ru": "Мера", "en": "Measure"},
    "files": {"ru": "Файлы", "en": "Files"},
    "error": {"ru": "Ошибка", "en": "Error"},
    "empty_input": {"ru": "Дайте текст или файл.", "en": "Give a text or a file."},
    "show_all": {"ru": "все источники", "en": "all sources"},
    "limits": {
        "ru": "Не больше {chars} в тексте; запрос (текст и файлы вместе) — до {size}.",
        "en": "At most {chars} a text; a request (text and files together) up to {size}.",
    },
    "page_not_found": {"ru": "Такой страницы нет.", "en": "There is no such page."},
    "documents_title": {"ru": "Документы", "en": "Documents"},
    "search": {"ru": "Найти", "en": "Search"},
    "search_label": {"ru": "Идентификатор или заголовок", "en": "Id or title"},
    "no_documents": {"ru": "Документов не найдено.", "en": "No documents found."},
    "found": {"ru": "Найдено: {n}", "en": "Found: {n}"},
    "page_of": {"ru": "Страница {page} из {pages}", "en": "Page {page} of {pages}"},
    "previous": {"ru": "← назад", "en": "← previous"},
    "next": {"ru": "вперёд →", "en": "next →"},
    "all_groups": {"ru": "все группы", "en": "all groups"},
    "title_field": {"ru": "заголовок", "en": "title"},
    "shingles_column": {"ru": "шинглы", "en": "shingles"},
    "too_large_before": {
        "ru": "Слишком много для одного запроса: сервис принимает не больше {size}. "
        "Текст остался в поле — сократите его или разделите на части.",
        "en": "Too much for one request: this service takes at most {size}. The text is "
        "kept in the field: shorten it or split it.",
    },
    # --- kept checks, the report, sources (neardup.web.kept) ---------------------------------
    "kept_drop_here": {
        "ru": "…или перетащите файл сюда",
        "en": "…or drop a file here",
    },
    "kept_history": {"ru": "История проверок", "en": "Checks made"},
    "kept_history_all": {
        "ru": "Все сохранённые проверки (вы вошли с токеном), сначала новые.",
        "en": "Every kept check (you hold the token), newest first.",
    },
    "kept_history_own": {
        "ru": "Проверки, сделанные в этом браузере, сначала новые.",
        "en": "The checks made in this browser, newest first.",
    },
    "kept_none": {"ru": "Сохранённых проверок нет.", "en": "No kept checks."},
    "kept_off": {
        "ru": "Сервис не сохраняет проверки (--keep-checks-days 0).",
        "en": "This service keeps no checks (--keep-checks-days 0).",
    },
    "kept_date": {"ru": "Дата", "en": "Date"},
    "kept_saved": {
        "ru": "Проверка сохранена {date}; по ссылке её откроет любой, кому разрешено чтение.",
        "en": "Check kept {date}; anyone allowed to read can open it by its link.",
    },
    "kept_link": {"ru": "ссылка на проверку", "en": "link to this check"},
    "kept_delete": {"ru": "Удалить проверку", "en": "Remove this check"},
    "kept_excluded": {"ru": "Исключены из проверки", "en": "Left out of the check"},
    "kept_include": {"ru": "вернуть", "en": "take back"},
    "kept_exclude": {"ru": "исключить источник", "en": "exclude this source"},
    "kept_open_source": {"ru": "открыть ↗", "en": "open ↗"},
    "kept_prev": {"ru": "предыдущий фрагмент", "en": "previous passage"},
    "kept_next": {"ru": "следующий фрагмент", "en": "next passage"},
    "kept_missing": {
        "ru": "Такой проверки нет: ссылка неверна, или проверка удалена либо устарела.",
        "en": "No such check: the link is wrong, or the check was removed or has expired.",
    },
    "kept_not_yours": {
        "ru": "Эту проверку сделали в другом браузере: удалить её может он или владелец токена.",
        "en": "This check was made in another browser: only it or a token holder may remove it.",
    },
}

# --- errors ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorCode:
    """One kind of error the page explains: the exception classes it comes from (by name, the
    class or a base), a pattern of its English message, and its words in each language."""

    code: str
    classes: tuple[str, ...]
    pattern: str
    ru: str
    en: str


_NUM = r"(?P<{}>[\d,]+)"
ERRORS: tuple[ErrorCode, ...] = (
    ErrorCode(
        "invalid_text",
        ("InvalidTextError",),
        r"holds (a NUL character|a lone surrogate \((?P<char>U\+[0-9A-F]+)\)) at position "
        + _NUM.format("position"),
        "В тексте недопустимый символ{char} (позиция {position}): нужен текст в Юникоде "
        "без символов NUL и одиночных суррогатов.",
        "The text holds a refused character{char} at position {position}: texts must be "
        "valid Unicode without NUL characters or lone surrogates.",
    ),
    ErrorCode(
        "text_too_long",
        ("TooLargeError",),
        r"has "
        + _NUM.format("n")
        + r" characters; this service takes at most "
        + _NUM.format("max"),
        "Текст слишком длинный: {n_chars}, а сервис принимает не больше {max_chars}. "
        "Сократите текст или разделите его на части.",
        "The text is too long: {n_chars}; this service takes at most {max_chars}. "
        "Shorten the text or split it.",
    ),
    ErrorCode(
        "body_too_large",
        ("TooLargeError", "HTTPException"),
        r"the request body is larger than this service's limit of " + _NUM.format("max"),
        "Запрос слишком большой: сервис принимает не больше {max_size} за раз "
        "(текст и файлы вместе).",
        "The request is too large: this service takes at most {max_size} at a time "
        "(text and files together).",
    ),
    ErrorCode(
        "matrix_too_many",
        ("TooLargeError",),
        _NUM.format("n") + r" texts; this service builds matrices of at most " + _NUM.format("max"),
        "{n_texts}: сервис строит матрицу не больше чем из {max_texts}.",
        "{n_texts}: this service builds matrices of at most {max_texts}.",
    ),
    ErrorCode(
        "matrix_too_few",
        ("InputError",),
        r"a matrix needs at least 2 texts",
        "Для матрицы нужно хотя бы два текста.",
        "A matrix needs at least two texts.",
    ),
    ErrorCode(
        "unsupported_type",
        ("UnsupportedTypeError",),
        r"cannot read a file of type '(?P<suffix>[^']*)'; expected one of (?P<allowed>.+)$",
        "Файлы типа «{suffix}» не читаются; можно загрузить {allowed}.",
        "Files of type '{suffix}' are not read; upload one of {allowed}.",
    ),
    ErrorCode(
        "encrypted_pdf",
        ("InputError",),
        r"\.pdf file is encrypted",
        "PDF-файл зашифрован: читаются только незашифрованные PDF.",
        "The PDF file is encrypted: only unencrypted PDFs are read.",
    ),
    ErrorCode(
        "unreadable_file",
        ("InputError",),
        r"not a readable (?P<kind>\.?\w+) file",
        "Файл {kind} не читается: он повреждён или на самом деле другого типа.",
        "The {kind} file cannot be read: it is damaged or not what its name says.",
    ),
    ErrorCode(
        "file_too_large",
        ("InputTooLargeError",),
        r"",
        "Файл слишком велик для сервиса ({detail}).",
        "The file is too large for this service ({detail}).",
    ),
    ErrorCode(
        "undecodable",
        ("DecodeError",),
        r"",
        "Текст файла не удалось прочитать ни в одной известной кодировке.",
        "The file's text could not be decoded in any known encoding.",
    ),
    ErrorCode(
        "wrong_token",
        ("AuthError", "HTTPException"),
        r"^wrong token$",
        "Неверный токен.",
        "Wrong token.",
    ),
    ErrorCode(
        "token_needed",
        ("AuthError", "HTTPException"),
        r"needs? a token",
        "Здесь нужен токен.",
        "This needs a token.",
    ),
    ErrorCode(
        "writes_off",
        ("HTTPException",),
        r"^writes are off",
        "Сервис запущен без токена: добавление и удаление выключены.",
        "The service was started without a token: adding and removing are off.",
    ),
    ErrorCode(
        "empty_id",
        ("InputError",),
        r"a document id must not be empty",
        "Укажите идентификатор документа.",
        "Give the document an id.",
    ),
    ErrorCode(
        "duplicate_id",
        ("DuplicateIdError",),
        r"",
        "Документ с таким идентификатором уже есть в коллекции.",
        "A document with this id is already in the collection.",
    ),
    ErrorCode(
        "not_found",
        ("NotFoundError",),
        r"",
        "Такого документа нет в коллекции.",
        "There is no such document in the collection.",
    ),
    ErrorCode(
        "no_texts",
        ("NeardupError",),
        r"keeps no texts",
        "Коллекция не хранит тексты.",
        "The collection keeps no texts.",
    ),
    ErrorCode(
        "page_not_found",
        ("HTTPException",),
        r"^Not Found$",
        "Такой страницы нет.",
        "There is no such page.",
    ),
    ErrorCode(
        "method_not_allowed",
        ("HTTPException",),
        r"^Method Not Allowed$",
        "Эта страница открывается только формой; начните с формы выше.",
        "This page is opened only by a form; start from the form above.",
    ),
    ErrorCode(
        "storage",
        ("StorageError",),
        r"",
        "Хранилище коллекции сейчас недоступно; попробуйте ещё раз позже.",
        "The collection's store is not available now; try again later.",
    ),
)

_GENERIC = {
    "ru": "Запрос не выполнен: {detail}",
    "en": "{detail}",
}


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def error_code(exc: BaseException, message: str | None = None) -> tuple[str, dict[str, str]]:
    """The stable code of an error and the values its words need (from its message)."""
    text = str(exc) if message is None else message
    names = _class_names(exc)
    for known in ERRORS:
        if not names.intersection(known.classes):
            continue
        found = re.search(known.pattern, text)
        if found is not None:
            params = {k: v for k, v in found.groupdict().items() if v is not None}
            params["detail"] = text
            return known.code, params
    return "other", {"detail": text}


def _count(value: str) -> int:
    return int(value.replace(",", ""))


def error_text(code: str, params: dict[str, str], lang: str) -> str:
    """The words of the error ``code`` in ``lang``, with its counts in the locale's forms."""
    known = next((e for e in ERRORS if e.code == code), None)
    if known is None:
        return _GENERIC[lang].format(detail=params.get("detail", ""))
    values: dict[str, Any] = dict(params)
    values["char"] = (
        f" {params['char']}" if params.get("char") else (" NUL" if code == "invalid_text" else "")
    )
    if "position" in params:
        values["position"] = number(_count(params["position"]), 0, lang)
    if code == "text_too_long":
        values["n_chars"] = plural(_count(params["n"]), "character", lang)
        values["max_chars"] = plural(_count(params["max"]), "character", lang)
    elif code == "body_too_large":
        values["max_size"] = size(_count(params["max"]), lang)
    elif code == "matrix_too_many":
        values["n_texts"] = plural(_count(params["n"]), "text", lang)
        values["max_texts"] = plural(_count(params["max"]), "text", lang)
    return getattr(known, lang).format(**values)


def translate_error(exc: BaseException, lang: str, message: str | None = None) -> str:
    """An error as the page shows it, in ``lang``."""
    code, params = error_code(exc, message)
    return error_text(code, params, lang)


def choose_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """The page's language from a ``lang`` parameter, a cookie, or ``Accept-Language``."""
    for given in (query, cookie):
        if given in LANGUAGES:
            return given
    if accept:
        weighted: list[tuple[float, int, str]] = []
        for index, part in enumerate(accept.split(",")):
            piece = part.strip()
            if not piece:
                continue
            tag, _, params = piece.partition(";")
            weight = 1.0
            params = params.strip()
            if params.startswith("q="):
                try:
                    weight = float(params[2:])
                except ValueError:
                    weight = 0.0
            lang = tag.strip().lower().split("-")[0]
            if lang in LANGUAGES and weight > 0:
                weighted.append((-weight, index, lang))
        if weighted:
            return min(weighted)[2]
    return DEFAULT_LANGUAGE


def translator(lang: str) -> dict[str, str]:
    """Every message in ``lang``."""
    return {key: texts[lang] for key, texts in MESSAGES.items()}


#: Why a text was admitted or refused (:class:`neardup.index.policy.Reason`), as the page says.
REASONS: dict[str, dict[str, str]] = {
    "new": {"ru": "новый текст", "en": "new"},
    "duplicate": {"ru": "дубликат", "en": "duplicate"},
    "grouped": {"ru": "в группу дубликатов", "en": "grouped"},
    "group_full": {"ru": "группа дубликатов заполнена", "en": "group full"},
    "linked": {"ru": "связан с похожими", "en": "linked"},
    "unchecked": {"ru": "без проверки", "en": "unchecked"},
    "too_short": {"ru": "слишком короткий", "en": "too short"},
    "too_long": {"ru": "слишком длинный", "en": "too long"},
}

_LENGTH = re.compile(
    r"has (?P<n>\d+) characters; the collection .*?admits texts of "
    r"(?:(?P<low>\d+) to (?P<high>\d+)|at most (?P<most>\d+)|at least (?P<least>\d+)) characters"
)


def reason_text(reason: str, detail: str | None, lang: str) -> str:
    """A decision's reason (and a length refusal's detail) in ``lang``."""
    said = REASONS.get(reason, {}).get(lang, reason)
    if not detail:
        return said
    found = _LENGTH.search(detail)
    if found is None:
        return f"{said}: {detail}"
    n = plural(int(found["n"]), "character", lang)
    if found["low"]:
        admitted = {"ru": "от {a} до {b}", "en": "{a} to {b}"}[lang].format(
            a=number(int(found["low"]), 0, lang),
            b=plural(int(found["high"]), "character", lang),
        )
    elif found["most"]:
        admitted = {"ru": "не больше {a}", "en": "at most {a}"}[lang].format(
            a=plural(int(found["most"]), "character", lang)
        )
    else:
        admitted = {"ru": "не меньше {a}", "en": "at least {a}"}[lang].format(
            a=plural(int(found["least"]), "character", lang)
        )
    words = {
        "ru": "{said}: в тексте {n}, коллекция принимает тексты {admitted}",
        "en": "{said}: the text has {n}; the collection admits texts of {admitted}",
    }[lang]
    return words.format(said=said, n=n, admitted=admitted)
