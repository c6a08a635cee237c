"""Settlement applies what the reader side delivers: outcome records and the console's void messages."""
from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal

import pytest

from settlement import Ledger, RecordError, RoundStateError, SignatureError, make_outcome_record
from settlement.messages import apply_message, void_call
from settlement.signing import sign
from vision.console_actions import make_void_message

KEY = b"k" * 32


@pytest.fixture
def ledger(tmp_path):
    led = Ledger(tmp_path / "l.db", table_min=Decimal("1"), table_max=Decimal("100"), hmac_key=KEY)
    led.add_player("p1")
    for rid in ("R1", "R2", "R3"):
        led.open_round(rid)
        led.place_bet(rid, "p1", "big", Decimal("10"))
        led.close_betting(rid)
    yield led
    led.close()


@pytest.mark.parametrize("reason, expected", [
    ("no_shake", ("void", "no_shake", "manual void by ann")),
    ("layout_unchanged: same as R0", ("void", "layout_unchanged", "manual void by ann: same as R0")),
    ("camera fell over", ("cancel", "manual void by ann: camera fell over", None)),
])
def test_void_call_known_values(reason, expected):
    assert void_call(reason, "ann") == expected


def test_reader_void_is_not_worded_as_manual(ledger):
    assert void_call("early_lift", "reader", "reader") == ("void", "early_lift", "void by the reader")
    assert void_call("reveal_not_seen", "reader", "reader") == ("cancel", "void by the reader: reveal_not_seen", None)
    msg = make_void_message("R1", "early_lift", by="reader", seq=1, key=KEY, source="reader")
    assert apply_message(ledger, msg)["reason"] == "early_lift: void by the reader"


def test_void_call_bad_arguments():
    with pytest.raises(ValueError, match="source"):
        void_call("no_shake", "ann", "robot")
    with pytest.raises(TypeError, match="reason"):
        void_call(None, "ann")


def test_void_message_voids_and_refunds_once(ledger):
    msg = make_void_message("R1", "no_shake", by="ann", seq=1, key=KEY)
    out = apply_message(ledger, msg)
    assert out["state"] == "void" and out["refunds"] == Decimal("10.00") and out["payouts"] == Decimal("0.00")
    assert [(b["state"], b["payout"]) for b in ledger.bets("R1")] == [("refunded", Decimal("10.00"))]
    again = apply_message(ledger, msg)  # redelivered: the same result, nothing refunded twice
    assert again["replay"] is True and again["state"] == "void" and out["replay"] is False
    assert ledger.round("R1")["refunds"] == Decimal("10.00")
    other = make_void_message("R1", "early_lift", by="bob", seq=3, key=KEY)
    with pytest.raises(RoundStateError, match="already void"):
        apply_message(ledger, other)  # a different void of a finished round is refused


def test_other_reason_cancels(ledger):
    assert apply_message(ledger, make_void_message("R2", "tokens unreadable", by="ann", seq=2, key=KEY))["state"] \
        == "cancelled"


def test_forged_or_altered_void_is_refused_and_audited(ledger):
    forged = make_void_message("R1", "no_shake", by="ann", seq=1, key=b"x" * 32)
    with pytest.raises(SignatureError):
        apply_message(ledger, forged)
    altered = make_void_message("R1", "no_shake", by="ann", seq=1, key=KEY)
    altered["round_id"] = "R2"
    with pytest.raises(SignatureError):
        apply_message(ledger, altered)
    # signed with the right key but a ledger call that does not match its reason
    sneaky = make_void_message("R1", "camera fault", by="ann", seq=1, key=None)
    sneaky.update(ledger_op="void", ledger_reason="no_shake", note=None)
    with pytest.raises(RecordError, match="does not match"):
        apply_message(ledger, sign(sneaky, KEY))
    assert ledger.round("R1")["state"] == "closed" and ledger.round("R2")["state"] == "closed"
    refusals = [a for a in ledger.audit_log() if a["action"] == "apply_message" and not a["ok"]]
    assert len(refusals) == 3


def test_outcome_record_is_settled_through_apply(ledger):
    rec = make_outcome_record(round_id="R3", red=3, tokens=[], confidence=1.0, reveal_sha256=[], evidence=None,
                              profile_sha256=None, seq=1, source="manual", by="ann", key=KEY)
    assert apply_message(ledger, rec)["state"] == "settled"


def test_unknown_message_type_is_refused(ledger):
    with pytest.raises(RecordError, match="type"):
        apply_message(ledger, {"type": "bonus", "round_id": "R1"})


def test_cli_and_service_apply(ledger, tmp_path):
    ledger.close()
    keyf = tmp_path / "key"
    keyf.write_bytes(KEY)
    msgf = tmp_path / "m.json"
    msgf.write_text(json.dumps(make_void_message("R1", "early_lift", by="ann", seq=1, key=KEY)))
    cli = [sys.executable, "-m", "vision", "settle", "--db", str(tmp_path / "l.db")]
    out = subprocess.run(cli + ["apply", str(msgf), "--key-file", str(keyf)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["state"] == "void"
    req = {"id": 1, "op": "apply", "message": make_void_message("R2", "x", by="ann", seq=2, key=KEY)}
    out = subprocess.run(cli + ["--key-file", str(keyf), "serve"], input=json.dumps(req) + "\n",
                         capture_output=True, text=True)
    resp = json.loads(out.stdout.splitlines()[0])
    assert resp["ok"] is True and resp["result"]["state"] == "cancelled", resp
