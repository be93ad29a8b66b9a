"""Damaged kept-check rows, as a disk fault, a hand edit or another program could leave them:
one column of a kept check's row overwritten with a value of the wrong kind, on SQLite or
PostgreSQL (where a column's type allows fewer kinds of damage: those are SQLite's only).

Each kind says what a reader meets: ``store`` (the store refuses the row: DamagedCheckError),
``record`` (the row reads, but the result's JSON is not a check's record: the service refuses
it), ``ok`` (the check reads: only the listing's copy of a value is damaged); and whether the
listing marks the row damaged.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

#: A record as the page and the PDF read it, small but whole (a valid one reads).
RECORD = {
    "uniqueness": 0.5,
    "borrowed": 0.5,
    "cited": 0.0,
    "words": 4,
    "decision": {"accepted": True, "reason": "new", "group": None},
    "matches": [{"id": "src", "resemblance": 0.4}],
    "suspicious": {"flag": False, "tricks": []},
    "fragments": {
        "sources": [
            {
                "id": "src",
                "borrowed": 0.5,
                "source_used": 0.2,
                "text": "one two three four",
                "passages": [
                    {
                        "number": 1,
                        "a_start": 0,
                        "a_end": 7,
                        "b_start": 0,
                        "b_end": 7,
                        "similarity": 1.0,
                    }
                ],
            }
        ],
        "citations": [],
    },
    "exclude": [],
}


def _body(result: object, text: object = "one two three four") -> str:
    return "'" + json.dumps({"text": text, "result": result}).replace("'", "''") + "'"


def _passage_damaged() -> dict[str, object]:
    record = json.loads(json.dumps(RECORD))
    record["fragments"]["sources"][0]["passages"][0]["a_start"] = "start"
    return record


#: A JSON array nested deeper than Python's parser goes.
_DEEP = "'" + "[" * 100_000 + "'"


@dataclass(frozen=True)
class Damage:
    """One kind of damage: the column and the SQL value written into it (``postgres`` None:
    PostgreSQL's column type cannot hold it), what reading it meets and whether the listing
    marks it."""

    name: str
    column: str
    sqlite: str
    postgres: str | None
    read: str
    listed: bool = False


DAMAGES = [
    Damage("body not JSON", "body", "'not json {'", "'not json {'", "store"),
    Damage("body empty", "body", "''", "''", "store"),
    Damage("body a list", "body", "'[1, 2]'", "'[1, 2]'", "store"),
    Damage("body null", "body", "'null'", "'null'", "store"),
    Damage("body without text", "body", "'{\"result\": {}}'", "'{\"result\": {}}'", "store"),
    Damage("body without result", "body", '\'{"text": "t"}\'', '\'{"text": "t"}\'', "store"),
    Damage("text a number", "body", _body(RECORD, 5), _body(RECORD, 5), "store"),
    Damage("result a list", "body", _body([1]), _body([1]), "store"),
    Damage("body nested deep", "body", _DEEP, _DEEP, "store"),
    Damage("body a blob", "body", "X'fffe00'", None, "store"),
    Damage("created text", "created", "'yesterday'", None, "store", listed=True),
    Damage("created 1e308", "created", "1e308", "1e308", "store", listed=True),
    Damage("created infinite", "created", "9e999", "'Infinity'::float8", "store", listed=True),
    Damage("created negative", "created", "-1.0", "-1.0", "store", listed=True),
    Damage("uniqueness text", "uniqueness", "'high'", None, "ok", listed=True),
    Damage("uniqueness 1e308", "uniqueness", "1e308", "1e308", "ok", listed=True),
    Damage("name a blob", "name", "X'ff'", None, "store", listed=True),
    Damage("owner a blob", "owner", "X'ff'", None, "store", listed=True),
    Damage("spec a blob", "spec", "X'ff'", None, "store"),
    Damage("preview a blob", "preview", "X'ff'", None, "ok", listed=True),
    Damage("record uniqueness text", "body", _body({**RECORD, "uniqueness": "high"}), "", "record"),
    Damage("record without decision", "body", _body({"uniqueness": 0.5}), "", "record"),
    Damage("record passage text", "body", _body(_passage_damaged()), "", "record"),
    Damage("record matches a number", "body", _body({**RECORD, "matches": 5}), "", "record"),
]
# PostgreSQL takes the same JSON texts as SQLite for the record's damage
DAMAGES = [
    Damage(d.name, d.column, d.sqlite, d.sqlite, d.read, d.listed) if d.postgres == "" else d
    for d in DAMAGES
]


def damage_sqlite(path: str, check_id: str, damage: Damage) -> None:
    """Overwrite one column of a kept check's row in a SQLite file."""
    conn = sqlite3.connect(path)
    try:
        conn.execute(
            f"UPDATE kept_checks SET {damage.column} = {damage.sqlite} WHERE id = ?", (check_id,)
        )
        conn.commit()
    finally:
        conn.close()


def damage_postgres(url: str, schema: str, check_id: str, damage: Damage) -> None:
    """Overwrite one column of a kept check's row in a PostgreSQL schema."""
    import psycopg

    assert damage.postgres is not None
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        conn.execute(
            f"UPDATE kept_checks SET {damage.column} = {damage.postgres} WHERE id = %s",  # type: ignore[arg-type]
            (check_id,),
        )
