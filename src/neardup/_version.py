"""The package's version, in a module of its own so that modules that record it (spec files,
collections, the CLI's ``--version``) need not import the package root."""

from __future__ import annotations

__version__ = "0.1.0"
