"""Symbolic execution of a program in StatDP's convention: every execution path, with its
constraints on the noises and its return value.

The function is called with a symbolic ``prng`` whose draws are *noise symbols*; arithmetic on
them builds :class:`Linear` expressions ``c + Σ_k a_k η_k`` with exact rational constants; the
numbers handed to the program (its keyword arguments and the queries) are :class:`Exact`
rationals, so ``2.0 / epsilon`` or ``T + eta`` keep every digit.  A float the program makes itself
(``np.asarray(queries, dtype=np.float64)``, a literal ``0.1``) is taken at its exact binary
value: that is the number the program computes with.

A comparison between expressions that contain noises is a *branch*: it answers ``True`` or
``False`` according to a recorded sequence of decisions, and the function is re-run depth first
until every sequence has been explored (:func:`trace`); the comparisons a run shares with the
previous one are replayed from their recorded answers (:class:`Run`), and one run draws and
compares at most ``step_limit`` times.  Each complete run is a :class:`Path`:
the intervals its decisions put on linear forms of the noises, the laws of its noises and its
return value, flattened into entries (booleans, exact numbers, or expressions — released numbers,
whose probability is a density).  ``.max()``/``.argmax()`` of an array of symbols branch once per
candidate winner, with the winner's constraints against every other entry.

Operations outside this model (a product of two noises, ``int()`` or ``float()`` of a noise, a
noise in a ``while`` condition, an unsupported numpy function or random law) raise
:class:`TracingError`, one line naming the operation and the program's source line.
"""

from __future__ import annotations

import gc
import linecache
import numbers
import operator
import os
import sys
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..errors import InputError
from ..noise import Exponential, Gaussian, Gumbel, Laplace, NoiseLaw
from ..progress import Progress
from .sandbox import TRACE_TIMEOUT, sandbox

#: Default largest number of execution paths explored for one input.
PATH_LIMIT = 65_536
#: Default bound on the noise draws and comparisons of one execution path: this many per query
#: plus :data:`STEPS_BASE` (:func:`step_limit`).
STEPS_PER_QUERY = 100
STEPS_BASE = 1000
#: Seconds of exploration after which progress is reported on standard error.
PROGRESS_AFTER = 2.0

_HERE = os.path.dirname(os.path.abspath(__file__))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))


class TracingError(InputError):
    """A program uses an operation the exact interpreter does not model."""


#: co_filename → whether it is the user's code (not exactdp's interpreter, not numpy).
_USER_FILES: dict = {}
#: (co_filename, line) → whether the line is a ``while`` statement.
_WHILE_LINES: dict = {}


def _program_location() -> tuple[str, int]:
    """``(file, line)`` of the innermost frame of the user's program."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        user = _USER_FILES.get(name)
        if user is None:
            user = _USER_FILES[name] = not os.path.abspath(name).startswith((_HERE, _NUMPY))
        if user:
            return name, frame.f_lineno
        frame = frame.f_back
    return "unknown file", 0


def describe_location(location: tuple[str, int]) -> str:
    """``file:line: source`` of a program location."""
    name, line = location
    source = linecache.getline(name, line).strip()
    return f"{os.path.basename(name)}:{line}: {source}"


def _program_line() -> str:
    """``file:line: source`` of the innermost frame of the user's program (outside exactdp's
    interpreter and numpy)."""
    return describe_location(_program_location())


def _in_while_condition() -> bool:
    """Whether the program's current line is a ``while`` statement."""
    location = _program_location()
    answer = _WHILE_LINES.get(location)
    if answer is None:
        answer = _WHILE_LINES[location] = \
            linecache.getline(*location).lstrip().startswith("while ")
    return answer


def unsupported(what: str) -> TracingError:
    """The error for an operation the interpreter cannot trace, naming the program's line."""
    return TracingError(f"cannot trace {what} (at {_program_line()})")


# ----------------------------------------------------------------------------- exact numbers

#: Rationals inside the interpreter are FLINT's (python-flint) for speed; paths hand out
#: ``Fraction``.
ZERO, ONE = fmpq(0), fmpq(1)
#: Exact values of the floats met so far (a program's literals recur at every step).
_FLOATS: dict = {}


def rational(value: Fraction) -> fmpq:
    """A ``Fraction`` as a FLINT rational."""
    return fmpq(value.numerator, value.denominator)


def to_fraction(value: fmpq) -> Fraction:
    """A FLINT rational as a ``Fraction``."""
    return Fraction(int(value.p), int(value.q))


def as_rational(value) -> fmpq | None:
    """The exact value of a concrete number (``None`` if ``value`` is not one); floats at their
    exact binary value."""
    kind = type(value)
    if kind is fmpq:
        return value
    if kind is Exact:
        return value.value
    if kind is int:
        return fmpq(value)
    if kind is Linear:
        return None
    if kind is float:
        number = _FLOATS.get(value)
        if number is not None:
            return number
    if isinstance(value, (bool, np.bool_)):
        return fmpq(int(value))
    if isinstance(value, Fraction):
        return rational(value)
    if isinstance(value, (float, np.floating)):
        number = _FLOATS.get(value)
        if number is None:
            if not np.isfinite(value):
                raise unsupported(f"the non-finite number {value}")
            number = _FLOATS[float(value)] = rational(Fraction(float(value)))
        return number
    if isinstance(value, (numbers.Integral, np.integer)):
        return fmpq(int(value))
    return None


def as_fraction(value) -> Fraction | None:
    """:func:`as_rational` as a ``Fraction``."""
    number = as_rational(value)
    return None if number is None else to_fraction(number)


class Exact:
    """An exact rational number as handed to a program: arithmetic with ints, floats and other
    ``Exact`` stays exact; ``float()`` gives the nearest binary float (what a program asking for
    floats gets)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value if type(value) is fmpq else as_rational(value)

    def _binary(self, other, op, reverse=False):
        value = other.value if type(other) is Exact else as_rational(other)
        if value is None:
            return NotImplemented
        a, b = (value, self.value) if reverse else (self.value, value)
        if op in (operator.truediv, operator.floordiv, operator.mod) and b == 0:
            raise ZeroDivisionError("division by zero")
        if op in (operator.floordiv, operator.mod):
            return Exact(op(to_fraction(a), to_fraction(b)))
        return Exact(op(a, b))

    def _ring(self, other, op):
        """``self op other`` for ``+``, ``-``, ``*`` (the common case, kept short)."""
        kind = type(other)
        if kind is Linear:
            return NotImplemented
        value = other.value if kind is Exact else as_rational(other)
        return NotImplemented if value is None else Exact(op(self.value, value))

    def __add__(self, other): return self._ring(other, operator.add)
    def __radd__(self, other): return self._ring(other, operator.add)
    def __sub__(self, other): return self._ring(other, operator.sub)
    def __rsub__(self, other): return self._binary(other, operator.sub, True)
    def __mul__(self, other): return self._ring(other, operator.mul)
    def __rmul__(self, other): return self._ring(other, operator.mul)
    def __truediv__(self, other):
        value = other.value if type(other) is Exact else as_rational(other)
        if value is None:
            return NotImplemented
        if value == 0:
            raise ZeroDivisionError("division by zero")
        return Exact(self.value / value)

    def __rtruediv__(self, other): return self._binary(other, operator.truediv, True)
    def __floordiv__(self, other): return self._binary(other, operator.floordiv)
    def __rfloordiv__(self, other): return self._binary(other, operator.floordiv, True)
    def __mod__(self, other): return self._binary(other, operator.mod)

    def __pow__(self, other):
        exponent = as_rational(other)
        if exponent is not None and exponent.q == 1:
            return Exact(self.value ** int(exponent))
        return float(self) ** float(other)

    def __neg__(self): return Exact(-self.value)
    def __pos__(self): return self
    def __abs__(self): return Exact(abs(self.value))

    def _compare(self, other, op):
        value = as_rational(other)
        return NotImplemented if value is None else op(self.value, value)

    def __eq__(self, other): return self._compare(other, operator.eq)
    def __ne__(self, other): return self._compare(other, operator.ne)
    def __lt__(self, other): return self._compare(other, operator.lt)
    def __le__(self, other): return self._compare(other, operator.le)
    def __gt__(self, other): return self._compare(other, operator.gt)
    def __ge__(self, other): return self._compare(other, operator.ge)
    def __hash__(self): return hash(to_fraction(self.value))
    def __bool__(self): return bool(self.value)
    def __float__(self): return float(to_fraction(self.value))
    def __int__(self): return int(to_fraction(self.value))
    def __trunc__(self): return int(to_fraction(self.value))
    def __floor__(self): return to_fraction(self.value).__floor__()
    def __ceil__(self): return to_fraction(self.value).__ceil__()
    def __round__(self, digits=None): return round(to_fraction(self.value), digits)

    def __index__(self):
        if self.value.q != 1:
            raise TypeError(f"{self} is not an integer")
        return int(self.value)

    def __repr__(self):
        return str(self.value)


def exact_argument(value):
    """A keyword argument or query as the traced program receives it: a finite number as
    :class:`Exact` (an integer still works as a count or an index), anything else unchanged."""
    if isinstance(value, bool):
        return value
    number = as_rational(value) if not isinstance(value, float) or np.isfinite(value) else None
    return value if number is None else Exact(number)


# ----------------------------------------------------------------------------- linear expressions

class Linear:
    """``const + Σ_k coeffs[k]·η_k`` over the noise symbols of the current run.

    Supports ``+``, ``-``, ``*`` and ``/`` by concrete numbers; a comparison with anything is a
    branch of the current run (``==`` with a noise is false: it has probability 0).
    """

    __slots__ = ("coeffs", "const")
    __hash__ = None

    def __init__(self, coeffs: dict, const=ZERO):
        self.coeffs = coeffs
        self.const = const

    @property
    def is_constant(self) -> bool:
        return not self.coeffs

    def _add(self, other, sign=1):
        if isinstance(other, Linear):
            coeffs = dict(self.coeffs)
            for key, value in other.coeffs.items():
                total = coeffs.get(key, 0) + sign * value
                if total:
                    coeffs[key] = total
                else:
                    coeffs.pop(key, None)
            return Linear(coeffs, self.const + sign * other.const)
        value = as_rational(other)
        if value is None:
            return NotImplemented
        return Linear(self.coeffs, self.const + sign * value)

    def scaled(self, factor) -> "Linear":
        if factor == 0:
            return Linear({}, ZERO)
        return Linear({k: v * factor for k, v in self.coeffs.items()}, self.const * factor)

    def __add__(self, other):
        if type(other) is Exact:  # a query plus a noise: the common case, kept short
            return Linear(self.coeffs, self.const + other.value)
        return self._add(other)

    __radd__ = __add__
    def __sub__(self, other): return self._add(other, -1)
    def __rsub__(self, other):
        result = self._add(other, -1)
        return result if result is NotImplemented else result.scaled(-ONE)
    def __neg__(self): return self.scaled(-ONE)
    def __pos__(self): return self

    def __mul__(self, other):
        if isinstance(other, Linear):
            if other.is_constant:
                return self.scaled(other.const)
            if self.is_constant:
                return other.scaled(self.const)
            raise unsupported("a product of two noises")
        value = as_rational(other)
        return NotImplemented if value is None else self.scaled(value)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Linear):
            if not other.is_constant:
                raise unsupported("a division by a noise")
            other = other.const
        value = as_rational(other)
        if value is None:
            return NotImplemented
        if value == 0:
            raise ZeroDivisionError("division by zero")
        return self.scaled(1 / value)

    def __rtruediv__(self, other):
        raise unsupported("a division by a noise")

    def _difference(self, other):
        difference = self - other
        if difference is NotImplemented:
            raise unsupported(f"a comparison of a noise with {type(other).__name__}")
        return difference

    def _compare(self, other, positive: bool) -> bool:
        run = current()
        if run.replaying:
            # a comparison the previous run already answered: its difference has a noise
            # whenever the two sides' coefficients differ, no need to build it
            kind = type(other)
            others = other.coeffs if kind is Linear else _NO_COEFFS if kind in _NUMBERS \
                else None
            if others is not None and self.coeffs != others:
                return run.replayed()
        return run.branch(self._difference(other), positive)

    def __gt__(self, other): return self._compare(other, True)
    def __ge__(self, other): return self._compare(other, True)
    def __lt__(self, other): return self._compare(other, False)
    def __le__(self, other): return self._compare(other, False)

    def __eq__(self, other):
        difference = self - other
        if difference is NotImplemented:
            return False
        return difference.is_constant and difference.const == 0

    def __ne__(self, other):
        return not self == other

    def __bool__(self):
        if self.is_constant:
            return bool(self.const)
        raise unsupported("the truth value of a noise")

    def __float__(self):
        if self.is_constant:
            return float(self.const)
        raise unsupported("float() of a noise")

    def __int__(self):
        if self.is_constant:
            return int(self.const)
        raise unsupported("int() of a noise")

    def __index__(self):
        raise unsupported("a noise used as an integer (index, range, int)")

    def __abs__(self):
        return self if self >= 0 else -self

    def __pow__(self, other):
        raise unsupported("a power of a noise")

    def __round__(self, digits=None):
        raise unsupported("round() of a noise")

    __floor__ = __ceil__ = __trunc__ = __round__

    def with_fractions(self) -> "Linear":
        """The same expression with ``Fraction`` coefficients (as paths hand it out)."""
        return Linear({k: to_fraction(v) for k, v in self.coeffs.items()},
                      to_fraction(self.const))

    def __repr__(self):
        terms = " + ".join(f"{v}·η{k + 1}" for k, v in sorted(self.coeffs.items()))
        return f"{terms} + {self.const}" if terms else str(self.const)

    __array_priority__ = 100

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return SymbolicArray._apply(ufunc, method, inputs, kwargs)


#: The coefficients of a concrete number; the concrete number types of :meth:`Linear._compare`.
_NO_COEFFS: dict = {}
_NUMBERS = frozenset({int, float, Exact, fmpq, Fraction, np.float64, np.int64})


def _constant_or_linear(value: Linear):
    """A constant expression as its exact number, anything else unchanged."""
    return Exact(value.const) if type(value) is Linear and not value.coeffs else value


# ----------------------------------------------------------------------------- arrays of symbols

#: ufuncs applied element by element to arrays that hold expressions.
_UFUNCS = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive,
           np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
           np.maximum, np.minimum, np.absolute}


def _object_array(value):
    if isinstance(value, np.ndarray):
        return value.view(np.ndarray).astype(object) if value.dtype != object \
            else value.view(np.ndarray)
    if isinstance(value, Linear):
        box = np.empty((), dtype=object)
        box[()] = value
        return box
    return value


def _wrap(result):
    if isinstance(result, np.ndarray):
        if result.ndim == 0:
            return result[()]
        return result.view(SymbolicArray)
    return result


class SymbolicArray(np.ndarray):
    """A numpy array (dtype object) holding expressions: element-wise arithmetic and comparisons
    with broadcasting, indexing, ``.max()``, ``.argmax()``, ``.min()``, ``.argmin()``,
    ``.sum()`` (and the numpy functions of the same names)."""

    @staticmethod
    def _apply(ufunc, method, inputs, kwargs):
        if method != "__call__" or ufunc not in _UFUNCS or kwargs.get("out") is not None:
            raise unsupported(f"numpy.{ufunc.__name__}"
                              f"{'' if method == '__call__' else '.' + method} on noises")
        if ufunc is np.maximum or ufunc is np.minimum:
            pick = (lambda a, b: a if a >= b else b) if ufunc is np.maximum \
                else (lambda a, b: a if a <= b else b)
            ufunc = np.frompyfunc(pick, 2, 1)
        elif ufunc is np.absolute:
            ufunc = np.frompyfunc(abs, 1, 1)
        kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
        return _wrap(ufunc(*(_object_array(x) for x in inputs), **kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self._apply(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is not None:
            return handler(*args, **kwargs)
        if func in _PLAIN_FUNCTIONS:
            args = tuple(a.view(np.ndarray) if isinstance(a, SymbolicArray) else a for a in args)
            return _wrap(func(*args, **kwargs))
        raise unsupported(f"numpy.{func.__name__} on noises")

    def _extreme(self, axis=None, out=None, keepdims=False, largest=True):
        if axis is not None or out is not None or keepdims:
            raise unsupported("max/argmax with axis, out or keepdims on noises")
        return current().extreme(list(self.view(np.ndarray).ravel()), largest)

    def argmax(self, axis=None, out=None, keepdims=False):
        return self._extreme(axis, out, keepdims)[0]

    def max(self, axis=None, out=None, keepdims=False, **_):
        return self._extreme(axis, out, keepdims)[1]

    def argmin(self, axis=None, out=None, keepdims=False):
        return self._extreme(axis, out, keepdims, largest=False)[0]

    def min(self, axis=None, out=None, keepdims=False, **_):
        return self._extreme(axis, out, keepdims, largest=False)[1]

    def sum(self, axis=None, **kwargs):
        if axis is not None or kwargs.get("out") is not None:
            raise unsupported("sum with axis or out on noises")
        total = Linear({}, ZERO)
        for item in self.view(np.ndarray).ravel():
            total = total + item
        return _constant_or_linear(total)

    def tolist(self):
        return list(self.view(np.ndarray).ravel()) if self.ndim == 1 \
            else self.view(np.ndarray).tolist()

    def __float__(self):
        raise unsupported("float() of an array of noises")

    def astype(self, dtype, *args, **kwargs):
        if np.dtype(dtype) != object:
            raise unsupported(f"astype({np.dtype(dtype)}) of an array of noises")
        return self


_FUNCTIONS = {
    np.argmax: SymbolicArray.argmax, np.max: SymbolicArray.max, np.amax: SymbolicArray.max,
    np.argmin: SymbolicArray.argmin, np.min: SymbolicArray.min, np.amin: SymbolicArray.min,
    np.sum: SymbolicArray.sum,
}
#: Functions that only move entries around: applied to the object array as they are.
_PLAIN_FUNCTIONS = {np.concatenate, np.append, np.stack, np.hstack, np.vstack, np.copy,
                    np.asarray, np.array, np.atleast_1d, np.ravel, np.reshape, np.flip,
                    np.shape, np.ndim, np.size, np.full_like, np.zeros_like}


# ----------------------------------------------------------------------------- the symbolic prng

@dataclass(frozen=True)
class Noise:
    """One draw: its law and the program location ``(file, line)`` that drew it."""

    law: NoiseLaw
    location: tuple

    @property
    def line(self) -> str:
        """``file:line: source`` of the draw."""
        return describe_location(self.location)


def _scale(value, law_name: str) -> Fraction:
    scale = as_fraction(value.const if isinstance(value, Linear) and value.is_constant
                        else value)
    if scale is None:
        raise unsupported(f"a {law_name} scale that is not a number ({value!r})")
    if scale < 0:
        raise TracingError(f"a {law_name} scale must not be negative, got {scale} "
                           f"(at {_program_line()})")
    return scale


def _size(size):
    if size is None:
        return None
    if isinstance(size, tuple):
        if len(size) != 1:
            raise unsupported(f"a draw of shape {size}")
        size = size[0]
    return operator.index(size)


class SymbolicPRNG:
    """The ``prng`` a traced program receives: ``laplace``, ``exponential``, ``gumbel`` and
    ``normal`` (numpy's signatures) draw noise symbols; any other method is refused."""

    def __init__(self, run: "Run"):
        self._run = run

    def _draw(self, law_name: str, make_law, loc, scale, size):
        count = None if size is None else _size(size)
        run = self._run
        if count is None:
            return _constant_or_linear(run.draw(law_name, make_law, scale, loc))
        values = np.empty(count, dtype=object)
        for index in range(count):
            values[index] = run.draw(law_name, make_law, scale, loc)
        return values.view(SymbolicArray)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._draw("Laplace", Laplace, loc, scale, size)

    def exponential(self, scale=1.0, size=None):
        return self._draw("exponential", Exponential, 0, scale, size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        return self._draw("Gumbel", Gumbel, loc, scale, size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self._draw("normal", Gaussian, loc, scale, size)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(f"prng.{name} (the exact interpreter knows prng.laplace, "
                          f"prng.exponential, prng.gumbel and prng.normal)")


# ----------------------------------------------------------------------------- runs and paths

def linear_key(coeffs: dict) -> tuple[tuple, Fraction]:
    """``(key, factor)`` with ``coeffs = factor · key`` and the first coefficient of ``key``
    equal to 1 (noises in drawing order)."""
    items = sorted(coeffs.items())
    factor = items[0][1]
    return tuple((k, v / factor) for k, v in items), factor


def _run_key(coeffs: dict) -> tuple[tuple, fmpq]:
    """:func:`linear_key` of FLINT coefficients, the key's coefficients as integer pairs
    ``(numerator, denominator)`` (hashing a FLINT rational builds a ``Fraction``)."""
    items = sorted(coeffs.items())
    factor = items[0][1]
    key = []
    for k, v in items:
        ratio = v / factor
        key.append((k, int(ratio.p), int(ratio.q)))
    return tuple(key), factor


@dataclass
class Path:
    """One complete execution.

    Attributes
    ----------
    noises : tuple of Noise
        The draws, in order (symbol ``k`` is ``noises[k]``).
    intervals : dict
        ``key → (low, high)``: the run's decisions say ``low < Σ key·η < high`` (``None`` for
        an infinite end), ``key`` a tuple of ``(noise index, coefficient)`` with first
        coefficient 1.
    result : tuple
        The return value's entries: ``bool``, ``Fraction`` or :class:`Linear`.
    """

    noises: tuple
    intervals: dict
    result: tuple


class _Infeasible(Exception):
    """The decisions of a run contradict each other: the path has probability 0."""


class Run:
    """The state of the exploration: noises drawn, decisions taken, intervals implied.

    One ``Run`` serves every execution of a trace.  A new decision sequence shares all but its
    last decision with the previous run, and the program is deterministic given the answers to
    its comparisons: every *event* (a comparison with noises, implied or decided, or a
    ``max``/``argmax``) before the one that took the flipped decision gets the same answer, so
    it is *replayed* — its recorded answer returned without building its constraint — and the
    intervals, noises and decisions are rolled back to the state before that event (an undo log
    of the intervals).  A run thus costs the program's own arithmetic plus the constraints of
    its new events only.

    ``step_limit`` bounds the noise draws and comparisons of one run (a loop that only a noise
    ends, ``while True: … break``, has paths of every length).
    """

    def __init__(self, step_limit: int):
        self.step_limit = step_limit
        self.decisions: list = []
        self.decision_events: list = []   # decision position → index of the event taking it
        self.position = 0
        self.noises: list[Noise] = []
        self.symbols: list[Linear] = []
        self.drawn = 0
        self.steps = 0
        self.intervals: dict = {}          # run key → (low, high), FLINT rationals
        self.fractions: dict = {}          # the same as Path.intervals (Fraction)
        self.undo: list = []               # (run key, fraction key, previous, previous)
        self.events: list = []             # (answer, position, drawn, len(undo)) at its start
        self.event = 0
        self.replay_until = 0
        self.replaying = False

    # -- restarting

    def restart(self, decisions: list) -> None:
        """Prepare the execution of ``decisions`` (the previous run's, the last one flipped)."""
        first = self.decision_events[len(decisions) - 1] if decisions else 0
        if first < len(self.events):
            _, position, drawn, undo = self.events[first]
        else:
            position, drawn, undo = 0, 0, 0
        del self.events[first:]
        del self.decision_events[position:]
        del self.noises[drawn:]
        del self.symbols[drawn:]
        while len(self.undo) > undo:
            key, fraction_key, previous, previous_fractions = self.undo.pop()
            if previous is None:
                del self.intervals[key]
                del self.fractions[fraction_key]
            else:
                self.intervals[key] = previous
                self.fractions[fraction_key] = previous_fractions
        self.decisions = decisions
        self.position = position          # the replayed events took the decisions before it
        self.drawn = self.steps = self.event = 0
        self.replay_until = first
        self.replaying = first > 0

    def replayed(self):
        """The recorded answer of the next event (during the replayed prefix)."""
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        answer = self.events[self.event][0]
        self.event += 1
        self.replaying = self.event < self.replay_until
        return answer

    def _start_event(self) -> int:
        self.events.append((None, self.position, self.drawn, len(self.undo)))
        return len(self.events) - 1

    def _answer(self, index: int, answer) -> None:
        self.events[index] = (answer,) + self.events[index][1:]
        self.event += 1

    def _too_many_steps(self) -> None:
        raise TracingError(f"one execution path drew or compared noises more than "
                           f"{self.step_limit:,} times (at {_program_line()}): a loop "
                           f"that only a noise ends has no bound")

    # -- noises

    def draw(self, law_name: str, make_law, scale, loc):
        """A draw ``loc + η`` with ``η ~ make_law(scale)`` (``loc`` when the scale is 0)."""
        value = scale.value if type(scale) is Exact else as_rational(scale)
        if value is None:
            value = rational(_scale(scale, law_name))
        if value == 0:
            return loc
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        index = self.drawn
        self.drawn += 1
        if index < len(self.symbols):
            symbol = self.symbols[index]
        else:
            if value < 0:
                raise TracingError(f"a {law_name} scale must not be negative, got "
                                   f"{to_fraction(value)} (at {_program_line()})")
            self.noises.append(Noise(make_law(to_fraction(value)), _program_location()))
            symbol = Linear({index: ONE})
            self.symbols.append(symbol)
        return symbol if type(loc) in (int, float) and loc == 0 else symbol + loc

    # -- decisions and intervals

    def _decide(self, event: int) -> bool:
        if self.position == len(self.decisions):
            self.decisions.append(True)
        self.decision_events.append(event)
        decision = self.decisions[self.position]
        self.position += 1
        return decision

    def _implied(self, key, factor, bound):
        """Whether ``key·η > bound`` (factor > 0) / ``< bound`` (factor < 0) is implied (True),
        contradicted (False) or open (None) by the intervals so far."""
        low, high = self.intervals.get(key, (None, None))
        if factor > 0:
            if low is not None and low >= bound:
                return True
            if high is not None and high <= bound:
                return False
        else:
            if high is not None and high <= bound:
                return True
            if low is not None and low >= bound:
                return False
        return None

    def _restrict(self, key, above: bool, bound: fmpq) -> None:
        previous = self.intervals.get(key)
        low, high = previous or (None, None)
        fraction_key = _fraction_key(key)
        fractions = self.fractions.get(fraction_key)
        fraction_low, fraction_high = fractions or (None, None)
        if above:
            if low is None or bound > low:
                low, fraction_low = bound, to_fraction(bound)
        elif high is None or bound < high:
            high, fraction_high = bound, to_fraction(bound)
        self.undo.append((key, fraction_key, previous, fractions))
        self.intervals[key] = (low, high)
        self.fractions[fraction_key] = (fraction_low, fraction_high)

    def assume(self, difference: Linear) -> bool:
        """Record ``difference > 0``; ``False`` if it contradicts the intervals so far."""
        if difference.is_constant:
            return difference.const > 0
        key, factor = _run_key(difference.coeffs)
        bound = -difference.const / factor        # key·η > bound (factor > 0) or < bound
        implied = self._implied(key, factor, bound)
        if implied is not None:
            return implied
        self._restrict(key, factor > 0, bound)
        return True

    def branch(self, difference: Linear, positive: bool) -> bool:
        """The truth of ``difference > 0`` (``positive``) or ``< 0`` in this run."""
        if difference.is_constant:
            return difference.const > 0 if positive else difference.const < 0
        if self.replaying:
            return self.replayed()
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        if _in_while_condition():
            raise unsupported("a noise in a while condition")
        event = self._start_event()
        key, factor = _run_key(difference.coeffs)
        bound = -difference.const / factor
        implied = self._implied(key, factor if positive else -factor, bound)
        if implied is None:
            implied = self._decide(event)
            self._restrict(key, (factor > 0) == (positive == implied), bound)
        self._answer(event, implied)
        return implied

    def extreme(self, values: list, largest: bool):
        """``(index, value)`` of the largest (smallest) entry: one branch per possible winner,
        which is then larger (smaller) than every other entry — strictly before it, at least
        after it, as numpy breaks ties by the first index."""
        if not values:
            raise ValueError("max/argmax of an empty array")
        if self.replaying:
            winner = self.replayed()
            return winner, values[winner]
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        event = self._start_event()
        sign = 1 if largest else -1
        for winner in range(len(values)):
            if winner < len(values) - 1 and not self._decide(event):
                continue
            for other, value in enumerate(values):
                if other == winner:
                    continue
                difference = (Linear({}, ZERO) + values[winner] - value) * sign
                if difference.is_constant:
                    ok = difference.const > 0 if other < winner else difference.const >= 0
                else:
                    ok = self.assume(difference)
                if not ok:
                    raise _Infeasible
            self._answer(event, winner)
            return winner, values[winner]
        raise AssertionError("unreachable")


#: Run keys (noise, numerator, denominator) → keys of ``Path.intervals`` (noise, Fraction).
_FRACTION_KEYS: dict = {}


def _fraction_key(key: tuple) -> tuple:
    fraction_key = _FRACTION_KEYS.get(key)
    if fraction_key is None:
        fraction_key = _FRACTION_KEYS[key] = tuple((k, Fraction(p, q)) for k, p, q in key)
    return fraction_key


_CURRENT: list[Run] = []


def current() -> Run:
    """The run being traced (an error outside of one)."""
    if not _CURRENT:
        raise InputError("a noise symbol was used outside of the traced program")
    return _CURRENT[-1]


# ----------------------------------------------------------------------------- return values

def flatten_result(value) -> tuple:
    """The entries of a return value: a scalar is one entry, tuples, lists and arrays are
    flattened in order; booleans stay booleans, numbers become exact ``Fraction``, expressions
    with noises stay :class:`Linear` (released numbers)."""
    entries = []

    def visit(item):
        if type(item) is list and all(type(element) is bool for element in item):
            entries.extend(item)  # a list of booleans, the common case, kept short
        elif isinstance(item, (bool, np.bool_)):
            entries.append(bool(item))
        elif isinstance(item, Linear):
            entries.append(to_fraction(item.const) if item.is_constant else item.with_fractions())
        elif isinstance(item, (tuple, list, np.ndarray)) or hasattr(item, "__next__"):
            for element in (item.ravel() if isinstance(item, np.ndarray) else item):
                visit(element)
        else:
            value = as_fraction(item)
            if value is None:
                raise TracingError(f"a program must return booleans, numbers or sequences of "
                                   f"them, got {type(item).__name__} {item!r}")
            entries.append(value)

    visit(value)
    if not entries:
        raise TracingError("the program returned no value")
    return tuple(entries)


def _next_decisions(decisions: list) -> list | None:
    """The next sequence in depth-first order (the last ``True`` flipped), or ``None``."""
    while decisions and not decisions[-1]:
        decisions.pop()
    if not decisions:
        return None
    decisions[-1] = False
    return decisions


def step_limit(queries) -> int:
    """Default bound on the noise draws and comparisons of one execution path:
    :data:`STEPS_PER_QUERY` per query plus :data:`STEPS_BASE`."""
    return STEPS_BASE + STEPS_PER_QUERY * len(queries)


def trace(func, queries, kwargs: dict, limit: int = PATH_LIMIT,
          progress: bool | None = None, steps: int | None = None,
          timeout: float | None = TRACE_TIMEOUT) -> list[Path]:
    """Every execution path of ``func(prng, queries, **kwargs)`` with a symbolic ``prng``.

    Parameters
    ----------
    func : callable
    queries : sequence of Fraction
    kwargs : dict
        Keyword arguments (numbers as ``Fraction``/``int``; they reach the program as
        :class:`Exact`).
    limit : int
        Largest number of paths (an :class:`InputError` beyond it).
    steps : int or None
        Largest number of noise draws and comparisons in one path (a :class:`TracingError`
        beyond it); ``None``: :func:`step_limit` of the queries.
    progress : bool or None
        Report on standard error when the exploration takes longer than
        :data:`PROGRESS_AFTER` seconds (``None``: only on a terminal).
    timeout : float or None
        Seconds the trace of one path may take (an :class:`InputError` beyond it; ``None``: no
        limit).  The program runs in :func:`~exactdp.programs.sandbox.sandbox`: randomness other
        than ``prng`` is refused, its standard output goes to standard error.
    """
    arguments = {k: exact_argument(v) for k, v in kwargs.items()}
    exact_queries = [exact_argument(q) for q in queries]  # each run gets its own list
    paths: list[Path] = []
    # the paths' many small objects are never cyclic garbage: the collector's repeated scans
    # of them would make the exploration quadratic in its size
    collecting = gc.isenabled()
    gc.disable()
    decisions: list | None = []
    run = Run(step_limit(queries) if steps is None else steps)
    explored, start, reporter = 0, time.monotonic(), None
    try:
        with sandbox(func, timeout=timeout, what="the trace of one path of the program") as \
                watchdog:
            while decisions is not None:
                run.restart(decisions)
                _CURRENT.append(run)
                try:
                    result = func(SymbolicPRNG(run), list(exact_queries), **arguments)
                    entries = flatten_result(result)
                except _Infeasible:
                    entries = None
                except InputError:
                    raise
                except Exception as exc:  # the user's code: one line, never a traceback
                    line = ""
                    if exc.__traceback__ is not None:
                        line = f" (line {exc.__traceback__.tb_frame.f_lineno})"
                        frames = [f for f in _traceback_frames(exc.__traceback__)
                                  if not os.path.abspath(f[0]).startswith((_HERE, _NUMPY))]
                        if frames:
                            line = f" (at {os.path.basename(frames[-1][0])}:{frames[-1][1]})"
                    raise TracingError(f"the program failed while traced: "
                                       f"{type(exc).__name__}: {exc}{line}") from None
                finally:
                    _CURRENT.pop()
                if entries is not None:
                    paths.append(Path(tuple(run.noises), dict(run.fractions), entries))
                explored += 1
                watchdog.tick()
                if explored > limit:
                    raise InputError(f"the program has more than {limit:,} execution paths on "
                                     f"{len(queries)} queries (raise the path limit or use fewer "
                                     f"queries)")
                if reporter is None and time.monotonic() - start > PROGRESS_AFTER:
                    reporter = Progress(limit, "tracing", "path", enabled=progress)
                    reporter.update(explored)
                elif reporter is not None:
                    reporter.update(1, f"{len(paths)} feasible")
                decisions = _next_decisions(run.decisions[:run.position])
    finally:
        if collecting:
            gc.enable()
        if reporter is not None:
            reporter.close()
    return paths


def _traceback_frames(tb):
    while tb is not None:
        yield tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
