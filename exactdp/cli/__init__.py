"""The ``exactdp`` command.

Each subcommand module has a ``register(subparsers)`` function; errors a user can cause
(:class:`~exactdp.errors.InputError`, bad arguments) print one line on stderr and exit with code 2;
a precision that cannot be reached exits with code 1.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import ExactDPError, InputError
from . import (continuous_commands, exact_commands, reproduce_command, search_command,
               tester_commands)

#: Subcommand modules, in the order ``exactdp --help`` lists them.
COMMAND_MODULES = (exact_commands, reproduce_command, tester_commands, search_command,
                   continuous_commands)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="exactdp", description="Exact probabilities and privacy losses of "
                     "differential-privacy mechanisms.")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except InputError as exc:
        print(f"exactdp: error: {exc}", file=sys.stderr)
        return 2
    except (ExactDPError, ArithmeticError) as exc:
        print(f"exactdp: cannot answer: {exc}", file=sys.stderr)
        return 1


def entry_point() -> None:  # pragma: no cover - the console script
    sys.exit(main())
