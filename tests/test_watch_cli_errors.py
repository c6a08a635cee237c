"""Usage errors of ``xocdia watch | confirm | void | console`` are one line and exit 2, never a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KEY = "0123456789abcdef0123"


def xocdia(*args, cwd):
    env = dict(os.environ, XOCDIA_HMAC_KEY=KEY)
    return subprocess.run([sys.executable, "-m", "vision", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def bad(tmp_path):
    (tmp_path / "adir").mkdir()
    (tmp_path / "frames").mkdir()
    (tmp_path / "notdb.db").write_bytes(b"this is not a sqlite database at all, not even close" * 40)
    return tmp_path


@pytest.mark.parametrize("target", ["adir", "notdb.db"])
@pytest.mark.parametrize("cmd", [["confirm", "R-1", "--red", "1", "--by", "ann"],
                                 ["void", "R-1", "--reason", "camera fault", "--by", "ann"],
                                 ["watch", "frames", "--unsigned"]])
def test_bad_outbox_is_one_line_exit_2(bad, cmd, target):
    r = xocdia(*cmd, "--outbox", str(bad / target), cwd=bad)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and str(bad / target) in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_watch_events_in_a_missing_folder_is_one_line_exit_2(bad):
    r = xocdia("watch", "frames", "--unsigned", "--outbox", str(bad / "o.db"), "--events", "/nonexist/e.jsonl",
               cwd=bad)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "/nonexist/e.jsonl" in r.stderr


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_console_port_out_of_range_is_a_usage_error(bad, port):
    r = xocdia("console", "--source", "frames", "--port", port, "--outbox", str(bad / "o.db"), cwd=bad)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--port" in r.stderr
