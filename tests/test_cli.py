import subprocess
import sys

import vision
from vision.cli import main


def test_version_flag_prints_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert vision.__version__ in capsys.readouterr().out


def test_no_command_is_a_usage_error():
    assert main([]) == 2


def test_console_script_help_runs():
    out = subprocess.run([sys.executable, "-m", "vision", "--help"], capture_output=True, text=True, check=True)
    assert "xocdia" in out.stdout
