"""The PDF report's words in Russian and English (:mod:`neardup.report.pdf`): a data table of
:mod:`neardup.messages`; the words it shares with the page are in :mod:`neardup.messages.common`.
"""

from __future__ import annotations

REPORT: dict[str, dict[str, str]] = {
    "title": {"ru": "Отчёт о проверке текста", "en": "Text check report"},
    "borrowed": {"ru": "заимствовано", "en": "borrowed"},
    "cited": {"ru": "цитируется", "en": "cited"},
    "meaning": {
        "ru": "Уникальность — доля слов текста, не найденных ни в одном документе коллекции; "
        "заимствовано — доля, скопированная из документа; цитируется — доля, скопированная "
        "в кавычках с указанием автора или в предложении со ссылкой, найденной в списке "
        "литературы текста. Вместе 100 %.",
        "en": "Uniqueness is the share of the text's words found in no document of the "
        "collection; borrowed, the share copied from a document; cited, the share copied "
        "inside an attributed quotation or a sentence whose reference is in the text's "
        "reference list. The three add up to 100 %.",
    },
    "date": {"ru": "Дата проверки", "en": "Checked on"},
    "spec": {"ru": "Спецификация", "en": "Spec"},
    "file": {"ru": "Файл", "en": "File"},
    "link": {"ru": "Ссылка на проверку", "en": "This check online"},
    "no_sources": {
        "ru": "Ни один документ коллекции не совпал с текстом.",
        "en": "No document of the collection matched the text.",
    },
    "share": {"ru": "Доля текста", "en": "Share of the text"},
    "passages": {"ru": "Фрагментов", "en": "Passages"},
    "text": {"ru": "Текст с отмеченными фрагментами", "en": "The text, passages marked"},
    "legend": {"ru": "Обозначения", "en": "Legend"},
    "copied": {"ru": "скопировано (цвет источника)", "en": "copied (the source's colour)"},
    "rewritten": {"ru": "переписано (пунктир)", "en": "rewritten (dashed line)"},
    "changed": {"ru": "изменённые слова (точки)", "en": "edited words (dotted line)"},
    "cite": {"ru": "цитата (серый, курсив)", "en": "cited (grey, italics)"},
    "more": {
        "ru": "в источниках вне списка (светло-серый)",
        "en": "in sources not listed (light grey)",
    },
    "page": {"ru": "стр.", "en": "page"},
    "cut": {
        "ru": "… текст обрезан здесь; не показано: {n:#character} (полностью — на странице "
        "проверки).",
        "en": "… the text is cut here; not shown: {n:#character} (the check's page shows it "
        "whole).",
    },
}
