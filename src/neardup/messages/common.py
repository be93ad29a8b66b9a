"""Words that more than one of the CLI, the page, the PDF report and the errors say: kept once
here, so that they cannot drift apart (a test checks that no two keys of the catalog hold the
same words). Every area of :mod:`neardup.messages` falls back to these.
"""

from __future__ import annotations

COMMON: dict[str, dict[str, str]] = {
    # the numba kernels' cache of an install that cannot be written (neardup._kernels)
    "kernel_cache_at": {
        "ru": "neardup: папка установки недоступна для записи; скомпилированные ядра хранятся "
        "в {folder}",
        "en": "neardup: the install folder cannot be written; compiled kernels are kept in "
        "{folder}",
    },
    "kernel_cache_memory": {
        "ru": "neardup: нет папки для скомпилированных ядер (папка установки и {folders} "
        "недоступны для записи); ядра компилируются в памяти для этого запуска",
        "en": "neardup: no writable cache folder for compiled kernels (the package folder "
        "and {folders} cannot be written); kernels are compiled in memory for this run",
    },
    "collection": {"ru": "Коллекция", "en": "Collection"},
    "uniqueness": {"ru": "Уникальность", "en": "Uniqueness"},
    "sources": {"ru": "Источники", "en": "Sources"},
    "source": {"ru": "Источник", "en": "Source"},
    "excluded": {"ru": "Исключены из проверки", "en": "Left out of the check"},
    # the page's headings and the CLI's column names
    "resemblance": {"ru": "сходство", "en": "resemblance"},
    "text_in_doc": {"ru": "текст в документе", "en": "text in doc"},
    "doc_in_text": {"ru": "документ в тексте", "en": "doc in text"},
    "group": {"ru": "группа", "en": "group"},
    # the page's notes and the errors of the same name
    "no_texts": {"ru": "Коллекция не хранит тексты.", "en": "The collection keeps no texts."},
    "writes_off": {
        "ru": "Сервис запущен без токена: добавление и удаление выключены.",
        "en": "The service was started without a token: adding and removing are off.",
    },
    "page_not_found": {"ru": "Такой страницы нет.", "en": "There is no such page."},
    # beside a copied passage whose reference is not in the text's own reference list
    "reference_not_found": {"ru": "ссылка не найдена", "en": "reference not found"},
    # the page's and the PDF's sources counted in the figure but not listed ({n}: "3 sources")
    "more_sources": {
        "ru": "и ещё {n} — не показаны, но учтены в уникальности",
        "en": "and {n} not listed, but counted in the uniqueness",
    },
    "more_mark": {
        "ru": "найдено в источниках вне списка",
        "en": "found in sources not listed",
    },
    # a check whose figure reached the work limit ({counted}, {sources}: "200 sources")
    "limited": {
        "ru": "Уникальность посчитана по {counted}, самым сходным с текстом; ещё {uncounted} "
        "найдено сверх предела одной проверки ({sources}, {characters} их текстов).",
        "en": "The uniqueness counts the {counted} most like the text; {uncounted} more were "
        "found past the limit of one check ({sources}, {characters} of their texts).",
    },
    # a check whose candidates reached the collection's max_candidates ({n}: a number)
    "capped": {
        "ru": "Кандидатов набралось столько, сколько коллекция сравнивает за одну проверку "
        "({n}): с текстом могут совпадать и другие её документы.",
        "en": "The candidates reached the number the collection compares in one check ({n}): "
        "more of its documents may share passages with the text.",
    },
}
