"""The CLI and the library apply and record one spec for the same corpus; ``--jobs`` means
"workers this command may keep busy, 0 for one per CPU" in dedup and sign."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from neardup.corpus import DedupOptions, dedup
from neardup.errors import InputError
from neardup.fingerprints.pipeline import default_spec
from neardup.sketch.parallel import MAX_JOBS, default_jobs, workers_for
from tests.corpus._corpus import read_jsonl, records, write


def test_the_cli_records_the_librarys_spec(tmp_path: Path) -> None:
    corpus = write(tmp_path / "in.jsonl", records())
    assert main(["dedup", str(corpus), "--out", str(tmp_path / "cli"), "-q"]) == 0
    dedup([corpus], tmp_path / "lib")
    cli = json.loads((tmp_path / "cli" / "spec.json").read_text(encoding="utf-8"))
    lib = json.loads((tmp_path / "lib" / "spec.json").read_text(encoding="utf-8"))
    assert cli == lib
    # the spec applied: the default spec's, without its pairwise short-text rule
    assert "short_below" not in cli["spec"]["shingles"]
    assert default_spec().shingles.short_below > 0
    assert cli["spec"]["analyzer"] == default_spec().to_dict()["analyzer"]
    assert read_jsonl(tmp_path / "cli" / "documents.jsonl") == read_jsonl(
        tmp_path / "lib" / "documents.jsonl"
    )


def test_a_short_text_rule_asked_for_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write(tmp_path / "in.jsonl", records(3))
    args = ["dedup", str(corpus), "--out", str(tmp_path / "o"), "-q", "--short-below", "16"]
    assert main(args) == 2
    assert "dedup does not apply the short-text rule" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    # an explicit spec with the rule (the default spec has it) is applied without it
    result = dedup([corpus], tmp_path / "lib", spec=default_spec(short_below=16))
    assert result.documents == 3
    written = json.loads((tmp_path / "lib" / "spec.json").read_text(encoding="utf-8"))
    assert "short_below" not in written["spec"]["shingles"]


def test_jobs_zero_is_one_per_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert workers_for(0) == default_jobs()
    assert workers_for(3) == 3
    for bad in (-1, MAX_JOBS + 1, 2**31, 1.5, True, "2"):
        with pytest.raises(InputError, match="jobs must be an integer from 0"):
            workers_for(bad)  # type: ignore[arg-type]
    corpus = write(tmp_path / "in.jsonl", records(6))
    assert main(["dedup", str(corpus), "--out", str(tmp_path / "j0"), "-q", "-j", "0"]) == 0
    assert "6 documents" in capsys.readouterr().out
    dedup([corpus], tmp_path / "lib0", jobs=0)
    assert (tmp_path / "j0" / "documents.jsonl").read_bytes() == (
        tmp_path / "lib0" / "documents.jsonl"
    ).read_bytes()
    sig = tmp_path / "sigs"
    assert main(["sign", str(corpus), "-o", str(sig), "-j", "0", "-q"]) == 0
    assert sig.exists()


@pytest.mark.parametrize("command", ["dedup", "sign"])
def test_too_many_jobs_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    corpus = write(tmp_path / "in.jsonl", records(3))
    out = tmp_path / "o"
    args = [command, str(corpus), "--out" if command == "dedup" else "-o", str(out), "-q"]
    assert main([*args, "--jobs", "2147483648"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "'--jobs' / '-j': 2147483648 is not in the range" in err
    assert not out.exists()


def test_the_library_refuses_bad_jobs(tmp_path: Path) -> None:
    corpus = write(tmp_path / "in.jsonl", records(3))
    with pytest.raises(InputError, match="jobs must be an integer"):
        dedup([corpus], tmp_path / "o", DedupOptions(), jobs=2**31)
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.partial").exists()
