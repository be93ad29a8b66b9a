"""The page's words in Russian and English (``neardup serve``): a data table of
:mod:`neardup.messages`; the words the page shares with the PDF report or the CLI are in
:mod:`neardup.messages.common`, the errors' in :mod:`neardup.messages.errors`.
"""

from __future__ import annotations

PAGE: dict[str, dict[str, str]] = {
    "title": {
        "ru": "neardup — проверка текста на заимствования",
        "en": "neardup — text reuse check",
    },
    "nav_check": {"ru": "Проверка", "en": "Check"},
    "nav_compare": {"ru": "Сравнение", "en": "Compare"},
    "nav_matrix": {"ru": "Матрица", "en": "Matrix"},
    "check_intro": {
        "ru": "Вставьте текст или загрузите файл (.txt, .html, .docx, .odt, .rtf, .doc, .pdf): "
        "сервис найдёт, какие его фрагменты уже есть в коллекции и откуда они взяты.",
        "en": "Paste a text or upload a file (.txt, .html, .docx, .odt, .rtf, .doc, .pdf): the "
        "service finds which passages of it are already in the collection and where they come "
        "from.",
    },
    "text": {"ru": "Текст", "en": "Text"},
    "or_file": {"ru": "или файл", "en": "or a file"},
    "check_button": {"ru": "Проверить", "en": "Check"},
    "compare_button": {"ru": "Сравнить", "en": "Compare"},
    "matrix_button": {"ru": "Построить матрицу", "en": "Build the matrix"},
    "uploading": {"ru": "Отправка…", "en": "Uploading…"},
    "processing": {"ru": "Обработка…", "en": "Processing…"},
    "uniqueness_explained": {
        "ru": "доля слов текста (без служебных слов), не найденных ни в одном документе "
        "коллекции; заимствовано {borrowed} %, цитируется {cited} % (в кавычках или в "
        "предложении со ссылкой, найденной в списке литературы текста) — вместе 100 %. "
        "Фрагменты выделены ниже.",
        "en": "the share of the text's words (function words aside) found in no document of "
        "the collection; {borrowed} % is borrowed and {cited} % cited (in quotes, or in a "
        "sentence whose reference is in the text's reference list) — 100 % together. The "
        "passages are highlighted below.",
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
    "no_sources": {
        "ru": "Ни один документ коллекции не имеет общих шинглов с этим текстом.",
        "en": "No document of the collection shares a shingle with this text.",
    },
    "borrowed_from": {"ru": "взято из него", "en": "taken from it"},
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
    "documents": {"ru": "документов", "en": "documents"},
    "groups": {"ru": "Группы дубликатов", "en": "Duplicate groups"},
    "no_groups": {"ru": "Групп дубликатов нет.", "en": "No duplicate groups."},
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
    "kept_include": {"ru": "вернуть", "en": "take back"},
    "kept_exclude": {"ru": "исключить источник", "en": "exclude this source"},
    "kept_open_source": {"ru": "открыть ↗", "en": "open ↗"},
    "kept_prev": {"ru": "предыдущий фрагмент", "en": "previous passage"},
    "kept_next": {"ru": "следующий фрагмент", "en": "next passage"},
    "kept_missing": {
        "ru": "Такой проверки нет: ссылка неверна, или проверка удалена либо устарела.",
        "en": "No such check: the link is wrong, or the check was removed or has expired.",
    },
    "kept_damaged": {"ru": "повреждена", "en": "damaged"},
    "kept_not_yours": {
        "ru": "Эту проверку сделали в другом браузере: удалить её может он или владелец токена.",
        "en": "This check was made in another browser: only it or a token holder may remove it.",
    },
}
