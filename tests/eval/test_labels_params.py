"""`eval pairs` with -1/0/1 labels (a label map) and the --param help (issue #16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neardup.cli.main import cli, main
from neardup.errors import ConfigurationError, DatasetError
from neardup.eval import formats, methods
from neardup.eval.formats import LabelMap
from neardup.eval.methods import MethodContext
from neardup.fingerprints.pipeline import make_spec

#: Three-way labels with given scores: -1 not a paraphrase, 0 loosely, 1 exactly.
ROWS = [(-1, 0.1), (-1, 0.5), (0, 0.4), (0, 0.7), (1, 0.9), (1, 0.6)]


@pytest.fixture()
def three_way(tmp_path: Path) -> Path:
    path = tmp_path / "p.jsonl"
    lines = [
        json.dumps({"a": f"a{i}", "b": f"b{i}", "label": label, "score": score})
        for i, (label, score) in enumerate(ROWS)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_label_maps() -> None:
    assert LabelMap.of() == LabelMap(frozenset({0}), frozenset({1}))
    assert LabelMap.of(negative=[-1]) == LabelMap(frozenset({-1}), frozenset({0, 1}))
    assert LabelMap.of(positive=[1]) == LabelMap(frozenset({-1, 0}), frozenset({1}))
    assert LabelMap.of([-1], [1]).describe() == "negative -1, positive 1"
    with pytest.raises(ConfigurationError, match="^label 1 cannot be both negative and positive$"):
        LabelMap.of([1], [1])
    with pytest.raises(ConfigurationError, match=r"^a label is -1, 0 or 1, got 2$"):
        LabelMap.of([2])
    with pytest.raises(ConfigurationError, match="at least one negative and one positive"):
        LabelMap.of(negative=[-1, 0, 1])


def test_read_three_way_labels(three_way: Path, tmp_path: Path) -> None:
    with pytest.raises(
        DatasetError,
        match=r"p.jsonl, line 1: bad label -1: expected 0 or 1 \(for -1/0/1 labels, say which "
        r"are negative: --negative-label -1\)$",
    ):
        formats.read_pairs(three_way)
    loose = formats.read_pairs(three_way, labels=LabelMap.of(negative=[-1]))
    assert loose.labels.tolist() == [0, 0, 1, 1, 1, 1]
    strict = formats.read_pairs(three_way, labels=LabelMap.of(positive=[1]))
    assert strict.labels.tolist() == [0, 0, 0, 0, 1, 1]
    with pytest.raises(
        DatasetError, match=r"line 3: bad label 0: expected negative -1, positive 1$"
    ):
        formats.read_pairs(three_way, labels=LabelMap.of([-1], [1]))
    tsv = tmp_path / "p.tsv"
    tsv.write_text("-1\t1\t2\tone text\tanother\n1\t3\t4\tsame\tsame\n", encoding="utf-8")
    assert formats.read_pairs(tsv, labels=LabelMap.of([-1])).labels.tolist() == [0, 1]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_eval_pairs_label_options(three_way: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["eval", "pairs", str(three_way), "--method", "given", "--json"]
    code, _, err = _run(capsys, *base)
    assert code == 2 and "(for -1/0/1 labels, say which are negative: --negative-label -1)" in err
    code, out, _ = _run(capsys, *base, "--negative-label", "-1")
    loose = json.loads(out)
    # positives 0.4 0.7 0.9 0.6 against negatives 0.1 0.5: 7 of 8 pairs ordered right
    assert loose["auc"] == pytest.approx(7 / 8)
    assert loose["labels"] == {"negative": [-1], "positive": [0, 1]}
    code, out, _ = _run(capsys, *base, "--positive-label=1")
    strict = json.loads(out)
    # positives 0.9 0.6 against 0.1 0.5 0.4 0.7: 7 of 8
    assert strict["auc"] == pytest.approx(7 / 8)
    assert strict["labels"] == {"negative": [-1, 0], "positive": [1]}
    code, _, err = _run(capsys, *base, "--negative-label", "-1", "--positive-label", "1")
    assert code == 2 and "line 3: bad label 0: expected negative -1, positive 1" in err


def test_declared_parameters_are_the_ones_builders_read() -> None:
    spec = make_spec("plain", k=3)
    for table in (methods.METHODS, methods.FRAGMENT_METHODS):
        for method in table.values():
            if not method.available():
                continue
            ctx = MethodContext(spec, {})
            method.build(ctx)
            assert ctx.used == set(method.params), method.name


def test_param_help_lists_only_real_parameters() -> None:
    assert methods.parameters_help() == (
        "collection: measure, window, max_candidates; "
        "minhash: num_perm, sketch_seed, minhash_family; "
        "tfidf: idf, binary, sublinear; align: k, gap, min_tokens; "
        "shingle-spans: gap, min_shingles"
    )
    text = " ".join(CliRunner().invoke(cli, ["eval", "pairs", "--help"]).output.split())
    assert "ngram" not in text
    assert "--param idf=paper for tfidf" in text
    assert "tfidf: idf, binary, sublinear;" in text
