"""The supervisor console: manual actions (one per round, signed, through the outbox), the CLI,
and the HTTP security model (token off loopback, custom header, Host/Origin), without a browser."""
from __future__ import annotations

import http.client
import json
import threading
from decimal import Decimal

import pytest

from settlement import Ledger
from settlement.records import validate_outcome_record
from settlement.signing import verify
from vision import cli
from vision.console import Console, read_token
from vision.console_actions import ActionRefused, ActionStore, apply_to_ledger, ledger_void_call
from vision.console_http import Security, make_server
from vision.console_live import LiveState
from vision.outbox import Deliverer, FileSink, Outbox

KEY = b"console-test-key-0123456789"
TOKEN = "tok-" + "a1b2c3d4e5f6g7h8"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "outbox.db"
    outbox = Outbox(path)
    store = ActionStore(path)
    yield outbox, store
    store.close()
    outbox.close()


def test_confirm_is_a_signed_manual_outcome_record(db, tmp_path):
    outbox, store = db
    ev = tmp_path / "R-1.jpg"
    ev.write_bytes(b"jpeg")
    outbox.end_round("R-1", "uncertain", None, 3.0)
    rec = store.act(outbox, KEY, "R-1", "confirm", red=3, by="ann", evidence=str(ev))
    validate_outcome_record(rec)
    assert verify(rec, KEY)
    assert rec["source"] == "manual" and rec["by"] == "ann" and rec["red"] == 3 and rec["white"] == 1
    assert rec["evidence"] == str(ev)
    assert outbox.pending() == [rec]                       # the same outbox as automatic records
    assert store.action("R-1")["state"] == "recorded"


def test_one_action_per_round(db):
    outbox, store = db
    outbox.end_round("R-2", "uncertain", None, 3.0)
    store.act(outbox, KEY, "R-2", "void", reason="tokens cannot be read", by="ann")
    for action, kw in (("confirm", {"red": 1}), ("void", {"reason": "no_shake"})):
        with pytest.raises(ActionRefused, match="already acted on") as exc:
            store.act(outbox, KEY, "R-2", action, by="bob", **kw)
        assert exc.value.status == 409
    log = store.audit_log()
    assert [a["ok"] for a in log] == [False, False, True]


def test_concurrent_actions_one_wins(tmp_path):
    path = tmp_path / "outbox.db"
    ob = Outbox(path)
    ob.end_round("R-3", "uncertain", None, 3.0)
    ob.close()
    results = []
    barrier = threading.Barrier(8)

    def worker(i):
        outbox, store = Outbox(path), ActionStore(path)          # separate connections, like two processes
        barrier.wait()
        try:
            store.act(outbox, KEY, "R-3", "confirm", red=i % 5, by=f"s{i}")
            results.append("ok")
        except ActionRefused:
            results.append("refused")
        finally:
            store.close()
            outbox.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1 and results.count("refused") == 7
    assert len(Outbox(path).rows()) == 1


def test_round_with_a_reader_record_is_refused(db):
    outbox, store = db
    from settlement.records import make_outcome_record
    outbox.add("R-4", lambda seq: make_outcome_record("R-4", 2, seq=seq, key=KEY))
    outbox.end_round("R-4", "uncertain", None, 3.0)
    with pytest.raises(ActionRefused, match="already has a record"):
        store.act(outbox, KEY, "R-4", "confirm", red=1, by="ann")
    assert store.action("R-4") is None


@pytest.mark.parametrize("kw, why", [({"red": 5}, "red"), ({"red": True}, "red"), ({"red": "2"}, "red"),
                                     ({"red": 2, "by": " "}, "by"), ({"red": 2, "by": "a\nb"}, "by")])
def test_bad_confirm_arguments(db, kw, why):
    outbox, store = db
    kw = dict({"by": "ann"}, **kw)
    with pytest.raises(ActionRefused, match=why) as exc:
        store.act(outbox, KEY, "R-5", "confirm", **kw)
    assert exc.value.status == 400
    assert store.action("R-5") is None


def test_void_mapping_and_ledger(db, tmp_path):
    assert ledger_void_call("no_shake", "ann") == ("void", "no_shake", "manual void by ann")
    assert ledger_void_call("early_lift: betting light late", "ann") == (
        "void", "early_lift", "manual void by ann: betting light late")
    assert ledger_void_call("tokens cannot be read", "ann") == ("cancel", "manual void by ann: tokens cannot be read",
                                                                None)
    outbox, store = db
    led = Ledger(tmp_path / "ledger.db", table_min=Decimal("1"), table_max=Decimal("100"), hmac_key=KEY)
    led.add_player("p")
    for rid in ("V-1", "V-2", "V-3"):
        outbox.end_round(rid, "uncertain", None, 3.0)
        led.open_round(rid)
        led.place_bet(rid, "p", "big", Decimal("10"))
        led.close_betting(rid)
    m1 = store.act(outbox, KEY, "V-1", "void", reason="bowl_touched_token: seen on camera 2", by="ann")
    m2 = store.act(outbox, KEY, "V-2", "void", reason="plate knocked", by="ann")
    assert apply_to_ledger(led, m1, KEY)["state"] == "void"
    assert apply_to_ledger(led, m2, KEY)["state"] == "cancelled"
    assert led.round("V-1")["reason"].startswith("bowl_touched_token: manual void by ann")
    forged = dict(store.act(outbox, KEY, "V-3", "void", reason="no_shake", by="ann"), ledger_op="void")
    forged["reason"] = "early_lift"
    from settlement.errors import SignatureError
    with pytest.raises(SignatureError):
        apply_to_ledger(led, forged, KEY)
    assert led.round("V-3")["state"] == "closed"
    led.close()


def test_claim_left_by_a_crash_is_recorded_on_restart(db):
    outbox, store = db
    outbox.end_round("R-6", "uncertain", None, 3.0)
    claim = store._claim("R-6", "confirm", 2, None, "ann", None, "cli")      # crash before the outbox write
    assert claim["state"] == "claimed" and outbox.rows() == []
    assert store.finish_claimed(outbox, KEY) == ["R-6"]
    assert store.finish_claimed(outbox, KEY) == []
    (row,) = outbox.rows()
    assert row["round_id"] == "R-6" and store.action("R-6")["state"] == "recorded"
    rec = outbox.pending()[0]
    assert verify(rec, KEY) and rec["created_at"] == claim["created_at"]


def test_cli_confirm_and_void(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XOCDIA_HMAC_KEY", KEY.decode())
    ob, sink = str(tmp_path / "o.db"), tmp_path / "sink.jsonl"
    (tmp_path / "ev").mkdir()
    (tmp_path / "ev" / "R-7.jpg").write_bytes(b"jpeg")
    ended = Outbox(ob)
    ended.end_round("R-7", "uncertain", None, 3.0)
    ended.end_round("R-8", "cancelled", None, 3.0)
    ended.close()
    assert cli.main(["confirm", "R-7", "--red", "2", "--by", "ann", "--outbox", ob, "--evidence",
                     str(tmp_path / "ev"), "--sink", f"file:{sink}"]) == 0
    rec = json.loads(sink.read_text())
    assert rec["source"] == "manual" and rec["by"] == "ann" and rec["evidence"].endswith("R-7.jpg") and verify(rec, KEY)
    assert cli.main(["void", "R-7", "--reason", "no_shake", "--by", "bob", "--outbox", ob]) == 1
    assert "already acted on" in capsys.readouterr().err
    assert cli.main(["void", "R-8", "--reason", "camera fault", "--by", "bob", "--outbox", ob]) == 0
    msg = json.loads(capsys.readouterr().out)
    assert msg["type"] == "void" and msg["ledger_op"] == "cancel" and verify(msg, KEY)
    with pytest.raises(SystemExit):
        cli.main(["confirm", "R-9", "--red", "7", "--by", "ann", "--outbox", ob])


def test_token_file_rules(tmp_path):
    p = tmp_path / "t"
    p.write_text(TOKEN + "\n")
    assert read_token(p) == TOKEN
    p.write_text("short\n")
    with pytest.raises(ValueError, match="at least 16"):
        read_token(p)
    with pytest.raises(ValueError, match="token"):
        Security("0.0.0.0", 8765, None)
    assert Security("127.0.0.1", 8765, None).loopback and Security("::1", 8765, None).loopback


def test_console_refuses_network_bind_without_token(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XOCDIA_HMAC_KEY", KEY.decode())
    assert cli.main(["console", "--source", str(tmp_path), "--host", "0.0.0.0", "--port", "0",
                     "--outbox", str(tmp_path / "o.db")]) == 2
    assert "--token-file" in capsys.readouterr().err


# ---------------------------------------------------------------- HTTP, in process
class _Served:
    def __init__(self, tmp_path, host, token):
        self.outbox = Outbox(tmp_path / "o.db")
        self.store = ActionStore(tmp_path / "o.db")
        self.live = LiveState(evidence_dir=str(tmp_path / "ev"))
        self.sink = tmp_path / "sink.jsonl"
        self.deliverer = Deliverer(self.outbox, FileSink(self.sink))
        self.lines = []
        self.console = Console(live=self.live, outbox=self.outbox, store=self.store, deliverer=self.deliverer,
                               key=KEY, security=Security(host, 0, token), evidence_dir=str(tmp_path / "ev"),
                               log=self.lines.append)
        self.server = make_server(self.console, host, 0)
        self.port = self.server.server_address[1]
        self.console.security.port = self.port
        self.live.source_status = "ended"
        for ev in ({"event": "round_started", "round_id": "U-1", "frame": 1, "t": 0.1, "reason": "bowl on"},
                   {"event": "uncertain", "round_id": "U-1", "frame": 9, "t": 3.0, "reason": "no stable reading"},
                   {"event": "round_started", "round_id": "O-1", "frame": 20, "t": 5.0, "reason": "bowl on"},
                   {"event": "outcome", "round_id": "O-1", "frame": 29, "t": 8.0, "reason": "ok", "red": 1,
                    "white": 3}):
            self.live.write(ev)
        self.outbox.end_round("U-1", "uncertain", None, 3.0)      # what the console's watcher records
        self.outbox.end_round("O-1", "outcome", None, 8.0)
        self.deliverer.start()
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def request(self, method, path, body=None, headers=None, host=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        h = {"Host": host or f"127.0.0.1:{self.port}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        out = r.status, r.read()
        conn.close()
        return out

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.deliverer.stop()
        self.store.close()
        self.outbox.close()


@pytest.fixture
def served(tmp_path):
    made = []

    def make(host="127.0.0.1", token=None):
        s = _Served(tmp_path, host, token)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


def test_reads_and_page(served):
    s = served()
    status, body = s.request("GET", "/")
    assert status == 200 and b"console.js" in body
    assert s.request("GET", "/static/console.js")[0] == 200
    assert s.request("GET", "/static/../console.py")[0] == 404
    status, body = s.request("GET", "/api/rounds")
    rounds = {r["round_id"]: r for r in json.loads(body)["rounds"]}
    assert rounds["U-1"]["actionable"] and not rounds["O-1"]["actionable"]
    state = json.loads(s.request("GET", "/api/state")[1])
    assert state["loopback"] and not state["token_required"]
    assert s.request("GET", "/frame.jpg")[0] == 503          # no frame yet


def test_loopback_post_needs_the_custom_header(served):
    s = served()
    hdr = {"X-Requested-With": "xocdia-console"}
    # a plain cross-site form post: no custom header, form content type
    status, _ = s.request("POST", "/api/rounds/U-1/confirm", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 401
    assert s.request("POST", "/api/rounds/U-1/confirm", {"red": 2, "by": "ann"},
                     dict(hdr, Origin="http://evil.example"))[0] == 403
    assert s.request("POST", "/api/rounds/U-1/confirm", {"red": 2, "by": "ann"}, hdr,
                     host="rebind.evil.example")[0] == 403                   # DNS rebinding
    assert s.request("POST", "/api/rounds/O-1/confirm", {"red": 2, "by": "ann"}, hdr)[0] == 409   # reader outcome
    assert s.request("POST", "/api/rounds/X-9/confirm", {"red": 2, "by": "ann"}, hdr)[0] == 404
    status, body = s.request("POST", "/api/rounds/U-1/confirm", {"red": 2, "by": "ann"},
                             dict(hdr, Origin=f"http://127.0.0.1:{s.port}"))
    assert status == 200 and json.loads(body)["record"]["source"] == "manual"
    assert s.request("POST", "/api/rounds/U-1/void", {"reason": "no_shake", "by": "bob"}, hdr)[0] == 409
    refused = [a for a in s.store.audit_log() if a["action"] == "refused"]
    assert len(refused) == 3 and all(a["round_id"] in ("U-1",) for a in refused)
    assert sum("refused POST" in line for line in s.lines) == 3
    assert s.deliverer.drain(5)
    assert [json.loads(x)["round_id"] for x in s.sink.read_text().splitlines()] == ["U-1"]


def test_off_loopback_every_post_needs_the_token(served):
    s = served(host="0.0.0.0", token=TOKEN)
    state = json.loads(s.request("GET", "/api/state")[1])
    assert state["token_required"] and not state["loopback"]
    body = {"red": 2, "by": "ann"}
    csrf = {"X-Requested-With": "xocdia-console"}
    cases = [({}, 401), (csrf, 401), ({"X-Xocdia-Token": "wrong-token-wrong-token"}, 401),
             ({"X-Xocdia-Token": TOKEN[:-1]}, 401), ({"X-Xocdia-Token": TOKEN + "x"}, 401)]
    for headers, want in cases:
        for path in ("/api/rounds/U-1/confirm", "/api/rounds/U-1/void", "/api/anything"):
            for method in ("POST", "PUT", "DELETE"):
                assert s.request(method, path, body, headers)[0] == want, (method, path, headers)
    refused = [a for a in s.store.audit_log(1000) if a["action"] == "refused"]
    assert len(refused) == len(cases) * 9
    assert s.store.action("U-1") is None and s.outbox.rows() == []
    status, out = s.request("POST", "/api/rounds/U-1/confirm", body, {"X-Xocdia-Token": TOKEN})
    assert status == 200 and verify(json.loads(out)["record"], KEY)
    assert s.request("POST", "/api/rounds/U-1/confirm", body, {"X-Xocdia-Token": TOKEN})[0] == 409


def test_console_confirm_only_on_uncertain_or_unfinished(served):
    s = served()
    hdr = {"X-Requested-With": "xocdia-console"}
    for rid, name in (("V-9", "void"), ("C-9", "cancelled")):
        s.live.write({"event": "round_started", "round_id": rid, "frame": 30, "t": 9.0, "reason": "bowl on"})
        s.live.write({"event": name, "round_id": rid, "frame": 39, "t": 12.0, "reason": "x", "code": "no_shake"})
        s.outbox.end_round(rid, name, "no_shake", 12.0)
    rounds = {r["round_id"]: r for r in json.loads(s.request("GET", "/api/rounds")[1])["rounds"]}
    assert rounds["V-9"]["actionable"] and not rounds["V-9"]["can_confirm"] and rounds["U-1"]["can_confirm"]
    for rid in ("V-9", "C-9"):
        status, body = s.request("POST", f"/api/rounds/{rid}/confirm", {"red": 4, "by": "eve"}, hdr)
        assert status == 409 and "needs a round" in json.loads(body)["error"]
    assert s.store.action("V-9") is None and s.outbox.rows() == []
    assert s.request("POST", "/api/rounds/V-9/void", {"reason": "no_shake", "by": "ann"}, hdr)[0] == 200


def test_locked_outbox_during_a_web_action_is_a_503_json_error(served, tmp_path):
    import sqlite3
    s = served()
    quick = ActionStore(tmp_path / "o.db", timeout=0.2)
    s.console.store = quick
    blocker = sqlite3.connect(tmp_path / "o.db", isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")                           # another writer holds the lock
    try:
        status, body = s.request("POST", "/api/rounds/U-1/confirm", {"red": 2, "by": "ann"},
                                 {"X-Requested-With": "xocdia-console"})
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert status == 503 and "locked" in json.loads(body)["error"] and json.loads(body)["ok"] is False
    assert s.store.action("U-1") is None and s.outbox.rows() == []
    status, body = s.request("POST", "/api/rounds/U-1/confirm", {"red": 2, "by": "ann"},
                             {"X-Requested-With": "xocdia-console"})
    assert status == 200                                         # lock gone: the action goes through
    quick.close()


def test_store_transaction_errors_become_store_errors(tmp_path):
    from vision.console_actions import StoreError
    store = ActionStore(tmp_path / "o.db")
    store.close()
    with pytest.raises(StoreError) as exc:
        store._tx(lambda c: None)
    assert exc.value.status == 503
