"""Exact output probabilities (or densities) with an error estimate: ``exactdp.probability``.

``Pr[M(D) = a] = Π_d p_d · Π_k I_k^{m_k}`` (``integrand.py``).  Each distinct integral is evaluated
by one or two methods:

* ``"closed"`` — exact expansion at a precision raised to absorb cancellation (``closed_form.py``);
* ``"quad"`` — peak-aware tanh-sinh quadrature (``quadrature.py``);
* ``"auto"`` (default) — two independent methods whose agreement is the error estimate: the
  closed form and the quadrature when the expansion is small, otherwise tanh-sinh and
  Gauss–Legendre quadrature on the same peak-aware breakpoints.  An integral without query factors
  (no query noise) has a one-term closed form without cancellation and needs no second method.

The relative errors of the factors add up (to first order) to the relative error of the product.
A result whose relative error exceeds ``10^{−dps}`` raises :class:`~exactdp.errors.PrecisionError`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import mpmath
from mpmath import mpf

from ..errors import InputError, PrecisionError
from ..mechanisms.description import ThresholdMechanism
from ..noise import laplace_logpdf
from .closed_form import integrate_closed_form, operation_count
from .integrand import OutputIntegral, ThresholdIntegral, build_output_integral
from .log_integrand import to_mpf
from .quadrature import integrate

METHODS = ("auto", "quad", "closed")
#: ``auto`` uses the closed form as its second method up to this many multiplications.
AUTO_CLOSED_FORM_OPERATIONS = 20_000
#: Largest number of significant digits a caller may ask for.
MAX_DPS = 1000


@dataclass(frozen=True)
class Probability:
    """The exact probability (or density) of one output.

    Attributes
    ----------
    value : mpf
        The probability, or the density for mechanisms that release numbers; an exact ``0`` for an
        impossible output.
    log_value : mpf
        ``log(value)``; ``-inf`` for an exact zero.  Use it for values below ~1e-308 in floats.
    error : mpf
        Estimated absolute error of ``value`` (0 for an exact zero).
    method : str
        How it was obtained: ``"closed"``, ``"quad"``, ``"closed+quad"``, ``"quad+gauss-legendre"``,
        or ``"exact zero"``; several integrals give a ``+``-joined set.
    is_density : bool
        True when ``value`` is a density (the output contains released numbers).
    dps : int
        The number of significant digits requested.
    """

    value: mpf
    log_value: mpf
    error: mpf
    method: str
    is_density: bool
    dps: int

    @property
    def is_zero(self) -> bool:
        """True for an impossible output (an exact zero, never an underflow)."""
        return self.value == 0

    @property
    def relative_error(self) -> mpf:
        """``error / value`` (0 for an exact zero)."""
        return mpf(0) if self.is_zero else self.error / self.value


def check_dps(dps: int) -> int:
    if isinstance(dps, bool) or not isinstance(dps, int) or not 1 <= dps <= MAX_DPS:
        raise InputError(f"dps must be an integer from 1 to {MAX_DPS}, got dps={dps!r}")
    return dps


def check_method(method: str) -> str:
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got method={method!r}")
    return method


def evaluate_integral(integral: ThresholdIntegral, dps: int, method: str):
    """``(log I, relative error, method name)`` of one non-empty integral."""
    with mpmath.workdps(dps + 20):
        def log_and_rel(log_scale, scaled, error):
            return log_scale + mpmath.log(scaled), error / scaled

        closed_second = (method == "auto"
                         and operation_count(integral) <= AUTO_CLOSED_FORM_OPERATIONS)
        if method == "closed" or (method == "auto" and not integral.factors):
            log_value, rel = log_and_rel(*integrate_closed_form(integral, dps))
            return log_value, rel, "closed"
        rules = ("tanh-sinh",) if method == "quad" or closed_second else ("tanh-sinh",
                                                                          "gauss-legendre")
        log_scale, results = integrate(integral, dps, rules)
        log_value, rel = log_and_rel(log_scale, *results[0])
        if method == "quad":
            return log_value, rel, "quad"
        if closed_second:
            other, other_rel = log_and_rel(*integrate_closed_form(integral, dps))
            name = "closed+quad"
        else:
            other, other_rel = log_and_rel(log_scale, *results[1])
            name = "quad+gauss-legendre"
        # |log a − log b| is the relative difference of a and b to first order.
        disagreement = abs(mpmath.expm1(log_value - other))
        return other if closed_second else log_value, max(rel, other_rel, disagreement), name


def evaluate_output_integral(output_integral: OutputIntegral, dps: int = 30,
                             method: str = "auto") -> Probability:
    """Evaluate a built :class:`OutputIntegral` (see :func:`probability`)."""
    dps, method = check_dps(dps), check_method(method)
    is_density = output_integral.is_density
    if output_integral.is_zero:
        return Probability(mpf(0), mpf("-inf"), mpf(0), "exact zero", is_density, dps)
    with mpmath.workdps(dps + 20):
        log_value = mpf(0)
        relative = mpf(0)
        methods = []
        for density in output_integral.densities:
            log_value += density.power * laplace_logpdf(to_mpf(density.x), to_mpf(density.scale))
        for integral, multiplicity in output_integral.integrals:
            log_i, rel_i, name = evaluate_integral(integral, dps, method)
            log_value += multiplicity * log_i
            relative += multiplicity * rel_i
            methods.append(name)
        # the logs, sums and the final exp are rounded at dps + 20 digits
        relative += mpf(10) ** (-(dps + 18))
        if relative > mpf(10) ** (-dps):
            raise PrecisionError(
                f"could not reach {dps} significant digits (estimated relative error "
                f"{mpmath.nstr(relative, 3)}); try method='auto' or fewer digits")
        value = mpmath.exp(log_value)
        return Probability(+value, +log_value, value * relative, "+".join(dict.fromkeys(methods)),
                           is_density, dps)


@functools.singledispatch
def probability(mech, queries, output, dps: int = 30, method: str = "auto") -> Probability:
    """The exact probability (or density) that ``mech`` run on ``queries`` produces ``output``.

    Parameters
    ----------
    mech : ThresholdMechanism
        A catalogue mechanism, from :func:`exactdp.mechanism`.
    queries : str or sequence of numbers
        Query answers ``q_1..q_n``; a string may use ``x*k`` for k repeats (``"0*1000,1*1000"``).
    output : str or sequence
        Entries ``"T"``/``True`` (⊤), ``"F"``/``False`` (⊥) or numbers (released values); it may
        stop early right after the c-th ⊤ of a mechanism with cutoff c.
    dps : int
        Significant digits wanted (1 to 1000).  The value's relative error estimate is at most
        ``10^{-dps}``, or :class:`~exactdp.errors.PrecisionError` is raised.
    method : {"auto", "quad", "closed"}

    Returns
    -------
    Probability

    Notes
    -----
    A generic function (``functools.singledispatch``) on the mechanism's description type: a new
    family of mechanisms registers its own exact engine with ``@probability.register``.
    For the Sparse Vector family (``ThresholdMechanism``) it is Lyu, Su & Li (PVLDB 2017) Eq. 5, generalised in spec §2::

        Pr[M(D) = a] = ∫ p_{b_ρ}(z) Π_{a_i=⊥} F_{b_ν}(T + z − q_i) Π_{a_i=⊤} S_{b_ν}(T + z − q_i) dz

    An output that violates the mechanism's shape (wrong token type, entries after the cutoff)
    raises :class:`~exactdp.errors.InputError`; an output of the right shape that occurs with
    probability zero (an empty constraint interval) returns an exact zero.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt5", eps=1)
    >>> p = exactdp.probability(m, [0, 1], "F,T")
    >>> print(exactdp.format_value(p.value, 10))   # ½(1 − e^{−1/2}), Lyu §3.2
    0.1967346701
    """
    raise InputError(f"no exact engine for mechanisms of type {type(mech).__name__}")


@probability.register
def _(mech: ThresholdMechanism, queries, output, dps: int = 30, method: str = "auto"):
    return evaluate_output_integral(build_output_integral(mech, queries, output), dps, method)
