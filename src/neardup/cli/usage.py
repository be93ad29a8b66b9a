"""Click's own usage errors in the CLI's language.

Click prints its errors ("No such command", "Invalid value for '--top'", the usage line) in
English through :mod:`gettext` with no catalog of ours. So the entry point catches them and,
in Russian, says them here through the one catalog (:mod:`neardup.messages`, areas ``usage``
and ``terminal``): the exception's own fields where it has them (the option, the parameter,
the possibilities), and a message click already formatted is recognised by its English
template (click's words, kept in the catalog) and said again with the same values. A message
no template matches is shown as click said it, after the Russian words around it.
"""

from __future__ import annotations

import re
import string
from functools import cache

import click

from neardup.messages import CATALOG, say

_QUOTED = r"(?P<{name}>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
_PLAIN = r"(?P<{name}>.+?)"


@cache
def _templates() -> list[tuple[re.Pattern[str], str, frozenset[str]]]:
    """Each click message's English template as a pattern: its key and its quoted fields."""
    found = []
    # the template with the most words of its own first: "{value!r} is not {choice}." would
    # also match a message "'x' is not a finite number."
    by_words = sorted(
        CATALOG["usage"].items(),
        key=lambda item: -sum(len(p[0]) for p in string.Formatter().parse(item[1]["en"])),
    )
    for key, texts in by_words:
        pattern, quoted = [], set()
        for literal, name, _spec, conversion in string.Formatter().parse(texts["en"]):
            pattern.append(re.escape(literal))
            if name:
                pattern.append((_QUOTED if conversion == "r" else _PLAIN).format(name=name))
                if conversion == "r":
                    quoted.add(name)
        found.append((re.compile("".join(pattern) + r"\Z", re.DOTALL), key, frozenset(quoted)))
    return found


def _quoted(value: str) -> str:
    """A value click quoted with ``repr`` (``'--top'``), in Russian quotes."""
    inner = value[1:-1] if len(value) >= 2 and value[0] == value[-1] in "'\"" else value
    return f"«{inner}»"


def _value_words(value: str, lang: str) -> str:
    found = CATALOG["usage_value"].get(value) or CATALOG["usage_value"].get(value.lower())
    return found[lang] if found is not None else value


def message_text(message: str, lang: str) -> str:
    """A message click formatted in English, in ``lang`` (as it was when no template fits)."""
    if lang == "en":
        return message
    for pattern, key, quoted in _templates():
        found = pattern.match(message.strip())
        if found is None:
            continue
        values = {
            name: _quoted(value) if name in quoted else _value_words(value, lang)
            for name, value in found.groupdict().items()
        }
        return say("usage", key, lang, **values)
    return message


def _hint(exc: click.BadParameter) -> str | None:
    if exc.param_hint is not None:
        hint = exc.param_hint
        return " / ".join(hint) if isinstance(hint, (list, tuple)) else str(hint)
    if exc.param is not None:
        return exc.param.get_error_hint(exc.ctx)
    return None


def _in_quotes(hint: str) -> str:
    return re.sub(r"'([^']*)'", r"«\1»", hint)


def error_text(exc: click.ClickException, lang: str) -> str:
    """The words after "Ошибка:" for a click error."""
    if isinstance(exc, click.NoSuchOption):
        said = say("usage", "no_such_option", lang, name=_quoted(repr(exc.option_name)))
        if exc.possibilities:
            choices = ", ".join(f"«{p}»" for p in sorted(exc.possibilities))
            said += say("terminal", "usage_did_you_mean", lang, choices=choices)
        return said
    if isinstance(exc, click.MissingParameter):
        param = exc.param
        what = "argument" if isinstance(param, click.Argument) else "option"
        return say(
            "terminal",
            "usage_missing",
            lang,
            what=say("terminal", f"usage_{what}", lang),
            hint=_in_quotes(_hint(exc) or ""),
        )
    if isinstance(exc, click.BadParameter):
        named = _hint(exc)
        message = message_text(exc.message, lang)
        if named is None:
            return say("terminal", "usage_invalid", lang, message=message)
        return say("terminal", "usage_hint", lang, hint=_in_quotes(named), message=message)
    if isinstance(exc, click.FileError):
        return say(
            "terminal",
            "usage_file",
            lang,
            filename=f"«{exc.ui_filename}»",
            message=message_text(exc.message, lang),
        )
    return message_text(exc.format_message(), lang)


def usage_lines(exc: click.ClickException, lang: str) -> list[str]:
    """The lines click prints before a usage error (the usage and where help is), in ``lang``."""
    ctx = getattr(exc, "ctx", None)
    if not isinstance(exc, click.UsageError) or ctx is None:
        return []
    usage = ctx.get_usage().removeprefix("Usage:").strip()
    usage = usage.replace("COMMAND [ARGS]...", say("terminal", "usage_command", lang))
    usage = usage.replace("[OPTIONS]", say("terminal", "usage_options", lang))
    lines = [say("terminal", "usage", lang, usage=usage)]
    if ctx.command.get_help_option(ctx) is not None:
        option = max(ctx.help_option_names, key=len)
        lines.append(say("terminal", "usage_try", lang, command=ctx.command_path, option=option))
    return [*lines, ""]


def show(exc: click.ClickException, lang: str) -> None:
    """Print a click error as click does, in ``lang`` (click's own words in English)."""
    if lang == "en":
        exc.show()
        return
    for line in usage_lines(exc, lang):
        click.echo(line, err=True)
    click.echo(say("cli", "error", lang, detail=error_text(exc, lang)), err=True)
