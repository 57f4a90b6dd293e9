"""Elementwise arithmetic on arrays of nonnegative reals, in two representations behind one
interface, so that a vectorised recurrence is written once: double-precision intervals rounded
outward (numpy runs the loops) and numpy object arrays of Arb balls (any precision, at Python
speed).  The traversals of Sparse Vector with retraversal (``exact/selection/retraversal.py``)
use it.

Every operation on :class:`FloatIntervals` returns an enclosure.  IEEE 754 rounds each sum,
difference and product to the nearest double: for nonnegative operands in the normal range the
result of ``k`` successive roundings lies within a factor ``(1 ± u)^k`` of the exact value,
``u = 2^{−53}``, and below it (subnormal results) within ``k·2^{−1075}``; a sum of ``m``
nonnegative terms in any order is ``k = m − 1`` roundings (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., SIAM 2002, §2.2, §4.2).  So each operation widens its result by
the factor ``1 ± (k + 1)·2^{−52}`` (which covers ``(1 ± u)^{−k}`` and the rounding of the
widening itself while ``k·u ≤ 1/4``) and by ``2^{−1020}`` absolutely, and raises a negative
lower end to 0 (the values are nonnegative).  A difference ``1 − x`` with ``x ∈ [1/2, 2]`` is
exact (Sterbenz's lemma), otherwise it is one rounding.  Converting an Arb ball to doubles
rounds to nearest and widens likewise.

Shapes: an array of shape ``s`` is held by :class:`FloatIntervals` as ``(2,) + s`` (lower and
upper endpoints), so callers index from the end (``x[..., i]``) and reduce over negative axes.
"""

from __future__ import annotations

import numpy as np
from flint import arb

#: The unit roundoff of doubles times 2, the widening per term of a computed sum.
_TWICE_UNIT_ROUNDOFF = 2.0 ** -52
#: The direction each endpoint is widened in, and the absolute widening for underflow.
_SIDES = np.array([-1.0, 1.0])
_UNDERFLOW = 2.0 ** -1020


class FloatIntervals:
    """Intervals ``[lo, hi]`` of doubles, stacked on a leading axis of length 2 (module
    docstring).  Their width grows by a few units in the last place per operation: values near
    1 keep about 12 significant digits through a few thousand operations."""

    @staticmethod
    def _widen(values: np.ndarray, roundings=1) -> np.ndarray:
        """Enclose the exact results of ``roundings`` successive roundings (module docstring);
        ``roundings`` may be an array broadcast against the values without their leading axis."""
        shape = (2,) + (1,) * (values.ndim - 1)
        slack = (np.asarray(roundings, dtype=float) + 1) * _TWICE_UNIT_ROUNDOFF
        widened = values * (1 + _SIDES.reshape(shape) * slack)
        widened += _SIDES.reshape(shape) * _UNDERFLOW
        return np.maximum(widened, 0, out=widened)

    def lift(self, balls) -> np.ndarray:
        """The real Arb balls as intervals (shape ``(len(balls),)``)."""
        lower = [float(ball.lower()) for ball in balls]
        upper = [float(ball.upper()) for ball in balls]
        return self._widen(np.array([lower, upper], dtype=float))

    @staticmethod
    def constant(value: float, shape: tuple) -> np.ndarray:
        """An array of ``shape`` holding the double ``value`` exactly."""
        return np.full((2,) + shape, float(value))

    def mul(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``x·y`` elementwise (broadcast)."""
        return self._widen(x * y)

    def add(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``x + y`` elementwise (broadcast)."""
        return self._widen(x + y)

    def mul_add(self, a: np.ndarray, x: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``a·x + b·y`` elementwise (broadcast): three roundings, one widening."""
        return self._widen(a * x + b * y, 3)

    def one_minus(self, x: np.ndarray) -> np.ndarray:
        """``1 − x`` for values in ``[0, 1]`` (the endpoints swap)."""
        return self._widen(1.0 - x[::-1])

    def total(self, x: np.ndarray, axis: int) -> np.ndarray:
        """The sum over ``axis`` (negative: counted from the end)."""
        return self._widen(x.sum(axis=axis), x.shape[axis] - 1)

    def dot(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``Σ_k x[..., k, :]·y[..., k, :]``: the sum of products over the last axis but one."""
        return self._widen((x * y).sum(axis=-2), x.shape[-2])

    def running_total(self, x: np.ndarray) -> np.ndarray:
        """The partial sums over the last axis: ``Σ_{k≤r} x[..., k]``."""
        return self._widen(np.cumsum(x, axis=-1), np.arange(x.shape[-1]))

    @staticmethod
    def from_upper(bounds: np.ndarray) -> np.ndarray:
        """The intervals ``[0, b]`` for upper bounds ``b`` (doubles)."""
        return np.stack((np.zeros_like(bounds), bounds))

    @staticmethod
    def largest(x: np.ndarray, axis: int) -> np.ndarray:
        """Upper bounds on the maximum over ``axis`` (negative), as plain doubles."""
        return x[1].max(axis=axis)

    @staticmethod
    def upper(x: np.ndarray) -> arb:
        """An upper bound on every value."""
        return arb(float(x[1].max()))

    @staticmethod
    def balls(x: np.ndarray) -> list:
        """The intervals as Arb balls, in the flattened order of the array."""
        return [arb(low).union(arb(high)) for low, high in zip(x[0].ravel(), x[1].ravel())]


class ArbArrays:
    """Numpy object arrays of Arb balls: the same interface as :class:`FloatIntervals`, at the
    working precision of :data:`flint.ctx` (Arb tracks the rounding)."""

    @staticmethod
    def lift(balls) -> np.ndarray:
        values = np.empty(len(balls), dtype=object)
        values[:] = list(balls)
        return values

    @staticmethod
    def constant(value: float, shape: tuple) -> np.ndarray:
        values = np.empty(shape, dtype=object)
        values.fill(arb(value))
        return values

    @staticmethod
    def mul(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x * y

    @staticmethod
    def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x + y

    @staticmethod
    def mul_add(a: np.ndarray, x: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
        return a * x + b * y

    @staticmethod
    def dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray((x * y).sum(axis=-2), dtype=object)

    @staticmethod
    def one_minus(x: np.ndarray) -> np.ndarray:
        return 1 - x

    @staticmethod
    def total(x: np.ndarray, axis: int) -> np.ndarray:
        return np.asarray(x.sum(axis=axis), dtype=object)

    @staticmethod
    def running_total(x: np.ndarray) -> np.ndarray:
        return np.cumsum(x, axis=-1)

    @staticmethod
    def from_upper(bounds: np.ndarray) -> np.ndarray:
        values = np.empty(bounds.shape, dtype=object)
        values.ravel()[:] = [arb(0).union(arb(float(b))) for b in bounds.ravel()]
        return values

    @staticmethod
    def largest(x: np.ndarray, axis: int) -> np.ndarray:
        uppers = np.vectorize(lambda ball: float(ball.upper()), otypes=[float])(x)
        return np.nextafter(uppers, np.inf).max(axis=axis)

    @staticmethod
    def upper(x: np.ndarray) -> arb:
        return max(arb(ball.upper()) for ball in x.ravel())

    @staticmethod
    def balls(x: np.ndarray) -> list:
        return list(x.ravel())


class PlainDoubles(ArbArrays):
    """Plain double-precision arrays for a recurrence of sums and products of non-negative
    numbers: the elementwise operations of :class:`ArbArrays` (``x·y``, ``x + y``,
    ``a·x + b·y``) on float arrays, with their own constants and reductions; no enclosure is
    kept (nor lifted: the caller lifts with
    :func:`~exactdp.exact.backends.rounding_bounds.relative_doubles` and bounds the rounding a
    priori, :func:`~exactdp.exact.backends.rounding_bounds.factor_bound`), at a quarter of the
    intervals' work."""

    @staticmethod
    def constant(value: float, shape: tuple) -> np.ndarray:
        return np.full(shape, float(value))

    @staticmethod
    def dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (x * y).sum(axis=-2)

    @staticmethod
    def total(x: np.ndarray, axis: int) -> np.ndarray:
        return x.sum(axis=axis)
