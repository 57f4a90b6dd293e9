"""Integrals of products of piecewise exponential functions, exactly: the expansion of the product
into a finite sum of exponentials and its integral term by term, in any arithmetic.

Between consecutive kinks every function of a piecewise exponential law (Laplace, exponential)
is ``e^{c + λx}`` or ``1 − e^{c + λx}`` (``NoiseLaw.piece``, ``c`` the log of its coefficient;
e.g. ``F_b(x) = ½e^{x/b}`` for ``x < 0``, ``1 − ½e^{−x/b}`` for ``x ≥ 0``), so on a piece of an
integral of the integral form ``∫ p_hub(z) Π_j g_j(z − s_j)^{m_j} dz`` the integrand is
``e^{c₀ + c₁z} · Π_j (1 − e^{a_j + λ_j z})^{m_j}`` (:class:`ExponentialProduct`).  When every
``λ_j`` is ``±r`` for one common ``r``, put ``w = e^{rz}``: the product is the Laurent polynomial

    P(w) = Π_{λ_j < 0} (1 − e^{a_j} w^{−1})^{m_j} · Π_{λ_j > 0} (1 − e^{a_j} w)^{m_j}
         = Σ_k p_k w^k

(binomial expansions, multiplied), and the integral is a finite sum of integrals of
exponentials,

    ∫_lo^hi e^{c₀ + c₁z} P(e^{rz}) dz = e^{c₀} Σ_k p_k ∫_lo^hi e^{(c₁ + kr)z} dz,
    ∫_lo^hi e^{ρz} dz = e^{ρ·lo}·expm1(ρ(hi − lo))/ρ      (hi − lo for ρ = 0),

with ``e^{ρ·hi}/ρ`` from ``lo = −∞`` (``ρ > 0``) and ``−e^{ρ·lo}/ρ`` to ``hi = +∞`` (``ρ < 0``)
(:class:`ExpIntegrals`).  Rates and ends stay exact rationals, so the sign of every ``ρ`` is
decided exactly.

The work is written once against an :class:`~.arithmetics.Arithmetic` (``arithmetics.py``):
:data:`~.arithmetics.MPF` for the closed form of ``closed_form.py``, which bounds its rounding
itself, and :data:`~.arithmetics.BALLS` for the certified closed form of ``certified.py`` and the
tree of outputs of ``output_tree.py``, whose balls carry the rounding.  A law's pieces are
converted once per law, function, side of its kink, arithmetic and precision (:func:`piece_in`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from ...noise import Kind, NoiseLaw
from ..form.integral_form import Integral
from .arithmetics import Arithmetic


# --- the laws' pieces in an arithmetic --------------------------------------------------------

class ExponentialPiece(NamedTuple):
    """A law's piece (``NoiseLaw.piece``) in an arithmetic: its function is
    ``e^{log_coefficient + rate·x}`` or, with ``one_minus``, ``1 − e^{log_coefficient +
    rate·x}``; ``rate`` stays an exact rational."""

    log_coefficient: object
    rate: Fraction
    one_minus: bool

    def log_coefficient_at(self, shift: Fraction, arithmetic: Arithmetic):
        """``log_coefficient − rate·shift``: the piece of ``x ↦ g(x − shift)``, ``rate·shift``
        exact before it is rounded."""
        return self.log_coefficient - arithmetic.number(self.rate * shift)


def piece_in(law: NoiseLaw, kind: Kind, x, arithmetic: Arithmetic) -> ExponentialPiece | None:
    """The piece of ``kind`` of ``law`` on the side of its kink containing ``x`` (``NoiseLaw.side``)
    in ``arithmetic`` at its current precision; ``None`` where the function vanishes.  A constant
    ``1 − c`` (rate 0) is the plain exponential ``e^{log(1 − c)}``."""
    return _converted(law, kind, law.side(x), arithmetic, arithmetic.precision())


@functools.lru_cache(maxsize=4096)
def _converted(law: NoiseLaw, kind: Kind, side: int, arithmetic: Arithmetic,
               precision: int) -> ExponentialPiece | None:
    piece = law.piece(kind, side)
    if piece is None:
        return None
    coefficient, rate, one_minus = piece
    log_coefficient = arithmetic.log(arithmetic.number(coefficient))
    if one_minus and rate == 0:
        return ExponentialPiece(arithmetic.log(-arithmetic.expm1(log_coefficient)), rate, False)
    return ExponentialPiece(log_coefficient, rate, one_minus)


# --- the integrand on one piece and its expansion ---------------------------------------------

@dataclass
class ExponentialProduct:
    """``e^{c0 + c1·z} · Π (1 − e^{a + λz})^m`` on one piece between kinks, in an arithmetic;
    ``c1`` and every ``λ`` are exact rationals, ``factors`` lists ``(a, λ, m)``, and ``size``
    is the sum of the absolute values of the parts summed into ``c0`` (how far their rounding
    may move it; ``None`` in an arithmetic that encloses its rounding itself)."""

    c0: object
    c1: Fraction
    factors: list
    size: object

    def degree(self) -> int:
        """The degree of the Laurent polynomial ``P`` (module docstring)."""
        return sum(power for _, _, power in self.factors)

    def common_rate(self) -> Fraction | None:
        """The common ``|λ|`` of the ``1 − e^{…}`` factors (``None`` if they differ; 0 if there
        are none)."""
        rates = {abs(rate) for _, rate, _ in self.factors}
        if not rates:
            return Fraction(0)
        return rates.pop() if len(rates) == 1 else None


def product_on_piece(integral: Integral, point: Fraction,
                     arithmetic: Arithmetic) -> ExponentialProduct | None:
    """The integrand of ``integral`` on the piece containing ``point`` (not a kink) in
    ``arithmetic``, ``None`` where a factor vanishes there: ``g(z − s) = [1 −] e^{c + λ(z − s)}``
    has the constant part ``c − λs``."""
    hub = piece_in(integral.hub, Kind.PDF, point, arithmetic)
    if hub is None:
        return None
    c0, c1, factors = hub.log_coefficient, hub.rate, []
    size = None if arithmetic.encloses else abs(hub.log_coefficient)
    for factor in integral.factors:
        piece = piece_in(factor.law, factor.kind, point - factor.shift, arithmetic)
        if piece is None:
            return None
        moved = arithmetic.number(piece.rate * factor.shift)
        constant = piece.log_coefficient - moved
        if piece.one_minus:
            factors.append((constant, piece.rate, factor.power))
        else:
            c0 += factor.power * constant
            c1 += factor.power * piece.rate
            if size is not None:
                size += factor.power * (abs(piece.log_coefficient) + abs(moved))
    return ExponentialProduct(c0, c1, factors, size)


def expansion(product: ExponentialProduct, arithmetic: Arithmetic) -> tuple:
    """``(down, up)``: the polynomials ``Π_{λ<0} (1 − e^{a} x)^m`` and ``Π_{λ>0} (1 − e^{a} x)^m``
    whose Laurent product ``down(w^{−1})·up(w)`` is ``P(w)`` (module docstring)."""
    down, up = arithmetic.one(), arithmetic.one()
    for a, rate, power in product.factors:
        if rate < 0:
            down = arithmetic.multiply(down, arithmetic.binomial(a, power))
        else:
            up = arithmetic.multiply(up, arithmetic.binomial(a, power))
    return down, up


# --- the integral term by term ----------------------------------------------------------------

class ExpIntegrals(dict):
    """``table[k] = ∫_lo^hi e^{(rate + k·step)z} dz`` in ``arithmetic`` (module docstring), each
    made on first use, for exact rationals ``rate``, ``step`` and ends (``None``: infinite; the
    value is ``+∞`` where the integral diverges).  The numbers of ``rate``, ``step`` and the ends
    are made once; the exact rate decides a zero (the width, exactly rounded) and the sign at an
    infinite end."""

    def __init__(self, rate: Fraction, step: Fraction, lo: Fraction | None,
                 hi: Fraction | None, arithmetic: Arithmetic):
        super().__init__()
        self.rate, self.step, self.lo, self.hi = rate, step, lo, hi
        self.arithmetic = arithmetic
        number = arithmetic.number
        self.rate_number, self.step_number = number(rate), number(step)
        self.lo_number = None if lo is None else number(lo)
        self.hi_number = None if hi is None else number(hi)
        self.width = None if lo is None or hi is None else number(hi - lo)

    def exponent(self, k: int):
        """``rate + k·step`` in the arithmetic."""
        return self.rate_number + k * self.step_number

    def __missing__(self, k: int):
        rate, lo, hi, arithmetic = self.rate + k * self.step, self.lo, self.hi, self.arithmetic
        if self.width is not None:
            if rate == 0:
                value = self.width
            else:
                exponent = self.exponent(k)
                value = (arithmetic.exp(exponent * self.lo_number)
                         * arithmetic.expm1(exponent * self.width) / exponent)
        elif rate == 0 or (lo is None and (hi is None or rate < 0)) or (hi is None and rate > 0):
            value = arithmetic.infinity
        else:
            exponent = self.exponent(k)
            value = (arithmetic.exp(exponent * self.hi_number) / exponent if lo is None
                     else -arithmetic.exp(exponent * self.lo_number) / exponent)
        self[k] = value
        return value


def exp_integral(rate: Fraction, lo: Fraction | None, hi: Fraction | None,
                 arithmetic: Arithmetic):
    """``∫_lo^hi e^{rate·z} dz`` (:class:`ExpIntegrals`, one entry)."""
    return ExpIntegrals(rate, Fraction(0), lo, hi, arithmetic)[0]


def laurent_sum(coefficients: list, table: ExpIntegrals, first: int = 0):
    """``Σ_j coefficients[j]·table[first + j]``: a Laurent polynomial (at least one coefficient)
    integrated term by term."""
    total = coefficients[0] * table[first]
    for j in range(1, len(coefficients)):
        total += coefficients[j] * table[first + j]
    return total


def term_integrals(product: ExponentialProduct, offset: int, lo: Fraction | None,
                   hi: Fraction | None, arithmetic: Arithmetic) -> ExpIntegrals:
    """``table[j] = ∫_lo^hi e^{(c1 + (j − offset)·r)z} dz``: the integral of the term
    ``e^{c1·z}·w^{j − offset}`` of the product's expansion (its factors sharing one rate
    ``r``)."""
    rate = product.common_rate()
    return ExpIntegrals(product.c1 - offset * rate, rate, lo, hi, arithmetic)


def integrate(product: ExponentialProduct, lo: Fraction | None, hi: Fraction | None,
              arithmetic: Arithmetic):
    """``∫_lo^hi`` of the product (its factors sharing one rate) by the expansion:
    ``e^{c0}·Σ_j p_j·table[j]`` (:func:`laurent_sum` of the Laurent coefficients and
    :func:`term_integrals`)."""
    coefficients, offset = arithmetic.laurent(*expansion(product, arithmetic))
    table = term_integrals(product, offset, lo, hi, arithmetic)
    return arithmetic.exp(product.c0) * laurent_sum(coefficients, table)
