"""``xocdia settle``, its JSON-lines service, and ``xocdia rtp``."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from settlement.ledger import Ledger
from settlement.records import make_outcome_record
from settlement.rtp import exact_rtp, outcome_weights, unit_return
from vision.cli import main

KEY = b"cli-test-key-0123456789"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.delenv("XOCDIA_HMAC_KEY", raising=False)
    monkeypatch.delenv("XOCDIA_LEDGER", raising=False)
    key_file = tmp_path / "hmac.key"
    key_file.write_bytes(KEY + b"\n")
    return tmp_path / "ledger.db", key_file


def xocdia(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() and code == 0 else out), err


def test_cli_round_trip(env, capsys, tmp_path):
    db, key_file = env
    db = str(db)
    code, _, err = xocdia(capsys, "settle", "--db", db, "open-round", "R1")
    assert code == 1 and "table_min and table_max" in err
    assert xocdia(capsys, "settle", "--db", db, "--table-min", "1", "--table-max", "100", "add-player", "alice")[0] == 0
    assert xocdia(capsys, "settle", "--db", db, "open-round", "R1")[1]["state"] == "open"
    code, bet, _ = xocdia(capsys, "settle", "--db", db, "place-bet", "R1", "alice", "big", "10.50")
    assert code == 0 and bet["stake"] == "10.50" and bet["state"] == "confirmed"
    code, _, err = xocdia(capsys, "settle", "--db", db, "place-bet", "R1", "alice", "big", "1000")
    assert code == 1 and err.startswith("xocdia settle: bet_rejected: ") and "outside the table limits" in err
    assert xocdia(capsys, "settle", "--db", db, "close", "R1")[1]["state"] == "closed"

    rec_path = tmp_path / "R1.json"
    rec_path.write_text(json.dumps(make_outcome_record("R1", 3, seq=1, key=KEY)))
    code, _, err = xocdia(capsys, "settle", "--db", db, "settle", "R1", str(rec_path))
    assert code == 1 and "XOCDIA_HMAC_KEY" in err  # no key given
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(dict(json.loads(rec_path.read_text()), red=4, white=0)))
    code, _, err = xocdia(capsys, "settle", "--db", db, "settle", "R1", str(forged), "--key-file", str(key_file))
    assert code == 1 and "signature:" in err
    code, out, _ = xocdia(capsys, "settle", "--db", db, "settle", "R1", str(rec_path), "--key-file", str(key_file))
    assert code == 0 and out["payouts"] == "20.58" and out["house"] == "-10.08" and out["replay"] is False
    code, out, _ = xocdia(capsys, "settle", "--db", db, "--key-file", str(key_file), "settle", "R1", str(rec_path))
    assert code == 0 and out["replay"] is True and out["payouts"] == "20.58"
    code, hist, _ = xocdia(capsys, "settle", "--db", db, "history", "alice")
    assert [(h["round_id"], h["bet_type"], h["stake"], h["result"], h["payout"]) for h in hist] == [
        ("R1", "big", "10.50", "win", "20.58")]
    code, audit, _ = xocdia(capsys, "settle", "--db", db, "audit", "R1")
    assert [(a["action"], a["ok"], a["code"]) for a in audit if not a["ok"]] == [
        ("place_bet", False, "bet_rejected"), ("settle", False, "signature")]
    assert xocdia(capsys, "settle", "--db", db, "balance", "R1")[1]["balanced"] is True

    assert xocdia(capsys, "settle", "--db", db, "open-round", "R2")[0] == 0
    code, out, _ = xocdia(capsys, "settle", "--db", db, "void", "R2", "no_shake", "--note", "dealer forgot")
    assert out["state"] == "void" and out["reason"] == "no_shake: dealer forgot"
    code, _, err = xocdia(capsys, "settle", "--db", db, "cancel", "R2", "fault")
    assert code == 1 and "round_state" in err and "already void" in err
    with pytest.raises(SystemExit):  # argparse: not a rule-sheet reason
        main(["settle", "--db", db, "void", "R2", "because"])
    assert main(["settle", "--db", db]) == 2


def serve(db, key_file, requests):
    lines = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in requests) + "\n"
    proc = subprocess.run([sys.executable, "-m", "vision", "settle", "--db", str(db), "--table-min", "1",
                           "--table-max", "100", "serve", "--key-file", str(key_file)],
                          input=lines, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_json_lines_service(env):
    db, key_file = env
    rec = make_outcome_record("R1", 0, seq=9, key=KEY)
    responses = serve(db, key_file, [
        {"id": 1, "op": "add_player", "player": "bob"},
        {"id": 2, "op": "open_round", "round_id": "R1"},
        {"id": 3, "op": "place_bet", "round_id": "R1", "player": "bob", "bet_type": "four_white", "stake": "2.00"},
        {"id": 4, "op": "place_bet", "round_id": "R1", "player": "bob", "bet_type": "small", "stake": 2.5},
        {"id": 5, "op": "place_bet", "round_id": "R1", "player": "bob", "bet_type": "small", "stake": 3},
        "this is not json",
        {"id": 6, "op": "fly"},
        {"id": 7, "op": "close_betting"},
        {"id": 8, "op": "close_betting", "round_id": "R1"},
        {"id": 9, "op": "settle", "round_id": "R1", "record": dict(rec, red=1, white=3)},
        {"id": 10, "op": "settle", "round_id": "R1", "record": rec},
        {"id": 11, "op": "history", "player": "bob"},
        {"id": 12, "op": "void", "round_id": "R1", "reason": "no_shake"},
        {"id": 13, "op": "history", "player": "nobody"},
    ])
    assert len(responses) == 14
    by_id = {r.get("id"): r for r in responses}
    assert by_id[3]["ok"] and by_id[3]["result"]["stake"] == "2.00"
    assert by_id[4]["error"]["code"] == "bet_rejected" and "float" in by_id[4]["error"]["message"]
    assert by_id[5]["ok"] and by_id[5]["result"]["stake"] == "3.00"
    assert responses[5] == {"ok": False, "error": {"code": "bad_json", "message": responses[5]["error"]["message"]}}
    assert by_id[6]["error"]["code"] == "unknown_op"
    assert by_id[7]["error"] == {"code": "bad_request", "message": "op 'close_betting': missing round_id"}
    assert by_id[9]["error"]["code"] == "signature"
    assert by_id[10]["ok"] and by_id[10]["result"]["payouts"] == "35.88"  # 2 x (1 + 14) + 3 x 1.96
    assert [(h["bet_type"], h["result"], h["payout"]) for h in by_id[11]["result"]] == [
        ("four_white", "win", "30.00"), ("small", "win", "5.88")]
    assert by_id[12]["error"]["code"] == "round_state"
    assert by_id[13]["error"]["code"] == "unknown_player"
    with Ledger(db) as led:  # the service wrote to the same ledger file
        assert led.round("R1")["payouts"] == Decimal("35.88")


def test_rtp_command_prints_exact_table_and_seeded_simulation(capsys):
    assert main(["rtp"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:11]}
    assert list(rows) == ["four_red", "three_red", "two_two", "three_white", "four_white", "four_same", "odd", "even",
                          "big", "small"]
    assert rows["big"][4:6] == ["79/80", "98.75"] and rows["small"][4:6] == ["79/80", "98.75"]
    assert rows["odd"][4:6] == ["49/50", "98.00"] and rows["three_red"][4:6] == ["19/20", "95.00"]
    assert rows["four_red"][4:6] == ["15/16", "93.75"]
    assert "highest RTP 98.75 % (big, small)" in out
    assert main(["rtp", "--simulate", "50000", "--seed", "3", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["rtp", "--simulate", "50000", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    sims = {r["bet_type"]: (Decimal(r["rtp_percent"]), Decimal(r["simulated_percent"])) for r in first["bet_types"]}
    assert first["simulation"] == {"rounds": 50000, "seed": 3}
    for name, (exact, sim) in sims.items():
        # 5 standard errors of the mean return per unit staked over 50,000 rounds, in percentage points
        mean = exact_rtp(name)
        var = sum(w * (unit_return(name, r) - mean) ** 2 for r, w in outcome_weights().items()) / 16
        assert abs(exact - sim) < 5 * 100 * math.sqrt(var / 50000), name
    assert main(["rtp", "--simulate", "0"]) == 2
