"""Issue 27's tracebacks outside dedup: each is now a clear refusal, and nothing is written.

``matrix --plot`` to a missing folder or an unknown image format, ``params --plot`` under a
file, ``bloom build --bloom-seed 2^64``, and ``compare --fragments --json --unit char`` on a
text containing ``<![…DATA[`` (the HTML stage asserted).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.analysis.html import html_to_text
from neardup.bloom.pseudo_matrix import PseudoMatrixBloomFilter
from neardup.errors import ConfigurationError
from tests.cli._run import run

TEXT = "парк город река дом улица школа учитель ученик книга газета новость власть зима лето"


@pytest.fixture
def texts(tmp_path: Path) -> tuple[str, str]:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT + " весна осень", encoding="utf-8")
    return str(a), str(b)


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("plot", "says"),
    [
        ("missing/heat.png", "does not exist"),
        ("heat.xyz", "must be one of .png, .svg, .pdf"),
        ("heat", "must be one of .png, .svg, .pdf"),
        ("a.txt/heat.png", "is not a folder"),
        (".", "is a directory"),
        ("ё" * 300 + ".png", "File name too long"),
    ],
)
def test_matrix_plot_refuses_a_path_it_cannot_write(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    texts: tuple[str, str],
    plot: str,
    says: str,
) -> None:
    before = _files(tmp_path)
    code, out, err = run(capsys, "matrix", *texts, "--plot", str(tmp_path / plot))
    assert code == 2, err
    assert "--plot" in err and says in err, err
    assert "Traceback" not in err and out == ""
    assert _files(tmp_path) == before


def test_matrix_plot_writes_the_image_and_nothing_else(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: tuple[str, str]
) -> None:
    pytest.importorskip("matplotlib")
    before = _files(tmp_path)
    code, _, err = run(capsys, "matrix", *texts, "--plot", str(tmp_path / "heat.svg"))
    assert code == 0, err
    assert _files(tmp_path) == sorted([*before, "heat.svg"])
    assert (tmp_path / "heat.svg").read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    ("plot", "says"),
    [
        ("a.txt/curves.png", "is not a folder"),
        ("missing/curves.png", "does not exist"),
        ("curves.pdf", "must be one of .png, .svg"),
    ],
)
def test_params_plot_refuses_a_path_it_cannot_write(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    texts: tuple[str, str],
    plot: str,
    says: str,
) -> None:
    before = _files(tmp_path)
    code, out, err = run(
        capsys, "params", "--bands", "6", "--rows", "14", "--plot", f"{tmp_path}/{plot}"
    )
    assert code == 2, err
    assert says in err and "Traceback" not in err
    assert out == ""
    assert _files(tmp_path) == before


def test_params_plot_writes_the_curves(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "curves.png"
    code, _, err = run(capsys, "params", "--bands", "6", "--rows", "14", "--plot", str(target))
    assert code == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _files(tmp_path) == ["curves.png"]


@pytest.mark.parametrize("seed", ["18446744073709551616", "-1", "99999999999999999999999"])
def test_bloom_seed_past_64_bits_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: tuple[str, str], seed: str
) -> None:
    out_file = tmp_path / "f.pmbf"
    code, _, err = run(
        capsys, "bloom", "build", texts[0], "-o", str(out_file), "--bloom-seed", seed
    )
    assert code == 2
    assert "--bloom-seed" in err and "Traceback" not in err
    assert not out_file.exists()


def test_the_largest_bloom_seed_builds_and_queries(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: tuple[str, str]
) -> None:
    out_file = tmp_path / "f.pmbf"
    args = ("bloom", "build", texts[0], "-o", str(out_file), "--bloom-seed", str(2**64 - 1))
    code, _, err = run(capsys, *args, "--preset", "plain")
    assert code == 0, err
    code, out, err = run(capsys, "bloom", "query", str(out_file), texts[0], "--json")
    assert code == 0, err
    assert json.loads(out)["matches"][0]["shared"] == 10  # 14 words, 5-word shingles


def test_the_library_refuses_a_seed_past_64_bits() -> None:
    with pytest.raises(ConfigurationError, match="0…2\\^64"):
        PseudoMatrixBloomFilter(seed=2**64)
    assert PseudoMatrixBloomFilter(seed=2**64 - 1).seed == 2**64 - 1


PAGE = "<html><body><p>{}</p><div>{}</div><span>конец</span></body></html>"


@pytest.mark.parametrize(
    "markup",
    ["<![…DATA[", "<![ CDATA[", "<![", "<![x]]>", "<![if", "<![123[ data ]]>", "<![…DATA[ a > b"],
)
def test_html_never_asserts_on_a_marked_section(markup: str) -> None:
    page = PAGE.format(TEXT, markup + " " + TEXT)
    text, omap = html_to_text(page)
    assert TEXT in text
    assert len(omap.starts) == len(text)
    assert all(0 <= s < e <= len(page) for s, e in zip(omap.starts, omap.ends))


@pytest.mark.slow
def test_compare_fragments_json_char_on_a_text_with_a_broken_cdata(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    page = PAGE.format(TEXT, "<![…DATA[ " + TEXT)
    a, b = tmp_path / "a.html", tmp_path / "b.txt"
    a.write_text(page, encoding="utf-8")
    b.write_text(TEXT, encoding="utf-8")
    args = ("compare", str(a), str(b), "--fragments", "--json", "--unit", "char")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    got = json.loads(out)
    assert got["containment_ba"] == 1.0
    assert got["fragments"], "the shared text is marked"


@pytest.mark.parametrize("value", ["inf", "nan", "1e30"])
def test_serve_max_body_must_be_finite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str
) -> None:
    code, _, err = run(capsys, "serve", str(tmp_path / "none.db"), "--max-body", value)
    assert code == 2
    assert "--max-body" in err and "Traceback" not in err


def test_a_bloom_row_past_256_mib_is_refused_before_it_is_allocated(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: tuple[str, str]
) -> None:
    out_file = tmp_path / "f.pmbf"
    args = ("bloom", "build", texts[0], "-o", str(out_file), "--n", "9223372036854775807")
    code, _, err = run(capsys, *args)
    assert code == 2
    assert "over the limit of 2,147,483,648 bits (256 MiB) a row" in err
    assert not out_file.exists()


def test_damaged_signature_headers_are_dataset_errors(tmp_path: Path) -> None:
    from neardup.errors import DatasetError
    from neardup.sketch.signatures import read_signatures

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n", encoding="utf-8")
    from neardup.cli.main import main

    assert main(["sign", str(corpus), "-o", str(tmp_path / "sig"), "-q", "-N", "16"]) == 0
    values = tmp_path / "sig" / "signatures.npy"
    data = values.read_bytes()
    values.write_bytes(data[:12] + b"{'descr': (" + data[23:])  # a header cut mid-literal
    with pytest.raises(DatasetError, match="not a readable .npy array"):
        read_signatures(tmp_path / "sig")
    meta = tmp_path / "sig" / "spec.json"
    meta.write_text(meta.read_text().replace('"count": 1', '"count": "x"'))
    with pytest.raises(DatasetError, match="damaged"):
        read_signatures(tmp_path / "sig")


def test_a_seed_past_2_63_after_a_small_one_in_the_same_process(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: tuple[str, str]
) -> None:
    """The kernels take the seed as uint64 always: a seed that does not fit an int64, after
    one that did, once gave "OverflowError: int too big to convert" (found by the fuzz run)."""
    for seed in ("0", str(2**63), str(2**64 - 1)):
        out_file = tmp_path / f"f{seed}.pmbf"
        code, _, err = run(
            capsys, "bloom", "build", texts[0], "-o", str(out_file), "--bloom-seed", seed
        )
        assert code == 0, err
        code, out, err = run(capsys, "bloom", "query", str(out_file), texts[0], "--json")
        assert code == 0, err
        assert json.loads(out)["matches"][0]["id"] == texts[0]


def test_matrix_plot_path_with_markup_is_printed_as_it_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: tuple[str, str]
) -> None:
    pytest.importorskip("matplotlib")
    (tmp_path / "x[").mkdir()
    target = tmp_path / "x[/b]heat.svg"  # "[/b]" in the printed path: a closing tag for rich
    code, out, err = run(capsys, "matrix", *texts, "--plot", str(target))
    assert code == 0, err
    assert target.is_file()
    assert f"heat map written to {target}" in out.replace("\n", "")


def test_matrix_shows_ids_that_look_like_markup(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": "[/b]", "text": TEXT}, {"id": "x" * 30 + "[/b]" + "[bold]", "text": TEXT}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(capsys, "matrix", str(corpus))
    assert code == 0, err
    assert "[/b]" in out
