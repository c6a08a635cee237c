"""``xocdia watch SOURCE``: run the round monitor on a camera, URL, video file or frame folder.

Round events go to ``--events`` (JSON lines; default stderr).  Every outcome
becomes a signed record (``settlement.records`` contract), saved with its
reveal frame under ``--evidence``, committed to the SQLite outbox
(``--outbox``) and only then delivered to ``--sink`` (``stdout``,
``file:PATH`` or ``http://HOST:PORT/PATH``); records not acknowledged before a
crash are delivered after the restart.

Betting: ``--betting stdin`` (default) reads lines ``betting_closed`` from
stdin, a reveal before that line is void (early lift); ``--betting auto``
counts betting as closed when the bowl settles (clips, dry runs).

Exit status: 0 when the source ended and every record was delivered, 1 when
records are still pending (they stay in the outbox), 2 on a usage error.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import threading
import time

from .monitor import RoundMonitor
from .monitor_events import MonitorConfig
from .outbox import Backoff, Deliverer, Outbox, OutboxError, make_sink
from .records import file_sha256, record_from_event, save_evidence
from .sources import ThreadedSource, open_source


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="camera index (0), rtsp:// or http:// URL, video file, or folder of frames")
    p.add_argument("--profile", metavar="P", help="studio profile (xocdia calibrate); its SHA-256 goes in records")
    p.add_argument("--fps", type=float, default=None, help="frame rate of a folder or a file without one")
    p.add_argument("--events", metavar="OUT.jsonl", help="write round events here (default: stderr)")
    p.add_argument("--sink", metavar="SPEC", default="stdout", help="stdout | file:PATH | http://HOST:PORT/PATH")
    p.add_argument("--evidence", metavar="DIR", default="evidence", help="reveal frames as <round_id>.jpg")
    p.add_argument("--outbox", metavar="DB", default="xocdia-outbox.db", help="durable outbox (SQLite WAL)")
    p.add_argument("--table", default="T1", help="table name in round ids (<table>-<YYYYmmdd>-<n>)")
    p.add_argument("--key-file", metavar="K", help="HMAC key file (else $XOCDIA_HMAC_KEY)")
    p.add_argument("--unsigned", action="store_true", help="dry run without a key: records are unsigned "
                   "(settlement refuses them)")
    p.add_argument("--betting", choices=("stdin", "auto"), default="stdin",
                   help="stdin: 'betting_closed' lines on stdin close betting; auto: closed when the bowl settles")
    p.add_argument("--stable-frames", type=int, default=MonitorConfig.stable_frames,
                   help="consecutive agreeing readings for an outcome")
    p.add_argument("--read-every", type=int, default=1, help="read one frame in N after the reveal")
    p.add_argument("--pause-after", type=float, default=MonitorConfig.pause_after_s, help="seconds without a frame")
    p.add_argument("--cancel-after", type=float, default=MonitorConfig.cancel_after_s,
                   help="seconds paused before the round is cancelled")
    p.add_argument("--drain-timeout", type=float, default=10.0, help="seconds to wait for delivery at the end")
    p.add_argument("--retry-base", type=float, default=0.5, help="first retry delay, seconds")
    p.add_argument("--retry-max", type=float, default=30.0, help="longest retry delay, seconds")
    p.add_argument("--seed", type=int, default=0, help="seed of the retry jitter")


class EventLog:
    """Thread-safe JSON-lines writer (flushed per line)."""

    def __init__(self, path: str | None):
        self._fh = open(path, "a", encoding="utf-8") if path else sys.stderr
        self._lock = threading.Lock()

    def write(self, ev: dict) -> None:
        line = json.dumps(ev, sort_keys=False, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not sys.stderr:
            self._fh.close()


class Watcher:
    """Monitor + records + outbox + delivery; ``handle`` turns monitor events into side effects.

    Every round the monitor ends is written to the outbox's ``round_endings``
    (what ``xocdia confirm`` / ``void`` check).  An ``outcome`` becomes the
    reader's signed outcome record; a ``void`` or ``cancelled`` round becomes a
    signed void message (``source: "reader"``, reason = the void code, or
    ``cancelled``; see :func:`vision.console_actions.make_void_message`), so the
    ledger learns of it durably.  If the outbox already holds a different record
    for the round, an ``alarm`` (kind ``conflict``) names both and nothing is
    claimed stored.

    Records that cannot be stored (disk full) are kept in memory, an
    ``alarm`` is raised, and they are stored again on every later call
    until the outbox takes them; they are never sent before being stored.
    """

    def __init__(self, monitor: RoundMonitor, outbox: Outbox, deliverer: Deliverer | None, log, *,
                 key: bytes | None, evidence_dir, profile_sha256: str | None):
        self.monitor, self.outbox, self.deliverer, self.log = monitor, outbox, deliverer, log
        self.key, self.evidence_dir, self.profile_sha256 = key, evidence_dir, profile_sha256
        self.held: list[tuple[dict, str | None]] = []     # (outcome/void/cancelled event, evidence) not yet stored
        self.held_endings: list[tuple[str, str, str | None, float | None]] = []
        self.alarmed = False

    def emit(self, ev: dict) -> None:
        self.log.write(ev)

    @staticmethod
    def ending(ev: dict) -> tuple[str, str, str | None, float | None] | None:
        """(round_id, verdict, code, t) when ``ev`` ends a round, else None."""
        rid, name = ev.get("round_id"), ev.get("event")
        if rid is None:
            return None
        if name in ("outcome", "void", "uncertain", "cancelled"):
            return rid, name, ev.get("code"), ev.get("t")
        if name == "warning" and ev.get("kind") == "source_ended":
            return rid, "unfinished", None, ev.get("t")
        return None

    def handle(self, events: list[dict]) -> None:
        for ev in events:
            end = self.ending(ev)
            if end is not None:
                self.held_endings.append(end)
                self.flush_endings()
            if ev["event"] in ("outcome", "void", "cancelled"):
                ev = dict(ev)
                evidence = ev.get("evidence")
                if ev["event"] == "outcome":
                    ev.pop("state", None)
                    evidence = None
                    got = self.monitor.evidence(ev["round_id"])
                    if got is not None and self.evidence_dir:
                        try:
                            evidence = os.path.abspath(save_evidence(got[0], self.evidence_dir, ev["round_id"]))
                        except OSError as exc:
                            self.emit({"event": "alarm", "round_id": ev["round_id"], "frame": ev["frame"],
                                       "t": ev["t"], "reason": f"cannot save the reveal frame: {exc}",
                                       "kind": "evidence"})
                    ev["evidence"] = evidence
                self.held.append((ev, evidence))
                rec = self.flush_held(ev["round_id"])
                ev["seq"] = None if rec is None else rec["seq"]
                ev["signed"] = None if rec is None else "signature" in rec
            self.emit(ev)
        self.flush_held()

    def flush_endings(self) -> None:
        """Record held round endings, oldest first (an unwritable outbox raises the one outbox alarm)."""
        while self.held_endings:
            rid, verdict, code, t = self.held_endings[0]
            try:
                self.outbox.end_round(rid, verdict, code, t)
            except OutboxError as exc:
                if not self.alarmed:
                    self.alarmed = True
                    self.emit({"event": "alarm", "round_id": rid, "frame": None, "t": t, "kind": "outbox_write",
                               "reason": f"outbox write failed ({exc}); records and round endings held in memory "
                               "and retried, nothing sent until stored; supervisor actions on round "
                               f"{rid} are refused until its ending ({verdict}) is recorded"})
                return
            self.held_endings.pop(0)
            if self.alarmed and not self.held and not self.held_endings:
                self.alarmed = False
                self.emit({"event": "warning", "round_id": rid, "frame": None, "t": t, "kind": "outbox_ok",
                           "reason": "outbox writable again: held round endings recorded"})

    def _build(self, ev: dict, evidence):
        if ev["event"] == "outcome":
            return lambda seq: record_from_event(ev, seq=seq, key=self.key, evidence=evidence,
                                                 profile_sha256=self.profile_sha256)
        from .console_actions import make_void_message
        reason = ev.get("code") or "cancelled"
        return lambda seq: make_void_message(ev["round_id"], reason, by="reader", seq=seq, key=self.key,
                                             evidence=evidence, source="reader")

    @staticmethod
    def _mine(ev: dict, stored: dict) -> bool:
        """Is ``stored`` the record this event makes (the same source and result)?"""
        if stored.get("source") != "reader":
            return False
        if ev["event"] == "outcome":
            return stored.get("type") == "outcome" and stored.get("red") == ev.get("red")
        return stored.get("type") == "void" and stored.get("reason") == (ev.get("code") or "cancelled")

    def flush_held(self, round_id: str | None = None) -> dict | None:
        """Store held records, oldest first; return the record stored for ``round_id`` (None if it was not
        stored: outbox unwritable, or another record already there) or, without ``round_id``, the last one."""
        self.flush_endings()
        rec = None
        while self.held:
            ev, evidence = self.held[0]
            built: list[dict] = []
            build = self._build(ev, evidence)
            try:
                stored = self.outbox.add(ev["round_id"], lambda seq: built.append(build(seq)) or built[-1])
            except OutboxError as exc:
                if not self.alarmed:
                    self.alarmed = True
                    self.emit({"event": "alarm", "round_id": ev["round_id"], "frame": ev["frame"], "t": ev["t"],
                               "reason": f"outbox write failed ({exc}); {len(self.held)} record(s) held in "
                               "memory and retried, nothing sent until stored", "kind": "outbox_write"})
                return None
            self.held.pop(0)
            ok = bool(built) or self._mine(ev, stored)
            if not ok:
                ours = {"event": ev["event"], "red": ev.get("red"), "code": ev.get("code")}
                theirs = {k: stored.get(k) for k in ("type", "source", "by", "red", "reason", "seq", "created_at")}
                self.emit({"event": "alarm", "round_id": ev["round_id"], "frame": ev["frame"], "t": ev["t"],
                           "kind": "conflict", "reader": ours, "stored": theirs,
                           "reason": f"round {ev['round_id']}: the outbox already holds another record "
                           f"({theirs['source']} {theirs['type']}, red {theirs['red']}, by {theirs['by']}, "
                           f"seq {theirs['seq']}); the reader's {ev['event']} (red {ev.get('red')}, code "
                           f"{ev.get('code')}) was NOT stored: check the round by hand"})
            if round_id is None or ev["round_id"] == round_id:
                rec = stored if ok else None
            if self.alarmed:
                self.emit({"event": "warning", "round_id": ev["round_id"], "frame": ev["frame"], "t": ev["t"],
                           "reason": f"outbox writable again: held record stored (seq {stored['seq']})",
                           "kind": "outbox_ok", "seq": stored["seq"]})
                if not self.held and not self.held_endings:
                    self.alarmed = False
            if self.deliverer is not None:
                self.deliverer.kick()
        return rec


def _round_ids(outbox: Outbox, table: str):
    fallback = [0]

    def next_id(t: float) -> str:
        try:
            rid = outbox.next_round_id(table, at_least=fallback[0] + 1 if fallback[0] else 0)
            fallback[0] = int(rid.rsplit("-", 1)[1])
            return rid
        except OutboxError:
            # the outbox cannot count (disk full): carry on in memory past the last known id
            fallback[0] = max(fallback[0], outbox_counter(outbox)) + 1
            return f"{table}-{time.strftime('%Y%m%d', time.gmtime())}-{fallback[0]:06d}"
    return next_id


def outbox_counter(outbox: Outbox) -> int:
    try:
        return outbox.counter("round")
    except Exception:  # noqa: BLE001
        return 0


def _stdin_lines(q: list, lock: threading.Lock, clock=time.monotonic) -> None:
    """Queue the arrival time (``clock``: the live sources' monotonic clock) of every ``betting_closed`` line."""
    for line in sys.stdin:
        word = line.strip().split()
        if word and word[0] == "betting_closed":
            with lock:
                q.append(clock())


def frame_loop(source, monitor: RoundMonitor, watcher: Watcher, log, *, live: bool, closes=None, stop=None,
               pace=None, on_frame=None, on_events=None):
    """The watch loop, shared by ``xocdia watch`` and the console: frames -> monitor -> watcher.

    ``source`` is a started :class:`ThreadedSource`; ``closes`` the ``(list, lock)`` that
    :func:`_stdin_lines` fills.  A betting close is stamped with its arrival time on a live source
    (frames there carry the same monotonic clock, and the frames still queued or being read would
    stamp it too early) and with the last frame's time on a file or folder (played faster than real
    time, arrival means nothing).  ``pace(item, last_t) -> stop?`` runs before a frame is used,
    ``on_frame(item)`` before it is fed, ``on_events(events, item)`` before the watcher handles them.
    Returns ``(last_t, last_frame)`` when the source ends or ``stop`` is set.
    """
    last_t = last_frame = None
    while stop is None or not stop.is_set():
        item = source.get(timeout=0.1)
        if closes is not None:
            q, lock = closes
            with lock:
                arrived, q[:] = list(q), []
            if arrived and last_t is not None:
                watcher.handle(monitor.betting_closed(arrived[0] if live else last_t))
        if item is None:
            if live:
                watcher.handle(monitor.tick(time.monotonic()))
            watcher.flush_held()
            continue
        if item.kind == "eof":
            break
        if item.kind == "status":
            log.write({"event": "warning", "round_id": monitor.round_id, "frame": None, "t": last_t,
                       "reason": item.reason, "kind": "source"})
            continue
        if pace is not None and pace(item, last_t):
            break
        last_t, last_frame = item.t, item.frame
        if on_frame is not None:
            on_frame(item)
        events = monitor.feed(item.frame, item.t, item.index)
        if on_events is not None:
            on_events(events, item)
        watcher.handle(events)
    return last_t, last_frame


def run(args: argparse.Namespace) -> int:
    key = None
    if not args.unsigned:
        from settlement.signing import load_key
        try:
            key = load_key(args.key_file)
        except ValueError as exc:
            print(f"xocdia watch: {exc}; give --key-file or $XOCDIA_HMAC_KEY (or --unsigned for a dry run)",
                  file=sys.stderr)
            return 2
    profile = None
    if args.profile:
        from .read_cli import load_profile_arg
        try:
            profile = load_profile_arg(args.profile)
        except Exception as exc:  # noqa: BLE001 - a bad profile is a usage error
            print(f"xocdia watch: --profile {args.profile}: {exc}", file=sys.stderr)
            return 2
    try:
        sink = make_sink(args.sink)
        src = open_source(args.source, args.fps)
    except (ValueError, FileNotFoundError) as exc:
        print(f"xocdia watch: {exc}", file=sys.stderr)
        return 2
    try:
        cfg = MonitorConfig(table=args.table, stable_frames=args.stable_frames, read_every=args.read_every,
                            pause_after_s=args.pause_after, cancel_after_s=args.cancel_after,
                            require_betting_closed=args.betting == "stdin")
    except ValueError as exc:
        print(f"xocdia watch: {exc}", file=sys.stderr)
        return 2
    try:
        log = EventLog(args.events)
    except OSError as exc:
        print(f"xocdia watch: --events {args.events}: cannot open: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        outbox = Outbox(args.outbox)
    except sqlite3.Error as exc:
        log.close()
        print(f"xocdia watch: --outbox {args.outbox}: cannot open the outbox database: {exc}", file=sys.stderr)
        return 2
    deliverer = Deliverer(outbox, sink, backoff=Backoff(args.retry_base, args.retry_max, args.seed),
                          on_event=log.write)
    monitor = RoundMonitor(cfg, profile=profile, round_ids=_round_ids(outbox, args.table))
    watcher = Watcher(monitor, outbox, deliverer, log, key=key, evidence_dir=args.evidence,
                      profile_sha256=file_sha256(args.profile) if args.profile else None)
    pending = outbox.stats()["pending"]
    if pending:
        log.write({"event": "warning", "round_id": None, "frame": None, "t": None, "kind": "redelivery",
                   "reason": f"{pending} record(s) not acknowledged before the last stop: delivering them again"})
    deliverer.start()
    closes: list = []
    lock = threading.Lock()
    if args.betting == "stdin":
        threading.Thread(target=_stdin_lines, args=(closes, lock), daemon=True).start()
    source = ThreadedSource(src).start()
    try:
        last_t, _ = frame_loop(source, monitor, watcher, log, live=getattr(src, "live", False),
                               closes=(closes, lock) if args.betting == "stdin" else None)
        watcher.handle(monitor.finish())
    finally:
        source.stop()
    watcher.flush_held()
    drained = deliverer.drain(args.drain_timeout)
    deliverer.stop()
    stats = outbox.stats()
    summary = (f"source ended; outbox: {stats['acked']} delivered, {stats['pending']} pending, "
               f"{stats['rejected']} rejected, {len(watcher.held)} held in memory")
    if stats["pending"] or watcher.held:
        log.write({"event": "warning", "round_id": None, "frame": None, "t": last_t, "reason": summary,
                   "kind": "summary", **stats})
    print(f"xocdia watch: {summary}", file=sys.stderr)
    outbox.close()
    log.close()
    return 0 if drained and not watcher.held else 1


__all__ = ["EventLog", "Watcher", "add_arguments", "frame_loop", "run"]
