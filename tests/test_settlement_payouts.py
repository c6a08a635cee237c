"""Pure parts of the settlement core: payouts, rounding, RTP, signing, record validation."""
from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from settlement import signing
from settlement.errors import RecordError
from settlement.payouts import BET_TYPES, from_minor, payout, payout_minor, to_minor
from settlement.records import make_outcome_record, validate_outcome_record
from settlement.rtp import exact_rtp, outcome_weights, rtp_table, simulated_rtp

D = Decimal
L = ("lose", D("0.00"))
R = ("refund", D("10.00"))

# Written by hand from the rule sheet, stake 10.00: bet -> results for red = 0, 1, 2, 3, 4.
PAYOUT_TABLE = {
    "four_red": [L, L, L, L, ("win", D("150.00"))],
    "three_red": [L, L, L, ("win", D("38.00")), L],
    "two_two": [L, L, ("win", D("25.00")), L, L],
    "three_white": [L, ("win", D("38.00")), L, L, L],
    "four_white": [("win", D("150.00")), L, L, L, L],
    "four_same": [("win", D("75.00")), L, L, L, ("win", D("75.00"))],
    "odd": [L, ("win", D("19.60")), L, ("win", D("19.60")), L],
    "even": [("win", D("19.60")), L, ("win", D("19.60")), L, ("win", D("19.60"))],
    "big": [L, L, R, ("win", D("19.60")), ("win", D("19.60"))],
    "small": [("win", D("19.60")), ("win", D("19.60")), R, L, L],
}


def test_table_covers_exactly_the_issue_identifiers():
    assert list(PAYOUT_TABLE) == list(BET_TYPES)


@pytest.mark.parametrize("bet", list(PAYOUT_TABLE))
@pytest.mark.parametrize("red", range(5))
def test_every_bet_type_against_every_red_count(bet, red):
    expected = PAYOUT_TABLE[bet][red]
    assert payout(bet, red, D("10.00")) == expected
    assert payout_minor(bet, red, 1000) == (expected[0], int(expected[1] * 100))


@pytest.mark.parametrize(
    "bet, red, stake, returned",
    [
        ("two_two", 2, "0.15", "0.37"),  # 0.225 -> 0.22 (half to even)
        ("two_two", 2, "0.25", "0.63"),  # 0.375 -> 0.38 (half to even)
        ("four_same", 4, "0.01", "0.07"),  # 0.065 -> 0.06
        ("four_same", 0, "0.03", "0.23"),  # 0.195 -> 0.20
        ("odd", 3, "0.01", "0.02"),  # 0.0096 -> 0.01
        ("odd", 1, "0.13", "0.25"),  # 0.1248 -> 0.12
        ("three_red", 3, "0.05", "0.19"),  # 0.14 exact
        ("big", 3, "12345.67", "24197.51"),  # 11851.8432 -> 11851.84
    ],
)
def test_winnings_round_half_even_to_the_minor_unit(bet, red, stake, returned):
    assert payout(bet, red, D(stake)) == ("win", D(returned))


def test_rounding_with_a_currency_without_minor_units():
    assert payout("two_two", 2, 1, minor_units=0) == ("win", D(3))  # 1.5 -> 2
    assert payout("two_two", 2, 3, minor_units=0) == ("win", D(7))  # 4.5 -> 4


@pytest.mark.parametrize("bad", [10.0, True, "ten", D("NaN"), D("Infinity"), None])
def test_money_refuses_floats_and_junk(bad):
    with pytest.raises((TypeError, ValueError), match="stake"):
        payout("odd", 1, bad)


def test_stake_must_be_whole_minor_units_and_positive():
    with pytest.raises(ValueError, match="minor units"):
        payout("odd", 1, D("1.005"))
    with pytest.raises(ValueError, match="stake"):
        payout("odd", 1, D("0"))
    with pytest.raises(ValueError, match="bet_type"):
        payout("triple", 1, D("1"))
    with pytest.raises(ValueError, match="red_count"):
        payout("odd", 5, D("1"))


def test_minor_unit_conversions_are_exact():
    assert to_minor(D("10.50")) == 1050
    assert to_minor("0.01") == 1
    assert to_minor(7) == 700
    assert from_minor(1050) == D("10.50")
    assert str(from_minor(5, 0)) == "5"


# ---------------------------------------------------------------- RTP
HAND_RTP = {  # computed by hand: sum(ways * (1 + odds)) / 16 with refunds returning 1
    "four_red": Fraction(15, 16),
    "three_red": Fraction(19, 20),
    "two_two": Fraction(15, 16),
    "three_white": Fraction(19, 20),
    "four_white": Fraction(15, 16),
    "four_same": Fraction(15, 16),
    "odd": Fraction(49, 50),
    "even": Fraction(49, 50),
    "big": Fraction(79, 80),
    "small": Fraction(79, 80),
}


def test_sixteen_outcomes_have_binomial_weights():
    assert outcome_weights() == {0: 1, 1: 4, 2: 6, 3: 4, 4: 1}


def test_exact_rtp_matches_hand_computation_and_big_small_are_the_maximum():
    rows = {r.bet_type: r for r in rtp_table()}
    assert {k: r.rtp for k, r in rows.items()} == HAND_RTP
    assert rows["big"].percent == D("98.75") and rows["big"].win_ways == 5 and rows["big"].refund_ways == 6
    assert max(HAND_RTP.values()) == exact_rtp("big") == exact_rtp("small")


def test_monte_carlo_is_seeded_and_agrees_with_the_exact_rtp():
    a = simulated_rtp(200_000, seed=7)
    assert a == simulated_rtp(200_000, seed=7)
    assert a != simulated_rtp(200_000, seed=8)
    for name, exact in HAND_RTP.items():
        # 4-token game: the worst standard error (four_red, returns 0 or 15) is
        # 15 * sqrt(p(1-p)/n) ~ 0.008 at n=200k; allow 5 sigma.
        assert abs(float(a[name] - exact)) < 0.04, name


# ---------------------------------------------------------------- signing
KEY = b"k" * 32


def test_canonical_bytes_contract():
    rec = {"b": 1, "a": "đỏ", "signature": "x", "c": [1.5, None]}
    assert signing.canonical_bytes(rec) == '{"a":"đỏ","b":1,"c":[1.5,null]}'.encode("utf-8")
    with pytest.raises(ValueError):
        signing.canonical_bytes({"a": float("nan")})


def test_sign_and_verify_round_trip_and_detect_changes():
    rec = make_outcome_record("R1", 3, seq=1, key=KEY)
    assert signing.verify(rec, KEY)
    assert "signature" not in make_outcome_record("R1", 3, seq=1)
    # A JSON round trip keeps the signature valid (floats keep their repr).
    assert signing.verify(json.loads(json.dumps(rec)), KEY)
    assert not signing.verify(rec, b"other-key-0123456789")
    assert not signing.verify(dict(rec, red=4, white=0), KEY)
    assert not signing.verify({k: v for k, v in rec.items() if k != "signature"}, KEY)
    assert not signing.verify(dict(rec, signature=rec["signature"].upper()), KEY)


def test_load_key_from_file_and_env(tmp_path, monkeypatch):
    f = tmp_path / "k"
    f.write_bytes(b"0123456789abcdef\n")
    assert signing.load_key(str(f)) == b"0123456789abcdef"
    f.write_bytes(b"short\n")
    with pytest.raises(ValueError, match=r"key file .*k'.*16"):
        signing.load_key(str(f))
    f.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        signing.load_key(str(f))
    with pytest.raises(ValueError, match="missing"):
        signing.load_key(str(tmp_path / "missing"))
    monkeypatch.setenv("XOCDIA_HMAC_KEY", "an-env-key-of-enough-length")
    assert signing.load_key() == b"an-env-key-of-enough-length"
    monkeypatch.delenv("XOCDIA_HMAC_KEY")
    with pytest.raises(ValueError, match="XOCDIA_HMAC_KEY"):
        signing.load_key()


# ---------------------------------------------------------------- records
@pytest.mark.parametrize(
    "change, field",
    [
        ({"type": "reading"}, "type"),
        ({"red": 5, "white": -1}, "red"),
        ({"red": True}, "red"),
        ({"white": 2}, "white"),
        ({"confidence": 1.5}, "confidence"),
        ({"seq": -1}, "seq"),
        ({"created_at": "2024-05-01T10:00:00+07:00"}, "created_at"),
        ({"created_at": "yesterday"}, "created_at"),
        ({"source": "camera"}, "source"),
        ({"reveal_sha256": ["abc"]}, "reveal_sha256"),
        ({"profile_sha256": "XYZ"}, "profile_sha256"),
        ({"round_id": "R 1"}, "round_id"),
        ({"extra": 1}, "extra"),
        ({"signature": "nothex"}, "signature"),
        ({"tokens": []}, "tokens"),
    ],
)
def test_record_validation_names_the_field(change, field):
    rec = make_outcome_record("R1", 3, seq=4, key=KEY)
    with pytest.raises(RecordError, match=field):
        validate_outcome_record(dict(rec, **change))


def test_record_validation_checks_token_faces_and_manual_supervisor():
    rec = make_outcome_record("R1", 3, seq=4, key=KEY)
    toks = [dict(t) for t in rec["tokens"]]
    toks[0]["face"] = "white"
    with pytest.raises(RecordError, match="red faces"):
        validate_outcome_record(dict(rec, tokens=toks))
    toks[0]["face"] = "upright"
    with pytest.raises(RecordError, match=r"tokens\[0\].face"):
        validate_outcome_record(dict(rec, tokens=toks))
    with pytest.raises(RecordError, match="by"):
        make_outcome_record("R1", 3, seq=4, source="manual")
    manual = make_outcome_record("R1", 3, seq=4, source="manual", by="supervisor-anh", key=KEY)
    assert validate_outcome_record(manual, round_id="R1") is manual
    with pytest.raises(RecordError, match="not 'R2'"):
        validate_outcome_record(manual, round_id="R2")
    del manual["seq"]
    with pytest.raises(RecordError, match="seq"):
        validate_outcome_record(manual)


@settings(derandomize=True, max_examples=100, deadline=None)
@given(st.sampled_from(list(BET_TYPES)), st.integers(0, 4), st.integers(1, 10**9))
def test_payout_is_never_negative_and_refund_returns_the_stake(bet, red, stake):
    result, returned = payout_minor(bet, red, stake)
    assert returned >= 0
    if result == "refund":
        assert returned == stake
    elif result == "win":
        assert returned > stake and abs(Fraction(returned - stake) - stake * BET_TYPES[bet].odds) <= Fraction(1, 2)
    else:
        assert returned == 0
