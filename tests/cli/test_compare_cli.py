"""`neardup compare` and `neardup analyze`: output shape, exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from neardup.analysis import learned_cache
from neardup.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEYS = {
    "resemblance",
    "sorensen",
    "containment_ab",
    "containment_ba",
    "shingles_a",
    "shingles_b",
    "shared",
    "spec",
}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_compare_json_has_the_stable_keys(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys, "compare", str(EXAMPLES / "original.txt"), str(EXAMPLES / "rewrite.txt"), "--json"
    )
    assert KEYS <= set(out)
    assert 0.3 < out["resemblance"] < 1.0  # type: ignore[operator]
    plain = run_json(
        capsys,
        "compare",
        str(EXAMPLES / "original.txt"),
        str(EXAMPLES / "rewrite.txt"),
        "--json",
        "--preset",
        "plain",
    )
    assert plain["resemblance"] < out["resemblance"]  # type: ignore[operator]
    assert plain["spec"]["analyzer"]["preset"] == "plain"  # type: ignore[index]


def test_compare_leads_with_the_combined_score(capsys: pytest.CaptureFixture[str]) -> None:
    pair = [str(EXAMPLES / "original.txt"), str(EXAMPLES / "rewrite.txt")]
    out = run_json(capsys, "compare", *pair, "--json")
    assert next(iter(out)) == "combined"  # the default: the first key
    assert out["combined"] == pytest.approx(0.9873038797173043, abs=1e-12)
    assert out["combined_version"] == 5
    assert out["resemblance"] == pytest.approx(23 / 68)  # the shingle measures still follow
    sets_only = run_json(capsys, "compare", *pair, "--json", "--method", "sets")
    assert not {"combined", "combined_version"} & set(sets_only)
    assert sets_only["resemblance"] == out["resemblance"]
    assert main(["compare", *pair]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "│" in line]
    assert "combined score" in rows[0] and "0.9873" in rows[0]
    assert "resemblance (Jaccard)" in rows[1]


def test_compare_footer_names_the_shingling_the_pair_took(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pair whose shorter text is under the length rule is compared on word 1-grams, and the
    footer says so; a long pair on the spec's own shingles."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Кошка спит на тёплом окне.", encoding="utf-8")
    b.write_text("Кошка спала на тёплом окне днём.", encoding="utf-8")
    assert main(["compare", str(a), str(b)]) == 0
    footer = " ".join(capsys.readouterr().out.split())
    assert "word shingles k=1 step=1 (the shorter text has fewer than 32 tokens)" in footer
    pair = [str(EXAMPLES / "original.txt"), str(EXAMPLES / "rewrite.txt")]
    assert main(["compare", *pair]) == 0
    footer = " ".join(capsys.readouterr().out.split())
    assert "word shingles k=5 step=1, rabin 64 bit" in footer
    assert "fewer than" not in footer


def test_compare_options_reach_the_spec(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys,
        "compare",
        str(EXAMPLES / "original.txt"),
        str(EXAMPLES / "original.txt"),
        "--json",
        "-k",
        "3",
        "--step",
        "3",
        "--hash",
        "crc32",
    )
    assert out["resemblance"] == 1.0
    # an explicit -k turns the default length rule off: the option the user gives wins
    assert out["spec"]["shingles"] == {"unit": "word", "k": 3, "step": 3}  # type: ignore[index]
    assert out["spec"]["fingerprints"]["family"] == "crc32"  # type: ignore[index]
    assert out["spec"]["fingerprints"]["bits"] == 32  # type: ignore[index]


def test_empty_file_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    out = run_json(capsys, "compare", str(empty), str(EXAMPLES / "original.txt"), "--json")
    assert out["resemblance"] == 0.0 and out["shingles_a"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "missing.txt", "examples/original.txt"], "no such file"),
        (["compare", ".", "examples/original.txt"], "is a directory"),
        (
            ["compare", "examples/original.txt", "examples/rewrite.txt", "--preset", "fr"],
            "Invalid value",
        ),
        (["compare", "examples/original.txt", "examples/rewrite.txt", "-k", "0"], "Invalid value"),
        (
            ["compare", "examples/original.txt", "examples/rewrite.txt", "--bits", "99"],
            "99 is not in the range 32<=x<=64",
        ),
        (
            [
                "compare",
                "examples/original.txt",
                "examples/rewrite.txt",
                "--hash",
                "crc32",
                "--bits",
                "48",
            ],
            "takes a width of 32 bits",
        ),
        (
            ["compare", "examples/original.txt", "examples/rewrite.txt", "--synonyms", "nope.csv"],
            "thesaurus",
        ),
        (["analyze", "missing.txt"], "no such file"),
    ],
)
def test_bad_input_exits_2_without_traceback(args: list[str], message: str) -> None:
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", *args], cwd=root, capture_output=True, text=True
    )
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_analyze_shows_tokens_with_spans(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(EXAMPLES / "original.txt"), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    header, rows = lines[0], lines[1:]
    assert header["encoding"] == "utf-8" and header["tokens"] == len(rows)
    source = (EXAMPLES / "original.txt").read_text(encoding="utf-8")
    assert rows[0] == {"term": "городской", "start": 0, "end": 9, "original": "Городская"}
    assert all(source[r["start"] : r["end"]] == r["original"] for r in rows)


def test_help_on_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    from neardup.cli.main import cli

    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None and command.help, name
        assert main([name, "--help"]) == 0
        capsys.readouterr()


def test_every_option_of_every_command_has_help() -> None:
    """Each option (and subcommand, in groups such as ``index``) says what it does in
    ``--help``."""
    from neardup.cli.main import cli

    def commands(group: click.Group, ctx: click.Context, prefix: str) -> Iterator[Any]:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            yield f"{prefix}{name}", command
            if isinstance(command, click.Group):
                yield from commands(command, click.Context(command, parent=ctx), f"{name} ")

    silent = [
        f"{name} {'/'.join(param.opts)}"
        for name, command in commands(cli, click.Context(cli), "")
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not param.help
    ]
    undocumented = [
        name
        for name, command in commands(cli, click.Context(cli), "")
        if not (command.help or command.short_help)
    ]
    assert silent == [] and undocumented == []


def test_every_command_module_is_in_the_lazy_table() -> None:
    """A module that defines COMMANDS must be named in COMMAND_MODULES, and the table must
    point at the module that really defines each command."""
    import importlib
    import pkgutil

    import neardup.cli
    from neardup.cli.main import COMMAND_MODULES

    defined: dict[str, str] = {}
    for info in pkgutil.iter_modules(neardup.cli.__path__):
        module = importlib.import_module(f"neardup.cli.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            defined[command.name] = info.name
    assert defined == COMMAND_MODULES


def test_version_imports_no_command_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from neardup.cli.main import main; main(['--version']); "
        "print(sorted(m for m in sys.modules "
        "if m.startswith('neardup.cli.') "
        "and m not in ('neardup.cli.main', 'neardup.cli._numba_startup')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_cli_and_compare_modules_import_nothing_heavy() -> None:
    """``import neardup.cli.main`` (all ``neardup --version`` needs) loads neither numpy nor
    numba; the compare command's module, imported as the CLI imports it, loads none of what
    only some runs need."""
    code = (
        "import sys; import neardup.cli.main; "
        "print([m for m in ('numpy', 'numba', 'rich', 'importlib.metadata') if m in sys.modules]); "
        "from neardup.cli import _numba_startup; _numba_startup.install(); "
        "import neardup.cli.compare; "
        "print([m for m in ('rich', 'neardup.score.combined', 'neardup.report.fragments', "
        "'scipy', 'sklearn', "
        "'pandas', 'pymorphy3', 'numba.np.arraymath') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines() == ["[]", "[]"]


def test_cli_skips_numba_blas_probe_only_while_numba_loads(tmp_path: Path) -> None:
    """In the CLI process, numba's array library loads without importing SciPy's BLAS (a
    start-up cost no kernel needs); SciPy still imports normally afterwards, and the result
    is the one the library gives."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("один два три четыре пять шесть семь", encoding="utf-8")
    b.write_text("один два три четыре пять шесть восемь", encoding="utf-8")
    code = (
        "import sys; from neardup.cli.main import main; "
        f"main(['compare', '--json', '--preset', 'plain', {str(a)!r}, {str(b)!r}]); "
        "import numba.np.arraymath as m; "
        "print(m._HAVE_BLAS, 'scipy.linalg' in sys.modules, "
        "sys.modules.get('scipy.linalg.cython_blas', 'absent')); "
        "import scipy.linalg.cython_blas; print('imported')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    assert lines[-2:] == ["False False absent", "imported"]
    from neardup import compare

    shown = json.loads("\n".join(lines[:-2]))
    assert shown["resemblance"] == compare(a.read_text(), b.read_text(), preset="plain").resemblance


def test_compare_json_loads_only_what_its_answer_needs(tmp_path: Path) -> None:
    """A one-shot ``compare --json`` (the combined score included) of two Russian texts whose
    forms are all in the dictionary: no rich, reports, SciPy, scikit-learn or numba registries
    are imported, and pymorphy3's dictionary is not loaded."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Городская библиотека открылась после ремонта.", encoding="utf-8")
    b.write_text("Городская библиотека открылась после долгого ремонта.", encoding="utf-8")
    heavy = [
        "rich",
        "neardup.report.fragments",
        "scipy",
        "sklearn",
        "pandas",
        "numba.np.arraymath",
    ]
    code = (
        "import sys; from neardup.cli.main import main; "
        f"main(['compare', '--json', {str(a)!r}, {str(b)!r}]); "
        "from neardup.analysis import resources; "
        f"print([m for m in {heavy!r} if m in sys.modules], resources.morph.cache_info().currsize)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "[] 0"
    shown = json.loads(lines[0])
    assert (shown["shingles_a"], shown["shingles_b"], shown["shared"]) == (4, 5, 4)
    from neardup import compare

    assert shown["resemblance"] == compare(a.read_text(), b.read_text()).resemblance == 0.8


def test_one_shot_process_starts_no_blas_threads_and_no_collector(tmp_path: Path) -> None:
    """Run as the program, ``compare`` keeps numpy's OpenBLAS from starting its thread pool
    (the process has one thread when it ends; Linux: /proc/self/task) and runs without the
    cyclic garbage collector."""
    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc")
    a = tmp_path / "a.txt"
    a.write_text("один два три четыре пять шесть", encoding="utf-8")
    code = (
        "import gc, os, sys; exit_now = os._exit\n"
        "def report(code):\n"
        "    print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')),"
        " gc.isenabled(), flush=True)\n"
        "    exit_now(code)\n"
        "os._exit = report\n"
        f"sys.argv = ['neardup', 'compare', '--json', '--preset', 'plain', {str(a)!r}, "
        f"{str(a)!r}]\n"
        "from neardup.cli.main import main; main()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip().splitlines()[-1] == "1 1 False"


def test_one_shot_process_keeps_the_forms_it_predicted(tmp_path: Path) -> None:
    """Without the collector and without the interpreter's teardown, the forms a ``compare``
    predicted still reach the disk (the chain is let go by reference counting)."""
    a = tmp_path / "a.txt"
    a.write_text("Зубариков приехал в Крыжополь.", encoding="utf-8")
    code = f"import sys; sys.argv = ['neardup', 'compare', {str(a)!r}, {str(a)!r}]\n"
    code += "from neardup.cli.main import main; main()\n"
    env = {**os.environ, "NEARDUP_LEARNED_DIR": str(tmp_path / "learned")}
    subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=env)
    kept = [
        learned_cache.decode(path.read_bytes()) for path in (tmp_path / "learned").glob("*/*.bin")
    ]
    outputs = {o for forms in kept if forms is not None for o in forms.outputs()}
    assert {"зубарик".encode(), "крыжополь".encode()} <= outputs


def test_analyze_table_is_streamed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    # one line per token after the header lines, the same rows as --json, in order
    assert main(["analyze", str(EXAMPLES / "original.txt"), "--shingles"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("encoding utf-8, language ") and " 50 tokens, spec " in lines[0]
    assert lines[1].split() == ["#", "term", "span", "original"]
    assert lines[2].split() == ["0", "городской", "0–9", "'Городская'"]
    assert lines[51].split() == ["49", "преподаватель", "478–493", "'преподавателями'"]
    assert lines[52] == "shingles"
    assert lines[53].split() == ["#", "fingerprint", "span", "original"]
    assert lines[54].split()[:3] == ["0", "576105160e664d08", "0–52"]
    assert len(lines) == 54 + 46


def test_analyze_json_shingles_match_the_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(EXAMPLES / "original.txt"), "--json", "--shingles"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    source = (EXAMPLES / "original.txt").read_text(encoding="utf-8")
    shingles = [r for r in rows if "shingle" in r]
    assert len(rows) == 1 + 50 + len(shingles) and len(shingles) == 46
    assert shingles[0] == {
        "shingle": "Городская библиотека открыла после ремонта читальный",
        "start": 0,
        "end": 52,
        "fingerprint": 0x576105160E664D08,
    }
    assert all(source[r["start"] : r["end"]] == r["shingle"] for r in shingles)


def test_program_ends_after_a_one_shot_command_with_its_output_whole(tmp_path: Path) -> None:
    """Run as the program (no argv), compare exits without the interpreter's teardown: its
    output is flushed whole, its exit code kept, and nothing registered at exit runs."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("один два три четыре пять шесть семь", encoding="utf-8")
    b.write_text("один два три четыре пять шесть восемь", encoding="utf-8")
    code = (
        "import atexit, sys; atexit.register(lambda: print('teardown ran')); "
        "from neardup.cli.main import main; sys.exit(main())"
    )
    args = ["compare", "--json", "--preset", "plain", str(a), str(b)]
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert out.returncode == 0
    assert "teardown ran" not in out.stdout
    assert json.loads(out.stdout)["shingles_a"] == 7  # seven words, short: word 1-grams
    missing = subprocess.run(
        [sys.executable, "-c", code, "compare", str(a), str(tmp_path / "none.txt")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "Error:" in missing.stderr
    # another command ends normally
    other = subprocess.run(
        [sys.executable, "-c", code, "params", "--threshold", "0.8"], capture_output=True, text=True
    )
    assert other.stdout.rstrip().endswith("teardown ran")
