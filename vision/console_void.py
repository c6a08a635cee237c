"""``xocdia void ROUND_ID --reason TEXT --by NAME``: a supervisor voids a round from the command line.

The same action as the console's Void button: a signed void message in the
outbox, delivered like an outcome record.  ``--reason`` starting with a
rule-sheet code (``no_shake``, ``early_lift``, ``bowl_touched_token``,
optionally ``code: note``) becomes ``Ledger.void``; any other text becomes
``Ledger.cancel`` (both refund every bet); see :mod:`vision.console_actions`.
Options and exit status as ``xocdia confirm``.
"""
from __future__ import annotations

import argparse

from .console_confirm import add_common, run_action


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_common(p)
    p.add_argument("--reason", required=True, metavar="TEXT", help="why the round is void")


def run(args: argparse.Namespace) -> int:
    return run_action(args, "void")


__all__ = ["add_arguments", "run"]
