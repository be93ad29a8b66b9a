"""The terminal's words that are not a command's own summary line: the passages printed with
their panels and table, the summary of ``compare --fragments``, the spec described in words,
click's own usage errors, and the errors of files and collections named on the command line.

Click's messages (area ``usage``) are keyed by a short name; their English words are click's own
templates, word for word, so that a message click has already formatted is recognised by its
English template and said again in Russian with the same values
(:func:`neardup.cli.usage.usage_error_text`).
"""

from __future__ import annotations

#: The passages in the terminal (neardup.report.fragments) and the spec in words.
TERMINAL: dict[str, dict[str, str]] = {
    "panel_source": {
        "ru": "{id}: {borrowed:.1f} % текста-запроса, {used:.1f} % этого текста",
        "en": "{id}: {borrowed:.1f} % of the query, {used:.1f} % of this text",
    },
    "column_source": {"ru": "источник", "en": "source"},
    "column_number": {"ru": "№", "en": "#"},
    "column_query_chars": {"ru": "символы запроса", "en": "query chars"},
    "column_source_chars": {"ru": "символы источника", "en": "source chars"},
    "column_tokens": {"ru": "токены", "en": "tokens"},
    "column_similarity": {"ru": "сходство", "en": "similarity"},
    "rewritten": {"ru": "пересказ", "en": "rewritten"},
    "similarity_value": {"ru": "{value:.3f}", "en": "{value:.3f}"},
    "summary": {
        "ru": "уникальность {uniqueness:.1f} %: заимствовано {borrowed:.1f} %{cited} "
        "({passages:#passage}{also}; источников: {sources}; учтено слов: {words})",
        "en": "uniqueness {uniqueness:.1f} %: borrowed {borrowed:.1f} %{cited} ({passages} "
        "passage{passages_s}{also} from {sources} source{sources_s}; {words} word{words_s} "
        "counted)",
    },
    "summary_rewritten": {"ru": " и {n} в пересказе", "en": " and {n} rewritten"},
    "query": {"ru": "запрос", "en": "query"},
    # the tricks line of compare and index check
    "trick_homoglyph": {
        "ru": "похожие буквы другого алфавита",
        "en": "look-alike letters of another script",
    },
    "trick_invisible": {"ru": "невидимые символы в словах", "en": "invisible characters"},
    "trick_letter_spacing": {"ru": "разрядка букв в словах", "en": "letter spacing"},
    "trick_stuffing": {
        "ru": "символы, вставленные в слова",
        "en": "characters stuffed inside words",
    },
    "trick_hidden_text": {
        "ru": "текст, скрытый в файле, не учтён",
        "en": "text hidden in the file, kept out",
    },
    "trick_kind": {
        "ru": "{name}: слов {words}, символов {chars}{by}",
        "en": "{name}: {words} words, {chars} characters{by}",
    },
    "tricks": {
        "ru": "{whose}: {verdict} ({kinds}); сняты перед сравнением (--no-fold покажет "
        "оценку без этого)",
        "en": "{whose}: {verdict} ({kinds}); undone before comparing (--no-fold shows the raw "
        "score)",
    },
    "tricks_suspicious": {
        "ru": "ПОДОЗРИТЕЛЬНО, сделано, чтобы обойти проверку",
        "en": "SUSPICIOUS, made to evade a checker",
    },
    "tricks_found": {"ru": "найдены приёмы обхода", "en": "found"},
    "tricks_the_text": {"ru": "текст", "en": "the text"},
    # a spec in words (the CLI's `index create`, the page's collection line)
    "spec_described": {
        "ru": "пресет {preset}, шинглы из {unit} по k={k} с шагом {step}{short}, "
        "{family} {bits} бит",
        "en": "preset {preset}, {unit} shingles k={k} step={step}{short}, {family} {bits} bit",
    },
    "spec_short": {
        "ru": " ({short_unit}, k={short_k}, для пар короче {below:#token})",
        "en": " ({short_unit} {short_k}-grams for pairs below {below} tokens)",
    },
    "multiset": {"ru": ", мультимножество", "en": ", multiset"},
    "unit_word": {"ru": "слов", "en": "word"},
    "unit_char": {"ru": "символов", "en": "char"},
    "unit_word_plain": {"ru": "слова", "en": "word"},
    "unit_char_plain": {"ru": "символы", "en": "char"},
    "policy_allow": {"ru": "принимать все", "en": "allow"},
    "policy_reject": {"ru": "отклонять дубликаты", "en": "reject"},
    "policy_group": {"ru": "группировать дубликаты", "en": "group"},
    "policy_link": {"ru": "связывать похожие", "en": "link"},
    "measure_resemblance": {"ru": "сходство (Жаккар)", "en": "resemblance"},
    "measure_containment": {"ru": "вхождение", "en": "containment"},
    "measure_combined": {"ru": "комбинированная оценка", "en": "combined"},
    # the usage line click prints before its error
    "usage": {"ru": "Использование: {usage}", "en": "Usage: {usage}"},
    "usage_options": {"ru": "[ПАРАМЕТРЫ]", "en": "[OPTIONS]"},
    "usage_command": {"ru": "КОМАНДА [АРГУМЕНТЫ]...", "en": "COMMAND [ARGS]..."},
    "usage_try": {
        "ru": "Справка: «{command} {option}».",
        "en": "Try '{command} {option}' for help.",
    },
    "usage_hint": {
        "ru": "Неверное значение {hint}: {message}",
        "en": "Invalid value for {hint}: {message}",
    },
    "usage_invalid": {"ru": "Неверное значение: {message}", "en": "Invalid value: {message}"},
    "usage_missing": {"ru": "Не указан {what} {hint}.", "en": "Missing {what} {hint}."},
    "usage_argument": {"ru": "аргумент", "en": "argument"},
    "usage_option": {"ru": "параметр", "en": "option"},
    "usage_did_you_mean": {
        "ru": " (Возможно, имелось в виду: {choices}?)",
        "en": " (Did you mean one of: {choices}?)",
    },
    "usage_file": {
        "ru": "Не удалось открыть файл {filename}: {message}",
        "en": "Could not open file {filename!r}: {message}",
    },
}

#: Click's messages, keyed by a short name; English: click's template, word for word.
USAGE: dict[str, dict[str, str]] = {
    "no_such_option": {
        "ru": "Нет такого параметра {name}.",
        "en": "No such option {name!r}.",
    },
    "no_such_command": {
        "ru": "Нет такой команды {name}.",
        "en": "No such command {name!r}.",
    },
    "missing_command": {"ru": "Не указана команда.", "en": "Missing command."},
    "not_valid_number": {
        "ru": "{value} — не {number_type}.",
        "en": "{value!r} is not a valid {number_type}.",
    },
    "not_in_range": {
        "ru": "{value} вне допустимого диапазона {range}.",
        "en": "{value} is not in the range {range}.",
    },
    "not_one_of": {
        "ru": "{value} — не одно из значений {choices}.",
        "en": "{value!r} is not one of {choices}.",
    },
    "not_choice": {"ru": "{value} — не {choice}.", "en": "{value!r} is not {choice}."},
    "not_boolean": {
        "ru": "{value} — не логическое значение.",
        "en": "{value!r} is not a valid boolean.",
    },
    "not_finite": {"ru": "{value} — не конечное число.", "en": "{value!r} is not a finite number."},
    "not_size": {
        "ru": "{value} — не размер вида 1000, 64M или 1G",
        "en": "{value!r} is not a size such as 1000, 64M or 1G",
    },
    "size_too_small": {
        "ru": "размер должен быть не меньше 1 байта, а указано {value}",
        "en": "the size must be at least 1 byte, got {value!r}",
    },
    "path_missing": {
        "ru": "{name} {filename} не существует.",
        "en": "{name} {filename!r} does not exist.",
    },
    "path_is_file": {"ru": "{name} {filename} — это файл.", "en": "{name} {filename!r} is a file."},
    "path_is_directory": {
        "ru": "{name} {filename} — это папка.",
        "en": "{name} {filename!r} is a directory.",
    },
    "path_unreadable": {
        "ru": "{name} {filename} недоступен для чтения.",
        "en": "{name} {filename!r} is not readable.",
    },
    "path_unwritable": {
        "ru": "{name} {filename} недоступен для записи.",
        "en": "{name} {filename!r} is not writable.",
    },
    "takes_no_value": {
        "ru": "Параметр {name} не принимает значения.",
        "en": "Option {name!r} does not take a value.",
    },
    "requires_argument": {
        "ru": "Параметру {name} нужно значение.",
        "en": "Option {name!r} requires an argument.",
    },
    "requires_arguments": {
        "ru": "Параметру {name} нужно значений: {nargs}.",
        "en": "Option {name!r} requires {nargs} arguments.",
    },
    "extra_argument": {
        "ru": "Лишний аргумент ({args})",
        "en": "Got unexpected extra argument ({args})",
    },
    "extra_arguments": {
        "ru": "Лишние аргументы ({args})",
        "en": "Got unexpected extra arguments ({args})",
    },
    "csv_or_json": {
        "ru": "укажите --csv или --json, но не оба",
        "en": "give --csv or --json, not both",
    },
    "nan_mib": {"ru": "nan — не число мебибайт", "en": "nan is not a number of MiB"},
}

#: Click's words that fill a template's value (its ``number_type``, a path's ``name``, which
#: click capitalises: looked up in lower case).
USAGE_VALUES: dict[str, dict[str, str]] = {
    "integer": {"ru": "целое число", "en": "integer"},
    "float": {"ru": "число", "en": "float"},
    "integer range": {"ru": "целое число", "en": "integer range"},
    "float range": {"ru": "число", "en": "float range"},
    "file": {"ru": "Файл", "en": "file"},
    "directory": {"ru": "Папка", "en": "directory"},
    "path": {"ru": "Путь", "en": "path"},
}

#: The errors of files and collections named on the command line, by code.
FILE_ERRORS: dict[str, dict[str, str]] = {
    "no_such_file": {
        "ru": "{path}: нет такого файла или папки",
        "en": "{path}: no such file or directory",
    },
    "is_directory": {
        "ru": "{path} — это папка, а не файл коллекции",
        "en": "{path} is a directory, not a collection file",
    },
    "no_collection": {
        "ru": "коллекции {path} нет: такого файла нет (создайте её командой "
        "`neardup index create {path}`)",
        "en": "no collection at {path}: the file does not exist (make one with `neardup index "
        "create {path}`)",
    },
    "already_exists": {
        "ru": "{path} уже существует: выберите другой путь или сначала удалите этот файл",
        "en": "{path} already exists; choose a new path or remove it first",
    },
}
