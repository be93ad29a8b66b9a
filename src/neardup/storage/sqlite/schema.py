"""The SQLite file's tables, the meta keys of its postings tail, and the backend's settings."""

from __future__ import annotations

import numpy as np

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    grp INTEGER NOT NULL,
    size INTEGER NOT NULL,
    fp BLOB NOT NULL,
    counts BLOB,
    samples BLOB NOT NULL,
    meta TEXT NOT NULL
);
CREATE INDEX docs_grp ON docs (grp);
CREATE TABLE texts (key INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE postings (
    value INTEGER NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (value, doc)
) WITHOUT ROWID;
CREATE TABLE links (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    resemblance REAL NOT NULL,
    containment_ab REAL NOT NULL,
    containment_ba REAL NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX links_b ON links (b);
CREATE TABLE bloom (below INTEGER PRIMARY KEY, k INTEGER NOT NULL, bits BLOB NOT NULL);
"""
#: The pseudo-matrix filter's rows and placement index (made on create; files from before
#: them get them on the first write of a filter, and read as an empty filter until then).
PMBF_SCHEMA = """
CREATE TABLE IF NOT EXISTS pmbf_rows (
    row INTEGER PRIMARY KEY, bits BLOB NOT NULL, free INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pmbf_parts (
    key INTEGER NOT NULL, row INTEGER NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,
    PRIMARY KEY (key, start)
) WITHOUT ROWID;
"""
SCHEMA += PMBF_SCHEMA


#: Rows per ``IN (...)`` list (SQLite allows 32,766 variables since 3.32).
CHUNK = 900
#: For the postings lookup, where one long list beats many short ones.
BIG_CHUNK = 30000

DEFAULT_TIMEOUT = 10.0
#: Documents whose postings may stay in the tail (``docs.samples``) before a merge …
TAIL_MIN = 25_000
#: … or this share (1/TAIL_SHARE) of the merged keys, whichever is larger.
TAIL_SHARE = 4
BELOW = "sqlite_postings_below"
EPOCH = "sqlite_postings_epoch"

_NO_U64 = np.zeros(0, dtype=np.uint64)
_NO_I64 = np.zeros(0, dtype=np.int64)


#: ``synchronous`` settings a connection may ask for (see the module docstring).
SYNCHRONOUS = ("full", "normal")
