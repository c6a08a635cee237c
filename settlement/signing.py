"""HMAC-SHA256 signing of outcome records.

This module is the single definition of the signed-record contract; the
reader's round monitor, the supervisor console and the settlement ledger all
import it.  It depends on the standard library only.

The signature covers the *canonical bytes* of a record: ``json.dumps`` of the
record without its ``"signature"`` key, with ``sort_keys=True``,
``separators=(",", ":")``, ``ensure_ascii=False`` and ``allow_nan=False``,
encoded as UTF-8.  The signature is the lowercase hex HMAC-SHA256 of those
bytes under a shared key of at least 16 bytes.

Examples
--------
>>> key = b"0123456789abcdef"
>>> rec = sign({"type": "outcome", "round_id": "R1", "red": 3}, key)
>>> verify(rec, key)
True
>>> verify(dict(rec, red=4), key)
False
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import Any, Mapping

#: Shortest key accepted by :func:`load_key`, bytes.
MIN_KEY_BYTES = 16

#: Name of the record field holding the signature.
SIGNATURE_FIELD = "signature"


def canonical_bytes(record: Mapping[str, Any]) -> bytes:
    """The bytes the signature covers.

    Parameters
    ----------
    record : mapping
        A JSON-serialisable record; its ``"signature"`` key, if any, is left out.

    Returns
    -------
    bytes
        UTF-8 of the compact, key-sorted JSON text.

    Raises
    ------
    TypeError
        If ``record`` is not a mapping or holds a value JSON cannot encode.
    ValueError
        If ``record`` holds NaN or an infinity.
    """
    if not isinstance(record, Mapping):
        raise TypeError(f"record: expected a dict, got {type(record).__name__}")
    body = {k: v for k, v in record.items() if k != SIGNATURE_FIELD}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")


def _check_key(key: bytes) -> None:
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"key: expected bytes, got {type(key).__name__}")
    if len(key) == 0:
        raise ValueError("key: empty HMAC key")


def compute_signature(record: Mapping[str, Any], key: bytes) -> str:
    """Hex HMAC-SHA256 of :func:`canonical_bytes` of ``record`` under ``key``."""
    _check_key(key)
    return hmac.new(bytes(key), canonical_bytes(record), hashlib.sha256).hexdigest()


def sign(record: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    """Return a new dict: ``record`` with ``"signature"`` set.

    Parameters
    ----------
    record : mapping
        The record to sign; an existing ``"signature"`` is replaced.
    key : bytes
        The shared HMAC key.

    Returns
    -------
    dict
        A copy of ``record`` with the hex HMAC-SHA256 signature.
    """
    if not isinstance(record, Mapping):
        raise TypeError(f"record: expected a dict, got {type(record).__name__}")
    signed = {k: v for k, v in record.items() if k != SIGNATURE_FIELD}
    signed[SIGNATURE_FIELD] = compute_signature(signed, key)
    return signed


def verify(record: Mapping[str, Any], key: bytes) -> bool:
    """True if ``record["signature"]`` is the HMAC of its canonical bytes.

    A record that is not a mapping, has no string signature, or cannot be
    canonicalised (NaN, unserialisable values) does not verify.  The
    comparison uses :func:`hmac.compare_digest`.
    """
    _check_key(key)
    if not isinstance(record, Mapping):
        return False
    given = record.get(SIGNATURE_FIELD)
    if not isinstance(given, str):
        return False
    try:
        expected = compute_signature(record, key)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(expected.encode("ascii"), given.encode("utf-8", "replace"))


def load_key(path: str | os.PathLike[str] | None = None, env: str = "XOCDIA_HMAC_KEY") -> bytes:
    """Read the shared HMAC key from a file or, without a path, an environment variable.

    Parameters
    ----------
    path : str or path-like, optional
        Key file.  Its content is the key; one trailing newline (``\\n`` or
        ``\\r\\n``) is stripped.
    env : str
        Environment variable used when ``path`` is None; its value is encoded
        as UTF-8.

    Returns
    -------
    bytes
        The key, at least :data:`MIN_KEY_BYTES` long.

    Raises
    ------
    ValueError
        If the file cannot be read, the variable is unset, or the key is empty
        or shorter than 16 bytes; the message names the file or variable.
    """
    if path is not None:
        where = f"key file {os.fspath(path)!r}"
        try:
            with open(path, "rb") as fh:
                key = fh.read()
        except OSError as exc:
            raise ValueError(f"{where}: cannot read: {exc.strerror or exc}") from exc
        if key.endswith(b"\r\n"):
            key = key[:-2]
        elif key.endswith(b"\n"):
            key = key[:-1]
    else:
        where = f"environment variable {env}"
        value = os.environ.get(env)
        if value is None:
            raise ValueError(f"{where} is not set and no key file was given")
        key = value.encode("utf-8")
    if not key:
        raise ValueError(f"{where}: the HMAC key is empty")
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"{where}: the HMAC key is {len(key)} bytes; at least {MIN_KEY_BYTES} are required")
    return key


__all__ = ["MIN_KEY_BYTES", "SIGNATURE_FIELD", "canonical_bytes", "compute_signature", "load_key", "sign", "verify"]
