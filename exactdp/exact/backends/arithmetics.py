"""The arithmetics the exact integrals are computed in: how an exact rational becomes a number,
the few functions of numbers (``exp``, ``log``, ``expm1``) and the polynomials an expansion
multiplies.

* :data:`MPF`: mpmath numbers at mpmath's working precision, a polynomial the list of its
  coefficients; the rounding is the caller's to bound (``closed_form.py`` bounds it itself);
* :data:`BALLS`: Arb balls (python-flint's ``arb``) at flint's working precision, polynomials
  ``arb_poly``; every result encloses the exact value.

The numbers of both add, subtract, multiply, divide and take ``abs`` with Python's operators, so
a computation written once against an :class:`Arithmetic` runs in either
(``exponential_sums.py``, ``event_probability/sums.py``).
"""

from __future__ import annotations

import abc
from fractions import Fraction

import mpmath
from flint import arb, arb_poly, ctx
from mpmath import mpf

from ...precision import to_arb, to_mpf


class Arithmetic(abc.ABC):
    """The operations of an arithmetic the kernel needs; its numbers add, subtract, multiply,
    divide and take ``abs`` with Python's operators."""

    #: ``+∞`` (an integral that diverges)
    infinity = None
    #: whether every result encloses the exact value (balls), so that no caller bounds the
    #: rounding
    encloses = False

    @abc.abstractmethod
    def precision(self) -> int:
        """The current working precision in bits (a key of the converted pieces)."""

    @abc.abstractmethod
    def number(self, value: Fraction):
        """An exact rational, rounded once."""

    @abc.abstractmethod
    def exp(self, x):
        """``e^x``."""

    @abc.abstractmethod
    def log(self, x):
        """``log x``."""

    @abc.abstractmethod
    def expm1(self, x):
        """``e^x − 1``, accurate near 0."""

    @abc.abstractmethod
    def one(self):
        """The polynomial ``1``."""

    @abc.abstractmethod
    def binomial(self, log_alpha, power: int):
        """The polynomial ``(1 − e^{log_alpha}·x)^power``."""

    @abc.abstractmethod
    def multiply(self, p, q):
        """The product of two polynomials."""

    @abc.abstractmethod
    def laurent(self, down, up) -> tuple[list, int]:
        """``(coefficients, offset)`` of ``down(w^{−1})·up(w)``: ``coefficients[j]`` multiplies
        ``w^{j − offset}``, ``offset`` the degree of ``down``."""


class MpfArithmetic(Arithmetic):
    """mpmath numbers at mpmath's working precision; a polynomial is the list of its
    coefficients in increasing powers."""

    infinity = mpmath.inf

    def precision(self) -> int:
        return mpmath.mp.prec

    def number(self, value: Fraction) -> mpf:
        return to_mpf(value)

    def exp(self, x: mpf) -> mpf:
        return mpmath.exp(x)

    def log(self, x: mpf) -> mpf:
        return mpmath.log(x)

    def expm1(self, x: mpf) -> mpf:
        return mpmath.expm1(x)

    def one(self) -> list:
        return [mpf(1)]

    def binomial(self, log_alpha: mpf, power: int) -> list:
        """By the recurrence ``t_{k+1} = −t_k·α·(power − k)/(k + 1)``."""
        alpha = mpmath.exp(log_alpha)
        coefficients, term = [], mpf(1)
        for k in range(power + 1):
            coefficients.append(term)
            term = -term * alpha * (power - k) / (k + 1)
        return coefficients

    def multiply(self, p: list, q: list) -> list:
        result = [mpf(0)] * (len(p) + len(q) - 1)
        for i, a in enumerate(p):
            if a:
                for j, b in enumerate(q):
                    result[i + j] += a * b
        return result

    def laurent(self, down: list, up: list) -> tuple[list, int]:
        return self.multiply(down[::-1], up), len(down) - 1


class BallArithmetic(Arithmetic):
    """Arb balls (python-flint's ``arb``) at flint's precision; polynomials are ``arb_poly``."""

    infinity = arb("inf")
    encloses = True

    def precision(self) -> int:
        return ctx.prec

    def number(self, value: Fraction) -> arb:
        return to_arb(value)

    def exp(self, x: arb) -> arb:
        return x.exp()

    def log(self, x: arb) -> arb:
        return x.log()

    def expm1(self, x: arb) -> arb:
        return x.expm1()

    def one(self) -> arb_poly:
        return arb_poly([1])

    def binomial(self, log_alpha: arb, power: int) -> arb_poly:
        linear = arb_poly([1, -log_alpha.exp()])
        return linear if power == 1 else linear ** power

    def multiply(self, p: arb_poly, q: arb_poly) -> arb_poly:
        return p * q

    def laurent(self, down: arb_poly, up: arb_poly) -> tuple[list, int]:
        return (arb_poly(down.coeffs()[::-1]) * up).coeffs(), down.degree()


MPF = MpfArithmetic()
BALLS = BallArithmetic()
