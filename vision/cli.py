"""The ``xocdia`` command line.

Each subcommand lives in its own module with two functions,
``add_arguments(parser)`` and ``run(args) -> int``.  To add a command, add one
line to :data:`COMMANDS`; nothing else in this file changes.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

#: (name, module, one-line help)
COMMANDS: list[tuple[str, str, str]] = [
    ("calibrate", "calibration.cli", "learn a studio profile from a few frames of the plate with four flat tokens"),
    ("confirm", "vision.console_confirm", "a supervisor's result (red count) for a round: signed manual record into the outbox"),
    ("console", "vision.console", "supervisor web console: live view with the reader's overlay, rounds, manual confirm/void"),
    ("read", "vision.read_cli", "read still frames and print one JSON verdict per image"),
    ("replay", "vision.replay", "replay images, folders, globs or videos through the reader; annotated frames, HTML report, accuracy"),
    ("rtp", "settlement.rtp_cli", "print the exact return to player of every bet type (--simulate N to cross-check)"),
    ("settle", "settlement.cli", "settlement ledger: rounds, bets, signed outcomes, voids, history, JSON-lines service"),
    ("synth", "vision.synth_cli", "synthesize labelled table scenes and round clips"),
    ("void", "vision.console_void", "a supervisor voids a round: signed void message into the outbox"),
    ("watch", "vision.watch_cli", "watch a camera, clip or frame folder; emit round events and signed, durably delivered outcomes"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xocdia",
        description="Xoc Dia result reader: reads the four tokens on the dealer's plate, "
        "and settles bets on validated outcomes.",
    )
    parser.add_argument("--version", action="version", version=f"xocdia {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, help_text in COMMANDS:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        print("xocdia: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
