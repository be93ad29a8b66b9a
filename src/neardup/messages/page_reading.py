"""The page's words for a reader who is not a specialist: the legend of the marks, the sources
table's plain columns and its "details", the names of matrix methods, the progress of a check,
the history's dates and removal, the refusal of a file too large. A block of the page's area
(:mod:`neardup.messages.page`) kept in a file of its own."""

from __future__ import annotations

PAGE_READING: dict[str, dict[str, str]] = {
    # --- the legend of the marks in the texts ---
    "legend_title": {"ru": "Как читать выделения", "en": "How to read the marks"},
    "legend_copied": {
        "ru": "заимствовано: цвет источника, из которого взят фрагмент",
        "en": "borrowed: the colour of the source the passage was taken from",
    },
    "legend_cited": {
        "ru": "цитата (серый фон, курсив): в кавычках или со ссылкой из списка литературы — "
        "не считается заимствованием",
        "en": "cited (grey, italics): in quotes or with a reference from the reference list — "
        "not counted as borrowed",
    },
    "legend_rewritten": {
        "ru": "пересказ (штриховка, пунктир снизу): предложения источника, переписанные "
        "другими словами",
        "en": "rewritten (hatched, dashed underline): the source's sentences put in other words",
    },
    "legend_changed": {
        "ru": "изменённые слова (точки снизу): слова внутри заимствованного фрагмента, "
        "которых нет в источнике",
        "en": "edited words (dotted underline): words inside a borrowed passage that the "
        "source does not have",
    },
    "legend_more": {
        "ru": "найдено в источниках, не показанных в таблице",
        "en": "found in sources the table does not list",
    },
    "legend_noref": {
        "ru": "ссылки нет в списке литературы текста",
        "en": "the reference is not in the text's reference list",
    },
    "legend_cited_title": {"ru": "цитата", "en": "citation"},
    "sample_words": {"ru": "пример", "en": "sample"},
    # --- the sources table ---
    "share_taken": {"ru": "Доля текста из источника", "en": "Share of the text taken"},
    "passages_found": {"ru": "Фрагментов", "en": "Passages found"},
    "details": {"ru": "подробнее", "en": "details"},
    "details_intro": {
        "ru": "Меры по шинглам — последовательностям из {k} слов подряд: сходство — доля "
        "общих шинглов среди всех шинглов обоих текстов; «текст в документе» — доля шинглов "
        "текста, найденных в документе; «документ в тексте» — доля шинглов документа, "
        "найденных в тексте.",
        "en": "Measures over shingles, runs of {k} words: resemblance is the share of shingles "
        "in common among all of both texts'; text in doc, the share of the text's shingles "
        "found in the document; doc in text, the share of the document's shingles found in "
        "the text.",
    },
    "decision_title": {
        "ru": "Если добавить этот текст в коллекцию",
        "en": "If this text were added to the collection",
    },
    # --- matrix ---
    "method_containment": {"ru": "вхождение (доля шинглов строки)", "en": "containment"},
    "method_resemblance": {"ru": "сходство по Жаккару", "en": "resemblance (Jaccard)"},
    "method_sorensen": {"ru": "коэффициент Сёренсена — Дайса", "en": "Sørensen–Dice"},
    "method_minhash": {"ru": "оценка сходства по MinHash", "en": "MinHash estimate"},
    "method_tfidf": {"ru": "косинус TF-IDF по словам", "en": "TF-IDF cosine"},
    "method_combined": {"ru": "комбинированная оценка (0–1)", "en": "combined score"},
    "matrix_asymmetric": {
        "ru": "строка i, столбец j = |Si∩Sj| / |Si|",
        "en": "row i, column j = |Si∩Sj| / |Si|",
    },
    # --- progress, history, limits ---
    "network_error": {
        "ru": "Нет связи с сервисом: проверьте подключение и попробуйте ещё раз.",
        "en": "The service could not be reached: check the connection and try again.",
    },
    "processing_share": {
        "ru": "Проверка, этап {step} из {steps} (пройдено {share} %): {stage}",
        "en": "Checking, stage {step} of {steps} ({share} % done): {stage}",
    },
    "stage_reading": {"ru": "чтение файла", "en": "reading the file"},
    "stage_analysing": {"ru": "разбор текста", "en": "analysing the text"},
    "stage_looking_up": {"ru": "поиск источников", "en": "looking up the sources"},
    "stage_aligning": {"ru": "сопоставление фрагментов", "en": "aligning the passages"},
    "stage_keeping": {"ru": "сохранение проверки", "en": "keeping the check"},
    "kept_delete_row": {"ru": "удалить", "en": "remove"},
    "too_large_file": {
        "ru": "Файл слишком большой: сервис принимает не больше {size} за один запрос. "
        "Выберите файл поменьше или разделите текст на части.",
        "en": "The file is too large: this service takes at most {size} in one request. "
        "Choose a smaller file or split the text.",
    },
}
