"""The signature directory format: round trip, streaming, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup import make_spec
from neardup.errors import DatasetError, InputError, SpecError, SpecMismatchError
from neardup.sketch import MinHasher, SignatureWriter, read_signatures, write_signatures
from neardup.sketch.signatures import FORMAT_VERSION
from neardup.spec import SketchSpec

TEXTS = ["первый текст о погоде в городе", "второй текст о погоде в городе", "совсем иное"]


def spec(bits: int = 64, num_perm: int = 32):  # type: ignore[no-untyped-def]
    return make_spec("plain", k=2).replace(sketch=SketchSpec(num_perm=num_perm, value_bits=bits))


@pytest.mark.parametrize("bits", [64, 32])
def test_round_trip_in_chunks(tmp_path: Path, bits: int) -> None:
    sp = spec(bits)
    sigs = MinHasher(sp).sign_texts(TEXTS)
    out = tmp_path / "sigs"
    with SignatureWriter(out, sp) as writer:
        writer.write(["a", "b"], sigs[:2])
        writer.write([], sigs[:0])
        writer.write(["c"], sigs[2:])
    assert not (tmp_path / "sigs.partial").exists()
    got = read_signatures(out, spec=sp)
    assert got.ids == ["a", "b", "c"] and len(got) == 3 and got.num_perm == 32
    assert got.values.dtype == sigs.dtype and got.values.tolist() == sigs.tolist()
    assert got.spec.fingerprint() == sp.fingerprint() == got.spec_fingerprint
    # the .npy file is plain NumPy; spec.json documents itself
    assert np.load(out / "signatures.npy").tolist() == sigs.tolist()
    meta = json.loads((out / "spec.json").read_text())
    assert meta["format"] == "neardup.signatures" and meta["format_version"] == FORMAT_VERSION
    assert meta["count"] == 3 and meta["value_bits"] == bits
    assert got.estimate(0, got, 1) == MinHasher(sp).estimate(sigs[0], sigs[1])


def test_empty_corpus(tmp_path: Path) -> None:
    sp = spec()
    write_signatures(tmp_path / "e", [], np.zeros((0, 32), dtype=np.uint64), sp)
    got = read_signatures(tmp_path / "e")
    assert len(got) == 0 and got.values.shape == (0, 32)


def test_refusals(tmp_path: Path) -> None:
    sp = spec()
    sigs = MinHasher(sp).sign_texts(TEXTS)
    out = write_signatures(tmp_path / "s", ["a", "b", "c"], sigs, sp)
    with pytest.raises(SpecMismatchError):
        read_signatures(out, spec=spec(num_perm=64))
    with pytest.raises(SpecMismatchError):
        read_signatures(out, spec="0123456789abcdef")
    other = write_signatures(
        tmp_path / "o", ["x"], MinHasher(spec(32)).sign_texts(["x y"]), spec(32)
    )
    with pytest.raises(SpecMismatchError):
        read_signatures(out).check_same(read_signatures(other))
    with pytest.raises(InputError):
        write_signatures(out, ["a"], sigs[:1], sp)  # exists
    write_signatures(out, ["a"], sigs[:1], sp, overwrite=True)
    assert read_signatures(out).ids == ["a"]
    with pytest.raises(ValueError):
        write_signatures(tmp_path / "bad", ["a", "b"], sigs[:1], sp)
    with pytest.raises(SpecError):
        SignatureWriter(tmp_path / "nosketch", make_spec("plain"))


def test_newer_or_broken_files_are_refused(tmp_path: Path) -> None:
    sp = spec()
    out = write_signatures(tmp_path / "s", ["a"], MinHasher(sp).sign_texts(["a b c"]), sp)
    meta_path = out / "spec.json"
    meta = json.loads(meta_path.read_text())
    meta["format_version"] = FORMAT_VERSION + 1
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(DatasetError, match="newer"):
        read_signatures(out)
    meta["format_version"] = FORMAT_VERSION
    meta["count"] = 5
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(DatasetError):
        read_signatures(out)
    meta_path.write_text("{not json")
    with pytest.raises(DatasetError):
        read_signatures(out)
    with pytest.raises(DatasetError):
        read_signatures(tmp_path / "missing")


def test_failed_writes_leave_nothing(tmp_path: Path) -> None:
    sp = spec()
    with pytest.raises(RuntimeError):
        with SignatureWriter(tmp_path / "w", sp) as writer:
            writer.write(["a"], MinHasher(sp).sign_texts(["a b"]))
            raise RuntimeError("boom")
    assert not (tmp_path / "w").exists() and not (tmp_path / "w.partial").exists()
