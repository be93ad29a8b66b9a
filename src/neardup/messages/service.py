"""The words of the service's own refusals and notes, in Russian and English: a write sent
from another site or without the page's form token, a value out of its bounds, the kept
checks' quotas and rate limit. A data table of :mod:`neardup.messages`, merged into its
``error`` and ``page`` areas.
"""

from __future__ import annotations

#: Errors by code (``error`` area).
SERVICE_ERRORS: dict[str, dict[str, str]] = {
    "cross_site": {
        "ru": "Запрос отправлен с другого сайта ({origin}) и отклонён: изменять коллекцию и "
        "проверки можно только со страниц этого сервиса.",
        "en": "The request came from another site ({origin}) and was refused: the collection "
        "and the checks are changed only from this service's own pages.",
    },
    "csrf": {
        "ru": "Форма устарела или отправлена не со страницы сервиса: обновите страницу и "
        "повторите действие.",
        "en": "The form is stale or was not sent from this service's page: reload the page and "
        "try again.",
    },
    "bidi_id": {
        "ru": "Идентификатор содержит невидимый управляющий символ направления текста "
        "({char}, позиция {position:,}): он показывал бы имя не тем, что оно есть. Уберите его.",
        "en": "The id holds an invisible text-direction control ({char} at position "
        "{position:,}), which would show the name as something it is not. Remove it.",
    },
    "rate_limited": {
        "ru": "Слишком много проверок подряд: не больше {n:,} за {window:,} с без токена. "
        "Повторите через {wait:,} с.",
        "en": "Too many checks in a row: at most {n:,} in {window:,} s without a token. Try "
        "again in {wait:,} s.",
    },
}

#: The page's words (``page`` area).
SERVICE_PAGE: dict[str, dict[str, str]] = {
    "kept_purged": {
        "ru": "Этой проверки больше нет: место для хранения проверок ограничено, и самые "
        "старые удаляются первыми. Проверьте текст ещё раз.",
        "en": "This check is gone: the room for kept checks is limited, and the oldest are "
        "removed first. Check the text again.",
    },
}
