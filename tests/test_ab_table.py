"""scripts/ab_table.py: settings parsed and checked, applied only to side B and
always put back, and the CLI end to end on real synthesized scenes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import ab_table  # noqa: E402
import vision.faces  # noqa: E402
import vision.plate  # noqa: E402
import vision.reader  # noqa: E402
import vision.tokens  # noqa: E402


def test_parse_known_values():
    assert ab_table.parse_setting("vision.plate.WORK_LAST_SHRINK_MIN=1.5") == ("vision.plate",
                                                                               "WORK_LAST_SHRINK_MIN", 1.5)
    # an int for a float setting is taken as a float
    got = ab_table.parse_setting(" vision.plate.WORK_LAST_SHRINK_MIN = 3 ")
    assert got[2] == 3.0 and type(got[2]) is float
    assert ab_table.parse_setting("vision.reader.TOKENS_PER_ROUND=5")[2] == 5
    assert ab_table.parse_setting("vision.tokens.LEAN_KINDS=('faint',)")[2] == ("faint",)


@pytest.mark.parametrize("text, message", [
    ("WORK=1", "expected MODULE.NAME=VALUE"),
    ("vision.plate.WORK_LAST_SHRINK_MIN", "expected MODULE.NAME=VALUE"),
    ("=1", "expected MODULE.NAME=VALUE"),
    ("vision.nope.X=1", "no module 'vision.nope'"),
    ("vision.plate.NOPE=1", "has no setting 'NOPE'"),
    ("vision.plate.WORK_LAST_SHRINK_MIN=abc", "expected a Python literal"),
    ("vision.plate.WORK_LAST_SHRINK_MIN='x'", "expected a value of type float like 1.5"),
    ("vision.reader.TOKENS_PER_ROUND=4.5", "expected a value of type int like 4"),
    ("vision.tokens.LEAN_KINDS=['faint']", "expected a value of type tuple"),
])
def test_parse_bad_input(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        ab_table.parse_setting(text)


def test_applied_puts_every_setting_back_also_on_an_exception():
    settings = [("vision.reader", "TOKENS_PER_ROUND", 5), ("vision.plate", "WORK_LAST_SHRINK_MIN", 2.0)]
    with ab_table.applied(settings):
        assert vision.reader.TOKENS_PER_ROUND == 5 and vision.plate.WORK_LAST_SHRINK_MIN == 2.0
    assert vision.reader.TOKENS_PER_ROUND == 4 and vision.plate.WORK_LAST_SHRINK_MIN == 1.5
    with pytest.raises(RuntimeError):
        with ab_table.applied(settings):
            raise RuntimeError("a reading that fails")
    assert vision.reader.TOKENS_PER_ROUND == 4 and vision.plate.WORK_LAST_SHRINK_MIN == 1.5
    with ab_table.applied([]):
        pass


def test_copies_under_the_same_name_are_named():
    assert "vision.tokens" in ab_table.copies_elsewhere(("vision.faces", "DARK_RED_MIN_DELTA_A", 9.0))
    assert "vision.reader" in ab_table.copies_elsewhere(("vision.tokens", "TOKENS_PER_ROUND", 5))
    assert ab_table.copies_elsewhere(("vision.plate", "WORK_LAST_SHRINK_MIN", 1.5)) == []


def test_read_pair_on_a_real_scene():
    """Forced four flat tokens (seed 303001, 640x480, read right as 3 red): the
    same frame under B with a round of five tokens is a reshake for 4 tokens,
    A is untouched, and the setting is back afterwards; B with a setting at its
    own value reads exactly as A."""
    row = ab_table.read_pair(303001, (640, 480), "outcome", [("vision.reader", "TOKENS_PER_ROUND", 5)])
    assert row["a"]["bucket"] == "right" and row["a"]["verdict"] == "outcome" and row["a"]["red"] == 3
    assert row["b"]["verdict"] == "reshake" and row["b"]["reason"] == "4 tokens on the plate, not 5"
    assert row["b"]["bucket"] == "other_wrong" and ab_table.changed(row)
    assert vision.reader.TOKENS_PER_ROUND == 4
    same = ab_table.read_pair(303001, (640, 480), "outcome", [("vision.plate", "WORK_LAST_SHRINK_MIN", 2.0)])
    assert same["a"] == same["b"] and not ab_table.changed(same)
    stats = ab_table.summary([row, same])
    assert stats["total"]["n"] == 2 and stats["total"]["right_a"] == 2 and stats["total"]["right_b"] == 1
    assert stats["total"]["changed"] == 1 and stats["outcome"]["wrong_b"] == 0
    assert ab_table.summary([]) == {}


def test_read_pair_renders_the_conditions_given():
    """``--condition`` specs reach the scene: a glaze set, as the label records it."""
    row = ab_table.read_pair(303001, (640, 480), "outcome", [("vision.plate", "WORK_LAST_SHRINK_MIN", 2.0)],
                             [("glaze", "celadon")])
    assert row["glaze"] == "celadon"
    plain = ab_table.read_pair(303001, (640, 480), "outcome", [("vision.plate", "WORK_LAST_SHRINK_MIN", 2.0)])
    assert plain["glaze"] != "celadon"


def test_cli_end_to_end(tmp_path):
    out_json = tmp_path / "ab.json"
    cmd = [sys.executable, str(ROOT / "scripts" / "ab_table.py"), "--seeds", "303001:303003", "--size", "640x480",
           "--kind", "outcome", "--workers", "1"]
    res = subprocess.run(cmd + ["--set", "vision.tokens.TOKENS_PER_ROUND=5", "--set", "vision.reader.TOKENS_PER_ROUND=5",
                                "--json", str(out_json)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "B: vision.tokens.TOKENS_PER_ROUND=5, vision.reader.TOKENS_PER_ROUND=5"
    assert lines[2].split() == ["outcome", "2", "2", "0", "0", "0", "2"]
    assert "303001 outcome cream: outcome 3 red (right) -> reshake (other_wrong)" in res.stdout
    rows = json.loads(out_json.read_text())["rows"]
    assert [r["seed"] for r in rows] == [303001, 303002]
    for bad in (["--set", "vision.plate.NOPE=1"], ["--set", "vision.plate.WORK_LAST_SHRINK_MIN=1", "--kind", "x"],
                ["--set", "vision.plate.WORK_LAST_SHRINK_MIN=1", "--seeds", "5:5"], []):
        r = subprocess.run(cmd[:2] + bad, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (bad, r.stderr)
