"""What drove a combined score, in Russian and English: the ``explain`` area of the one catalog
(:mod:`neardup.messages`) — the regimes a pair falls in, the two kinds of evidence the model
weighs and its features (:mod:`neardup.score.model`), as ``compare --explain`` says them."""

from __future__ import annotations

EXPLAIN: dict[str, dict[str, str]] = {
    "head": {
        "ru": "почему {score}: {regime}; главное свидетельство: {channel}",
        "en": "why {score}: {regime}; the stronger evidence: {channel}",
    },
    "head_low": {
        "ru": "почему {score}: {regime}; для порога 0,5 не хватает ни одного свидетельства",
        "en": "why {score}: {regime}; neither kind of evidence is enough for the threshold 0.5",
    },
    "channel": {
        "ru": "  {name}: вероятность {probability:.2f}{features}",
        "en": "  {name}: probability {probability:.2f}{features}",
    },
    "feature": {"ru": "{name} {value:.2f}", "en": "{name} {value:.2f}"},
    "feature_count": {"ru": "{name}: {n}", "en": "{name}: {n}"},
    # the regimes (neardup.score.model: a pair's lengths choose one)
    "regime_part": {
        "ru": "короткий текст против намного более длинного",
        "en": "a short text against a much longer one",
    },
    "regime_sentence": {
        "ru": "два предложения или коротких текста",
        "en": "two sentences or short texts",
    },
    "regime_paragraph": {
        "ru": "два небольших текста (абзац, заметка)",
        "en": "two small texts (a paragraph, a news item)",
    },
    "regime_document": {"ru": "два целых документа", "en": "two whole documents"},
    "regime_book": {"ru": "два длинных документа", "en": "two long documents"},
    # the channels
    "channel_verbatim": {"ru": "дословные совпадения", "en": "word runs copied verbatim"},
    "channel_vocabulary": {"ru": "общая лексика", "en": "shared vocabulary"},
    # the features (neardup.score.combined.FEATURE_FUNCTIONS)
    "feature_resemblance_word5": {
        "ru": "сходство цепочек из 5 слов",
        "en": "resemblance of 5-word runs",
    },
    "feature_containment_word5": {
        "ru": "доля цепочек из 5 слов более короткого текста, найденных в другом",
        "en": "share of the shorter text's 5-word runs found in the other",
    },
    "feature_shared_word5": {
        "ru": "общих цепочек из 5 слов",
        "en": "5-word runs in common",
    },
    "feature_resemblance_word1": {"ru": "сходство словаря", "en": "resemblance of the words"},
    "feature_containment_word1": {
        "ru": "доля слов более короткого текста, найденных в другом",
        "en": "share of the shorter text's words found in the other",
    },
    "feature_tfidf_pair": {"ru": "косинус TF-IDF слов", "en": "TF-IDF cosine of the words"},
    "feature_length_ratio": {"ru": "соотношение длин", "en": "length ratio"},
    "feature_shortness": {"ru": "краткость", "en": "shortness"},
    "feature_resemblance_written3": {
        "ru": "сходство написания (тройки знаков)",
        "en": "resemblance of the writing (3-character runs)",
    },
    "feature_containment_written3": {
        "ru": "доля троек знаков более короткого текста, найденных в другом",
        "en": "share of the shorter text's 3-character runs found in the other",
    },
}
