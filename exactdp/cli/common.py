"""Helpers shared by the ``exactdp`` subcommands: mechanism options, output printing."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from ..checks import MAX_JOBS, check_jobs, check_positive, check_seconds
from ..errors import InputError
from ..mechanisms import entry
from ..precision import METHODS
from ..programs import is_program_spec, load_program
from ..programs.sandbox import TRACE_TIMEOUT
from ..programs.tracing import PATH_LIMIT
from ..sequences import to_fraction
from ..workers import SCHEDULER_VARIABLE, scheduler_from_environment


def query_text(text: str) -> str:
    """The one argparse ``type`` of every option that takes a query vector: ``"0*3,1"`` as it
    is, or ``@FILE``, a UTF-8 file with one number per line (blank lines skipped; a byte-order
    mark at its start, as Windows editors save, is the encoding's, not part of the first
    number), read into ``"q1,q2,…"``.  A missing or empty file, or a line that is not a number,
    is a usage error naming the file and the line."""
    if not text.startswith("@"):
        return text
    path = text[1:]
    try:
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else exc
        raise argparse.ArgumentTypeError(
            f"cannot read the queries file {path!r}: {reason}") from exc
    numbers = []
    for number, line in enumerate(lines, start=1):
        token = line.strip()
        if not token:
            continue
        try:
            to_fraction(token, "query answer")
        except InputError:
            raise argparse.ArgumentTypeError(f"queries file {path!r}, line {number}: not a "
                                             f"number: {token!r}") from None
        numbers.append(token)
    if not numbers:
        raise argparse.ArgumentTypeError(f"the queries file {path!r} holds no number")
    return ",".join(numbers)


def add_mechanism_arguments(parser: argparse.ArgumentParser) -> None:
    """``MECH`` and repeated ``--param k=v``."""
    parser.add_argument("mechanism", metavar="MECH",
                        help="catalogue name (see `exactdp list`), or a function in StatDP's "
                        "convention as FILE.py:FUNCTION or package.module:FUNCTION")
    parser.add_argument("--param", action="append", default=[], metavar="K=V",
                        help="mechanism parameter, e.g. eps=0.5, c=2, T=1, eps2=inf (repeatable)")
    add_program_arguments(parser)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = text
    try:
        return check_seconds("--trace-timeout", value)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _max_paths(text: str) -> int:
    try:
        return check_positive("--max-paths", int(text))
    except ValueError as exc:  # not an integer, or not positive (InputError)
        message = str(exc) if isinstance(exc, InputError) else \
            f"--max-paths must be a positive integer, got --max-paths={text!r}"
        raise argparse.ArgumentTypeError(message) from None


def add_program_arguments(parser: argparse.ArgumentParser) -> None:
    """``--trace-timeout SECONDS`` and ``--max-paths N``: the options of a mechanism given as a
    program."""
    parser.add_argument("--trace-timeout", type=_seconds, default=TRACE_TIMEOUT,
                        metavar="SECONDS", help=f"a program (FILE.py:FUNCTION) whose trace of "
                        f"one path, or one sampled run, takes longer is stopped (default "
                        f"{TRACE_TIMEOUT:g}); a notice on stderr after a few seconds says where "
                        f"it is")
    parser.add_argument("--max-paths", type=_max_paths, default=PATH_LIMIT, metavar="N",
                        help=f"a program (FILE.py:FUNCTION) with more execution paths on one "
                        f"input is refused (default {PATH_LIMIT:,}), as soon as a count beyond "
                        f"N is proven, unless runs that reach a comparison in the same state, "
                        f"merged, trace it in N runs or fewer")


def add_precision_arguments(parser: argparse.ArgumentParser, method: bool = True) -> None:
    """``--dps`` and (optionally) ``--method`` and its shorthand ``--certified``."""
    parser.add_argument("--dps", type=int, default=30, help="significant digits (default 30)")
    if method:
        parser.add_argument("--method", choices=METHODS, default="auto",
                            help="evaluation method (default auto: an enclosure proven by ball "
                                 "arithmetic, or the estimate for noise without a certified "
                                 "rule; certified: the enclosure or an error; estimate: two "
                                 "methods whose agreement bounds the error)")
        parser.add_argument("--certified", action="store_true",
                            help="same as --method certified: print an enclosure [lower, upper] "
                                 "guaranteed to contain the exact value, of relative width at "
                                 "most 10^-dps, or fail")


def chosen_method(args: argparse.Namespace) -> str:
    """``--method``, or ``certified`` for ``--certified`` (which accepts no other method)."""
    if not args.certified:
        return args.method
    if args.method not in ("auto", "certified"):
        raise InputError(f"--certified is --method certified; it cannot be combined with "
                         f"--method {args.method}")
    return "certified"


def add_any_pair_argument(parser: argparse.ArgumentParser,
                          help_text: str = "do not require D1 and D2 to be neighbours") -> None:
    """``--any-pair``: the one neighbour option of every command that takes D1 and D2 (and of
    ``verify``, which compares pairs of a domain: ``help_text`` says so)."""
    parser.add_argument("--any-pair", action="store_true", help=help_text)


def add_scheduler_argument(parser: argparse.ArgumentParser) -> None:
    """``--scheduler ADDRESS``: run the command's parallel jobs on a Dask cluster (default: the
    environment variable ``EXACTDP_SCHEDULER``; unset: local worker processes)."""
    parser.add_argument("--scheduler", metavar="ADDRESS", default=scheduler_from_environment(),
                        help=f"Dask scheduler to run the parallel work on, e.g. "
                        f"tcp://host:8786 (default: ${SCHEDULER_VARIABLE}, else local worker "
                        f"processes; --jobs is then ignored)")


def _jobs(text: str) -> int:
    try:
        return check_jobs(int(text))
    except ValueError as exc:  # not an integer, or out of range (InputError)
        message = str(exc) if isinstance(exc, InputError) else \
            f"--jobs must be a positive integer, got --jobs={text!r}"
        raise argparse.ArgumentTypeError(message) from None


def add_jobs_argument(parser: argparse.ArgumentParser, default: int) -> None:
    """``--jobs J``: local worker processes, from 1 to :data:`~exactdp.checks.MAX_JOBS`."""
    parser.add_argument("--jobs", type=_jobs, default=default, metavar="J",
                        help=f"worker processes (default {default}, at most {MAX_JOBS}: 8 per "
                        f"processor)")


def add_json_argument(parser: argparse.ArgumentParser, shape: str = "one JSON object") -> None:
    """``--json``: print ``shape`` (``"one JSON object"``, or ``"a JSON list with one object
    per ε"``) instead of the table (:func:`write_json`)."""
    parser.add_argument("--json", action="store_true",
                        help=f"print {shape} instead of the table (counts as JSON integers, "
                        f"every other number as a decimal string)")


def parse_params(pairs: list[str]) -> dict[str, str]:
    """``["eps=0.5", "c=2"]`` → ``{"eps": "0.5", "c": "2"}`` (duplicates and malformed pairs are
    errors)."""
    params: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        key = key.strip()
        if not equals or not key or not value.strip():
            raise InputError(f"--param must look like name=value, got {pair!r}")
        if key in params:
            raise InputError(f"parameter {key} given twice")
        params[key] = value.strip()
    return params


def build_mechanism(args: argparse.Namespace, utility: bool = False):
    """The mechanism named on the command line (a catalogue name, or a program as
    ``FILE.py:FUNCTION`` / ``package.module:FUNCTION``), with its ``--param`` values.  A
    selection mechanism known to ``exactdp utility`` only is refused unless ``utility``."""
    if not utility and not is_program_spec(args.mechanism) and entry(args.mechanism).utility_only:
        raise InputError(f"{args.mechanism} is known to `exactdp utility` only (its expected "
                         f"utility is exact; the probability of one output is not implemented)")
    return make_mechanism(args.mechanism, parse_params(args.param), args.trace_timeout,
                          args.max_paths)


def make_mechanism(name: str, params: dict[str, str], trace_timeout: float = TRACE_TIMEOUT,
                   max_paths: int = PATH_LIMIT):
    """The catalogue mechanism or program ``name`` with the parameters ``params`` (a program
    with the time limit ``trace_timeout`` on one run and at most ``max_paths`` execution paths
    on one input)."""
    if is_program_spec(name):
        return dataclasses.replace(load_program(name, **params), trace_timeout=trace_timeout,
                                   path_limit=max_paths)
    return entry(name).make(**params)


def _decimal_floats(node):
    """``node`` with every float (a sampled statistic, a p-value) replaced by the decimal string
    ``repr`` spells it as (``"0.25"``, ``"1e-05"``, ``"inf"``), inside lists and objects too."""
    if isinstance(node, dict):
        return {key: _decimal_floats(value) for key, value in node.items()}
    if isinstance(node, (list, tuple)):
        return [_decimal_floats(value) for value in node]
    if isinstance(node, float):  # numpy's floats too; repr(float(x)) is their plain spelling
        return repr(float(node))
    return node


def write_json(value) -> None:
    """Print ``value`` (a record, or a list of records) as one line of JSON, the one writer of
    every ``--json``: a number is a JSON integer (a count) or a decimal string that ``float``,
    ``decimal.Decimal`` and ``mpmath.mpf`` all read (computed values come as such strings; a
    float left in a record is spelled by :func:`_decimal_floats`)."""
    json.dump(_decimal_floats(value), sys.stdout)
    sys.stdout.write("\n")


def emit(args: argparse.Namespace, record: dict[str, str], title: str) -> None:
    """Print ``record`` as JSON (``--json``) or as an aligned two-column table."""
    if args.json:
        write_json(record)
        return
    print(title)
    width = max(len(key) for key in record)
    for key, value in record.items():
        print(f"  {key.ljust(width)}  {value}")
