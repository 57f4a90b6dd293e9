"""Exact numbers inside a traced program: FLINT rationals and the :class:`Exact` numbers the
program receives.

The numbers handed to the program (its keyword arguments and the queries) are :class:`Exact`
rationals, so ``2.0 / epsilon`` or ``T + eta`` keep every digit.  A float the program makes
itself (``np.asarray(queries, dtype=np.float64)``, a literal ``0.1``) is taken at its exact
binary value: that is the number the program computes with.
"""

from __future__ import annotations

import numbers
import operator
from fractions import Fraction

import numpy as np
from flint import fmpq

from .locations import unsupported

#: Rationals inside the interpreter are FLINT's (python-flint) for speed; paths hand out
#: ``Fraction``.
ZERO, ONE = fmpq(0), fmpq(1)
#: Exact values of the floats met so far (a program's literals recur at every step).
_FLOATS: dict = {}
#: Types of values with noises (``linear.Linear`` adds itself): never a number, found at once.
SYMBOLIC: set = set()


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
    if kind in SYMBOLIC:
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
        value = other.value if type(other) is Exact else as_rational(other)
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
