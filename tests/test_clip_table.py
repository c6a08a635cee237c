"""scripts/clip_table.py: the round monitor's per-variant table on synthesized clips.

The smoke run uses clips the monitor tests know (480x270, 12.5 fps): ``normal``
seed 5 is read as an outcome, ``no_shake`` seed 4 is void (no_shake); the
table's rows are checked against the clips' own labels, not against numbers.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "clip_table.py"
sys.path.insert(0, str(ROOT / "scripts"))

import clip_table  # noqa: E402
from vision.synth_clip import render_clip  # noqa: E402


def run(*args, timeout=300):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)


def table_rows(stdout: str) -> dict[str, list[int]]:
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 7 and parts[1].isdigit():
            rows[parts[0]] = [int(parts[i]) for i in (1, 2, 4, 5, 6)]  # n, right, wrong, abstained, other
    return rows


def test_smoke_table_matches_the_clips(tmp_path):
    out = tmp_path / "clips.jsonl"
    p = run("--seeds", "4:6", "--variants", "normal,no_shake", "--fps", "12.5", "--size", "480x270",
            "--workers", "2", "--json", str(out))
    assert p.returncode in (0, 1), p.stderr
    lines = [json.loads(s) for s in out.read_text().splitlines()]
    assert [(r["seed"], r["variant"]) for r in lines] == [(4, "normal"), (4, "no_shake"), (5, "normal"),
                                                          (5, "no_shake")]
    counts: dict[str, list[int]] = {}
    for r in lines:
        label = render_clip(r["seed"], r["variant"], fps=12.5, size=(480, 270)).label
        assert [t["expected"] for t in r["truth"]] == [k["expected"] for k in label["rounds"]]
        assert [t["red"] for t in r["truth"]] == [k["red"] for k in label["rounds"]]
        for truth, evs, res in zip(r["truth"], r["events"], r["results"]):
            outcomes = [e for e in evs if e["event"] == "outcome"]
            if any(e["red"] != truth["red"] or truth["expected"] != "outcome" for e in outcomes):
                assert res == "wrong"
            elif evs and evs[-1]["event"] == truth["expected"] == "outcome":
                assert res == "right" and evs[-1]["red"] == truth["red"]
            elif not evs or evs[-1]["event"] == "uncertain":
                assert res == "abstained"
            c = counts.setdefault(r["variant"], [0] * 5)
            c[0] += 1
            c[1 + ["right", "wrong", "abstained", "other"].index(res)] += 1
    # the clips the monitor tests read: seed 5's outcome (its label's red), seed 4's no-shake void
    by = {(r["seed"], r["variant"]): r for r in lines}
    assert by[(5, "normal")]["results"] == ["right"]
    assert by[(5, "normal")]["events"][0][-1]["red"] == by[(5, "normal")]["truth"][0]["red"]
    assert by[(4, "no_shake")]["results"] == ["right"]
    assert by[(4, "no_shake")]["events"][0][-1]["code"] == "no_shake"
    # the printed table is the sum of the clips, and the exit code follows the wrong column
    rows = table_rows(p.stdout)
    assert {v: rows[v] for v in counts} == counts
    assert rows["total"] == [sum(c[i] for c in counts.values()) for i in range(5)]
    assert p.returncode == (1 if rows["total"][2] else 0)
    assert "seeds 4:6, 480x270, 12.5 fps" in p.stdout


def ev(event, **kw):
    return {"event": event, "round_id": kw.pop("rid", "T1-000001"), "frame": 0, "t": kw.pop("t", 5.0),
            "reason": "r", **kw}


@pytest.mark.parametrize("truth, events, want", [
    ({"expected": "outcome", "red": 2}, [ev("outcome", red=2)], "right"),
    ({"expected": "outcome", "red": 2}, [ev("outcome", red=3)], "wrong"),
    ({"expected": "void", "red": 2, "code": "no_shake"}, [ev("outcome", red=2)], "wrong"),  # a missed void
    ({"expected": "reshake", "red": None}, [ev("outcome", red=1)], "wrong"),
    ({"expected": "void", "red": 2, "code": "no_shake"}, [ev("outcome", red=2), ev("void", code="no_shake")],
     "wrong"),  # delivered before the void
    ({"expected": "outcome", "red": 2}, [ev("rearrange"), ev("outcome", red=2)], "right"),
    ({"expected": "outcome", "red": 2}, [ev("rearrange")], "other"),
    ({"expected": "outcome", "red": 2}, [ev("uncertain")], "abstained"),
    ({"expected": "outcome", "red": 2}, [], "abstained"),
    ({"expected": "outcome", "red": 2}, [ev("void", code="no_shake")], "other"),
    ({"expected": "void", "red": 2, "code": "no_shake"}, [ev("void", code="no_shake")], "right"),
    ({"expected": "void", "red": 2, "code": "reveal_not_seen"}, [ev("void", code="no_shake")], "other"),
    ({"expected": "reshake", "red": None}, [ev("reshake")], "right"),
])
def test_classify(truth, events, want):
    assert clip_table.classify(truth, events) == want


def test_events_go_to_the_round_their_id_began_in():
    label = {"rounds": [{}, {}], "phases": [{"phase": "idle", "t_start": 0.0, "round": 0},
                                            {"phase": "revealed", "t_start": 3.0, "round": 0},
                                            {"phase": "idle", "t_start": 4.0, "round": 1}]}
    events = [ev("round_started", rid="A", t=1.0), ev("uncertain", rid="A", t=4.5),  # A's timeout in round 1's idle
              ev("round_started", rid="B", t=4.6), ev("void", rid="B", t=6.0, code="layout_unchanged")]
    split = clip_table.split_rounds(events, label)
    assert [[e["event"] for e in evs] for evs in split] == [["uncertain"], ["void"]]


@pytest.mark.parametrize("args, name", [
    (["--seeds", "5"], "--seeds"),
    (["--seeds", "9:3"], "--seeds"),
    (["--seeds", "a:b"], "--seeds"),
    (["--seeds", "0:1", "--variants", "normal,bogus"], "--variants"),
    (["--seeds", "0:1", "--size", "10x10"], "--size"),
    (["--seeds", "0:1", "--size", "big"], "--size"),
    (["--seeds", "0:1", "--fps", "0"], "--fps"),
    (["--seeds", "0:1", "--workers", "0"], "--workers"),
    (["--seeds", "0:1", "--json", "/nonexistent/dir/x.jsonl"], "--json"),
])
def test_bad_arguments_exit_2_naming_the_argument(args, name):
    p = run(*args, timeout=60)
    assert p.returncode == 2
    assert name in p.stderr and "Traceback" not in p.stderr
    assert "bogus" in p.stderr if "normal,bogus" in args else True
