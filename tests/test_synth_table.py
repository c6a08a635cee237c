"""scripts/synth_table.py: the per-condition and per-reason tables, and the CLI on real scenes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import synth_table  # noqa: E402
from vision.synth import render_scene  # noqa: E402


def _row(right: bool, wrong: bool = False, reason: str = "", verdict: str = "uncertain", **cond) -> dict:
    return {"kind": "outcome", "right": right, "wrong": wrong, "uncertain": verdict == "uncertain", "seed": 0,
            "verdict": verdict, "reason": reason, "conditions": cond}


def test_numeric_condition_in_bins_of_equal_count():
    rows = [_row(right=v >= 5, exposure_stops=float(v)) for v in range(10)]
    got = synth_table.condition_table(rows, "exposure_stops")
    assert [n for _, n, _, _ in got] == [2, 2, 2, 2, 2]
    assert [right for _, _, right, _ in got] == [0, 0, 1, 2, 2]
    assert got[0][0] == "[0, 2)" and got[-1][0] == "[8, 9]"


def test_categorical_condition_and_none():
    rows = [_row(True, glaze="gold"), _row(False, glaze="gold"), _row(True, wrong=False, glaze="celadon"),
            _row(False, wrong=True, glaze=None)]
    got = synth_table.condition_table(rows, "glaze")
    assert got == [("celadon", 1, 1, 0), ("gold", 2, 1, 0), ("none", 1, 0, 1)]


def test_numeric_with_none_keeps_none_apart():
    rows = [_row(True, jpeg_quality=q) for q in range(40, 100, 5)] + [_row(False, jpeg_quality=None)]
    got = synth_table.condition_table(rows, "jpeg_quality")
    assert got[-1] == ("none", 1, 0, 0)
    assert sum(n for _, n, _, _ in got) == len(rows)


def test_unknown_condition():
    with pytest.raises(ValueError, match="by: expected one of"):
        synth_table.condition_table([_row(True, glaze="gold")], "nothing")
    with pytest.raises(ValueError):
        synth_table.condition_table([], "glaze")


def test_reasons_counted_with_numbers_as_hash():
    rows = [_row(False, reason="3 tokens on the plate, not 4", verdict="reshake"),
            _row(False, reason="5 tokens on the plate, not 4", verdict="reshake"),
            _row(False, reason="contrast 4.6 Lab units"),
            _row(True, reason="four flat tokens", verdict="outcome")]
    assert synth_table.reason_table(rows, 5) == [(2, "reshake: # tokens on the plate, not #"),
                                                 (1, "uncertain: contrast # Lab units")]
    assert synth_table.reason_table(rows, 1) == [(2, "reshake: # tokens on the plate, not #")]
    assert synth_table.reason_table([], 3) == []


def test_cli_on_real_scenes():
    """Three forced four-flat scenes at 640x480, end to end: the table, the
    condition table and the reasons; a bad --kind or --by is a usage error."""
    cmd = [sys.executable, str(ROOT / "scripts" / "synth_table.py"), "--seeds", "303000:303003", "--size",
           "640x480", "--workers", "1"]
    out = subprocess.run(cmd + ["--kind", "outcome", "--by", "glaze", "--reasons", "3"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].split()[:2] == ["outcome", "3"]
    assert any(line.startswith("glaze") for line in lines)
    assert "not right, by reason:" in out.stdout or lines[1].split()[2] == "3"
    for bad in (["--kind", "bogus"], ["--by", "nothing"]):
        res = subprocess.run(cmd + bad, capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and "expected one of" in res.stderr


@pytest.mark.parametrize("text, want", [
    ("exposure_stops=2.5", ("exposure_stops", 2.5)),
    ("glaze=black_lacquer", ("glaze", "black_lacquer")),
    ("exposure_stops=1.5:4", ("exposure_stops", (1.5, 4.0))),
    ("glaze=gold,celadon", ("glaze", ["gold", "celadon"])),
    ("kelvin=2700,3000", ("kelvin", [2700.0, 3000.0])),
])
def test_parse_condition(text, want):
    assert synth_table.parse_condition(text) == want


def test_integer_conditions_stay_ints():
    """jpeg_quality must be an int for the synthesizer; a float is refused."""
    key, spec = synth_table.parse_condition("jpeg_quality=20,40")
    assert key == "jpeg_quality" and spec == [20, 40] and all(type(v) is int for v in spec)
    assert type(synth_table.parse_condition("jpeg_quality=35")[1]) is int
    assert type(synth_table.parse_condition("exposure_stops=1.0")[1]) is float
    cond = synth_table.draw_conditions(3, [(key, spec)])
    scene = render_scene(3, "outcome", size=(160, 120), conditions=cond)
    assert scene.label["conditions"]["jpeg_quality"] in (20, 40) and scene.jpeg_bytes is not None


@pytest.mark.parametrize("text", ["exposure_stops", "=1", "glaze=", "kelvin=3000:2700", "kelvin=a:b",
                                  "kelvin=1:2:3", "glaze=gold,"])
def test_parse_condition_bad_input(text):
    with pytest.raises(ValueError, match="--condition"):
        synth_table.parse_condition(text)


def test_drawn_conditions_follow_the_seed():
    specs = [synth_table.parse_condition(t) for t in ("exposure_stops=1.5:4", "glaze=gold,celadon", "kelvin=3000")]
    a, b = synth_table.draw_conditions(7, specs), synth_table.draw_conditions(7, specs)
    assert a == b and a["kelvin"] == 3000.0 and a["glaze"] in ("gold", "celadon")
    assert 1.5 <= a["exposure_stops"] < 4.0
    drawn = {synth_table.draw_conditions(s, specs)["exposure_stops"] for s in range(20)}
    assert len(drawn) == 20 and min(drawn) >= 1.5 and max(drawn) < 4.0
    assert synth_table.draw_conditions(7, []) is None


def test_cli_conditions_reach_the_scenes(tmp_path):
    """Two scenes with the glaze set end to end: --by glaze shows only it, and
    --json holds each scene's row (its conditions and label as drawn, the
    verdict counted right only when it is the label's); a bad key or value is
    a usage error naming --condition, and a --json path that cannot be written
    one naming --json, before any scene is read."""
    cmd = [sys.executable, str(ROOT / "scripts" / "synth_table.py"), "--seeds", "303000:303002", "--size",
           "640x480", "--workers", "1", "--kind", "outcome"]
    dump = tmp_path / "rows.jsonl"
    out = subprocess.run(cmd + ["--condition", "glaze=celadon", "--by", "glaze", "--json", str(dump)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()]
    by = rows[[r[:1] for r in rows].index(["glaze"]) + 1:]
    assert by and by[0][:2] == ["celadon", "2"]
    scenes = [json.loads(line) for line in dump.read_text().splitlines()]
    assert [s["seed"] for s in scenes] == [303000, 303001]
    for s in scenes:
        assert s["conditions"]["glaze"] == "celadon" and s["kind"] == "outcome" and s["label_verdict"] == "outcome"
        assert s["right"] == (s["verdict"] == "outcome" and s["red"] == s["label_red"])
    assert int(by[0][2]) == sum(s["right"] for s in scenes)
    for bad in (["--condition", "nothing=1"], ["--condition", "glaze=tin"], ["--condition", "kelvin=3:1"],
                ["--json", str(tmp_path / "no-such-folder" / "rows.jsonl")]):
        res = subprocess.run(cmd + bad, capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and bad[0] in res.stderr, res.stderr


def test_cli_with_a_painted_plate_and_two_workers(tmp_path):
    """A painted plate (``plate_decor``, whose painting runs OpenCV in the
    parent's check render) with two forked workers: the run ends (a worker
    forked after OpenCV's thread pool started in the parent could hang) and
    every scene carries its decoration."""
    dump = tmp_path / "rows.jsonl"
    cmd = [sys.executable, str(ROOT / "scripts" / "synth_table.py"), "--seeds", "303000:303004", "--size",
           "320x240", "--workers", "2", "--kind", "outcome", "--condition", "plate_decor=rings,motif",
           "--by", "plate_decor", "--json", str(dump)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    scenes = [json.loads(line) for line in dump.read_text().splitlines()]
    assert [s["seed"] for s in scenes] == [303000, 303001, 303002, 303003]
    assert all(s["conditions"]["plate_decor"] in ("rings", "motif") for s in scenes)


def test_cli_places_the_fifth_token(tmp_path):
    """``--condition fifth_place=...`` reaches five_tokens scenes (each row
    carries the placement and its measured gap); on a kind without a fifth
    token it is a usage error naming fifth_place, before any scene is read."""
    dump = tmp_path / "rows.jsonl"
    cmd = [sys.executable, str(ROOT / "scripts" / "synth_table.py"), "--seeds", "303000:303003", "--size",
           "320x240", "--workers", "1", "--condition", "fifth_place=touching,wall"]
    out = subprocess.run(cmd + ["--kind", "five_tokens", "--by", "fifth_place", "--json", str(dump)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr  # 1 only on a wrong outcome, which the row would show
    scenes = [json.loads(line) for line in dump.read_text().splitlines()]
    assert [s["seed"] for s in scenes] == [303000, 303001, 303002]
    for s in scenes:
        c = s["conditions"]
        assert c["fifth_place"] in ("touching", "wall") and s["label_verdict"] == "reshake"
        assert c["fifth_gap_radii"] >= 2.0 - 1e-3
    assert out.returncode == int(any(s["wrong"] for s in scenes))
    res = subprocess.run(cmd + ["--kind", "outcome"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "fifth_place" in res.stderr, res.stderr
