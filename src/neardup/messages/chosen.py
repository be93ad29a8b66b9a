"""The language a process speaks on its terminal: ``NEARDUP_LANG=ru|en`` if set, else the first
of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set and not empty (a value starting with
``ru`` is Russian, anything else English). Russian needs Babel (the ``web`` or ``report``
extra) for its plural forms and decimal comma; without it the answer is English. Read from the
environment on each call: cheap, and tests can change it. The CLI and the core's own few
terminal lines (where the compiled kernels are kept) both ask here."""

from __future__ import annotations

import importlib.util
import os
from functools import cache

from neardup.messages.forms import LANGUAGES


@cache
def _babel() -> bool:
    return importlib.util.find_spec("babel") is not None


def terminal_language() -> str:
    """``ru`` or ``en``, as the module says."""
    chosen = os.environ.get("NEARDUP_LANG", "").strip().lower()
    if chosen not in LANGUAGES:
        chosen = "en"
        for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
            value = os.environ.get(name, "")
            if value:
                chosen = "ru" if value.lower().startswith("ru") else "en"
                break
    if chosen == "ru" and not _babel():
        return "en"
    return chosen
