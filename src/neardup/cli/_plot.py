"""``--plot FILE`` of ``matrix`` and ``params``: the file checked before any work, and written
whole or not at all.

matplotlib picks the image format by the suffix and raises its own errors (``ValueError`` for an
unknown format, ``FileNotFoundError`` for a missing folder, ``NotADirectoryError`` under a file)
only once the figure is drawn; these are the command's usage errors, so they are refused before
the command computes anything, and the figure is drawn into a temporary file beside the target
and renamed, so a failure leaves no half image.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

from neardup.errors import InputError, StorageError


def checked_plot_path(path: str, suffixes: tuple[str, ...]) -> Path:
    """``path`` when an image can be written there: a suffix of ``suffixes`` and a folder
    that exists; an :class:`InputError` saying what is wrong otherwise."""
    target = Path(path)
    if target.suffix.lower() not in suffixes:
        raise InputError(
            f"--plot {path!r}: the image format is chosen by the file's suffix, which must be "
            f"one of {', '.join(suffixes)}"
        )
    folder = target.parent
    try:
        if not folder.exists():
            raise InputError(f"--plot {path!r}: the folder {str(folder)!r} does not exist")
        if not folder.is_dir():
            raise InputError(f"--plot {path!r}: {str(folder)!r} is not a folder")
        if target.is_dir():
            raise InputError(f"--plot {path!r} is a folder")
    except OSError as exc:  # a name too long, a loop of links, a folder that cannot be read
        raise InputError(f"--plot {path!r}: {exc.strerror or exc}") from None
    return target


def write_plot(target: Path, draw: Callable[[str], None]) -> None:
    """Have ``draw`` write the image into a temporary file beside ``target`` (same suffix, so
    the same format), then rename it into place; nothing is left behind on failure."""
    temporary = target.with_name(f".{target.stem}.{uuid.uuid4().hex[:12]}{target.suffix}")
    try:
        draw(str(temporary))
        os.replace(temporary, target)
    except OSError as exc:
        reason = exc.strerror or exc
        raise StorageError(f"cannot write the plot {str(target)!r}: {reason}") from None
    finally:
        temporary.unlink(missing_ok=True)
