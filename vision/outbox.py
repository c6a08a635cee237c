"""Durable delivery of outcome records: a SQLite (WAL) outbox and its sinks.

Every record is committed to the outbox *before* anything tries to send it.
A :class:`Deliverer` sends what is pending, oldest first, and marks a record
acknowledged only when the sink says so; after a crash or restart whatever was
not acknowledged is sent again.  Sinks deduplicate by the record's
``round_id`` (the idempotency key), so "sent again" never means "counted twice":

* ``stdout``: one JSON line per record (at least once: a line printed just
  before a crash is printed again after the restart);
* ``file:PATH``: appends one JSON line and fsyncs; on start it reads the file
  and skips round ids already there (exactly once);
* ``http://HOST:PORT/PATH``: POST with ``Idempotency-Key: <round_id>``; 2xx or
  409 (already have it) is an acknowledgement; 5xx, 408, 429 and network
  errors are retried with exponential back-off and seeded jitter; any other
  4xx marks the record ``rejected`` (kept, with an alarm, never dropped).

The outbox also holds the persisted counters: the record sequence number and
the round counter behind round ids, so both only grow across restarts.

Time for retries comes from an injectable monotonic ``clock`` so tests can
run "minutes" of a dead sink in milliseconds; a clock that steps backwards
cannot postpone a retry by more than ``max_backoff_s``.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    round_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'acked', 'rejected')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    acked_at TEXT
);
CREATE TABLE IF NOT EXISTS round_endings (
    round_id TEXT PRIMARY KEY,
    verdict TEXT NOT NULL,
    code TEXT,
    t REAL,
    at TEXT NOT NULL
);
"""

#: How the monitor ended a round (``round_endings.verdict``) -> the supervisor actions it allows.
CONFIRMABLE = ("uncertain", "unfinished")
VOIDABLE = ("uncertain", "unfinished", "void", "cancelled")


class OutboxError(RuntimeError):
    """The outbox could not store a record (disk full, I/O error); nothing was lost yet."""


class SinkError(Exception):
    """A sink could not take a record now (retry later)."""


class SinkRejected(Exception):
    """A sink refused a record for good (retrying cannot help)."""


def transaction(lock, db, fn, error: Callable[[str], Exception], label: str):
    """Run ``fn(db)`` in one ``BEGIN IMMEDIATE`` transaction under ``lock``; a ``sqlite3.Error``
    (locked, disk full, I/O error) rolls back and is raised as ``error("<label>: <what>")``."""
    with lock:
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                out = fn(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return out
        except sqlite3.Error as exc:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise error(f"{label}: {exc}") from exc


def _utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Outbox:
    """The SQLite WAL outbox.

    Parameters
    ----------
    path : str or Path
        Database file (created if missing).
    connect : callable (path) -> sqlite3.Connection-like, optional
        For fault injection (a wrapper whose ``execute`` raises).
    """

    def __init__(self, path, *, connect: Callable[[str], Any] | None = None, timeout: float = 10.0):
        self.path = str(path)
        self._lock = threading.RLock()
        raw = (connect or (lambda p: sqlite3.connect(p, timeout=timeout, isolation_level=None,
                                                     check_same_thread=False)))(self.path)
        self._db = raw
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- transactions -------------------------------------------------------
    def _tx(self, fn):
        return transaction(self._lock, self._db, fn, OutboxError, f"outbox {self.path}")

    @staticmethod
    def _bump(c, key: str, at_least: int = 0) -> int:
        row = c.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        v = max((row[0] if row else 0) + 1, at_least)
        c.execute("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", (key, v))
        return v

    def counter(self, key: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
            return row[0] if row else 0

    # -- round ids and records ---------------------------------------------
    def next_round_id(self, table: str, *, at_least: int = 0, now: datetime | None = None) -> str:
        """``<table>-<YYYYmmdd>-<n>`` with ``n`` from the persisted round counter (raises OutboxError)."""
        n = self._tx(lambda c: self._bump(c, "round", at_least))
        day = (now or datetime.now(timezone.utc)).strftime("%Y%m%d")
        return f"{table}-{day}-{n:06d}"

    def add(self, round_id: str, build: Callable[[int], dict]) -> dict:
        """Store the record for ``round_id``, built by ``build(seq)`` with the next sequence number,
        in one transaction; if the round already has a record, return that one unchanged.

        Raises
        ------
        OutboxError
            Nothing was stored (disk full, I/O error): keep the record and call again.
        """
        def work(c):
            row = c.execute("SELECT body FROM outbox WHERE round_id = ?", (round_id,)).fetchone()
            if row:
                return json.loads(row[0])
            seq = self._bump(c, "seq")
            rec = build(seq)
            c.execute("INSERT INTO outbox (round_id, seq, body, created_at) VALUES (?, ?, ?, ?)",
                      (round_id, seq, json.dumps(rec, sort_keys=True, ensure_ascii=False), _utc()))
            return rec
        return self._tx(work)

    def end_round(self, round_id: str, verdict: str, code: str | None, t: float | None) -> None:
        """Record how the monitor ended ``round_id`` (``outcome``, ``void``, ``uncertain``, ``cancelled``,
        ``unfinished``); ``xocdia confirm`` / ``void`` check it.  Raises OutboxError."""
        self._tx(lambda c: c.execute(
            "INSERT INTO round_endings (round_id, verdict, code, t, at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(round_id) DO UPDATE SET verdict = excluded.verdict, code = excluded.code, "
            "t = excluded.t, at = excluded.at", (round_id, verdict, code, t, _utc())))

    def round_ending(self, round_id: str) -> dict | None:
        """``{"round_id", "verdict", "code", "t", "at"}`` of a round the monitor ended, or None."""
        with self._lock:
            row = self._db.execute("SELECT round_id, verdict, code, t, at FROM round_endings WHERE round_id = ?",
                                   (round_id,)).fetchone()
        return None if row is None else dict(zip(("round_id", "verdict", "code", "t", "at"), row))

    def pending(self, limit: int = 100) -> list[dict]:
        """Records not yet acknowledged (nor rejected), oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT body FROM outbox WHERE state = 'pending' ORDER BY seq LIMIT ?",
                                    (limit,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def mark(self, round_id: str, state: str, error: str | None = None) -> None:
        """Record a delivery attempt's result: ``acked``, ``rejected`` or ``pending`` (failed, retry)."""
        def work(c):
            if state == "pending":
                c.execute("UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE round_id = ?",
                          (error, round_id))
            else:
                c.execute("UPDATE outbox SET state = ?, attempts = attempts + 1, last_error = ?, acked_at = ? "
                          "WHERE round_id = ? AND state = 'pending'", (state, error, _utc(), round_id))
        self._tx(work)

    def stats(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM outbox GROUP BY state").fetchall()
        out = {"pending": 0, "acked": 0, "rejected": 0}
        out.update({k: v for k, v in rows})
        return out

    def rows(self) -> list[dict]:
        with self._lock:
            rows = self._db.execute("SELECT round_id, seq, state, attempts, last_error FROM outbox ORDER BY seq"
                                    ).fetchall()
        return [dict(zip(("round_id", "seq", "state", "attempts", "last_error"), r)) for r in rows]


# ---------------------------------------------------------------- sinks
class StdoutSink:
    """One JSON line per record on a text stream (stdout by default)."""

    name = "stdout"

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout

    def send(self, record: dict) -> None:
        try:
            self.stream.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
            self.stream.flush()
        except (OSError, ValueError) as exc:
            raise SinkError(f"stdout: {exc}") from exc


class FileSink:
    """Append one JSON line per record to a file, fsynced; round ids already in the file are skipped."""

    def __init__(self, path):
        self.path = Path(path)
        self.name = f"file:{self.path}"
        self._seen: set[str] = set()
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    self._seen.add(json.loads(line)["round_id"])
                except (ValueError, KeyError, TypeError):
                    continue

    def send(self, record: dict) -> None:
        rid = record.get("round_id")
        if rid in self._seen:
            return
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise SinkError(f"{self.path}: {exc}") from exc
        self._seen.add(rid)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follow a redirect: urllib would turn the POST into a GET without the record."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class HttpSink:
    """POST each record as JSON with ``Idempotency-Key: <round_id>``.

    Redirects are not followed: any 3xx answer is :class:`SinkRejected` (the
    record is kept as ``rejected`` with an alarm; fix the URL).  A broken or
    truncated answer (``http.client.HTTPException``) is :class:`SinkError`
    (retried).
    """

    def __init__(self, url: str, *, timeout: float = 5.0):
        self.url = url
        self.name = url
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect)

    def send(self, record: dict) -> None:
        body = json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(self.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "Idempotency-Key": str(record.get("round_id"))})
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                resp.read()
                return
        except urllib.error.HTTPError as exc:
            if exc.code == 409:
                return                                   # already have it
            if 300 <= exc.code < 400:
                raise SinkRejected(f"{self.url}: HTTP {exc.code} redirect to {exc.headers.get('Location')!r} "
                                   "not followed (a redirected POST loses its body); give the final URL") from exc
            if exc.code in (408, 429) or exc.code >= 500:
                raise SinkError(f"{self.url}: HTTP {exc.code}") from exc
            raise SinkRejected(f"{self.url}: HTTP {exc.code} {exc.reason}") from exc
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            raise SinkError(f"{self.url}: {getattr(exc, 'reason', exc)}") from exc
        except http.client.HTTPException as exc:         # truncated or malformed answer: not acknowledged
            raise SinkError(f"{self.url}: bad HTTP answer: {exc!r}") from exc


def make_sink(spec: str):
    """``stdout``, ``file:PATH`` or ``http(s)://...`` -> a sink."""
    if spec == "stdout":
        return StdoutSink()
    if spec.startswith("file:") and len(spec) > 5:
        return FileSink(spec[5:])
    if spec.startswith(("http://", "https://")):
        return HttpSink(spec)
    raise ValueError(f"sink {spec!r}: expected stdout, file:PATH or http://HOST:PORT/PATH")


# ------------------------------------------------------------ delivery
@dataclass
class Backoff:
    """Exponential back-off with seeded full jitter: delay n in [base*2^n/2, base*2^n], capped."""

    base_s: float = 0.5
    max_s: float = 30.0
    seed: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def delay(self, failures: int) -> float:
        top = min(self.max_s, self.base_s * (2 ** max(0, failures - 1)))
        return top / 2 + self._rng.random() * top / 2


class Deliverer:
    """Send pending records to a sink, oldest first, with back-off after a failure.

    ``pump()`` does one pass without sleeping (tests call it with a fake
    clock); ``start()`` runs passes on a daemon thread until ``stop()``.
    ``on_event(dict)`` receives ``warning``/``alarm`` events (sink down,
    record rejected, delivered after failures).
    """

    def __init__(self, outbox: Outbox, sink, *, backoff: Backoff | None = None,
                 clock: Callable[[], float] = time.monotonic, on_event: Callable[[dict], None] | None = None,
                 alarm_after: int = 5):
        self.outbox, self.sink = outbox, sink
        self.backoff = backoff or Backoff()
        self.clock = clock
        self.on_event = on_event or (lambda e: None)
        self.alarm_after = alarm_after
        self.failures = 0
        self.next_at = -float("inf")
        self.sent = 0
        self._last_now = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def due_in(self) -> float:
        return max(0.0, self.next_at - self.clock())

    def pump(self, limit: int = 100) -> int:
        """Try to send what is pending (if no back-off is running); return how many were acknowledged."""
        now = self.clock()
        if self._last_now is not None and now < self._last_now:
            # the clock stepped back: never wait longer than one full back-off from now
            self.next_at = min(self.next_at, now + self.backoff.max_s)
        self._last_now = now
        if now < self.next_at:
            return 0
        try:
            records = self.outbox.pending(limit)
        except (sqlite3.Error, OutboxError) as exc:
            self._emit("alarm", f"outbox unreadable: {exc}", kind="outbox_read")
            return 0
        done = 0
        for rec in records:
            rid = rec.get("round_id")
            try:
                self.sink.send(rec)
            except SinkRejected as exc:
                self._mark(rid, "rejected", str(exc))
                self._emit("alarm", f"sink refused the record for good: {exc}; kept in the outbox as rejected",
                           round_id=rid, kind="sink_rejected")
                continue
            except (SinkError, OSError) as exc:
                self.failures += 1
                delay = self.backoff.delay(self.failures)
                self.next_at = now + delay
                self._mark(rid, "pending", str(exc))
                kind = "alarm" if self.failures >= self.alarm_after else "warning"
                self._emit(kind, f"sink {getattr(self.sink, 'name', '?')} down ({exc}); retry {self.failures} "
                           f"in {delay:.2f}s, nothing lost", round_id=rid, kind="sink_down", retry_in_s=round(delay, 3))
                return done
            if not self._mark(rid, "acked", None):
                return done
            done += 1
            self.sent += 1
            if self.failures:
                self._emit("warning", f"sink back after {self.failures} failed attempt(s)", round_id=rid,
                           kind="sink_recovered")
                self.failures = 0
        return done

    def _mark(self, rid, state, err) -> bool:
        try:
            self.outbox.mark(rid, state, err)
            return True
        except OutboxError as exc:
            # sent but not marked: it will be sent again later and the sink drops the duplicate
            self._emit("alarm", f"outbox cannot record the delivery: {exc}", round_id=rid, kind="outbox_write")
            self.next_at = self.clock() + self.backoff.delay(1)
            return False

    def _emit(self, event: str, reason: str, round_id=None, **extra) -> None:
        self.on_event(dict({"event": event, "round_id": round_id, "frame": None, "t": None, "reason": reason},
                           **extra))

    def kick(self) -> None:
        """Something new is pending: wake the thread."""
        self._wake.set()

    def start(self) -> None:
        def loop():
            while not self._stop.is_set():
                try:
                    n = self.pump()
                except Exception as exc:  # noqa: BLE001 - the delivery thread must never die silently
                    n = 0
                    self.failures += 1
                    self.next_at = self.clock() + self.backoff.delay(self.failures)
                    try:
                        self._emit("alarm", f"delivery pass failed unexpectedly ({exc!r}); retrying, nothing lost",
                                   kind="deliverer_error")
                    except Exception:  # noqa: BLE001
                        pass
                if n == 0:
                    self._wake.wait(min(0.5, max(0.01, self.due_in())))
                    self._wake.clear()
        self._thread = threading.Thread(target=loop, name="outbox-deliverer", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def drain(self, timeout: float) -> bool:
        """Wait (up to ``timeout`` s of real time) until nothing is pending; True when drained."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.outbox.stats()["pending"] == 0:
                return True
            self.kick()
            time.sleep(0.05)
        return self.outbox.stats()["pending"] == 0


__all__ = ["Backoff", "Deliverer", "FileSink", "HttpSink", "Outbox", "OutboxError", "SinkError", "SinkRejected",
           "StdoutSink", "make_sink"]
