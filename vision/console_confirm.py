"""``xocdia confirm ROUND_ID --red N --by NAME``: a supervisor's result for a round, from the command line.

The same action as the console's Confirm button (:mod:`vision.console_actions`):
a manual outcome record (``source: "manual"``, ``by: NAME``, the round's
evidence frame ``<--evidence>/<ROUND_ID>.jpg`` if it exists), signed with
``--key-file`` / ``$XOCDIA_HMAC_KEY`` and committed to ``--outbox``.  A
running console or ``xocdia watch`` on the same outbox delivers it; with
``--sink`` this command delivers it itself (use that only when nothing else
delivers from the outbox).  One action per round: a second confirm or void,
here or on the page, is refused.  Only a round the monitor has ended for a
person to decide is accepted (the watcher records every ending in the
outbox's ``round_endings``): a confirm needs ``uncertain`` or ``unfinished``,
a void also takes ``void`` or ``cancelled``; an unknown round id, a round in
progress or one the reader settled is refused.

Exit status: 0 recorded (and delivered, with ``--sink``), 1 refused or not
delivered in time, 2 usage error.  The stored record is printed as JSON.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("round_id", metavar="ROUND_ID", help="the round, as the console or xocdia watch named it")
    p.add_argument("--by", required=True, metavar="NAME", help="the supervisor's name (goes in the record)")
    p.add_argument("--outbox", metavar="DB", default="xocdia-outbox.db", help="the console's / watch's outbox")
    p.add_argument("--key-file", metavar="K", help="HMAC key file (else $XOCDIA_HMAC_KEY)")
    p.add_argument("--evidence", metavar="DIR", default="evidence", help="where the round's evidence frame is")
    p.add_argument("--sink", metavar="SPEC", help="deliver now: stdout | file:PATH | http://HOST:PORT/PATH "
                   "(default: leave it in the outbox for the running console or watch)")
    p.add_argument("--drain-timeout", type=float, default=10.0, help="seconds to wait for delivery with --sink")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_common(p)
    p.add_argument("--red", required=True, type=int, choices=range(5), metavar="N", help="red faces up, 0-4")


def run_action(args: argparse.Namespace, action: str) -> int:
    from settlement.signing import load_key

    from .console_actions import ActionStore
    from .outbox import Outbox, OutboxError, make_sink

    name = f"xocdia {action}"
    try:
        key = load_key(args.key_file)
        sink = make_sink(args.sink) if args.sink else None
    except ValueError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    try:
        outbox = Outbox(args.outbox)
    except sqlite3.Error as exc:
        print(f"{name}: --outbox {args.outbox}: cannot open the outbox database: {exc}", file=sys.stderr)
        return 2
    try:
        store = ActionStore(args.outbox)
    except sqlite3.Error as exc:
        outbox.close()
        print(f"{name}: --outbox {args.outbox}: cannot open the outbox database: {exc}", file=sys.stderr)
        return 2
    try:
        return _act(args, name, action, outbox, store, key, sink)
    except (sqlite3.Error, OutboxError) as exc:
        print(f"{name}: --outbox {args.outbox}: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
        outbox.close()


def _act(args, name, action, outbox, store, key, sink) -> int:
    from .console_actions import ActionRefused, evidence_for
    from .outbox import Backoff, Deliverer
    store.finish_claimed(outbox, key)
    try:
        rec = store.act(outbox, key, args.round_id, action, red=getattr(args, "red", None),
                        reason=getattr(args, "reason", None), by=args.by,
                        evidence=evidence_for(args.evidence, args.round_id), origin="cli")
    except ActionRefused as exc:
        print(f"{name}: refused: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(rec, sort_keys=True, ensure_ascii=False))
    if sink is None:
        print(f"{name}: {args.round_id}: signed record seq {rec['seq']} in the outbox {args.outbox}; "
              "the running console or watch delivers it", file=sys.stderr)
        return 0
    deliverer = Deliverer(outbox, sink, backoff=Backoff(),
                          on_event=lambda ev: print(f"{name}: {ev['event']}: {ev['reason']}", file=sys.stderr))
    deliverer.start()
    ok = deliverer.drain(args.drain_timeout)
    deliverer.stop()
    if not ok:
        print(f"{name}: not delivered within {args.drain_timeout:g}s; it stays in the outbox", file=sys.stderr)
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    return run_action(args, "confirm")


__all__ = ["add_arguments", "add_common", "run", "run_action"]
