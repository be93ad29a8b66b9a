"""Third-party log lines kept out of what neardup prints.

pypdf logs what it meets in a damaged PDF ("incorrect startxref pointer" …) and fpdf2 the
characters its font lacks, as warnings of their own loggers; with no logging set up, Python
prints those on standard error, before neardup's one-line error or in the middle of a report's
progress. The CLI and the service give these loggers a handler that drops them
(:func:`quiet_third_party_logs`); a program that sets up its own logging still receives them,
as they go on to the root logger.
"""

from __future__ import annotations

import logging

#: The loggers of the libraries that log what neardup already says, or needs not say.
QUIET = ("pypdf", "fpdf", "fontTools")


def quiet_third_party_logs() -> None:
    """Give each logger of :data:`QUIET` a handler that drops its records (once)."""
    for name in QUIET:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
