"""Validation of signed outcome records.

An *outcome record* is the JSON object that the reader's round monitor (or a
supervisor, for a manual entry) produces when the bowl is lifted and the four
tokens are read.  It is signed with :mod:`settlement.signing` and is the only
input from which :meth:`settlement.ledger.Ledger.settle` pays bets.  The
validation lives here so that the producing side can run exactly the checks
the ledger will run.

Fields (all required, no others allowed)
----------------------------------------
type : "outcome"
round_id : str, 1-64 characters from ``[A-Za-z0-9._:-]``
red : int 0-4
white : int, ``4 - red``
tokens : list of 4 ``{x, y, radius, face, p_red}`` (``face`` "red"/"white",
    ``p_red`` in [0, 1] or null); the red faces must number ``red``.  A
    manual record may give an empty list.
confidence : float in [0, 1]
reveal_sha256 : list of 64-digit lowercase hex strings
evidence : str path or null
profile_sha256 : 64-digit lowercase hex string or null
seq : int >= 0, grows with every record a source emits
created_at : ISO-8601 UTC timestamp (``Z`` or ``+00:00``)
source : "reader" or "manual"
by : str or null; the supervisor's name, required when ``source`` is "manual"
signature : 64-digit lowercase hex HMAC-SHA256 (see :mod:`settlement.signing`)
"""
from __future__ import annotations

import hashlib
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Sequence

from .errors import RecordError
from .signing import canonical_bytes, sign

RECORD_FIELDS = (
    "type", "round_id", "red", "white", "tokens", "confidence", "reveal_sha256", "evidence",
    "profile_sha256", "seq", "created_at", "source", "by", "signature",
)
TOKEN_FIELDS = ("x", "y", "radius", "face", "p_red")
SOURCES = ("reader", "manual")

_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
_HEX64_RE = re.compile(r"^[0-9a-f]{64}$")


def valid_round_id(value: Any) -> bool:
    """True if ``value`` is a well-formed round id (1-64 of ``[A-Za-z0-9._:-]``)."""
    return isinstance(value, str) and bool(_ID_RE.match(value))


def _fail(rid: Any, field: str, problem: str) -> RecordError:
    where = f"round {rid!r}" if isinstance(rid, str) else "outcome record"
    return RecordError(f"{where}: field {field!r}: {problem}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_tokens(rid: Any, tokens: Any, red: int, source: str) -> None:
    if not isinstance(tokens, list):
        raise _fail(rid, "tokens", f"expected a list, got {type(tokens).__name__}")
    if not tokens and source == "manual":
        return
    if len(tokens) != 4:
        raise _fail(rid, "tokens", f"expected 4 tokens, got {len(tokens)}")
    for i, tok in enumerate(tokens):
        name = f"tokens[{i}]"
        if not isinstance(tok, dict):
            raise _fail(rid, name, f"expected an object, got {type(tok).__name__}")
        if set(tok) != set(TOKEN_FIELDS):
            missing = sorted(set(TOKEN_FIELDS) - set(tok))
            extra = sorted(set(tok) - set(TOKEN_FIELDS))
            raise _fail(rid, name, f"missing {missing}, unexpected {extra}")
        for k in ("x", "y", "radius"):
            if not _is_number(tok[k]):
                raise _fail(rid, f"{name}.{k}", f"expected a finite number, got {tok[k]!r}")
        if tok["radius"] <= 0:
            raise _fail(rid, f"{name}.radius", f"expected > 0, got {tok['radius']!r}")
        if tok["face"] not in ("red", "white"):
            raise _fail(rid, f"{name}.face", f"expected 'red' or 'white', got {tok['face']!r}")
        p = tok["p_red"]
        if p is not None and not (_is_number(p) and 0 <= p <= 1):
            raise _fail(rid, f"{name}.p_red", f"expected a number in [0, 1] or null, got {p!r}")
    n_red = sum(1 for t in tokens if t["face"] == "red")
    if n_red != red:
        raise _fail(rid, "tokens", f"{n_red} red faces but red={red}")


def _check_timestamp(rid: Any, value: Any) -> None:
    if not isinstance(value, str):
        raise _fail(rid, "created_at", f"expected an ISO-8601 string, got {value!r}")
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        raise _fail(rid, "created_at", f"not an ISO-8601 timestamp: {value!r}") from None
    if ts.tzinfo is None or ts.utcoffset() != timedelta(0):
        raise _fail(rid, "created_at", f"expected a UTC timestamp (Z or +00:00), got {value!r}")


def validate_outcome_record(
    record: Any, *, round_id: str | None = None, require_signature: bool = True
) -> dict[str, Any]:
    """Check every field of an outcome record.

    The signature itself is *not* verified here (that needs the key; see
    :func:`settlement.signing.verify`); only its presence and form are.

    Parameters
    ----------
    record : dict
        The record, as parsed from JSON.
    round_id : str, optional
        If given, the record's ``round_id`` must equal it.
    require_signature : bool
        If False, an unsigned record is accepted (for checking before signing).

    Returns
    -------
    dict
        ``record`` itself, unchanged.

    Raises
    ------
    RecordError
        On the first problem found; the message names the round and field.
    """
    if not isinstance(record, dict):
        raise RecordError(f"outcome record: expected a JSON object, got {type(record).__name__}")
    rid = record.get("round_id")
    allowed = set(RECORD_FIELDS) if require_signature else set(RECORD_FIELDS) | {"signature"}
    required = set(RECORD_FIELDS) if require_signature else set(RECORD_FIELDS) - {"signature"}
    missing = sorted(required - set(record))
    if missing:
        raise _fail(rid, missing[0], "missing" + (f" (also missing: {', '.join(missing[1:])})" if missing[1:] else ""))
    extra = sorted(set(record) - allowed)
    if extra:
        raise _fail(rid, extra[0], f"unexpected field(s): {', '.join(extra)}")
    if record["type"] != "outcome":
        raise _fail(rid, "type", f"expected 'outcome', got {record['type']!r}")
    if not valid_round_id(rid):
        raise _fail(None, "round_id", f"expected 1-64 characters of [A-Za-z0-9._:-], got {rid!r}")
    if round_id is not None and rid != round_id:
        raise _fail(round_id, "round_id", f"record is for round {rid!r}, not {round_id!r}")
    red, white = record["red"], record["white"]
    if not (_is_int(red) and 0 <= red <= 4):
        raise _fail(rid, "red", f"expected an integer 0-4, got {red!r}")
    if not _is_int(white) or red + white != 4:
        raise _fail(rid, "white", f"expected {4 - red} (red + white == 4), got {white!r}")
    source = record["source"]
    if source not in SOURCES:
        raise _fail(rid, "source", f"expected one of {SOURCES}, got {source!r}")
    by = record["by"]
    if by is not None and not (isinstance(by, str) and by.strip()):
        raise _fail(rid, "by", f"expected a non-empty string or null, got {by!r}")
    if source == "manual" and by is None:
        raise _fail(rid, "by", "a manual record must name the supervisor")
    _check_tokens(rid, record["tokens"], red, source)
    conf = record["confidence"]
    if not (_is_number(conf) and 0 <= conf <= 1):
        raise _fail(rid, "confidence", f"expected a number in [0, 1], got {conf!r}")
    reveal = record["reveal_sha256"]
    if not isinstance(reveal, list) or not all(isinstance(h, str) and _HEX64_RE.match(h) for h in reveal):
        raise _fail(rid, "reveal_sha256", "expected a list of 64-digit lowercase hex strings")
    ev = record["evidence"]
    if ev is not None and not (isinstance(ev, str) and ev):
        raise _fail(rid, "evidence", f"expected a path string or null, got {ev!r}")
    prof = record["profile_sha256"]
    if prof is not None and not (isinstance(prof, str) and _HEX64_RE.match(prof)):
        raise _fail(rid, "profile_sha256", f"expected a 64-digit lowercase hex string or null, got {prof!r}")
    seq = record["seq"]
    if not (_is_int(seq) and seq >= 0):
        raise _fail(rid, "seq", f"expected an integer >= 0, got {seq!r}")
    _check_timestamp(rid, record["created_at"])
    if "signature" in record:
        sig = record["signature"]
        if not (isinstance(sig, str) and _HEX64_RE.match(sig)):
            raise _fail(rid, "signature", "expected a 64-digit lowercase hex HMAC-SHA256")
    return record


def record_sha256(record: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the record's canonical bytes (signature excluded)."""
    return hashlib.sha256(canonical_bytes(record)).hexdigest()


def utc_now_iso() -> str:
    """The current time as an ISO-8601 UTC string with a ``Z`` suffix."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def make_outcome_record(
    round_id: str,
    red: int,
    *,
    seq: int,
    key: bytes | None = None,
    tokens: Sequence[Mapping[str, Any]] | None = None,
    confidence: float = 1.0,
    reveal_sha256: Sequence[str] = (),
    evidence: str | None = None,
    profile_sha256: str | None = None,
    created_at: str | None = None,
    source: str = "reader",
    by: str | None = None,
) -> dict[str, Any]:
    """Build (and, given ``key``, sign) a valid outcome record.

    With ``tokens`` None, a reader record gets four placeholder tokens whose
    faces match ``red``; a manual record gets an empty list.

    Raises
    ------
    RecordError
        If the resulting record does not validate.
    """
    if tokens is None:
        if source == "manual":
            tokens = []
        else:
            faces = ["red"] * red + ["white"] * (4 - red) if _is_int(red) and 0 <= red <= 4 else []
            tokens = [
                {"x": 100.0 * (i + 1), "y": 100.0, "radius": 20.0, "face": f, "p_red": 1.0 if f == "red" else 0.0}
                for i, f in enumerate(faces)
            ]
    rec: dict[str, Any] = {
        "type": "outcome",
        "round_id": round_id,
        "red": red,
        "white": 4 - red if _is_int(red) else None,
        "tokens": [dict(t) for t in tokens],
        "confidence": confidence,
        "reveal_sha256": list(reveal_sha256),
        "evidence": evidence,
        "profile_sha256": profile_sha256,
        "seq": seq,
        "created_at": created_at or utc_now_iso(),
        "source": source,
        "by": by,
    }
    validate_outcome_record(rec, require_signature=False)
    return sign(rec, key) if key is not None else rec


__all__ = [
    "RECORD_FIELDS",
    "SOURCES",
    "TOKEN_FIELDS",
    "make_outcome_record",
    "record_sha256",
    "utc_now_iso",
    "valid_round_id",
    "validate_outcome_record",
]
