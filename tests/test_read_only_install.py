"""neardup installed where its user cannot write (issue 27): the commands still run.

The package is copied into a folder (what ``pip install --target`` makes of a pure-Python
package) that is then made read-only, and ``compare``, ``index create/add``, ``dedup`` and
``serve`` run from it as a user who cannot write there: under root (the CI container) the
child drops the capabilities that let root write anywhere (``CAP_DAC_OVERRIDE``,
``CAP_DAC_READ_SEARCH``), so root is held to the files' modes like any user; under another
user the modes alone do it. Three cases: a writable home (the kernels' compiled code goes to
``~/.cache/neardup/numba``), only the system's temporary folder writable (it goes to
``$TMPDIR/neardup-<uid>/numba``, and a second run loads it instead of compiling) and nothing
writable but the work folder (kernels compiled in memory, one line on stderr saying so). Slow:
every kernel is compiled in each case.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import neardup

pytestmark = pytest.mark.slow

IN_MEMORY = "kernels are compiled in memory for this run"
KEPT_IN = "the install folder cannot be written; compiled kernels are kept in "
TEXT = "the park city river house street school teacher book paper news winter tree " * 3
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _as_a_user_who_cannot_write() -> None:
    """Run in the child before exec: root loses what lets it ignore the files' modes."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def _read_only(path: Path) -> None:
    for folder, _, files in os.walk(path):
        for name in files:
            target = Path(folder, name)
            target.chmod(target.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    for folder, _, _ in sorted(os.walk(path), reverse=True):
        mode = Path(folder).stat().st_mode
        Path(folder).chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _writable_again(path: Path) -> None:
    for folder, _, _ in os.walk(path):
        Path(folder).chmod(Path(folder).stat().st_mode | stat.S_IWUSR)


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = tmp_path_factory.mktemp("read-only-install") / "site"
    package = Path(neardup.__file__).parent
    shutil.copytree(package, site / "neardup", ignore=shutil.ignore_patterns("__pycache__"))
    _read_only(site)
    yield site
    _writable_again(site)


class Runner:
    """``neardup`` from the read-only install, as a user who cannot write there."""

    def __init__(self, site: Path, home: Path, work: Path, temp: Path) -> None:
        self.site, self.home, self.work, self.temp = site, home, work, temp
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("NEARDUP_", "NUMBA_", "LC_"))
            and key not in ("XDG_CACHE_HOME", "LANG")
        }
        self.env.update(HOME=str(home), PYTHONPATH=str(site), TMPDIR=str(temp))

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "neardup.cli.main", *args]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(*args),
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            preexec_fn=_as_a_user_who_cannot_write,
        )

    def python(self, code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            preexec_fn=_as_a_user_who_cannot_write,
        )


def _runner(
    install: Path, tmp_path: Path, *, home_writable: bool, temp_writable: bool = False
) -> Runner:
    home, work, temp = tmp_path / "home", tmp_path / "work", tmp_path / "temp"
    for folder in (home, work, temp):
        folder.mkdir()
    if not home_writable:
        home.chmod(0o555)
    if not temp_writable:
        temp.chmod(0o555)
    (work / "a.txt").write_text(TEXT, encoding="utf-8")
    (work / "b.txt").write_text(TEXT + "and more", encoding="utf-8")
    records = [{"id": f"d{i}", "text": f"{TEXT} {i}"} for i in range(6)]
    (work / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    runner = Runner(install, home, work, temp)
    # the premise, checked: the code comes from the install, which this user cannot write
    probe = runner.python(
        "import neardup, pathlib, sys\n"
        "print(neardup.__file__)\n"
        "try:\n"
        "    (pathlib.Path(neardup.__file__).parent / 'probe').write_text('x')\n"
        "except OSError:\n"
        "    sys.exit(0)\n"
        "sys.exit(3)\n"
    )
    assert probe.returncode == 0, probe.stdout + probe.stderr
    assert probe.stdout.strip() == str(install / "neardup" / "__init__.py")
    if not home_writable:
        assert runner.python(f"open({str(home / 'x')!r}, 'w')").returncode != 0
    if not temp_writable:
        assert runner.python(f"open({str(temp / 'x')!r}, 'w')").returncode != 0
    return runner


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    return result.stderr


def _serve_answers(runner: Runner, db: str) -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        runner.command("serve", db, "--port", str(port), "--log-level", "warning"),
        cwd=runner.work,
        env=runner.env,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_a_user_who_cannot_write,
    )
    try:
        deadline = time.monotonic() + 600  # a hang guard only: start-up compiles kernels
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                answer = httpx.post(
                    f"http://127.0.0.1:{port}/api/check", json={"text": TEXT}, timeout=600
                )
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "neardup serve did not answer"
                time.sleep(0.5)
        assert answer.status_code == 200, answer.text
        assert "d0" in [match["id"] for match in answer.json()["matches"]], answer.text
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    assert "Traceback" not in stderr, stderr
    return stderr


def _every_command(runner: Runner) -> list[str]:
    """Each command's stderr, after checking it succeeded."""
    errs = [_ok(runner.run("compare", "a.txt", "b.txt", "--json"))]
    errs.append(_ok(runner.run("index", "create", "texts.db")))
    errs.append(_ok(runner.run("index", "add", "texts.db", "corpus.jsonl")))
    errs.append(_ok(runner.run("dedup", "corpus.jsonl", "--out", "deduped")))
    assert (runner.work / "deduped").is_dir()
    errs.append(_serve_answers(runner, "texts.db"))
    return errs


def test_a_writable_home_keeps_the_kernels_in_neardups_cache(install: Path, tmp_path: Path) -> None:
    runner = _runner(install, tmp_path, home_writable=True)
    said = [stderr for stderr in _every_command(runner)]
    kept = runner.home / ".cache" / "neardup" / "numba"
    assert not any(IN_MEMORY in stderr for stderr in said)
    # where the kernels are kept is said once, by the first command, and never again
    assert said[0].count(KEPT_IN + str(kept)) == 1, said[0]
    assert not any(KEPT_IN in stderr for stderr in said[1:]), said
    assert list(kept.rglob("*.nbi")), f"no compiled kernel kept under {kept}"
    assert not list(install.rglob("*.nbi"))


@pytest.mark.heavy  # minutes of compiling: with the heavy run (CI, NEARDUP_HEAVY=1)
def test_only_the_temporary_folder_writable_keeps_the_kernels_there_for_the_next_run(
    install: Path, tmp_path: Path
) -> None:
    runner = _runner(install, tmp_path, home_writable=False, temp_writable=True)
    try:
        kept = runner.temp / f"neardup-{os.getuid()}" / "numba"
        first = _ok(runner.run("compare", "a.txt", "b.txt", "--json"))
        assert first.count(KEPT_IN + str(kept)) == 1, first
        assert IN_MEMORY not in first
        compiled = sorted(path.name for path in kept.rglob("*.nbi"))
        assert compiled, f"no compiled kernel kept under {kept}"
        assert (kept.parent.stat().st_mode & 0o777) == 0o700  # private: it holds machine code
        # the second run loads every kernel from there: numba's cache log shows loads, no saves
        runner.env["NUMBA_DEBUG_CACHE"] = "1"
        second = runner.run("compare", "a.txt", "b.txt", "--json")
        assert second.returncode == 0, second.stderr
        assert "data loaded from" in second.stdout, second.stdout[-2000:]
        assert "data saved to" not in second.stdout, second.stdout[-2000:]
        assert KEPT_IN not in second.stderr, second.stderr
        assert sorted(path.name for path in kept.rglob("*.nbi")) == compiled
        assert not list(install.rglob("*.nbi"))
    finally:
        runner.home.chmod(0o755)
        runner.temp.chmod(0o755)


@pytest.mark.heavy  # minutes of compiling: with the heavy run (CI, NEARDUP_HEAVY=1)
def test_a_temporary_folder_another_user_can_write_is_not_used(
    install: Path, tmp_path: Path
) -> None:
    """A cache folder of our name made first by someone else would let them plant the machine
    code we run: it is passed over (compiled in memory)."""
    runner = _runner(install, tmp_path, home_writable=False, temp_writable=True)
    planted = runner.temp / f"neardup-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)
    try:
        result = _ok(runner.run("compare", "a.txt", "b.txt", "--json"))
        assert result.count(IN_MEMORY) == 1, result
        assert not list(planted.rglob("*.nbi"))
    finally:
        runner.home.chmod(0o755)
        runner.temp.chmod(0o755)


def test_nothing_writable_compiles_in_memory_and_says_so_once(
    install: Path, tmp_path: Path
) -> None:
    runner = _runner(install, tmp_path, home_writable=False)
    try:
        for stderr in _every_command(runner):
            assert stderr.count(IN_MEMORY) == 1, stderr
    finally:
        runner.home.chmod(0o755)
        runner.temp.chmod(0o755)
