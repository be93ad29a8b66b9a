"""The page's words in Russian (the default) and English.

The language is chosen by ``?lang=ru|en`` (remembered in a cookie), else the cookie, else the
first supported language of the ``Accept-Language`` header, else Russian.
"""

from __future__ import annotations

LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"

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
}


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
