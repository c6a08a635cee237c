"""Outbox, sinks and records: durable, idempotent, accepted by the settlement ledger."""
from __future__ import annotations

import io
import json
from decimal import Decimal

import numpy as np
import pytest

from settlement import Ledger, verify
from settlement.records import validate_outcome_record
from vision.outbox import Backoff, Deliverer, FileSink, Outbox, SinkError, StdoutSink, make_sink
from vision.records import record_from_event, save_evidence

KEY = b"0123456789abcdef0123"


def outcome_event(rid="T1-20260101-000001", red=3):
    faces = ["red"] * red + ["white"] * (4 - red)
    return {"event": "outcome", "round_id": rid, "frame": 10, "t": 1.0, "reason": "x", "red": red, "white": 4 - red,
            "confidence": 0.97, "reveal_sha256": ["a" * 64, "b" * 64, "c" * 64],
            "tokens": [{"x": 10.0 * i + 5, "y": 20.0, "radius": 4.0, "face": f, "p_red": 1.0 if f == "red" else 0.0}
                       for i, f in enumerate(faces)]}


def test_record_is_accepted_by_the_ledger(tmp_path):
    ev = outcome_event()
    path = save_evidence(np.zeros((40, 60, 3), np.uint8), tmp_path / "ev", ev["round_id"])
    rec = record_from_event(ev, seq=7, key=KEY, evidence=path, profile_sha256="d" * 64)
    validate_outcome_record(rec, round_id=ev["round_id"])
    assert verify(rec, KEY) and rec["seq"] == 7 and rec["red"] == 3
    assert (tmp_path / "ev" / f"{ev['round_id']}.jpg").stat().st_size > 0
    led = Ledger(tmp_path / "l.db", table_min=Decimal("1"), table_max=Decimal("100"), hmac_key=KEY)
    led.add_player("a")
    led.open_round(ev["round_id"])
    led.place_bet(ev["round_id"], "a", "big", Decimal("10"))
    led.close_betting(ev["round_id"])
    assert led.settle(ev["round_id"], rec)["replay"] is False
    assert led.settle(ev["round_id"], rec)["replay"] is True       # a re-delivered record pays nothing more
    unsigned = record_from_event(ev, seq=8, key=None, evidence=None, profile_sha256=None)
    assert "signature" not in unsigned


def test_outbox_counters_only_grow_across_restarts(tmp_path):
    db = tmp_path / "o.db"
    ob = Outbox(db)
    a = ob.next_round_id("T1")
    r1 = ob.add("R1", lambda seq: {"round_id": "R1", "seq": seq})
    ob.close()
    ob = Outbox(db)
    b = ob.next_round_id("T1")
    r2 = ob.add("R2", lambda seq: {"round_id": "R2", "seq": seq})
    assert int(b.rsplit("-", 1)[1]) == int(a.rsplit("-", 1)[1]) + 1
    assert r2["seq"] > r1["seq"]
    # the same round twice: the first record is kept, no new sequence number
    again = ob.add("R1", lambda seq: {"round_id": "R1", "seq": seq, "other": True})
    assert again == r1 and ob.counter("seq") == r2["seq"]
    assert [r["round_id"] for r in ob.pending()] == ["R1", "R2"]
    assert ob.stats() == {"pending": 2, "acked": 0, "rejected": 0}


class FakeSink:
    def __init__(self):
        self.down = False
        self.got: list[dict] = []
        self.name = "fake"

    def send(self, rec):
        if self.down:
            raise SinkError("connection refused")
        self.got.append(rec)


def test_deliverer_sends_in_order_and_marks(tmp_path):
    ob = Outbox(tmp_path / "o.db")
    for i in range(3):
        ob.add(f"R{i}", lambda seq, i=i: {"round_id": f"R{i}", "seq": seq})
    sink = FakeSink()
    d = Deliverer(ob, sink, clock=lambda: 0.0)
    assert d.pump() == 3
    assert [r["round_id"] for r in sink.got] == ["R0", "R1", "R2"]
    assert ob.stats()["acked"] == 3 and d.pump() == 0


def test_file_sink_is_exactly_once_across_restarts(tmp_path):
    path = tmp_path / "out.jsonl"
    s = FileSink(path)
    s.send({"round_id": "A", "x": 1})
    s.send({"round_id": "A", "x": 1})
    s2 = FileSink(path)                       # a restart
    s2.send({"round_id": "A", "x": 1})
    s2.send({"round_id": "B", "x": 2})
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["round_id"] for r in rows] == ["A", "B"]


def test_make_sink_specs(tmp_path):
    assert isinstance(make_sink("stdout"), StdoutSink)
    assert isinstance(make_sink(f"file:{tmp_path / 'x'}"), FileSink)
    assert make_sink("http://127.0.0.1:9/x").url == "http://127.0.0.1:9/x"
    for bad in ("", "file:", "ftp://x", "stdout2"):
        with pytest.raises(ValueError):
            make_sink(bad)
    buf = io.StringIO()
    StdoutSink(buf).send({"round_id": "A"})
    assert json.loads(buf.getvalue()) == {"round_id": "A"}


def test_backoff_grows_caps_and_is_seeded():
    a = [Backoff(0.5, 8.0, seed=3).delay(n) for n in range(1, 10)]
    b = [Backoff(0.5, 8.0, seed=3).delay(n) for n in range(1, 10)]
    assert a == b
    assert all(0.25 <= x <= 8.0 for x in a) and a[-1] >= 4.0


# ------------------------------------------------- HTTP sink on a real local server
import threading  # noqa: E402
import time  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402

from vision.outbox import HttpSink, SinkRejected  # noqa: E402


class _Odd(BaseHTTPRequestHandler):
    """/moved answers a POST with a redirect to /ok; /ok answers 200 to anything; /short cuts its body."""

    gets: list = []
    posts: list = []

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.posts.append(self.path)
        if self.path.startswith("/moved"):
            self.send_response(int(self.path.rsplit("/", 1)[1]))
            self.send_header("Location", "/ok")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/short":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"short")
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def do_GET(self):  # noqa: N802
        self.gets.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *a):
        pass


@pytest.fixture
def odd_server():
    _Odd.gets, _Odd.posts = [], []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Odd)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_http_sink_never_follows_a_redirect(tmp_path, odd_server, code):
    ob = Outbox(tmp_path / "o.db")
    ob.add("R1", lambda seq: {"round_id": "R1", "seq": seq})
    evs = []
    d = Deliverer(ob, HttpSink(f"{odd_server}/moved/{code}"), on_event=evs.append)
    assert d.pump() == 0
    assert _Odd.gets == [] and _Odd.posts == [f"/moved/{code}"]        # the record was not turned into a GET
    assert ob.rows()[0]["state"] == "rejected" and "redirect" in ob.rows()[0]["last_error"]
    assert [e["kind"] for e in evs if e["event"] == "alarm"] == ["sink_rejected"]


def test_truncated_http_answer_is_retried_and_the_thread_survives(tmp_path, odd_server):
    with pytest.raises(SinkError, match="bad HTTP answer"):
        HttpSink(f"{odd_server}/short").send({"round_id": "R0"})
    ob = Outbox(tmp_path / "o.db")
    ob.add("R1", lambda seq: {"round_id": "R1", "seq": seq})
    evs = []
    d = Deliverer(ob, HttpSink(f"{odd_server}/short"), backoff=Backoff(0.01, 0.02), on_event=evs.append)
    assert d.pump() == 0                                               # no exception escapes
    assert ob.rows()[0]["state"] == "pending" and ob.rows()[0]["attempts"] == 1
    d.start()
    time.sleep(0.3)
    assert d._thread.is_alive()
    d.sink = HttpSink(f"{odd_server}/ok")
    assert d.drain(5) and ob.rows()[0]["state"] == "acked"
    d.stop()


def test_an_unexpected_error_in_a_delivery_pass_raises_an_alarm_and_the_thread_lives(tmp_path):
    class Broken:
        name = "broken"
        calls = 0

        def send(self, rec):
            Broken.calls += 1
            raise ValueError("bug in a sink")

    ob = Outbox(tmp_path / "o.db")
    ob.add("R1", lambda seq: {"round_id": "R1", "seq": seq})
    evs = []
    d = Deliverer(ob, Broken(), backoff=Backoff(0.01, 0.02), on_event=evs.append)
    d.start()
    deadline = time.monotonic() + 5
    while Broken.calls < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert d._thread.is_alive() and Broken.calls >= 3
    assert any(e["event"] == "alarm" and e["kind"] == "deliverer_error" and "bug in a sink" in e["reason"]
               for e in evs)
    d.sink = StdoutSink(io.StringIO())
    assert d.drain(5)
    d.stop()
