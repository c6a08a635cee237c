"""The SQLite settlement ledger: round life cycle, refusals, idempotency, audit, balance."""
from __future__ import annotations

import json
import sqlite3
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from settlement.errors import (
    BetRejected, InvalidArgument, LedgerConfigError, RecordError, RoundStateError, SignatureError,
    UnknownPlayer, UnknownRound,
)
from settlement.ledger import Ledger
from settlement.payouts import BET_TYPES, payout
from settlement.records import make_outcome_record
from settlement.signing import sign

KEY = b"test-key-0123456789abcdef"
D = Decimal


@pytest.fixture
def ledger(tmp_path):
    with Ledger(tmp_path / "ledger.db", table_min="1", table_max="500", hmac_key=KEY) as led:
        for p in ("alice", "bob", "chi"):
            led.add_player(p)
        yield led


def record(round_id, red, seq=1, **kw):
    return make_outcome_record(round_id, red, seq=seq, key=KEY, **kw)


def refusals(led, action):
    return [a for a in led.audit_log() if a["action"] == action and not a["ok"]]


def test_file_is_wal_and_settings_are_stored(tmp_path, ledger):
    con = sqlite3.connect(ledger.path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    again = Ledger(ledger.path)  # settings come from the file
    assert (again.minor_units, again.table_min, again.table_max) == (2, D("1.00"), D("500.00"))
    with pytest.raises(LedgerConfigError, match="minor units"):
        Ledger(ledger.path, currency_minor_units=0)
    with pytest.raises(LedgerConfigError, match="table_max"):
        Ledger(ledger.path, table_max="600")
    with pytest.raises(LedgerConfigError, match="table_min and table_max"):
        Ledger(tmp_path / "new.db")
    with pytest.raises(InvalidArgument, match="table_min"):
        Ledger(tmp_path / "new2.db", table_min="5", table_max="1")


def test_a_round_settles_every_bet_exactly(ledger):
    ledger.open_round("R1")
    bets = [("alice", "big", "10"), ("alice", "four_red", "2"), ("bob", "two_two", "3.33"), ("bob", "small", "7"),
            ("chi", "odd", "1.01"), ("chi", "four_same", "4")]
    for p, bt, stake in bets:
        assert ledger.place_bet("R1", p, bt, D(stake))["state"] == "confirmed"
    ledger.close_betting("R1")
    out = ledger.settle("R1", record("R1", 4))
    # By hand: big 10 -> 19.60; four_red 2 -> 30.00; two_two loses; small loses; odd loses; four_same 4 -> 30.00.
    assert out["state"] == "settled" and out["red"] == 4 and out["replay"] is False
    assert out["stakes"] == D("27.34") and out["refunds"] == D("0.00") and out["payouts"] == D("79.60")
    assert out["house"] == D("-52.26")
    got = {(b["player"], b["bet_type"]): (b["result"], b["payout"]) for b in ledger.bets("R1")}
    assert got == {
        ("alice", "big"): ("win", D("19.60")), ("alice", "four_red"): ("win", D("30.00")),
        ("bob", "two_two"): ("lose", D("0.00")), ("bob", "small"): ("lose", D("0.00")),
        ("chi", "odd"): ("lose", D("0.00")), ("chi", "four_same"): ("win", D("30.00")),
    }
    assert ledger.balance_check("R1")["balanced"]


def test_big_and_small_are_refunded_on_two_two(ledger):
    ledger.open_round("R1")
    ledger.place_bet("R1", "alice", "big", "10")
    ledger.place_bet("R1", "bob", "small", "20")
    ledger.place_bet("R1", "chi", "even", "5")
    ledger.close_betting("R1")
    out = ledger.settle("R1", record("R1", 2))
    assert (out["refunds"], out["payouts"], out["house"]) == (D("30.00"), D("9.80"), D("-4.80"))


def test_replaying_the_same_record_pays_nothing_more(ledger):
    ledger.open_round("R1")
    ledger.place_bet("R1", "alice", "big", "10")
    ledger.close_betting("R1")
    rec = record("R1", 3)
    first = ledger.settle("R1", rec)
    again = ledger.settle("R1", json.loads(json.dumps(rec)))  # same record, re-read from JSON
    assert again.pop("replay") is True and first.pop("replay") is False
    assert again == first
    assert [b["payout"] for b in ledger.history("alice")] == [D("19.60")]
    assert [a["action"] for a in ledger.audit_log("R1")].count("settle") == 1
    assert [a["action"] for a in ledger.audit_log("R1")].count("settle_replay") == 1
    with pytest.raises(RoundStateError, match="already settled by record seq 1 .*seq 2"):
        ledger.settle("R1", record("R1", 3, seq=2))
    with pytest.raises(RoundStateError, match="already settled"):
        ledger.settle("R1", record("R1", 0, seq=3))
    assert ledger.round("R1")["payouts"] == D("19.60")


@pytest.mark.parametrize(
    "tamper, exc, match",
    [
        (lambda r: dict(r, red=4, white=0), SignatureError, "signature does not verify"),
        (lambda r: dict(r, signature="0" * 64), SignatureError, "signature"),
        (lambda r: {k: v for k, v in r.items() if k != "signature"}, SignatureError, "signature"),
        (lambda r: sign({k: v for k, v in r.items()}, b"wrong-key-0123456789"), SignatureError, "signature"),
        (lambda r: sign(dict(r, round_id="R2"), KEY), RecordError, "not 'R1'"),
        (lambda r: sign(dict(r, white=3), KEY), RecordError, "white"),
        (lambda r: sign(dict(r, source="camera"), KEY), RecordError, "source"),
        (lambda r: "not a record", RecordError, "JSON object"),
    ],
)
def test_forged_or_altered_records_are_refused_and_audited(ledger, tamper, exc, match):
    ledger.open_round("R1")
    ledger.place_bet("R1", "alice", "four_red", "10")
    ledger.close_betting("R1")
    with pytest.raises(exc, match=match):
        ledger.settle("R1", tamper(record("R1", 0)))
    assert ledger.round("R1")["state"] == "closed"
    assert [b["state"] for b in ledger.bets("R1")] == ["confirmed"]
    (logged,) = refusals(ledger, "settle")
    assert logged["round_id"] == "R1" and logged["code"] == exc.code and match.split()[0] in logged["detail"]
    # the genuine record still settles afterwards
    assert ledger.settle("R1", record("R1", 0))["payouts"] == D("0.00")


def test_state_machine_refusals(ledger):
    ledger.open_round("R1")
    with pytest.raises(RoundStateError, match="already exists"):
        ledger.open_round("R1")
    with pytest.raises(RoundStateError, match="betting is still open"):
        ledger.settle("R1", record("R1", 1))
    ledger.place_bet("R1", "alice", "odd", "10")
    ledger.close_betting("R1")
    with pytest.raises(RoundStateError, match="betting is closed, bet refused"):
        ledger.place_bet("R1", "bob", "odd", "10")
    with pytest.raises(RoundStateError, match="only an open round"):
        ledger.close_betting("R1")
    ledger.settle("R1", record("R1", 1))
    with pytest.raises(RoundStateError, match="already settled .*cannot be voided"):
        ledger.void("R1", "no_shake")
    with pytest.raises(RoundStateError, match="already settled"):
        ledger.cancel("R1", "camera fault")

    ledger.open_round("R2")
    ledger.place_bet("R2", "alice", "even", "10")
    ledger.void("R2", "bowl_touched_token", note="dealer's sleeve")
    with pytest.raises(RoundStateError, match="void .*cannot be settled"):
        ledger.settle("R2", record("R2", 2))
    with pytest.raises(RoundStateError, match="already void"):
        ledger.void("R2", "no_shake")
    with pytest.raises(UnknownRound, match="'R9'"):
        ledger.close_betting("R9")
    with pytest.raises(InvalidArgument, match="rule sheet"):
        ledger.void("R1", "dealer sneezed")
    assert {a["action"] for a in ledger.audit_log() if not a["ok"]} >= {"settle", "void", "cancel", "place_bet"}


def test_bet_validation(ledger):
    ledger.open_round("R1")
    with pytest.raises(BetRejected, match="unknown bet type 'triple'"):
        ledger.place_bet("R1", "alice", "triple", "10")
    with pytest.raises(BetRejected, match="outside the table limits 1.00-500.00"):
        ledger.place_bet("R1", "alice", "odd", "0.99")
    with pytest.raises(BetRejected, match="outside"):
        ledger.place_bet("R1", "alice", "odd", "500.01")
    with pytest.raises(BetRejected, match="outside"):
        ledger.place_bet("R1", "alice", "odd", "-5")
    with pytest.raises(BetRejected, match="never float"):
        ledger.place_bet("R1", "alice", "odd", 10.0)
    with pytest.raises(BetRejected, match="minor units"):
        ledger.place_bet("R1", "alice", "odd", "10.001")
    with pytest.raises(UnknownPlayer, match="'dave'"):
        ledger.place_bet("R1", "dave", "odd", "10")
    with pytest.raises(UnknownRound, match="'R2'"):
        ledger.place_bet("R2", "alice", "odd", "10")
    assert ledger.place_bet("R1", "alice", "odd", "500")["stake"] == D("500.00")
    assert ledger.place_bet("R1", "alice", "odd", 1)["stake"] == D("1.00")
    assert len(ledger.bets("R1")) == 2
    assert len(refusals(ledger, "place_bet")) == 8


def test_client_ref_makes_a_retry_safe(ledger):
    ledger.open_round("R1")
    a = ledger.place_bet("R1", "alice", "big", "10", ref="c-1")
    b = ledger.place_bet("R1", "alice", "big", "10.00", ref="c-1")
    assert (a["replay"], b["replay"], a["bet_id"]) == (False, True, b["bet_id"])
    with pytest.raises(BetRejected, match="already used"):
        ledger.place_bet("R1", "alice", "small", "10", ref="c-1")
    ledger.close_betting("R1")
    # a retry that arrives after betting closed still answers with the confirmed bet
    assert ledger.place_bet("R1", "alice", "big", "10", ref="c-1")["bet_id"] == a["bet_id"]
    assert len(ledger.bets("R1")) == 1


def test_fault_pauses_then_cancel_refunds_everything(ledger):
    ledger.open_round("R1")
    ledger.place_bet("R1", "alice", "four_white", "10")
    ledger.place_bet("R1", "bob", "big", "25.50")
    ledger.pause("R1", "shaker motor stuck")
    with pytest.raises(RoundStateError, match="paused"):
        ledger.place_bet("R1", "chi", "odd", "5")
    with pytest.raises(RoundStateError, match="paused"):
        ledger.close_betting("R1")
    ledger.resume("R1")
    ledger.place_bet("R1", "chi", "odd", "5")
    ledger.close_betting("R1")
    ledger.pause("R1", "camera lost")
    with pytest.raises(RoundStateError, match="paused"):
        ledger.settle("R1", record("R1", 0))
    out = ledger.cancel("R1", "camera lost, not fixed within 2 minutes")
    assert (out["state"], out["stakes"], out["refunds"], out["payouts"], out["house"]) == (
        "cancelled", D("40.50"), D("40.50"), D("0.00"), D("0.00"))
    assert {(b["state"], b["result"], b["payout"] == b["stake"]) for b in ledger.bets("R1")} == {
        ("refunded", "refund", True)}


def test_disconnected_player_bets_stand_and_show_in_history(tmp_path):
    path = tmp_path / "l.db"
    # The player's session: registers, bets, disconnects (connection closed for good).
    session = Ledger(path, table_min="1", table_max="100", hmac_key=KEY)
    session.add_player("alice")
    session.open_round("R1")
    session.open_round("R2")
    session.place_bet("R1", "alice", "three_red", "10")
    session.place_bet("R2", "alice", "odd", "10")
    session.close()
    # The table carries on without her.
    table = Ledger(path, hmac_key=KEY)
    table.close_betting("R1")
    table.settle("R1", record("R1", 3))
    table.void("R2", "early_lift")
    hist = table.history("alice")
    assert [(h["round_id"], h["bet_type"], h["stake"], h["outcome"], h["result"], h["payout"], h["state"])
            for h in hist] == [
        ("R1", "three_red", D("10.00"), "3 red 1 white", "win", D("38.00"), "settled"),
        ("R2", "odd", D("10.00"), "void: early_lift", "refund", D("10.00"), "refunded"),
    ]
    with pytest.raises(UnknownPlayer):
        table.history("nobody")


# ---------------------------------------------------------------- property: the ledger balances
bet_st = st.tuples(st.sampled_from(["alice", "bob", "chi"]), st.sampled_from(list(BET_TYPES)),
                   st.integers(100, 50_000))  # stake in minor units, within 1.00 .. 500.00
round_st = st.tuples(st.lists(bet_st, max_size=12),
                     st.one_of(st.integers(0, 4), st.sampled_from(["void", "cancel"])))


@settings(derandomize=True, max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(round_st, min_size=1, max_size=4))
def test_property_ledger_balances_for_random_rounds_voids_and_cancels(rounds):
    with tempfile.TemporaryDirectory() as d:
        led = Ledger(Path(d) / "l.db", table_min="1", table_max="500", hmac_key=KEY)
        for p in ("alice", "bob", "chi"):
            led.add_player(p)
        grand_in = grand_out = D(0)
        for i, (bets, end) in enumerate(rounds):
            rid = f"R{i}"
            led.open_round(rid)
            stakes_in = D(0)
            expected_back = D(0)
            for player, bt, minor in bets:
                stake = D(minor).scaleb(-2)
                led.place_bet(rid, player, bt, stake)
                stakes_in += stake
                if isinstance(end, int):
                    expected_back += payout(bt, end, stake)[1]
                else:
                    expected_back += stake
            if end == "void":
                out = led.void(rid, "no_shake")
            elif end == "cancel":
                out = led.cancel(rid, "fault")
            else:
                led.close_betting(rid)
                out = led.settle(rid, record(rid, end, seq=i))
            assert out["stakes"] == stakes_in
            assert out["stakes"] == out["refunds"] + out["payouts"] + out["house"]
            assert out["refunds"] + out["payouts"] == expected_back
            check = led.balance_check(rid)
            assert check["balanced"], check["problems"]
            grand_in += stakes_in
            grand_out += expected_back
        paid = sum((h["payout"] for p in ("alice", "bob", "chi") for h in led.history(p)), D(0))
        assert paid == grand_out
        led.close()


def test_balance_check_detects_tampering(ledger):
    ledger.open_round("R1")
    ledger.place_bet("R1", "alice", "odd", "10")
    ledger.close_betting("R1")
    ledger.settle("R1", record("R1", 1))
    con = sqlite3.connect(ledger.path)
    con.execute("UPDATE bets SET returned_minor = returned_minor + 100")
    con.commit()
    con.close()
    check = ledger.balance_check("R1")
    assert not check["balanced"] and any("bet 1" in p for p in check["problems"])
