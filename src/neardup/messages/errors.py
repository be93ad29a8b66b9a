"""The words of neardup's errors by their code (:attr:`neardup.errors.NeardupError.code`), and of
an admission decision's reason, in Russian and English: a data table of :mod:`neardup.messages`.

An error's values come from its ``params``, given where it is raised (``{position:,}``,
``{n:#character}``, ``{max:size}``: see :func:`neardup.messages.say`); ``{detail}`` is its
English message. A code with no words here (``writes_off``, ``no_texts`` and
``page_not_found`` are in :mod:`neardup.messages.common`) is said by :data:`OTHER`'s words.
"""

from __future__ import annotations

ERRORS: dict[str, dict[str, str]] = {
    "spark_span_counting": {
        "ru": "Spark считает повторяющиеся фрагменты только точно; приближённый подсчёт "
        "(--span-counting approximate) есть только у локального движка (--engine local).",
        "en": "The Spark engine counts repeated spans exactly only; approximate counting "
        "(--span-counting approximate) is the local engine's (--engine local).",
    },
    "invalid_text": {
        "ru": "В тексте недопустимый символ {char} (позиция {position:,}): нужен текст в "
        "Юникоде без символов NUL и одиночных суррогатов.",
        "en": "The text holds a refused character {char} at position {position:,}: texts must "
        "be valid Unicode without NUL characters or lone surrogates.",
    },
    "text_too_long": {
        "ru": "Текст слишком длинный: {n:#character}, а сервис принимает не больше "
        "{max:#character}. Сократите текст или разделите его на части.",
        "en": "The text is too long: {n:#character}; this service takes at most "
        "{max:#character}. Shorten the text or split it.",
    },
    "body_too_large": {
        "ru": "Запрос слишком большой: сервис принимает не больше {max:size} за раз "
        "(текст и файлы вместе).",
        "en": "The request is too large: this service takes at most {max:size} at a time "
        "(text and files together).",
    },
    "matrix_too_many": {
        "ru": "{n:#text}: сервис строит матрицу не больше чем из {max:#text}.",
        "en": "{n:#text}: this service builds matrices of at most {max:#text}.",
    },
    "matrix_too_few": {
        "ru": "Для матрицы нужно хотя бы два текста.",
        "en": "A matrix needs at least two texts.",
    },
    "unsupported_type": {
        "ru": "Файлы типа «{suffix}» не читаются; можно загрузить {allowed}.",
        "en": "Files of type '{suffix}' are not read; upload one of {allowed}.",
    },
    "encrypted_pdf": {
        "ru": "PDF-файл зашифрован: читаются только незашифрованные PDF.",
        "en": "The PDF file is encrypted: only unencrypted PDFs are read.",
    },
    "unreadable_file": {
        "ru": "Файл {kind} не читается: он повреждён или на самом деле другого типа.",
        "en": "The {kind} file cannot be read: it is damaged or not what its name says.",
    },
    "missing_tool": {
        "ru": "Для чтения файлов {kind} нужна программа {tool}, а она не установлена; "
        "установите пакет Debian: apt-get install {package}.",
        "en": "Reading {kind} files needs the program {tool}, which is not installed; install "
        "Debian's package: apt-get install {package}.",
    },
    "file_too_large": {
        "ru": "Файл слишком велик для сервиса ({detail}).",
        "en": "The file is too large for this service ({detail}).",
    },
    "undecodable": {
        "ru": "Текст файла не удалось прочитать ни в одной известной кодировке.",
        "en": "The file's text could not be decoded in any known encoding.",
    },
    "wrong_token": {"ru": "Неверный токен.", "en": "Wrong token."},
    "token_needed": {"ru": "Здесь нужен токен.", "en": "This needs a token."},
    "empty_id": {"ru": "Укажите идентификатор документа.", "en": "Give the document an id."},
    "duplicate_id": {
        "ru": "Документ с таким идентификатором уже есть в коллекции.",
        "en": "A document with this id is already in the collection.",
    },
    "not_found": {
        "ru": "Такого документа нет в коллекции.",
        "en": "There is no such document in the collection.",
    },
    "method_not_allowed": {
        "ru": "Эта страница открывается только формой; начните с формы выше.",
        "en": "This page is opened only by a form; start from the form above.",
    },
    "path_denied": {
        "ru": "{path}: {reason}. Проверьте, что у вас есть права на эту папку, или выберите "
        "другой путь.",
        "en": "{path}: {reason}. Check your permissions on its folder, or choose another path.",
    },
    "bad_host": {
        "ru": "--host {host!r}: на этом адресе нельзя принимать запросы. Укажите адрес этой "
        "машины, например 127.0.0.1, или 0.0.0.0 для всех сетей.",
        "en": "--host {host!r}: this machine cannot listen on that address. Give one of its "
        "addresses, such as 127.0.0.1, or 0.0.0.0 for every interface.",
    },
    "port_taken": {
        "ru": "Порт {port} на {host} уже занят: выберите другой (--port) или 0 для любого "
        "свободного.",
        "en": "Port {port} on {host} is taken: choose another (--port), or 0 for any free one.",
    },
    "damaged_check": {
        "ru": "Сохранённая проверка повреждена: её запись в хранилище не читается. Её можно "
        "только удалить.",
        "en": "This kept check is damaged: its stored record cannot be read. It can only be "
        "removed.",
    },
    "storage": {
        "ru": "Хранилище коллекции сейчас недоступно; попробуйте ещё раз позже.",
        "en": "The collection's store is not available now; try again later.",
    },
}

#: The words of an error whose code has none of its own: its English message.
OTHER: dict[str, str] = {"ru": "Запрос не выполнен: {detail}", "en": "{detail}"}

#: Why a text was admitted or refused (:class:`neardup.index.policy.Reason`).
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

#: A length refusal's detail: the text's length and the range the collection admits.
LENGTHS: dict[str, dict[str, str]] = {
    "refused": {
        "ru": "{said}: в тексте {n:#character}, коллекция принимает тексты {admitted}",
        "en": "{said}: the text has {n:#character}; the collection admits texts of {admitted}",
    },
    "range": {"ru": "от {low:,} до {high:#character}", "en": "{low:,} to {high:#character}"},
    "at_most": {"ru": "не больше {most:#character}", "en": "at most {most:#character}"},
    "at_least": {"ru": "не меньше {least:#character}", "en": "at least {least:#character}"},
}
