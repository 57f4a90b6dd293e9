"""Proven float64 bounds of a divergence for every ordered pair of many inputs at once.

``exactdp verify`` compares a million ordered pairs of inputs; the certified functionals of
``profile.py`` and ``renyi.py`` take milliseconds a pair.  Each pair's quantity is a sum (or a
maximum) over the outputs ``a`` of a term of two per-input numbers, ``r_i(a)`` of the first
input and ``c_j(a)`` of the second:

* ``δ(ε) = Σ_a max(0, p_i(a) − e^ε p_j(a))`` (``r = c = p``; Balle, Barthe & Gaboardi,
  NeurIPS 2018, Section 2);
* the Rényi sum ``S_α = Σ_a p_i(a)^α p_j(a)^{1−α} = e^{(α−1) D_α}`` (``r = p^α``,
  ``c = p^{1−α}``; Mironov, IEEE CSF 2017, Definition 3), outputs with ``p_i(a) = 0`` adding 0;
* ``D_∞ = max_a ln p_i(a) − ln p_j(a)`` over the outputs with ``p_i(a) > 0`` (``r = c = ln p``).

``r`` and ``c`` are computed once per input, in Arb, from the balls of its output probabilities,
and rounded outward to float64 ends (:func:`float_ends`).  The terms and their sum are then
computed for a block of pairs in numpy, each operation rounded to nearest by IEEE 754 and then
moved one float outward with ``np.nextafter``.  That gives a bound: the exact result ``x`` of
an operation on floats lies between two adjacent floats, and round to nearest returns one of
them, so the next float up from ``fl(x)`` is at least ``x`` and the next float down at most
``x`` (also among subnormals; an overflow gives ``±inf``, still a bound).  An operation whose
result is exact by construction (adding an exact 0, a maximum) is not moved.  By induction over
the operations, ``upper ≥`` the exact quantity of the pair ``≥ lower``; no a priori error
constant is needed.  docs/mathematics.md, "Whole-domain verdicts", gives the argument in full.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb

from ...precision import to_arb

UP, DOWN = np.inf, -np.inf


def float_ends(ball: arb) -> tuple[float, float]:
    """``(lo, hi)``, floats with ``lo ≤`` every point of ``ball`` ``≤ hi``: the ends converted
    (with an error below one unit in the last place, toward zero or to nearest) and moved one
    float outward, never across 0 (a probability's lower end stays ``≥ 0``); an exact ball
    whose value is a float stays that float (exact ``0``, ``±inf``).
    """
    if ball.is_exact() and (arb(float(ball)) == ball or not ball.is_finite()):
        return float(ball), float(ball)
    lower, upper = ball.lower(), ball.upper()
    lo, hi = (float(np.nextafter(float(lower), DOWN)), float(np.nextafter(float(upper), UP)))
    if math.isnan(lo) or math.isnan(hi):  # a ball that encloses nothing useful
        return -math.inf, math.inf
    return (max(lo, 0.0) if lower >= 0 else lo), (min(hi, 0.0) if upper <= 0 else hi)


@dataclass(frozen=True)
class Comparison:
    """Which quantity of an ordered pair is bounded, and the claim it is checked against.

    Attributes
    ----------
    kind : str
        ``"delta"`` (``δ(ε)``), ``"renyi"`` (the Rényi sum ``S_α`` of a finite order) or
        ``"max"`` (``D_∞``).
    order : Fraction or float
        ``ε`` (``"delta"``) or ``α`` (``math.inf`` for ``"max"``).
    claim : Fraction
        ``δ`` (``"delta"``) or the bound ``B`` on ``D_α`` (the sum is compared with
        ``e^{(α−1)B}``).
    """

    kind: str
    order: Fraction | float
    claim: Fraction

    @classmethod
    def of(cls, eps=None, delta=None, alpha=None, bound=None) -> "Comparison":
        """``(ε, δ)`` or ``(α, B)``, already checked (``α = math.inf`` for ``D_∞``)."""
        if eps is not None:
            return cls("delta", eps, delta)
        return cls("max" if alpha == math.inf else "renyi", alpha, bound)

    def row_and_column(self, p: arb) -> tuple[arb, arb]:
        """``(r(a), c(a))`` of one output probability ``p`` (module docstring), as balls at
        flint's precision (an exact ``0`` gives ``r = 0, c = +inf`` for the Rényi sum and
        ``−inf`` logs)."""
        if self.kind == "delta":
            return p, p
        if self.kind == "max":
            log = arb("-inf") if p == 0 else p.log()
            return log, log
        if p == 0:
            return arb(0), arb("inf")
        order = to_arb(self.order)
        return p ** order, p ** (1 - order)

    @property
    def absent(self) -> tuple[float, float]:
        """``(r, c)`` of an output an input cannot produce (probability exactly 0)."""
        return {"delta": (0.0, 0.0), "renyi": (0.0, math.inf),
                "max": (-math.inf, -math.inf)}[self.kind]

    def thresholds(self) -> tuple[float, float]:
        """Floats ``(lo, hi)`` around the number a pair's quantity is compared with (``δ``,
        ``e^{(α−1)B}`` or ``B``): a pair with ``upper ≤ lo`` meets the claim, one with
        ``lower > hi`` breaks it."""
        if self.kind == "renyi":
            return float_ends(((to_arb(self.order) - 1) * to_arb(self.claim)).exp())
        return float_ends(to_arb(self.claim))

    def bounds(self, rows: tuple[np.ndarray, np.ndarray], columns: tuple[np.ndarray, np.ndarray],
               factor: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        """``(upper, lower)`` of the quantity of every pair (first input a row, second a column):
        arrays of shape ``(rows, columns)``.  ``rows`` and ``columns`` are the ends
        ``(lo, hi)`` of ``r`` and ``c``, arrays of shape ``(inputs, outputs)``; ``factor`` the
        float ends of ``e^ε`` (``"delta"`` only)."""
        shape = (rows[0].shape[0], columns[0].shape[0])
        start = -math.inf if self.kind == "max" else 0.0
        upper, lower = np.full(shape, start), np.full(shape, start)
        term = {"delta": _delta_terms, "renyi": _renyi_terms, "max": _max_terms}[self.kind]
        with np.errstate(invalid="ignore", over="ignore", under="ignore"):
            for output in range(rows[0].shape[1]):
                r = tuple(end[:, output, None] for end in rows)
                c = tuple(end[None, :, output] for end in columns)
                high, low = term(r, c, factor)
                if self.kind == "max":
                    upper, lower = np.maximum(upper, high), np.maximum(lower, low)
                else:
                    upper, lower = _add(upper, high, UP), _add(lower, low, DOWN)
        # ∞ − ∞ or 0·∞ from unbounded ends: no bound beyond the trivial one
        return np.where(np.isnan(upper), UP, upper), np.where(np.isnan(lower), DOWN, lower)


def _add(total: np.ndarray, term: np.ndarray, direction: float) -> np.ndarray:
    """``total + term`` rounded toward ``direction``; exact where ``term`` is 0."""
    total_plus = total + term
    return np.where(term != 0, np.nextafter(total_plus, direction), total_plus)


def _delta_terms(r, c, factor):
    """``max(0, p_i − e^ε p_j)`` bounded above (``p_i`` high, ``e^ε p_j`` low) and below; a
    term is exactly 0 when the difference of its bounds is ``≤ 0`` (the sign of a rounded
    difference is exact)."""
    scaled_low = np.maximum(np.nextafter(factor[0] * c[0], DOWN), 0.0)
    scaled_high = np.nextafter(factor[1] * c[1], UP)
    high, low = r[1] - scaled_low, r[0] - scaled_high
    return (np.where(high > 0, np.nextafter(high, UP), 0.0),
            np.where(low > 0, np.nextafter(low, DOWN), 0.0))


def _renyi_terms(r, c, factor):
    """``p_i^α · p_j^{1−α}`` bounded above and below; 0 where ``p_i = 0`` exactly (``r``'s
    upper end 0), ``+inf`` above where ``p_j = 0`` exactly and ``p_i > 0``."""
    high = np.where(r[1] == 0, 0.0, np.nextafter(r[1] * c[1], UP))
    low = np.where(r[0] == 0, 0.0, np.maximum(np.nextafter(r[0] * c[0], DOWN), 0.0))
    return high, low


def _max_terms(r, c, factor):
    """``ln p_i − ln p_j`` bounded above and below; ``−inf`` (no term) where ``p_i = 0``
    exactly, ``+inf`` where ``p_j = 0`` exactly and ``p_i > 0``."""
    absent = r[1] == -math.inf
    high = np.where(absent, -math.inf, np.nextafter(r[1] - c[0], UP))
    low = np.nextafter(r[0] - c[1], DOWN)
    return high, np.where(absent | np.isnan(low), -math.inf, low)  # −inf − (−inf): no bound
