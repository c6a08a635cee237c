"""Outcome records from the round monitor's ``outcome`` events.

The record is exactly the settlement contract (:mod:`settlement.records`):
built with :func:`settlement.records.make_outcome_record` and signed with
:mod:`settlement.signing`, so :meth:`settlement.Ledger.settle` accepts it.
An unsigned record (``--unsigned`` dry runs) simply has no ``signature``;
the ledger refuses it.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from settlement.records import make_outcome_record


def file_sha256(path) -> str | None:
    """Hex SHA-256 of a file's bytes (the profile's hash), None without a path."""
    if path is None:
        return None
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def frame_sha256(frame: np.ndarray) -> str:
    """Hex SHA-256 of a frame's raw pixel bytes."""
    return hashlib.sha256(np.ascontiguousarray(frame).data).hexdigest()


def save_evidence(frame: np.ndarray, evidence_dir, round_id: str, quality: int = 92) -> str:
    """Write the reveal frame as ``<evidence_dir>/<round_id>.jpg`` (atomically, fsynced); return the path."""
    d = Path(evidence_dir)
    d.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"cannot encode the reveal frame of {round_id} as JPEG")
    path = d / f"{round_id}.jpg"
    tmp = d / f".{round_id}.jpg.tmp"
    with open(tmp, "wb") as fh:
        fh.write(buf.tobytes())
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return str(path)


def record_from_event(event: dict[str, Any], *, seq: int, key: bytes | None, evidence: str | None,
                      profile_sha256: str | None) -> dict[str, Any]:
    """The (signed, given ``key``) outcome record of a monitor ``outcome`` event."""
    if event.get("event") != "outcome":
        raise ValueError(f"expected an outcome event, got {event.get('event')!r}")
    tokens = [{k: t[k] for k in ("x", "y", "radius", "face", "p_red")} for t in event["tokens"]]
    return make_outcome_record(
        event["round_id"], int(event["red"]), seq=seq, key=key, tokens=tokens,
        confidence=float(event["confidence"]), reveal_sha256=list(event.get("reveal_sha256") or []),
        evidence=evidence, profile_sha256=profile_sha256, source="reader")


__all__ = ["file_sha256", "frame_sha256", "record_from_event", "save_evidence"]
