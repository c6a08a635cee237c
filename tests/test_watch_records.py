"""What the watcher writes to the outbox besides outcome records: the monitor's round endings (which gate
``xocdia confirm`` / ``void``), its own void and cancel decisions as signed void messages, and a
``conflict`` alarm when the outbox already holds another record for a round.  Real SQLite, real ledger."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest

from settlement import Ledger, verify
from settlement.messages import apply_message
from vision import cli
from vision.console_actions import ActionRefused, ActionStore
from vision.outbox import Outbox
from vision.watch_cli import Watcher

KEY = b"0123456789abcdef0123"
RID = "T1-20260101-000001"


def outcome_event(rid=RID, red=0):
    faces = ["red"] * red + ["white"] * (4 - red)
    return {"event": "outcome", "round_id": rid, "frame": 10, "t": 1.0, "reason": "x", "red": red, "white": 4 - red,
            "confidence": 0.97, "reveal_sha256": ["a" * 64],
            "tokens": [{"x": 10.0 * i + 5, "y": 20.0, "radius": 4.0, "face": f, "p_red": 1.0 if f == "red" else 0.0}
                       for i, f in enumerate(faces)]}


class NoEvidence:
    def evidence(self, rid):
        return None


class ListLog:
    def __init__(self):
        self.rows = []

    def write(self, ev):
        self.rows.append(json.loads(json.dumps(ev)))


@pytest.fixture
def parts(tmp_path):
    path = tmp_path / "o.db"
    ob, store, log = Outbox(path), ActionStore(path), ListLog()
    w = Watcher(NoEvidence(), ob, None, log, key=KEY, evidence_dir=None, profile_sha256=None)
    yield path, ob, store, log, w
    store.close()
    ob.close()


def test_confirm_before_the_round_ends_is_refused_and_the_reader_outcome_is_stored(parts):
    _, ob, store, log, w = parts
    with pytest.raises(ActionRefused, match="has not ended this round"):
        store.act(ob, KEY, RID, "confirm", red=4, by="eve")          # predictable id, round not over
    w.handle([outcome_event(red=0)])
    (rec,) = ob.pending()
    assert rec["source"] == "reader" and rec["red"] == 0 and verify(rec, KEY)
    (out,) = [e for e in log.rows if e["event"] == "outcome"]
    assert out["seq"] == rec["seq"] and out["signed"] is True
    assert ob.round_ending(RID)["verdict"] == "outcome"
    with pytest.raises(ActionRefused):
        store.act(ob, KEY, RID, "confirm", red=4, by="eve")
    assert not [e for e in log.rows if e["event"] == "alarm"]


def test_another_record_already_stored_raises_a_conflict_alarm(parts):
    _, ob, store, log, w = parts
    from settlement.records import make_outcome_record
    manual = ob.add(RID, lambda seq: make_outcome_record(RID, 4, seq=seq, key=KEY, tokens=[], confidence=1.0,
                                                         source="manual", by="eve"))
    w.handle([outcome_event(red=0)])
    (alarm,) = [e for e in log.rows if e["event"] == "alarm"]
    assert alarm["kind"] == "conflict" and alarm["round_id"] == RID
    assert alarm["reader"]["red"] == 0 and alarm["stored"]["red"] == 4 and alarm["stored"]["source"] == "manual"
    (out,) = [e for e in log.rows if e["event"] == "outcome"]
    assert out["seq"] is None and out["signed"] is None            # never claims the reader's record is stored
    assert ob.pending() == [manual]


def test_cli_confirm_and_void_follow_the_monitor_ending(parts, tmp_path, monkeypatch, capsys):
    path, ob, store, log, w = parts
    monkeypatch.setenv("XOCDIA_HMAC_KEY", KEY.decode())
    w.handle([{"event": "uncertain", "round_id": "U-1", "frame": 1, "t": 1.0, "reason": "no stable reading"},
              {"event": "void", "round_id": "V-1", "frame": 2, "t": 2.0, "reason": "x", "code": "early_lift"},
              {"event": "cancelled", "round_id": "C-1", "frame": None, "t": 3.0, "reason": "camera lost"},
              {"event": "warning", "round_id": "F-1", "frame": 4, "t": 4.0, "reason": "ended",
               "kind": "source_ended"}])
    base = ["--by", "ann", "--outbox", str(path), "--evidence", str(tmp_path / "none")]
    for rid in ("V-1", "C-1", "NOPE-1"):
        assert cli.main(["confirm", rid, "--red", "4", *base]) == 1, rid
        assert "refused" in capsys.readouterr().err
    assert cli.main(["void", "NOPE-1", "--reason", "camera fault", *base]) == 1
    assert "has not ended this round" in capsys.readouterr().err
    assert cli.main(["confirm", "U-1", "--red", "2", *base]) == 0
    assert cli.main(["confirm", "F-1", "--red", "1", *base]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["red"] == 1
    kinds = {r["round_id"]: r for r in ob.pending()}
    assert kinds["U-1"]["source"] == "manual" and kinds["V-1"]["type"] == "void" and kinds["C-1"]["type"] == "void"


def test_monitor_void_and_cancel_reach_the_ledger_as_signed_void_messages(parts, tmp_path):
    _, ob, store, log, w = parts
    led = Ledger(tmp_path / "ledger.db", table_min=Decimal("1"), table_max=Decimal("100"), hmac_key=KEY)
    led.add_player("p")
    for rid in ("V-1", "V-2", "C-1"):
        led.open_round(rid)
        led.place_bet(rid, "p", "big", Decimal("10"))
        led.close_betting(rid)
    w.handle([{"event": "void", "round_id": "V-1", "frame": 2, "t": 2.0, "reason": "x", "code": "early_lift"},
              {"event": "void", "round_id": "V-2", "frame": 3, "t": 3.0, "reason": "x", "code": "reveal_not_seen"},
              {"event": "cancelled", "round_id": "C-1", "frame": None, "t": 4.0, "reason": "camera lost"}])
    msgs = {m["round_id"]: m for m in ob.pending()}
    assert all(m["type"] == "void" and m["source"] == "reader" and m["by"] == "reader" and verify(m, KEY)
               for m in msgs.values())
    assert [e["seq"] for e in log.rows if e["event"] in ("void", "cancelled")] == [msgs[r]["seq"] for r in
                                                                                     ("V-1", "V-2", "C-1")]
    assert apply_message(led, msgs["V-1"])["state"] == "void"
    assert led.round("V-1")["reason"].startswith("early_lift")
    assert apply_message(led, msgs["V-2"])["state"] == "cancelled"
    assert apply_message(led, msgs["C-1"])["state"] == "cancelled"
    # one record per round: the same decision handled again stores nothing new and raises no conflict
    w.handle([{"event": "void", "round_id": "V-1", "frame": 2, "t": 2.0, "reason": "x", "code": "early_lift"}])
    assert len(ob.rows()) == 3 and not [e for e in log.rows if e["event"] == "alarm"]
    with pytest.raises(ActionRefused, match="already has a record"):
        store.act(ob, KEY, "V-1", "confirm", red=4, by="eve")
    led.close()
