"""A SQLite LSH store damaged by hand or by a fault: opening and querying it raise only
neardup's errors (a DamagedCollectionError naming the store, or a SpecError for parameters that
cannot be read), never a JSONDecodeError, TypeError or ValueError."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from neardup import LSHIndex, NeardupError, make_spec

TEXT = "мама мыла раму папа читал газету the quick brown fox jumps over the lazy dog"
ONE = "WHERE key = '\"a\"'"

DAMAGES = {
    "spec not JSON": "UPDATE lsh_meta SET value = '{not' WHERE key = 'spec'",
    "spec a list": "UPDATE lsh_meta SET value = '[1]' WHERE key = 'spec'",
    "spec of another kind": "UPDATE lsh_meta SET value = 'sketch' WHERE key = 'spec_kind'",
    "threshold text": "UPDATE lsh_meta SET value = 'high' WHERE key = 'threshold'",
    "threshold a blob": "UPDATE lsh_meta SET value = X'ff' WHERE key = 'threshold'",
    "num_perm huge": "UPDATE lsh_meta SET value = '99999999999999999999' WHERE key = 'num_perm'",
    "bands 0": "UPDATE lsh_meta SET value = '0' WHERE key = 'bands'",
    "num_perm missing": "DELETE FROM lsh_meta WHERE key = 'num_perm'",
    "key not JSON": f"UPDATE lsh_entries SET key = '{{bad' {ONE}",
    "key a bool": f"UPDATE lsh_entries SET key = 'true' {ONE}",
    "key a list": f"UPDATE lsh_entries SET key = '[1]' {ONE}",
    "key a blob": f"UPDATE lsh_entries SET key = X'ff' {ONE}",
    "key a number": f"UPDATE lsh_entries SET key = 7 {ONE}",
    "signature short": "UPDATE lsh_entries SET signature = X'0102'",
    "signature text": "UPDATE lsh_entries SET signature = 'abc'",
    "signature empty": "UPDATE lsh_entries SET signature = X''",
    "fingerprints odd": "UPDATE lsh_entries SET fp_values = X'010203'",
    "counts odd": "UPDATE lsh_entries SET fp_counts = X'0102'",
}


@pytest.mark.parametrize("verify", [False, True], ids=["plain", "verified"])
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_store_raises_only_neardup_errors(
    tmp_path: Path, damage: str, verify: bool
) -> None:
    path = str(tmp_path / "lsh.db")
    index = LSHIndex(threshold=0.5, num_perm=16, store=path, verify=verify, spec=make_spec("plain"))
    index.add("a", TEXT)
    index.add(5, TEXT + " ещё")
    index.close()
    with sqlite3.connect(path) as conn:
        conn.execute(DAMAGES[damage])
    try:
        opened = LSHIndex.open(path)
        try:
            opened.query(TEXT)
            opened.keys()
            opened.edge_list()
            opened.add("z", TEXT)
        finally:
            opened.close()
    except NeardupError as exc:
        assert len(str(exc)) < 300 + len(path), str(exc)
