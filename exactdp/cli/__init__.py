"""The ``exactdp`` command.

Each subcommand module has a ``register(subparsers)`` function; errors a user can cause
(:class:`~exactdp.errors.InputError`, bad arguments) print one line on stderr and exit with code 2;
a precision that cannot be reached exits with code 1; Ctrl-C (SIGINT) prints one line and exits
with code 130 (128 + the signal number, the shell's convention), SIGTERM (``kill``) likewise with
code 143, after ending any worker process.

Only the module of the command being run is imported (the tester pulls in scipy.special, the
claims matplotlib and sympy), so ``exactdp loss`` starts in a fraction of a second; ``exactdp
--help`` lists the commands from a table of their one-line helps and imports none.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import threading
import traceback

from ..errors import ExactDPError, InputError, Terminated

#: Subcommand → the module that registers it and its one-line help, in the order
#: ``exactdp --help`` lists them (the top-level help imports no command module).
COMMANDS = {
    "list": ("list_command", "the mechanism catalogue"),
    "prob": ("exact_commands", "exact probability (or density) of one output"),
    "loss": ("exact_commands", "exact privacy loss of one output"),
    "maxloss": ("exact_commands", "exact largest privacy loss over every output"),
    "profile": ("divergence_commands", "exact privacy profile δ(ε) = sup_E P[M(D1)∈E] − "
                "e^ε P[M(D2)∈E] at a list of ε"),
    "renyi": ("divergence_commands", "exact Rényi divergence D_α(M(D1) ‖ M(D2)) at a list of α"),
    "zcdp": ("divergence_commands", "exact zCDP of a pair: ρ = sup over α > 1 of "
             "D_α(M(D1) ‖ M(D2))/α"),
    "pld": ("divergence_commands", "exact privacy-loss distribution of a pair with finitely "
            "many outputs: each loss ln(P/Q) and its probability under D1"),
    "verify": ("verify_command", "whole-domain verdict: (ε, δ)-DP or D_α ≤ B on every ordered "
               "pair of neighbouring inputs of V^N, the worst pair certified"),
    "reproduce": ("reproduce_command",
                  "recompute the published claims: figures, claims.json, claims.md"),
    "pvalue": ("tester_commands", "StatDP's p-value from two event counts"),
    "crosscheck": ("tester_commands", "sampled event counts against exact probabilities"),
    "test": ("tester_commands", "StatDP's counterexample detector with exact ε_E "
             "(exact_event_eps = ln P[M(d1)∈E] − ln P[M(d2)∈E] in nats)"),
    "search": ("search_command", "exact worst-case search for a privacy violation"),
    "sweep": ("sweep_command", "exact privacy loss over a family D1(t), D2(t), a(t); one series "
              "per parameter value; table, JSON or plot"),
    "utility": ("utility_command", "exact selection probabilities and expected false negative "
                "and score error rates of SVT variants and the exponential mechanism"),
    "reconstruct": ("reconstruct_command", "Chen & Machanavajjhala's reconstruction of a "
                    "histogram with GPTT: exact expected accuracy and simulation"),
}


class _Subparsers:
    """The subparsers action as the command modules see it: ``add_parser(name, ...)`` takes the
    one-line help from :data:`COMMANDS`."""

    def __init__(self, action):
        self._action = action

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        from .notation import EPILOG  # with the command's module, never for --help

        sub = self._action.add_parser(name, help=COMMANDS[name][1], **kwargs)
        sub.epilog, sub.formatter_class = EPILOG, argparse.RawDescriptionHelpFormatter
        return sub


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
    """The parser of every subcommand; only the module of ``command`` is imported and adds its
    options (the other subcommands are listed with their help only)."""
    parser = _Parser(prog="exactdp", description="Exact probabilities and privacy losses of "
                     "differential-privacy mechanisms.")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    wanted = COMMANDS[command][0] if command in COMMANDS else None
    for name, (module, helptext) in COMMANDS.items():
        if module != wanted:
            subparsers.add_parser(name, help=helptext)
        elif name not in subparsers.choices:  # a module's commands are adjacent in the table
            importlib.import_module(f"{__name__}.{module}").register(_Subparsers(subparsers))
    return parser


def _describe(exc: BaseException) -> str:
    """``str(exc)``; when that is empty, the exception's type and the innermost function of the
    ``exactdp`` package (by its module's name) it passed through (else the innermost of all)."""
    if str(exc).strip():
        return str(exc)
    frames = list(traceback.walk_tb(exc.__traceback__))
    ours = [(frame, line) for frame, line in frames
            if frame.f_globals.get("__name__", "").partition(".")[0] == "exactdp"] or frames
    where = "".join(f" in {frame.f_code.co_name} ({os.path.basename(frame.f_code.co_filename)}:"
                    f"{line})" for frame, line in ours[-1:])
    return f"{type(exc).__name__} without a message{where}"


#: The process whose command line runs (workers forked from it have other ids).
_command_pid = os.getpid()


def _on_sigterm(signum, frame) -> None:
    """SIGTERM unwinds this process like Ctrl-C; a worker forked from it (before it resets the
    signal) dies of it at once, as by default."""
    if os.getpid() != _command_pid:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((word for word in argv if not word.startswith("-")), None)
    in_main_thread = threading.current_thread() is threading.main_thread()
    if in_main_thread:
        global _command_pid
        _command_pid = os.getpid()
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        args = build_parser(command).parse_args(argv)
        if getattr(args, "scheduler", None) is None:  # local worker processes, if any
            return args.run(args)
        from ..workers import use_scheduler

        use_scheduler(args.scheduler)  # the commands with --scheduler
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
    except Terminated:
        print("exactdp: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("exactdp: interrupted", file=sys.stderr)
        return 130
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def entry_point() -> None:
    """The console script.  A reader that closes the output early (``exactdp … | head``) ends
    the command quietly with status 141 (128 + SIGPIPE), as it ends other Unix tools: no
    traceback, and nothing more written."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # the interpreter's final flush of stdout would fail again: point stdout at /dev/null
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 128 + signal.SIGPIPE
    sys.exit(code)
