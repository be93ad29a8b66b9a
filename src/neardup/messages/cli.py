"""The ``neardup`` command's words (summaries, progress labels, warnings, the error handler's
lines) and its tables' column names, in Russian and English: a data table of
:mod:`neardup.messages`, kept apart from the page's and the report's words only to keep each
file short.

English templates are exactly the CLI's former strings (tests and doc examples pin them);
Russian ones may use the catalog's count specs (``{n:#document}``): see
:func:`neardup.messages.say`.
"""

from __future__ import annotations

CLI: dict[str, dict[str, str]] = {
    # --- the error handler (neardup.cli.main) ---
    "error": {"ru": "Ошибка: {detail}", "en": "Error: {detail}"},
    "aborted": {"ru": "Прервано.", "en": "Aborted."},
    "os_error": {
        "ru": "Ошибка: {what}: {reason}. Проверьте путь, права доступа к нему и свободное место.",
        "en": "Error: {what}: {reason}. Check the path, your permissions on it and the free space.",
    },
    "out_of_memory": {
        "ru": "Ошибка: не хватило памяти. Уменьшите входные данные или параметры (--jobs, "
        "размеры) или запустите на машине с большей памятью.",
        "en": "Error: out of memory. Give less input or smaller settings (--jobs, sizes), or "
        "run it on a machine with more memory.",
    },
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
    "check_more_sources": {
        "ru": "ещё {n:#source} учтено в уникальности, но не показано (больше покажет --top): "
        "{share:.1f} % текста найдено только в них",
        "en": "sources counted but not listed (--top lists more): {n}; {share:.1f} % of the "
        "text was found only in them",
    },
    "check_capped": {
        "ru": "кандидатов набралось столько, сколько коллекция сравнивает за одну проверку "
        "({n}, --max-candidates при её создании): с текстом могут совпадать и другие документы",
        "en": "the candidates reached the number the collection compares in one check ({n}, "
        "--max-candidates when it was created): more documents may share passages with it",
    },
    "check_limited": {
        "ru": "уникальность посчитана по {counted:#source}; ещё {uncounted} найдено сверх "
        "предела одной проверки ({max_sources} источников, {max_characters:,} символов "
        "их текстов)",
        "en": "the figure counts {counted} sources; {uncounted} more were found past the "
        "limit of one check ({max_sources} sources, {max_characters:,} characters of their "
        "texts)",
    },
    "check_would_add": {"ru": "был бы добавлен", "en": "would be added"},
    "check_would_refuse": {
        "ru": "был бы отклонён ({reason}{detail})",
        "en": "would be refused ({reason}{detail})",
    },
    "check_meaning": {
        "ru": "Уникальность — доля слов текста, не найденных ни в одном источнике; "
        "заимствовано — доля, скопированная из источника; цитируется — доля, скопированная "
        "в кавычках с указанием автора или в предложении со ссылкой, найденной в списке "
        "литературы текста. Вместе три доли дают 100 %.",
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
    "dedup_exact": {
        "ru": "точных копий: {copies} (каждая присоединена к группе своего первого экземпляра)",
        "en": "exact copies: {copies} (each joined to its first copy's group)",
    },
    "dedup_spans": {
        "ru": "повторяющиеся фрагменты ({level}): вырезано {spans}, символов {chars}, из "
        "документов {documents}; отброшено документов, где почти ничего не осталось: {dropped}",
        "en": "repeated spans ({level}): {spans} cut, {chars} characters, from {documents} "
        "documents; {dropped} documents dropped with too little left",
    },
    "dedup_count_min": {
        "ru": "приближённый подсчёт (count-min, {megabytes} МБ): число документов завышено "
        "не более чем на {overcount} с вероятностью {confidence} %",
        "en": "approximate counting (count-min, {megabytes} MB): a document count is over "
        "by at most {overcount} with probability {confidence} %",
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
    "serve_token": {"ru": "по токену", "en": "need the token"},
    "serve_writes_off": {"ru": "выключена", "en": "are off"},
    "serve_reads_open": {"ru": "открыто", "en": "open"},
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
        "ru": "пресет {preset}, шинглы из {unit} k={k}, шаг {step}; спецификация {spec}",
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
        "ru": "спецификация {spec}: пресет {preset}, шинглы из {unit} k={k}",
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
        "ru": "спецификация {spec}: пресет {preset}, шинглы из {unit} k={k}, шаг {step}{rule}, "
        "{family} {bits} бит",
        "en": "spec {spec}: preset {preset}, "
        "{unit} shingles k={k} step={step}{rule}, {family} {bits} bit",
    },
    "analyze_header": {
        "ru": "кодировка {encoding}, язык {language}, {tokens:#token}, спецификация {spec}",
        "en": "encoding {encoding}, language {language}, {tokens} tokens, spec {spec}",
    },
}

#: Column names of the CLI's tables, by their English name with spaces as underscores (the
#: names the page also uses, "resemblance" or "text in doc", are in the common words).
COLUMNS: dict[str, dict[str, str]] = {
    "id": {"ru": "id", "en": "id"},
    "shared": {"ru": "общих", "en": "shared"},
    "combined": {"ru": "комбинированная", "en": "combined"},
    "a": {"ru": "a", "en": "a"},
    "b": {"ru": "b", "en": "b"},
    "score": {"ru": "оценка", "en": "score"},
    "file": {"ru": "файл", "en": "file"},
    "row_z": {"ru": "z строки", "en": "row z"},
    "measure": {"ru": "мера", "en": "measure"},
    "value": {"ru": "значение", "en": "value"},
    "combined_score": {"ru": "комбинированная оценка", "en": "combined score"},
    "resemblance_(Jaccard)": {"ru": "сходство (Жаккар)", "en": "resemblance (Jaccard)"},
    "Sørensen–Dice": {"ru": "Сёренсен — Дайс", "en": "Sørensen–Dice"},
    "containment_A_in_B": {"ru": "вхождение A в B", "en": "containment A in B"},
    "containment_B_in_A": {"ru": "вхождение B в A", "en": "containment B in A"},
    "shingles_A": {"ru": "шинглов в A", "en": "shingles A"},
    "shingles_B": {"ru": "шинглов в B", "en": "shingles B"},
    "size": {"ru": "размер", "en": "size"},
    # analyze's columns
    "term": {"ru": "терм", "en": "term"},
    "span": {"ru": "позиции", "en": "span"},
    "original": {"ru": "в тексте", "en": "original"},
    "fingerprint": {"ru": "отпечаток", "en": "fingerprint"},
    "shingles": {"ru": "шинглы и их отпечатки", "en": "shingles"},
}
