"""Tampered outcome records, from the outside: every one is refused by
Ledger.settle, nothing is paid, and the refusal is in the audit log.

A record is built the way the reader's side builds it (make_outcome_record,
signed), then altered as an attacker or a corrupted channel would: one field
changed without re-signing, the signature itself changed, a wrong key, or a
malformed field re-signed with the right key.
"""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from settlement import Ledger, RecordError, SignatureError, make_outcome_record, sign

KEY = b"hostile-test-key-0123456789"
WRONG_KEY = b"hostile-test-key-0123456788"


@pytest.fixture
def ledger(tmp_path):
    with Ledger(tmp_path / "ledger.db", table_min="1", table_max="1000", hmac_key=KEY) as led:
        led.add_player("alice")
        led.add_player("bob")
        yield led


def _closed_round(led: Ledger, rid: str) -> None:
    led.open_round(rid)
    led.place_bet(rid, "alice", "three_red", "100")
    led.place_bet(rid, "bob", "four_white", "50")
    led.close_betting(rid)


def _genuine(rid: str, red: int = 1) -> dict:
    return make_outcome_record(rid, red, seq=7, key=KEY, confidence=0.93, evidence=f"ev/{rid}.jpg")


def _assert_refused(led: Ledger, rid: str, record, exc: type, n_refusals_before: int) -> None:
    with pytest.raises(exc):
        led.settle(rid, record)
    summary = led.round(rid)
    assert summary["state"] == "closed" and summary["red"] is None and summary["payouts"] is None
    assert all(b["state"] == "confirmed" for b in led.bets(rid))
    refusals = [a for a in led.audit_log(rid) if a["action"] == "settle" and not a["ok"]]
    assert len(refusals) == n_refusals_before + 1
    assert refusals[-1]["code"] == exc.code and rid in refusals[-1]["detail"]


#: field -> values an attacker might put there (the record is NOT re-signed)
ALTERATIONS = {
    "type": ["outcome ", "void"],
    "round_id": ["R2", "R1 ", "R\u0031\u200b"],
    "red": [0, 2, 3, 4, True, 1.0, "1"],
    "white": [4, 2, 3.0],
    "tokens": [[], None],
    "confidence": [1.0, 0.930001, float("nan")],
    "reveal_sha256": [["0" * 64]],
    "evidence": [None, "ev/other.jpg"],
    "profile_sha256": ["a" * 64],
    "seq": [8, 6, -1],
    "created_at": ["2000-01-01T00:00:00Z"],
    "source": ["manual"],
    "by": ["mallory"],
}


def test_every_single_field_change_is_refused_and_audited(ledger):
    rid = "R1"
    _closed_round(ledger, rid)
    genuine = _genuine(rid)
    n = 0
    for field, values in ALTERATIONS.items():
        for value in values:
            _assert_refused(ledger, rid, dict(genuine, **{field: value}), SignatureError, n)
            n += 1
    for i in (0, 3):  # one token's face flipped, one coordinate nudged
        toks = [dict(t) for t in genuine["tokens"]]
        toks[i]["face"] = "red" if toks[i]["face"] == "white" else "white"
        _assert_refused(ledger, rid, dict(genuine, tokens=toks), SignatureError, n)
        n += 1
        toks = [dict(t) for t in genuine["tokens"]]
        toks[i]["x"] += 0.01
        _assert_refused(ledger, rid, dict(genuine, tokens=toks), SignatureError, n)
        n += 1
    _assert_refused(ledger, rid, dict(genuine, extra="field"), SignatureError, n)
    n += 1
    missing = dict(genuine)
    del missing["evidence"]
    _assert_refused(ledger, rid, missing, SignatureError, n)
    n += 1
    # the genuine record still settles, exactly once, with the right money
    done = ledger.settle(rid, genuine)
    assert (done["state"], done["red"], done["replay"]) == ("settled", 1, False)
    assert done["payouts"] == Decimal("0.00") and ledger.balance_check(rid)["balanced"]


@pytest.mark.parametrize("tamper", [
    lambda r: dict(r, signature=r["signature"].upper()),
    lambda r: dict(r, signature=r["signature"][:-1] + ("0" if r["signature"][-1] != "0" else "1")),
    lambda r: dict(r, signature=r["signature"][:32]),
    lambda r: dict(r, signature=r["signature"] + "00"),
    lambda r: dict(r, signature=None),
    lambda r: dict(r, signature=""),
    lambda r: {k: v for k, v in r.items() if k != "signature"},
    lambda r: sign(r, WRONG_KEY),
    lambda r: sign(dict(r, red=4, white=0, tokens=_genuine("R1", 4)["tokens"]), WRONG_KEY),
    lambda r: make_outcome_record("R1", 4, seq=8, key=WRONG_KEY),
], ids=["upper", "last-digit", "half", "longer", "null", "empty", "missing", "wrong-key", "wrong-key-red4",
        "made-with-wrong-key"])
def test_bad_signatures_are_refused_and_audited(ledger, tamper):
    _closed_round(ledger, "R1")
    _assert_refused(ledger, "R1", tamper(_genuine("R1")), SignatureError, 0)
    assert ledger.settle("R1", _genuine("R1"))["state"] == "settled"


@pytest.mark.parametrize("tamper, field", [
    (lambda r: dict(r, round_id="R2"), "round_id"),
    (lambda r: dict(r, red=5, white=-1), "red"),
    (lambda r: dict(r, red=True), "red"),
    (lambda r: dict(r, white=2), "white"),
    (lambda r: dict(r, confidence=1.5), "confidence"),
    (lambda r: dict(r, tokens=r["tokens"][:3]), "tokens"),
    (lambda r: dict(r, created_at="yesterday"), "created_at"),
    (lambda r: dict(r, source="manual", by=None), "by"),
    (lambda r: dict(r, extra=1), "extra"),
])
def test_malformed_records_signed_with_the_right_key_are_refused_and_audited(ledger, tamper, field):
    """A compromised producer holding the key still cannot settle a malformed record."""
    _closed_round(ledger, "R1")
    bad = sign({k: v for k, v in tamper(_genuine("R1")).items() if k != "signature"}, KEY)
    _assert_refused(ledger, "R1", bad, RecordError, 0)
    assert field in [a for a in ledger.audit_log("R1") if not a["ok"]][-1]["detail"]


def test_a_settled_round_refuses_a_different_record_and_logs_it(ledger):
    from settlement import RoundStateError

    _closed_round(ledger, "R1")
    ledger.settle("R1", _genuine("R1", 1))
    with pytest.raises(RoundStateError):
        ledger.settle("R1", make_outcome_record("R1", 3, seq=8, key=KEY))
    assert ledger.round("R1")["red"] == 1
    assert [a["code"] for a in ledger.audit_log("R1") if not a["ok"]] == ["round_state"]


@settings(derandomize=True, deadline=None, max_examples=60)
@given(st.data())
def test_random_character_change_in_the_signed_json_never_settles(data):
    """Any one-character change of the signed JSON text that still parses is refused."""
    import json

    red = data.draw(st.integers(0, 4))
    genuine = make_outcome_record("R1", red, seq=7, key=KEY, confidence=0.93, created_at="2026-01-02T03:04:05Z")
    text = json.dumps(genuine, sort_keys=True)
    i = data.draw(st.integers(0, len(text) - 1))
    ch = data.draw(st.characters(codec="ascii", exclude_characters='"\\'))
    try:
        altered = json.loads(text[:i] + ch + text[i + 1:])
    except ValueError:
        return
    if altered == genuine:
        return
    with Ledger(":memory:", table_min="1", table_max="1000", hmac_key=KEY) as led:
        led.add_player("alice")
        led.add_player("bob")
        _closed_round(led, "R1")
        _assert_refused(led, "R1", altered, SignatureError, 0)
