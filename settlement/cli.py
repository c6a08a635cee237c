"""``xocdia settle``: the settlement ledger from the command line.

Usage::

    xocdia settle --db LEDGER.db [--table-min 1 --table-max 5000 [--minor-units 2]] COMMAND ...

    add-player PLAYER
    open-round ROUND
    place-bet ROUND PLAYER BET_TYPE STAKE [--ref REF]
    close ROUND
    pause ROUND REASON          resume ROUND
    settle ROUND RECORD.json [--key-file K]     (RECORD "-" reads stdin)
    void ROUND {no_shake,early_lift,bowl_touched_token,layout_unchanged} [--note TEXT]
    cancel ROUND REASON
    round ROUND                 bets ROUND
    history PLAYER              balance ROUND          audit [ROUND]
    serve [--key-file K]        (JSON lines on stdin/stdout, see settlement.service)

The table limits (and minor units) are needed once, when the ledger file is
created.  The HMAC key comes from ``--key-file`` or ``$XOCDIA_HMAC_KEY``.
Results are printed as JSON on stdout (money as decimal strings).  Exit
status: 0 done, 1 refused (the message, with its code, on stderr), 2 usage.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .errors import SettlementError
from .ledger import VOID_REASONS, Ledger
from .messages import apply_message
from .payouts import BET_TYPES
from .service import dumps, serve
from .signing import load_key


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``settle`` options and sub-commands to ``parser``."""
    parser.add_argument("--db", default=os.environ.get("XOCDIA_LEDGER"),
                        help="ledger SQLite file (default: $XOCDIA_LEDGER)")
    parser.add_argument("--table-min", help="smallest stake, currency units (needed to create a ledger)")
    parser.add_argument("--table-max", help="largest stake, currency units (needed to create a ledger)")
    parser.add_argument("--minor-units", type=int, help="decimal places of the currency (default 2 for a new ledger)")
    parser.add_argument("--key-file", help="HMAC key file of outcome records (default: $XOCDIA_HMAC_KEY)")
    sub = parser.add_subparsers(dest="settle_command", metavar="SUBCOMMAND")

    def cmd(name: str, help_text: str, *args: tuple[str, str]) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        for arg, h in args:
            p.add_argument(arg, help=h)
        return p

    cmd("add-player", "register a player", ("player", "player id"))
    cmd("open-round", "open a round for betting", ("round_id", "round id"))
    p = cmd("place-bet", "place a bet on an open round", ("round_id", "round id"), ("player", "player id"),
            ("bet_type", f"one of {', '.join(BET_TYPES)}"), ("stake", "stake in currency units, e.g. 10.50"))
    p.add_argument("--ref", help="client reference: a retry with the same ref returns the first bet")
    cmd("close", "close betting", ("round_id", "round id"))
    cmd("pause", "pause a round after a fault", ("round_id", "round id"), ("reason", "what happened"))
    cmd("resume", "resume a paused round", ("round_id", "round id"))
    p = cmd("settle", "settle a closed round from a signed outcome record", ("round_id", "round id"),
            ("record", "outcome record JSON file, or - for stdin"))
    p.add_argument("--key-file", dest="sub_key_file", help="HMAC key file (default: $XOCDIA_HMAC_KEY)")
    p = cmd("apply", "apply a delivered message: a signed outcome record (settle) or a console's signed void "
            "message (void or cancel)", ("message", "message JSON file, or - for stdin"))
    p.add_argument("--key-file", dest="sub_key_file", help="HMAC key file (default: $XOCDIA_HMAC_KEY)")
    p = cmd("void", "void a round and refund every bet", ("round_id", "round id"))
    p.add_argument("reason", choices=list(VOID_REASONS), help="rule-sheet reason")
    p.add_argument("--note", help="free text kept with the reason")
    cmd("cancel", "cancel a round (fault not fixed quickly) and refund every bet", ("round_id", "round id"),
        ("reason", "what happened"))
    cmd("round", "show a round", ("round_id", "round id"))
    cmd("bets", "list a round's bets", ("round_id", "round id"))
    cmd("history", "list every bet of a player", ("player", "player id"))
    cmd("balance", "check that a round's money balances", ("round_id", "round id"))
    p = cmd("audit", "print the audit log")
    p.add_argument("round_id", nargs="?", help="only this round")
    p = cmd("serve", "JSON-lines service: one request per line on stdin, one response per line on stdout")
    p.add_argument("--key-file", dest="sub_key_file", help="HMAC key file (default: $XOCDIA_HMAC_KEY)")


def _key(args: argparse.Namespace, required: bool) -> bytes | None:
    path = getattr(args, "sub_key_file", None) or args.key_file
    if path is None and not required and "XOCDIA_HMAC_KEY" not in os.environ:
        return None
    return load_key(path)


def _read_record(path: str) -> Any:
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise ValueError(f"record file {path!r}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"record file {path!r}: not JSON: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Run one ``xocdia settle`` sub-command; returns the exit status."""
    command = getattr(args, "settle_command", None)
    if not command:
        print("xocdia settle: a sub-command is required (see xocdia settle --help)", file=sys.stderr)
        return 2
    if not args.db:
        print("xocdia settle: --db LEDGER.db is required (or set $XOCDIA_LEDGER)", file=sys.stderr)
        return 2
    try:
        key = _key(args, required=command in ("settle", "apply"))
        with Ledger(args.db, currency_minor_units=args.minor_units, table_min=args.table_min,
                    table_max=args.table_max, hmac_key=key) as led:
            if command == "serve":
                return serve(led, sys.stdin, sys.stdout)
            result = _dispatch(led, command, args)
    except SettlementError as exc:
        print(f"xocdia settle: {exc.code}: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # key or record file problems
        print(f"xocdia settle: {exc}", file=sys.stderr)
        return 1
    print(dumps(result))
    return 0


def _dispatch(led: Ledger, command: str, args: argparse.Namespace) -> Any:
    if command == "add-player":
        return led.add_player(args.player)
    if command == "open-round":
        return led.open_round(args.round_id)
    if command == "place-bet":
        return led.place_bet(args.round_id, args.player, args.bet_type, args.stake, ref=args.ref)
    if command == "close":
        return led.close_betting(args.round_id)
    if command == "pause":
        return led.pause(args.round_id, args.reason)
    if command == "resume":
        return led.resume(args.round_id)
    if command == "settle":
        return led.settle(args.round_id, _read_record(args.record))
    if command == "apply":
        return apply_message(led, _read_record(args.message))
    if command == "void":
        return led.void(args.round_id, args.reason, note=args.note)
    if command == "cancel":
        return led.cancel(args.round_id, args.reason)
    if command == "round":
        return led.round(args.round_id)
    if command == "bets":
        return led.bets(args.round_id)
    if command == "history":
        return led.history(args.player)
    if command == "balance":
        return led.balance_check(args.round_id)
    if command == "audit":
        return led.audit_log(args.round_id)
    raise ValueError(f"unknown sub-command {command!r}")  # pragma: no cover - argparse restricts it


__all__ = ["add_arguments", "run"]
