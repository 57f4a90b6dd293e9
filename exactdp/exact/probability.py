"""Exact output probabilities (or densities) with an error bound: ``exactdp.probability``.

Every family writes ``Pr[M(D) = a]`` in the integral form (``form/integral_form.py``): a sum of
terms, each a product of constant factors and of one-dimensional integrals.  Each distinct integral
is evaluated by one or two methods:

* ``"auto"`` (default) and ``"certified"`` — a rigorous enclosure in ball arithmetic
  (``backends/certified.py``): the closed form where the expansion is small, otherwise piecewise
  Gauss–Legendre with a proven error bound per piece (``backends/piecewise_gauss.py``: cost
  near-linear in the number of distinct factors), ``acb.integral`` as the fallback.  For a
  noise law without a certified rule ``"auto"`` returns the estimate, and its method says so;
* ``"estimate"`` — two methods whose agreement joins the error bound.  For Laplace and
  exponential noise the first is piecewise Gauss–Legendre quadrature in ball arithmetic with an
  estimated error; the second is the closed form when the expansion is small, otherwise the
  same pieces with a Gauss–Legendre rule of lower order.  For other laws (Gumbel) they are
  tanh-sinh and Gauss–Legendre quadrature on the same peak-aware breakpoints.  An integral
  without factors has a one-term closed form without cancellation and needs no second method;
* ``"closed"`` — exact expansion at a precision raised to absorb cancellation
(``backends/closed_form.py``);
* ``"quad"`` — peak-aware tanh-sinh quadrature (``backends/peak_quadrature.py``).

Discrete noise (an integer-valued law: the integral over its hub is a sum over the integers,
``backends/discrete_hub.py``) is evaluated by the certified engine only; the other methods integrate
continuous noise and refuse it (:class:`~exactdp.errors.MethodUnavailableError`).

The relative errors of the factors add up (to first order) to the relative error of a term; the
terms are non-negative, so the relative error of their sum is at most the largest one.  A result
whose relative error exceeds ``10^{−dps}`` raises :class:`~exactdp.errors.PrecisionError`
(``exactdp.precision``).
"""

from __future__ import annotations

import functools

import mpmath
from mpmath import mpf

from ..errors import InputError, MethodUnavailableError
from ..precision import (CERTIFIED_METHODS, Probability, check_method,
                         check_working_dps, to_mpf, unit_roundoff, working_dps)
from .backends.certified import evaluate_certified
from .backends.closed_form import has_closed_form, integrate_closed_form, operation_count
from .form.integral_form import Integral, IntegralForm, Term
from .form.nested_integral import HubPair, HubTriple, NestedIntegral
from .backends.piece_series import PiecewiseExponential
from .backends.piecewise_gauss import integrate_pieces
from .backends.peak_quadrature import integrate

#: The estimate uses the closed form as its second method up to this many multiplications.
ESTIMATE_CLOSED_FORM_OPERATIONS = 20_000
#: ... and only for integrals with at most this many distinct factors (counting is quadratic).
ESTIMATE_CLOSED_FORM_FACTORS = 150


def _log_and_relative(log_scale: mpf, scaled: mpf, error: mpf) -> tuple[mpf, mpf]:
    """``(log I, relative error bound)`` of ``I = e^{log_scale}·scaled`` with absolute error
    ``error`` on ``scaled``: the log and the sum are rounded, and an absolute error of ``log I``
    is a relative one of ``I``."""
    log_value = log_scale + mpmath.log(scaled)
    return log_value, error / scaled + 4 * (abs(log_value) + 1) * unit_roundoff()


def _closed(integral: Integral, dps: int) -> tuple[mpf, mpf, str]:
    """The back-end ``"closed"``: the exact expansion (``backends/closed_form.py``)."""
    return (*_log_and_relative(*integrate_closed_form(integral, dps)), "closed")


def _quad(integral: Integral, dps: int) -> tuple[mpf, mpf, str]:
    """The back-end ``"quad"``: peak-aware tanh-sinh quadrature (``peak_quadrature.py``)."""
    log_scale, results = integrate(integral, dps, ("tanh-sinh",))
    return (*_log_and_relative(log_scale, *results[0]), "quad")


def _estimate(integral: Integral, dps: int) -> tuple[mpf, mpf, str]:
    """The back-end ``"estimate"``: two methods whose disagreement joins the error bound (module
    docstring) — piecewise Gauss–Legendre (``piecewise_gauss.py``) for piecewise exponential
    laws, else tanh-sinh and Gauss–Legendre on the same breakpoints; the closed form second
    where it is cheap, and alone for an integral without factors."""
    closed = has_closed_form(integral)
    if closed and not integral.factors:
        return _closed(integral, dps)
    if PiecewiseExponential.applies(integral):
        log_scale, results = integrate_pieces(integral, dps)
        name = "piecewise-gauss"
    else:
        log_scale, results = integrate(integral, dps, ("tanh-sinh", "gauss-legendre"))
        name = "quad+gauss-legendre"
    log_value, rel = _log_and_relative(log_scale, *results[0])
    closed_second = closed and _closed_form_is_cheap(integral)
    if closed_second:
        other, other_rel = _log_and_relative(*integrate_closed_form(integral, dps))
        name = "closed+" + ("quad" if name.startswith("quad") else name)
    else:
        other, other_rel = _log_and_relative(log_scale, *results[1])
    # |log a − log b| is the relative difference of a and b to first order.
    disagreement = abs(mpmath.expm1(log_value - other))
    return other if closed_second else log_value, max(rel, other_rel, disagreement), name


#: The back-ends of one integral that are not certified, keyed by method: each gives
#: ``(log I, relative error bound, method name)``.  The certified back-end (``"auto"``,
#: ``"certified"``) encloses the whole form at once (``certified.evaluate_certified``).
INTEGRAL_BACKENDS = {"closed": _closed, "quad": _quad, "estimate": _estimate}


def evaluate_integral(integral: Integral, dps: int, method: str):
    """``(log I, relative error bound, method name)`` of one non-empty integral by the back-end
    :data:`INTEGRAL_BACKENDS` holds for ``method``."""
    if isinstance(integral, (NestedIntegral, HubPair, HubTriple)):
        raise MethodUnavailableError(f"method {method!r} integrates over one noise; noises "
                                     f"compared in a tree or with a few hubs have the certified "
                                     f"method only")
    with mpmath.workdps(working_dps(dps, integral.magnitude)):
        return INTEGRAL_BACKENDS[method](integral, dps)


def _closed_form_is_cheap(integral: Integral) -> bool:
    """Whether the closed form costs at most :data:`ESTIMATE_CLOSED_FORM_OPERATIONS`; counting is
    itself quadratic in the number of factors, so beyond :data:`ESTIMATE_CLOSED_FORM_FACTORS`
    distinct factors (where the count exceeds the budget for the Sparse Vector and noisy max
    integrands) it is not attempted."""
    return (len(integral.factors) <= ESTIMATE_CLOSED_FORM_FACTORS
            and operation_count(integral) <= ESTIMATE_CLOSED_FORM_OPERATIONS)


def _log_term(term: Term, dps: int, method: str, methods: list):
    """``(log term, relative error bound)``; ``(-inf, 0)`` for a term that vanishes."""
    log_value, relative, size = mpmath.log(term.multiplicity), mpf(0), mpf(0)
    for constant in term.constants:
        log_factor = constant.law.log(constant.kind, to_mpf(constant.point))
        if log_factor == mpf("-inf"):
            return log_factor, mpf(0)
        log_value += constant.power * log_factor
        # the point is rounded (relative u) and the log evaluated: |x/b| + |log g| + 1 units
        size += constant.power * (abs(log_factor) + abs(to_mpf(constant.point) / constant.law.b)
                                  + 1)
    for integral, multiplicity in term.integrals:
        log_i, rel_i, name = evaluate_integral(integral, dps, method)
        log_value += multiplicity * log_i
        relative += multiplicity * rel_i
        size += multiplicity * abs(log_i)
        methods.append(name)
    # the logs and their sum are rounded at the working precision; the final exp inherits that
    return log_value, relative + 4 * (size + abs(log_value) + 1) * unit_roundoff()


def evaluate(form: IntegralForm, dps: int = 30, method: str = "auto",
             what: str = "probability") -> Probability:
    """Evaluate an :class:`~exactdp.exact.form.integral_form.IntegralForm` (see :func:`probability`)
    to ``dps`` digits: a caller's, or with the guard digits exactdp adds to them
    (:func:`~exactdp.precision.check_working_dps`); each family's :func:`probability` checks the
    digits its caller asks for.

    Notes
    -----
    ``log Σ_t e^{ℓ_t} = ℓ* + log Σ_t e^{ℓ_t − ℓ*}`` with ``ℓ*`` the largest term: no underflow,
    and every term is non-negative, so the relative error of the sum is at most the largest
    relative error of a term (plus the rounding of the sum).
    """
    dps, method = check_working_dps(dps), check_method(method)
    if method in CERTIFIED_METHODS:
        try:
            return evaluate_certified(form, dps, what)
        except MethodUnavailableError:
            if method == "certified" or _has_discrete_noise(form) or _several_noises(form):
                raise  # the estimate has nothing more to offer these
            method = "estimate"
    if _has_discrete_noise(form):
        raise MethodUnavailableError(f"method {method!r} integrates continuous noise; discrete "
                                     f"noise is summed by the certified method (auto, "
                                     f"certified)")
    live = [term for term in form.terms if not term.is_zero]
    if not live:
        return Probability.exact_zero(form.is_density, dps)
    with mpmath.workdps(working_dps(dps, form.magnitude)):
        methods: list = []
        logs = [_log_term(term, dps, method, methods) for term in live]
        logs = [(log, rel) for log, rel in logs if log != mpf("-inf")]
        if not logs:
            return Probability.exact_zero(form.is_density, dps)
        top = max(log for log, _ in logs)
        total = mpmath.fsum(mpmath.exp(log - top) for log, _ in logs)
        relative = max(rel for _, rel in logs) + 4 * len(logs) * unit_roundoff()
        name = "+".join(dict.fromkeys(methods)) or "closed"
        if method == "estimate":
            name = f"estimate {name}"
        return Probability.from_log(top + mpmath.log(total), relative, name, form.is_density,
                                    dps, what, method)


def _several_noises(form: IntegralForm) -> bool:
    """Whether a term of ``form`` integrates over several noises (the certified method
    only)."""
    return any(isinstance(integral, (NestedIntegral, HubPair, HubTriple))
               for term in form.terms for integral, _ in term.integrals)


def _has_discrete_noise(form: IntegralForm) -> bool:
    """Whether a law of ``form`` is integer-valued."""
    laws = {c.law for term in form.terms for c in term.constants}
    for term in form.terms:
        for integral, _ in term.integrals:
            if isinstance(integral, (NestedIntegral, HubPair, HubTriple)):
                laws.update(integral.laws())
                continue
            laws.add(integral.hub)
            laws.update(f.law for f in integral.factors)
    return any(law.integer_valued for law in laws)


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
    method : {"auto", "certified", "estimate", "quad", "closed"}
        ``"auto"`` and ``"certified"`` return a
        :class:`~exactdp.precision.CertifiedProbability`: an enclosure ``[lower, upper]``
        guaranteed by ball arithmetic (``exact/backends/certified.py``); ``"auto"`` falls back to
        the
        estimate for a noise law without a certified rule (its ``method`` then starts with
        ``"estimate"``), ``"certified"`` raises
        :class:`~exactdp.errors.MethodUnavailableError` there.

    Returns
    -------
    Probability

    Notes
    -----
    A generic function (``functools.singledispatch``) on the mechanism's description type: a new
    family of mechanisms registers its own exact engine with ``@probability.register``.
    For the Sparse Vector family (``ThresholdMechanism``) it is Lyu, Su & Li (PVLDB 2017) Eq. 5,
    generalised in ``exactdp.exact.form.integral_form`` and docs/mathematics.md::

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


