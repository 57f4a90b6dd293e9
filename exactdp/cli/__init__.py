"""The ``exactdp`` command.

Each subcommand module has a ``register(subparsers)`` function; errors a user can cause
(:class:`~exactdp.errors.InputError`, bad arguments) print one line on stderr and exit with code 2;
a precision that cannot be reached exits with code 1; Ctrl-C (SIGINT) prints one line and exits
with code 130 (128 + the signal number, the shell's convention), after ending any worker process.

Only the module of the command being run is imported (the tester pulls in scipy.special, the
claims matplotlib and sympy), so ``exactdp loss`` starts in a fraction of a second.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import traceback

from ..errors import ExactDPError, InputError
from ..workers import use_scheduler
from .common import EPILOG

#: Subcommand → the module that registers it, in the order ``exactdp --help`` lists them.
COMMANDS = {"list": "exact_commands", "prob": "exact_commands", "loss": "exact_commands",
            "maxloss": "exact_commands", "reproduce": "reproduce_command",
            "pvalue": "tester_commands", "crosscheck": "tester_commands",
            "test": "tester_commands", "search": "search_command", "sweep": "sweep_command",
            "reconstruct": "reconstruct_command"}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2, and a value that starts
    with a minus sign and a digit (``--queries -1.04*4``, ``--d1 -1,0``) is a value, not an
    option (argparse alone accepts only a bare negative number such as ``-1``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or only the module of ``command`` when it is known."""
    parser = _Parser(prog="exactdp", description="Exact probabilities and privacy losses of "
                     "differential-privacy mechanisms.")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    names = [COMMANDS[command]] if command in COMMANDS else COMMANDS.values()
    for name in dict.fromkeys(names):
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    for sub in subparsers.choices.values():
        sub.epilog, sub.formatter_class = EPILOG, argparse.RawDescriptionHelpFormatter
    return parser


def _describe(exc: BaseException) -> str:
    """``str(exc)``; when that is empty, the exception's type and the innermost exactdp function
    it passed through (else the innermost of all)."""
    if str(exc).strip():
        return str(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [frame for frame in frames if f"{os.sep}exactdp{os.sep}" in frame.filename] or frames
    where = "".join(f" in {frame.name} ({os.path.basename(frame.filename)}:{frame.lineno})"
                    for frame in ours[-1:])
    return f"{type(exc).__name__} without a message{where}"


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((word for word in argv if not word.startswith("-")), None)
    try:
        args = build_parser(command).parse_args(argv)
        use_scheduler(getattr(args, "scheduler", None))  # the commands with --scheduler
        try:
            return args.run(args)
        finally:
            use_scheduler(None)
    except InputError as exc:
        print(f"exactdp: error: {_describe(exc)}", file=sys.stderr)
        return 2
    except (ExactDPError, ArithmeticError) as exc:
        print(f"exactdp: cannot answer: {_describe(exc)}", file=sys.stderr)
        return 1
    except MemoryError:
        print("exactdp: cannot answer: out of memory", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("exactdp: interrupted", file=sys.stderr)
        return 130


def entry_point() -> None:  # pragma: no cover - the console script
    sys.exit(main())
