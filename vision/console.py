"""``xocdia console``: a local web page for the supervisor.

It shows the live camera view with the reader's overlay (plate, tokens
coloured by face, verdict and reason), the round monitor's state and a log of
the last rounds with their evidence frames.  When the reader abstains
(``uncertain``) or a round ends unfinished, the supervisor enters the result
(red count) or voids the round; a round the monitor voided or cancelled is
already in the outbox as the reader's signed void message and can never be
given a result; after a ``rearrange`` the page shows the faces
before and after.

A manual result is an outcome record of the same form as the reader's
(``source: "manual"``, ``by: <supervisor>``, the round's evidence frame),
signed with the console's key, committed to the same outbox and delivered by
the same deliverer as automatic records (see :mod:`vision.console_actions`
for the void message and how it maps to the ledger).  One action per round,
enforced by SQLite; ``xocdia confirm`` / ``xocdia void`` do the same from the
command line against the same ``--outbox``.

Betting: as ``xocdia watch``, ``--betting stdin`` (default) closes betting on
a ``betting_closed`` line on stdin and a reveal before it is void (early
lift); ``--betting auto`` is for dry runs on clips only.

Security: loopback only unless ``--token-file`` is given; see
:mod:`vision.console_http` for the checks on every state-changing request.

The source -> monitor -> records -> outbox -> sink wiring is ``xocdia
watch``'s (:class:`vision.watch_cli.Watcher`); a file or folder source is
played at ``--speed`` times real time, and the page stays up after it ends
so its rounds can still be handled (Ctrl-C stops the console).
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

from .console_actions import ActionRefused, ActionStore, evidence_for
from .console_http import Security, is_loopback, make_server
from .console_live import ACTIONABLE, CONFIRMABLE, VOIDABLE, ConsoleLoop, LiveState
from .monitor_events import MonitorConfig

MIN_TOKEN_CHARS = 16


def _port(text: str) -> int:
    """argparse type: a TCP port 0-65535."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {text!r}") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {n}")
    return n


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", default="0", help="camera index (default 0), rtsp:// or http:// URL, video file, "
                   "or folder of frames")
    p.add_argument("--profile", metavar="P", help="studio profile (xocdia calibrate)")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1; anything not loopback "
                   "needs --token-file)")
    p.add_argument("--port", type=_port, default=8765, help="port (default 8765; 0 = any free port)")
    p.add_argument("--token-file", metavar="F", help="file holding the access token (at least 16 characters) "
                   "every state-changing request must send as X-Xocdia-Token")
    p.add_argument("--key-file", metavar="K", help="HMAC key file of the records (else $XOCDIA_HMAC_KEY)")
    p.add_argument("--outbox", metavar="DB", default="xocdia-outbox.db", help="durable outbox (SQLite WAL); "
                   "also holds the manual actions and the console audit")
    p.add_argument("--sink", metavar="SPEC", default="stdout", help="stdout | file:PATH | http://HOST:PORT/PATH")
    p.add_argument("--evidence", metavar="DIR", default="evidence", help="evidence frames as <round_id>.jpg")
    p.add_argument("--events", metavar="OUT.jsonl", help="also write every round event here (JSON lines)")
    p.add_argument("--table", default="T1", help="table name in round ids")
    p.add_argument("--fps", type=float, default=None, help="frame rate of a folder or a file without one")
    p.add_argument("--speed", type=float, default=1.0, help="play a file or folder at this many times real time "
                   "(0 = as fast as it reads)")
    p.add_argument("--betting", choices=("stdin", "auto"), default="stdin",
                   help="stdin (default, as xocdia watch): 'betting_closed' lines on stdin close betting, a reveal "
                   "before that is void (early lift); auto: DRY RUN ONLY (clips, demos): betting counts as closed "
                   "when the bowl settles, which switches the early-lift rule off")
    p.add_argument("--stable-frames", type=int, default=MonitorConfig.stable_frames)
    p.add_argument("--reveal-timeout", type=float, default=MonitorConfig.reveal_timeout_s,
                   help="seconds without a stable reading after the reveal before 'uncertain'")
    p.add_argument("--rearrange-timeout", type=float, default=MonitorConfig.rearrange_timeout_s,
                   help="seconds without a stable reading after a rearrange before 'uncertain'")
    p.add_argument("--ready-file", metavar="F", help="write the page's URL here once it is served (scripts, tests)")
    p.add_argument("--exit-when-done", action="store_true", help="stop once a file source has ended and nothing "
                   "is left to deliver or to act on (scripts)")
    p.add_argument("--verbose", action="store_true", help="log every HTTP request on stderr")


def read_token(path) -> str:
    """The token in ``path`` (one trailing newline stripped); at least 16 printable characters."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"token file {path}: cannot read: {exc}") from exc
    token = text.rstrip("\r\n")
    if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or token != token.strip():
        raise ValueError(f"token file {path}: the token must be at least {MIN_TOKEN_CHARS} printable characters "
                         "without spaces around it")
    return token


class Console:
    """The glue between the HTTP handler, the live loop, the outbox and the action store."""

    def __init__(self, *, live: LiveState, outbox, store: ActionStore, deliverer, key: bytes, security: Security,
                 evidence_dir, verbose: bool = False, log=None):
        self.live, self.outbox, self.store, self.deliverer = live, outbox, store, deliverer
        self.key, self.security, self.evidence_dir = key, security, evidence_dir
        self.verbose = verbose
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.stopping = threading.Event()
        self.url = None

    # -- reads ----------------------------------------------------------------
    def state_json(self) -> dict:
        out = self.live.snapshot()
        try:
            out["outbox"] = self.outbox.stats()
        except Exception as exc:  # noqa: BLE001 - shown, not fatal
            out["outbox"] = {"error": str(exc)}
        out["token_required"] = self.security.token is not None
        out["bind"] = f"{self.security.host}:{self.security.port}"
        out["loopback"] = self.security.loopback
        return out

    def rounds_json(self) -> list[dict]:
        rounds = self.live.rounds_list()
        try:
            delivery = {r["round_id"]: r for r in self.outbox.rows()}
        except Exception:  # noqa: BLE001
            delivery = {}
        actions = self.store.actions()
        for r in rounds:
            rid = r["round_id"]
            d = delivery.get(rid)
            r["delivery"] = None if d is None else {"seq": d["seq"], "state": d["state"], "attempts": d["attempts"],
                                                    "last_error": d["last_error"]}
            r["action"] = actions.get(rid)
            r["actionable"] = r["status"] in ACTIONABLE and r["action"] is None and d is None
            r["can_confirm"] = r["actionable"] and r["status"] in CONFIRMABLE
            r["evidence_url"] = f"/evidence/{rid}.jpg" if self.evidence_path(rid, False) else None
            r["before_url"] = f"/evidence/{rid}-before.jpg" if self.evidence_path(rid, True) else None
            r.pop("tokens", None)
            if r.get("before"):
                r["before"] = {"faces": r["before"]["faces"]}
            if r.get("after"):
                r["after"] = {"faces": r["after"]["faces"]}
        return rounds

    def evidence_path(self, round_id: str, before: bool) -> Path | None:
        if not self.evidence_dir:
            return None
        p = Path(self.evidence_dir) / f"{round_id}{'-before' if before else ''}.jpg"
        return p if p.is_file() else None

    # -- writes ---------------------------------------------------------------
    def act(self, round_id: str, action: str, data: dict, *, origin: str) -> dict:
        """A supervisor action from the page; raises ActionRefused."""
        rnd = self.live.round(round_id)
        if rnd is None:
            self.store.audit(action, False, round_id=round_id, by=data.get("by") if isinstance(data.get("by"), str)
                             else None, origin=origin, detail="unknown round")
            raise ActionRefused(f"round {round_id}: not in this console's log", 404)
        allowed = CONFIRMABLE if action == "confirm" else VOIDABLE
        if rnd["status"] not in allowed:
            self.store.audit(action, False, round_id=round_id, origin=origin,
                             detail=f"round is {rnd['status']}, a {action} needs {' or '.join(allowed)}")
            raise ActionRefused(f"round {round_id} is {rnd['status']}: a {action} needs a round the monitor "
                                f"ended {' or '.join(allowed)}", 409)
        rec = self.store.act(self.outbox, self.key, round_id, action, red=data.get("red"),
                             reason=data.get("reason"), by=data.get("by"),
                             evidence=evidence_for(self.evidence_dir, round_id), origin=origin)
        self.deliverer.kick()
        self.log(f"xocdia console: {action} {round_id} by {rec.get('by')} ({origin}): seq {rec.get('seq')}")
        return rec

    def refused(self, path: str, peer: str, why: str, origin_header) -> None:
        parts = path.split("/")
        rid = parts[3] if len(parts) == 5 and parts[:3] == ["", "api", "rounds"] else None
        self.store.audit("refused", False, round_id=rid, origin=f"web {peer}", detail={"path": path, "why": why,
                                                                         "origin": origin_header})
        self.log(f"xocdia console: refused POST {path} from {peer}: {why}")

    def settled_for_exit(self) -> bool:
        """Nothing left to act on or deliver (``--exit-when-done``)."""
        if self.live.source_status in ("starting", "running"):
            return False
        if any(r["actionable"] for r in self.rounds_json()):
            return False
        return self.outbox.stats()["pending"] == 0


def run(args: argparse.Namespace) -> int:
    from settlement.signing import load_key

    from .outbox import Backoff, Deliverer, Outbox, make_sink
    from .records import file_sha256
    from .sources import open_source
    from .watch_cli import EventLog, Watcher, _round_ids, _stdin_lines
    from .monitor import RoundMonitor

    def fail(msg: str) -> int:
        print(f"xocdia console: {msg}", file=sys.stderr)
        return 2

    try:
        key = load_key(args.key_file)
    except ValueError as exc:
        return fail(f"{exc}; give --key-file or $XOCDIA_HMAC_KEY (manual records are signed)")
    token = None
    if args.token_file:
        try:
            token = read_token(args.token_file)
        except ValueError as exc:
            return fail(str(exc))
    if not is_loopback(args.host) and token is None:
        return fail(f"--host {args.host} is not loopback: give --token-file (every action must send the token)")
    profile = None
    if args.profile:
        from .read_cli import load_profile_arg
        try:
            profile = load_profile_arg(args.profile)
        except Exception as exc:  # noqa: BLE001 - a bad profile is a usage error
            return fail(f"--profile {args.profile}: {exc}")
    try:
        sink = make_sink(args.sink)
        src = open_source(args.source, args.fps)
        cfg = MonitorConfig(table=args.table, stable_frames=args.stable_frames,
                            reveal_timeout_s=args.reveal_timeout, rearrange_timeout_s=args.rearrange_timeout,
                            require_betting_closed=args.betting == "stdin")
    except (ValueError, FileNotFoundError) as exc:
        return fail(str(exc))

    try:
        events_log = EventLog(args.events) if args.events else None
    except OSError as exc:
        return fail(f"--events {args.events}: cannot open: {exc.strerror or exc}")
    live = LiveState(evidence_dir=args.evidence, forward=events_log)
    try:
        outbox = Outbox(args.outbox)
        store = ActionStore(args.outbox)
    except sqlite3.Error as exc:
        return fail(f"--outbox {args.outbox}: cannot open the outbox database: {exc}")
    deliverer = Deliverer(outbox, sink, backoff=Backoff(), on_event=live.write)
    from .reader import read_frame

    def reader(frame, prof):
        r = read_frame(frame, prof)
        live.note_reading(r.to_dict(), live.frame_index)
        return r

    monitor = RoundMonitor(cfg, profile=profile, round_ids=_round_ids(outbox, args.table), reader=reader)
    watcher = Watcher(monitor, outbox, deliverer, live, key=key, evidence_dir=args.evidence,
                      profile_sha256=file_sha256(args.profile) if args.profile else None)
    try:
        security = Security(args.host, args.port, token)
    except ValueError as exc:
        return fail(str(exc))
    console = Console(live=live, outbox=outbox, store=store, deliverer=deliverer, key=key, security=security,
                      evidence_dir=args.evidence, verbose=args.verbose)
    try:
        server = make_server(console, args.host, args.port)
    except OSError as exc:
        return fail(f"cannot serve on {args.host}:{args.port}: {exc}")
    security.port = server.server_address[1]
    finished = store.finish_claimed(outbox, key)
    if finished:
        print(f"xocdia console: stored the records of {len(finished)} action(s) claimed before a crash: "
              f"{', '.join(finished)}", file=sys.stderr)
    deliverer.start()
    closes = None
    if args.betting == "stdin":
        closes = ([], threading.Lock())
        threading.Thread(target=_stdin_lines, args=closes, daemon=True).start()
    loop = ConsoleLoop(src, monitor, watcher, live, speed=args.speed, closes=closes).start()
    host = args.host if ":" not in args.host else f"[{args.host}]"
    console.url = f"http://{host}:{security.port}/"
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="console-http",
                     daemon=True).start()
    where = "loopback only" if security.loopback else "network: actions need the token"
    print(f"xocdia console: serving {console.url} ({where}); Ctrl-C to stop", file=sys.stderr, flush=True)
    if args.ready_file:
        tmp = f"{args.ready_file}.tmp"
        Path(tmp).write_text(console.url + "\n", encoding="utf-8")
        os.replace(tmp, args.ready_file)
    status = 0
    try:
        while True:
            time.sleep(0.2)
            if args.exit_when_done and loop.done.is_set() and console.settled_for_exit():
                break
    except KeyboardInterrupt:
        status = 130
    finally:
        console.stopping.set()
        server.shutdown()
        server.server_close()
        loop.stop()
        deliverer.drain(2.0)
        deliverer.stop()
        stats = outbox.stats()
        print(f"xocdia console: stopped; outbox: {stats['acked']} delivered, {stats['pending']} pending, "
              f"{stats['rejected']} rejected", file=sys.stderr)
        store.close()
        outbox.close()
        if events_log is not None:
            events_log.close()
    if loop.error is not None:
        print(f"xocdia console: the source loop failed: {loop.error!r}", file=sys.stderr)
        return 1
    return status


__all__ = ["Console", "add_arguments", "read_token", "run"]
