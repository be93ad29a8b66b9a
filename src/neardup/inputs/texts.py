"""One text named by the user (a file, or standard input for ``-``), read as the suffix table
says, and the check of a thesaurus file."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from neardup.analysis.decode import Decoded
from neardup.analysis.tricks import NONE, Tricks
from neardup.errors import DecodeError, InputError
from neardup.inputs.documents import DEFAULT_MAX_BYTES, PathLike, ReadOptions
from neardup.inputs.files import _too_large, decode_bytes, read_bytes
from neardup.inputs.formats import _extracted, _matching_suffix, format_for


@dataclass(frozen=True, slots=True)
class Extracted(Decoded):
    """The text of an office file (``encoding`` is its format's name) and what was hidden in
    it, as a ``hidden_text`` trick (:func:`hidden_in`)."""

    hidden: Tricks = NONE


def hidden_in(decoded: Decoded) -> Tricks:
    """What was hidden in the file a text was read from (:class:`Extracted`), or
    :data:`~neardup.analysis.tricks.NONE`."""
    return decoded.hidden if isinstance(decoded, Extracted) else NONE


def read_text_input(
    source: PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    strict_decoding: bool = False,
    on_warning: Callable[[str], None] | None = None,
    stdin: BinaryIO | None = None,
    visible_only: bool = True,
) -> Decoded:
    """One text: a regular file, or standard input for ``-`` (``stdin``, by default the
    process's), at most ``max_bytes``, decoded with charset detection; an office file as
    :func:`text_from_bytes` reads it (``visible_only``: what a reader sees)."""
    options = ReadOptions(
        max_bytes=max_bytes,
        strict_decoding=strict_decoding,
        on_warning=on_warning,
        visible_only=visible_only,
    )
    if os.fspath(source) == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise _too_large("standard input", max_bytes)
        return decode_bytes(data, "standard input", options)
    return text_from_bytes(read_bytes(source, max_bytes=max_bytes), str(source), options)


def text_from_bytes(data: bytes, name: str, options: ReadOptions | None = None) -> Decoded:
    """One text from its bytes, read as the suffix table says for ``name``: a ``.docx`` or
    ``.pdf`` extracted (an :class:`Extracted`: under ``options.visible_only``, the default,
    what a reader sees, and what was hidden), anything else decoded under the policy of
    ``options``."""
    found = format_for(name)
    if found is not None and found.extract is not None:
        suffix = _matching_suffix(Path(name).name) or Path(name).suffix.lower()
        text, hidden = _extracted(found, data, suffix, name, options or ReadOptions())
        return Extracted(text, found.name, hidden=hidden)
    return decode_bytes(data, name, options)


def check_thesaurus(path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Refuse a thesaurus (``--synonyms``) that is not a text file, before a parser meets its
    bytes: NUL bytes anywhere, or a ``.csv`` that is not UTF-8."""
    data = read_bytes(path, max_bytes=max_bytes)
    if b"\x00" in data:
        raise InputError(
            f"{path}: not a text file (it holds NUL bytes); a thesaurus is a MyThes .dat or a "
            ".csv of synonym groups"
        )
    if os.fspath(path).lower().endswith(".csv"):
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"{path}: a .csv thesaurus must be UTF-8 ({exc.reason} at byte {exc.start})"
            ) from None
