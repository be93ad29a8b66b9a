"""Debian's Chromium for the browser tests: where it is and how it is started (headless, with
nothing that reaches the network, which this machine's closed network refuses)."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("NEARDUP_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
