"""`neardup serve` itself: its refusals, and a real server process answering."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from neardup.cli.main import main
from tests.web.conftest import TOKEN

NEARDUP = str(Path(sys.executable).with_name("neardup"))


def test_refusals(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", db, "--workers", "2"]) == 2
    assert "--workers 2 needs a postgresql:// collection" in capsys.readouterr().err
    assert main(["serve", db, "--reads", "token"]) == 2
    assert "reads need a token, but no token was given" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "none.db")]) != 0
    assert "Error:" in capsys.readouterr().err


def test_a_served_collection_answers(db: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, NEARDUP_TOKEN=TOKEN)
    cmd = [NEARDUP, "serve", db, "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/stats", timeout=5)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "neardup serve did not answer in 90 s"
                time.sleep(0.2)
        assert r.json()["documents"] == 4
        base = f"http://127.0.0.1:{port}"
        denied = httpx.post(base + "/api/remove", json={"ids": ["park.txt"]})
        assert denied.status_code == 401
        ok = httpx.post(
            base + "/api/remove",
            json={"ids": ["park.txt"]},
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        assert ok.json() == {"removed": 1, "documents": 3}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.stderr is not None
    assert f"serving {db} (4 documents) at http://localhost:{port}/" in proc.stderr.read()
