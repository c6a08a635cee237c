"""A JSON-lines service over :class:`settlement.ledger.Ledger` (stdin -> stdout).

One JSON request per line, one JSON response per line, in order::

    {"id": 7, "op": "place_bet", "round_id": "R1", "player": "alice", "bet_type": "big", "stake": "10.00"}
    {"id": 7, "ok": true, "result": {"bet_id": 1, "stake": "10.00", "state": "confirmed", ...}}

    {"id": 8, "op": "settle", "round_id": "R1", "record": {...signed outcome record...}}
    {"id": 8, "ok": false, "error": {"code": "signature", "message": "round 'R1': ..."}}

``id`` is optional and echoed back.  Money goes in and comes out as decimal
strings (``"10.50"``); a JSON number with a fraction is refused (never float);
an integer is whole currency units.  Error codes are the ``code`` of
:mod:`settlement.errors` plus ``bad_json``, ``bad_request``, ``unknown_op``,
``storage`` and ``internal``.  The service keeps going after any error.

Operations and their parameters (``?`` = optional)::

    ping
    bet_types
    add_player     player
    open_round     round_id
    place_bet      round_id player bet_type stake ref?
    close_betting  round_id
    pause          round_id reason
    resume         round_id
    settle         round_id record
    void           round_id reason note?
    cancel         round_id reason
    round          round_id
    bets           round_id
    history        player
    balance_check  round_id
    audit_log      round_id?
"""
from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from typing import IO, Any

from .errors import SettlementError
from .ledger import Ledger
from .messages import apply_message
from .payouts import BET_TYPES, format_odds

#: op -> (required parameters, optional parameters)
OPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ping": ((), ()),
    "bet_types": ((), ()),
    "add_player": (("player",), ()),
    "open_round": (("round_id",), ()),
    "place_bet": (("round_id", "player", "bet_type", "stake"), ("ref",)),
    "close_betting": (("round_id",), ()),
    "pause": (("round_id", "reason"), ()),
    "resume": (("round_id",), ()),
    "settle": (("round_id", "record"), ()),
    "apply": (("message",), ()),
    "void": (("round_id", "reason"), ("note",)),
    "cancel": (("round_id", "reason"), ()),
    "round": (("round_id",), ()),
    "bets": (("round_id",), ()),
    "history": (("player",), ()),
    "balance_check": (("round_id",), ()),
    "audit_log": ((), ("round_id",)),
}


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps(value: Any) -> str:
    """JSON text with Decimals as strings (one line)."""
    return json.dumps(value, default=_json_default, ensure_ascii=False, separators=(",", ":"))


def _error(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"code": code, "message": message}}


def handle(ledger: Ledger, request: Any) -> dict[str, Any]:
    """Answer one decoded request (never raises for a bad request).

    Parameters
    ----------
    ledger : Ledger
    request : dict
        ``{"op": ..., "id": ...?, **parameters}``.

    Returns
    -------
    dict
        ``{"id"?, "ok": true, "result": ...}`` or ``{"id"?, "ok": false, "error": {"code", "message"}}``.
    """
    if not isinstance(request, dict):
        return _error("bad_request", f"a request must be a JSON object, got {type(request).__name__}")
    head = {"id": request["id"]} if "id" in request else {}
    op = request.get("op")
    if op not in OPS:
        return {**head, **_error("unknown_op", f"unknown op {op!r}; expected one of {', '.join(OPS)}")}
    required, optional = OPS[op]
    params = {k: v for k, v in request.items() if k not in ("id", "op")}
    missing = [k for k in required if k not in params]
    extra = sorted(set(params) - set(required) - set(optional))
    if missing or extra:
        what = (f"missing {', '.join(missing)}" if missing else "") + ("; " if missing and extra else "") + \
            (f"unexpected {', '.join(extra)}" if extra else "")
        return {**head, **_error("bad_request", f"op {op!r}: {what}")}
    try:
        if op == "ping":
            result: Any = {"pong": True}
        elif op == "bet_types":
            result = [{"bet_type": b.name, "odds": format_odds(b.odds), "description": b.description}
                      for b in BET_TYPES.values()]
        elif op == "settle":
            result = ledger.settle(params["round_id"], params["record"])
        elif op == "apply":
            result = apply_message(ledger, params["message"])
        elif op == "close_betting":
            result = ledger.close_betting(params["round_id"])
        else:
            result = getattr(ledger, op)(*(params[k] for k in required), **{k: params[k] for k in optional
                                                                              if k in params})
    except SettlementError as exc:
        return {**head, **_error(exc.code, str(exc))}
    except sqlite3.Error as exc:
        return {**head, **_error("storage", f"ledger {ledger.path!r}: {exc}")}
    except Exception as exc:  # noqa: BLE001 - the service answers every request
        return {**head, **_error("internal", f"{type(exc).__name__}: {exc}")}
    return {**head, "ok": True, "result": result}


def serve(ledger: Ledger, stdin: IO[str], stdout: IO[str]) -> int:
    """Read requests from ``stdin`` until EOF, write one response line each; returns 0."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            response = _error("bad_json", f"not a JSON line: {exc}")
        else:
            response = handle(ledger, request)
        stdout.write(dumps(response) + "\n")
        stdout.flush()
    return 0


__all__ = ["OPS", "dumps", "handle", "serve"]
