"""Run-length encoded query vectors and outputs.

A family such as ``0*1000000,1*1000000`` must never be expanded into a list: the exact engine only
needs the distinct values and how often each occurs.  :class:`Runs` stores a sequence as
``((value, count), ...)`` with adjacent equal values merged.

Numbers are kept as exact :class:`fractions.Fraction` values so that ``0.1`` means one tenth, not
the nearest binary double: a Python ``float`` is read as the decimal it prints as (``repr``).
Output tokens are ``True`` (⊤), ``False`` (⊥) or a ``Fraction`` (a released noisy value).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Iterator

import mpmath

from .errors import InputError

#: Longest sequence :meth:`Runs.expand` will materialise as a Python list.
MAX_EXPANDED_LENGTH = 10_000_000
#: Longest query vector or output accepted (repeat counts included): far more than any input the
#: engine's cost flat in repeats needs, and well inside a machine index (``sys.maxsize``).
MAX_LENGTH = 10**15
#: Largest magnitude of a number written as a string (query answer, parameter, released value,
#: event bound).  Up to it the exact engine answers or reports the digits it cannot reach; far
#: beyond it (a query of ``1e100``) its intermediate quantities underflow.
MAX_MAGNITUDE = 10**15
#: Largest decimal exponent written in a number (``1e-1000`` is accepted, ``1e-100000`` is not):
#: the exact value of ``1e-N`` needs an N-digit denominator.
MAX_EXPONENT = 1000


@dataclass(frozen=True)
class Runs:
    """An immutable run-length encoded sequence.

    Attributes
    ----------
    runs : tuple of (value, count)
        Maximal runs of equal values, in order; every count is a positive ``int``.
    """

    runs: tuple

    @classmethod
    def from_runs(cls, pairs: Iterable[tuple[object, int]]) -> "Runs":
        """Build from ``(value, count)`` pairs, dropping empty runs and merging equal neighbours."""
        merged: list[list] = []
        for value, count in pairs:
            if count == 0:
                continue
            if merged and _same_token(merged[-1][0], value):
                merged[-1][1] += count
            else:
                merged.append([value, count])
        return cls(tuple((value, count) for value, count in merged))

    @classmethod
    def from_items(cls, items: Iterable[object]) -> "Runs":
        """Build from an explicit sequence of values."""
        return cls.from_runs((item, 1) for item in items)

    def __len__(self) -> int:
        return sum(count for _, count in self.runs)

    def __iter__(self) -> Iterator[tuple[object, int]]:
        return iter(self.runs)

    def expand(self) -> list:
        """The sequence as an explicit list (refused beyond :data:`MAX_EXPANDED_LENGTH` entries)."""
        if len(self) > MAX_EXPANDED_LENGTH:
            raise InputError(f"sequence too long to expand, got length {len(self)}")
        return [value for value, count in self.runs for _ in range(count)]

    def prefix(self, length: int) -> "Runs":
        """The first ``length`` entries."""
        pairs, remaining = [], length
        for value, count in self.runs:
            if remaining <= 0:
                break
            pairs.append((value, min(count, remaining)))
            remaining -= count
        return Runs.from_runs(pairs)

    def __str__(self) -> str:
        return ",".join(
            _format_token(value) if count == 1 else f"{_format_token(value)}*{count}"
            for value, count in self.runs
        )


def _same_token(a: object, b: object) -> bool:
    # True == 1 in Python, but ⊤ is not the number 1: compare types as well as values.
    return type(a) is type(b) and a == b


def _format_token(value: object) -> str:
    if value is True:
        return "T"
    if value is False:
        return "F"
    return format_number(value)


def format_number(value: Fraction) -> str:
    """A short exact decimal (or ``p/q``) spelling of a rational number."""
    if value.denominator == 1:
        return str(value.numerator)
    as_float = float(value)
    if Fraction(repr(as_float)) == value:
        return repr(as_float)
    return f"{value.numerator}/{value.denominator}"


def zip_runs(*sequences: Runs) -> Iterator[tuple[tuple, int]]:
    """Walk equal-length run sequences together, yielding ``(values, count)`` segments.

    Each segment is a maximal stretch over which none of the sequences changes value.
    """
    iterators = [iter(seq.runs) for seq in sequences]
    current = [next(it, None) for it in iterators]
    remaining = [run[1] if run else 0 for run in current]
    while all(run is not None for run in current):
        step = min(remaining)
        yield tuple(run[0] for run in current), step
        for k, it in enumerate(iterators):
            remaining[k] -= step
            if remaining[k] == 0:
                current[k] = next(it, None)
                remaining[k] = current[k][1] if current[k] else 0
    if any(run is not None for run in current):
        raise InputError("sequences differ in length, got lengths "
                         + ", ".join(str(len(seq)) for seq in sequences))


def to_fraction(value: object, what: str) -> Fraction:
    """Convert a finite real number (``int``, ``float``, ``Fraction``, ``mpf``, decimal string)
    exactly.

    Floats are read as the decimal they print as (``0.1`` is one tenth); an mpmath ``mpf`` is
    taken at its exact binary value.  A decimal string (what a user types) must stay within
    :data:`MAX_MAGNITUDE` and :data:`MAX_EXPONENT`; numbers computed by a program (such as the
    nodes of a quadrature over a released value) are not limited.
    """
    if isinstance(value, bool):
        raise InputError(f"{what} must be a number, got {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, mpmath.mpf):  # exact: an mpf is man·2^exp
        if not mpmath.isfinite(value):
            raise InputError(f"{what} must be finite, got {value}")
        sign, man, exp, _ = value._mpf_
        man = -int(man) if sign else int(man)
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, numbers.Real):
        as_float = float(value)
        if not math.isfinite(as_float):
            raise InputError(f"{what} must be finite, got {value!r}")
        return Fraction(repr(as_float))
    if isinstance(value, str):
        return _parse_decimal(value, what)
    if hasattr(value, "__float__"):  # numpy scalars
        return to_fraction(float(value), what)
    raise InputError(f"{what} must be a number, got {value!r}")


class _OutOfRange(InputError):
    """A number written out of the range :func:`to_fraction` accepts from a string."""


def _echo(value: str) -> str:
    """``repr(value)``, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _parse_decimal(value: str, what: str) -> Fraction:
    text = value.strip()
    _, e, exponent = text.lower().partition("e")
    if e and exponent.lstrip("+-").isdigit() and abs(int(exponent)) > MAX_EXPONENT:
        # checked first: Fraction("1e-99999999") would build a 10^8-digit integer
        raise _OutOfRange(f"{what} must have a decimal exponent of at most {MAX_EXPONENT} in "
                          f"magnitude, got {_echo(value)}")
    try:
        number = Fraction(text)
    except (ValueError, ZeroDivisionError):
        if text.lower().lstrip("+-") in {"inf", "infinity", "nan"}:
            raise InputError(f"{what} must be finite, got {value!r}") from None
        raise InputError(f"{what} must be a number, got {_echo(value)}") from None
    if abs(number) > MAX_MAGNITUDE:
        raise _OutOfRange(f"{what} must have magnitude at most {MAX_MAGNITUDE:.0e} (the range "
                          f"of the exact engine), got {_echo(value)}")
    return number


def _parse_token_list(text: str, what: str, parse_token) -> Runs:
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{what} must be a non-empty comma-separated list, got {text!r}")
    pairs = []
    for item in text.split(","):
        item = item.strip()
        token, star, repeat = item.partition("*")
        if star:
            message = f"repeat count in {what} must be a positive integer, got {item!r}"
            try:
                count = int(repeat)
            except ValueError:
                raise InputError(message) from None
            if count <= 0:
                raise InputError(message)
        else:
            count = 1
        if not token:
            raise InputError(f"empty entry in {what}, got {text!r}")
        pairs.append((parse_token(token), count))
    return Runs.from_runs(pairs)


def parse_output_token(token: object) -> object:
    """Read one output entry: ``"T"``/``True`` is ⊤, ``"F"``/``False`` is ⊥, a number is a
    released value."""
    if token is True or token is False:
        return token
    if isinstance(token, str):
        text = token.strip()
        if text in {"T", "⊤"}:
            return True
        if text in {"F", "⊥"}:
            return False
        try:
            return to_fraction(text, "output entry")
        except _OutOfRange:
            raise
        except InputError:
            raise InputError("unknown output token (expected T, F or a number), "
                             f"got {token!r}") from None
    return to_fraction(token, "output entry")


def _checked_length(runs: Runs, what: str) -> Runs:
    """``runs`` if it has 1 to :data:`MAX_LENGTH` entries, else an :class:`InputError`."""
    length = sum(count for _, count in runs.runs)  # len() fails beyond sys.maxsize
    if length == 0:
        raise InputError(f"{what} must not be empty")
    if length > MAX_LENGTH:
        raise InputError(f"{what} may have at most {MAX_LENGTH:,} entries (repeat counts "
                         f"included), got {length:,}")
    return runs


def as_queries(obj: object) -> Runs:
    """Accept a :class:`Runs`, a ``"0*3,1"`` string, or a sequence of numbers as a query vector."""
    if isinstance(obj, Runs):
        runs = Runs.from_runs((to_fraction(v, "query answer"), c) for v, c in obj.runs)
    elif isinstance(obj, str):
        runs = _parse_token_list(obj, "queries", lambda tok: to_fraction(tok, "query answer"))
    else:
        try:
            items = list(obj)
        except TypeError:
            raise InputError(f"queries must be a sequence of numbers, got {obj!r}") from None
        runs = Runs.from_items(to_fraction(v, "query answer") for v in items)
    return _checked_length(runs, "queries")


def as_output(obj: object) -> Runs:
    """Accept a :class:`Runs`, a ``"F*3,T"`` string, or a sequence of tokens as an output."""
    if isinstance(obj, Runs):
        runs = Runs.from_runs((parse_output_token(v), c) for v, c in obj.runs)
    elif isinstance(obj, str):
        runs = _parse_token_list(obj, "output", parse_output_token)
    else:
        try:
            items = list(obj)
        except TypeError:
            raise InputError(f"output must be a sequence of T/F/numbers, got {obj!r}") from None
        runs = Runs.from_items(parse_output_token(v) for v in items)
    return _checked_length(runs, "output")
