"""Exact output probabilities of Report Noisy Max (``NoisyMaxMechanism``,
``@probability.register``).

With i.i.d. noise of density ``p`` and CDF ``F`` added to the answers ``q_1..q_n`` (ties have
probability 0):

* index (Dwork & Roth §3.3)::

      Pr[argmax = i] = ∫ p(x − q_i) Π_{j≠i} F(x − q_j) dx

  a one-dimensional integral of a log-concave function, evaluated by peak-aware quadrature
  (``log_concave.py``); equal answers are grouped into powers;
* largest value (StatDP's v1b/v2b): the density ``f(v) = Σ_i p(v − q_i) Π_{j≠i} F(v − q_j)`` and the
  interval probability ``Pr[a < max < b] = Π_j F(b − q_j) − Π_j F(a − q_j)`` (closed forms).

Laplace ``p``, ``F`` come from ``exactdp.noise``; the exponential law ``Exp(b)`` (density
``e^{−y/b}/b``, CDF ``1 − e^{−y/b}`` for ``y ≥ 0``) is below.
"""

from __future__ import annotations

from collections import Counter

import mpmath
from mpmath import mpf

from ..errors import InputError, MethodUnavailableError, PrecisionError
from ..mechanisms.noisy_max import NoiseKind, NoisyMaxMechanism
from ..noise import laplace_dlogcdf, laplace_logcdf, laplace_logpdf
from ..sequences import Runs, as_output, as_queries, to_fraction
from .log_concave import LogConcave, log_integral, working_precision
from .log_integrand import to_mpf
from .probability import Probability, check_dps, check_method, probability


def exponential_logpdf(y: mpf, b: mpf) -> mpf:
    """``log(e^{−y/b}/b)`` for ``y ≥ 0``, ``-inf`` below."""
    return -y / b - mpmath.log(b) if y >= 0 else mpf("-inf")


def exponential_logcdf(y: mpf, b: mpf) -> mpf:
    """``log(1 − e^{−y/b})`` for ``y > 0``, ``-inf`` otherwise."""
    return mpmath.log(-mpmath.expm1(-y / b)) if y > 0 else mpf("-inf")


def exponential_dlogcdf(y: mpf, b: mpf) -> mpf:
    """``d/dy log(1 − e^{−y/b}) = 1/(b(e^{y/b} − 1))`` (``+inf`` at ``y ≤ 0``)."""
    return 1 / (b * mpmath.expm1(y / b)) if y > 0 else mpf("inf")


def _laplace_dlogpdf(y: mpf, b: mpf) -> mpf:
    return -1 / b if y >= 0 else 1 / b


def _exponential_dlogpdf(y: mpf, b: mpf) -> mpf:
    return -1 / b


#: (log pdf, d log pdf, log CDF, d log CDF) of each noise kind.
_LAWS = {
    NoiseKind.LAPLACE: (laplace_logpdf, _laplace_dlogpdf, laplace_logcdf, laplace_dlogcdf),
    NoiseKind.EXPONENTIAL: (exponential_logpdf, _exponential_dlogpdf, exponential_logcdf,
                            exponential_dlogcdf),
}


def _answers(queries) -> list[mpf]:
    return [to_mpf(v) for v in as_queries(queries).expand()]


def log_max_cdf(mech: NoisyMaxMechanism, answers: list[mpf], x: mpf) -> mpf:
    """``log Pr[max_j (q_j + η_j) ≤ x] = Σ_j log F(x − q_j)``."""
    logcdf = _LAWS[mech.noise][2]
    b = to_mpf(mech.scale)
    return mpmath.fsum(logcdf(x - q, b) for q in answers)


def index_integrand(mech: NoisyMaxMechanism, answers: list[mpf], index: int) -> LogConcave:
    """``g(x) = log p(x − q_i) + Σ_{j≠i} log F(x − q_j)`` as a :class:`LogConcave`."""
    logpdf, dlogpdf, logcdf, dlogcdf = _LAWS[mech.noise]
    b = to_mpf(mech.scale)
    own = answers[index]
    others = Counter(answers)
    others[own] -= 1
    others = [(q, power) for q, power in others.items() if power]

    def log(x):
        return logpdf(x - own, b) + sum(power * logcdf(x - q, b) for q, power in others)

    def slope(x):
        return dlogpdf(x - own, b) + sum(power * dlogcdf(x - q, b) for q, power in others)

    if mech.noise is NoiseKind.EXPONENTIAL:  # every factor vanishes below its own answer
        lower = max(answers)
    else:
        lower = mpf("-inf")
    return LogConcave(log, slope, lower, mpf("inf"), list(set(answers)), b)


def _index_probability(mech, answers, output, dps, method) -> Probability:
    try:
        index = int(str(output).strip())
    except ValueError:
        index = -1
    if not 0 <= index < len(answers) or str(output).strip().lstrip("+") != str(index):
        raise InputError(f"not an output {mech.name} can produce: an index from 0 to "
                         f"{len(answers) - 1}, got {output!r}")
    if method == "closed":
        raise MethodUnavailableError(f"{mech.name}: Pr[argmax = i] has no closed form here; "
                                     "use method='quad' or 'auto'")
    with mpmath.workdps(working_precision(dps)):
        log_value, relative, name = log_integral(
            index_integrand(mech, answers, index), dps, two_rules=method == "auto")
        if relative > mpf(10) ** (-dps):
            raise PrecisionError(f"{mech.name}: could not reach {dps} significant digits "
                                 f"(estimated relative error {mpmath.nstr(relative, 3)})")
        value = mpmath.exp(log_value)
        return Probability(+value, log_value, value * relative, name, False, dps)


def _value_density(mech, answers, output, dps) -> Probability:
    v = to_mpf(to_fraction(output, "output value"))
    logpdf, _, logcdf, _ = _LAWS[mech.noise]
    b = to_mpf(mech.scale)
    with mpmath.workdps(working_precision(dps)):
        below = log_max_cdf(mech, answers, v)
        terms = [logpdf(v - q, b) + below - logcdf(v - q, b) for q in answers
                 if logcdf(v - q, b) > mpf("-inf")]
        value = mpmath.fsum(mpmath.exp(t) for t in terms)
        if value == 0:
            return Probability(mpf(0), mpf("-inf"), mpf(0), "exact zero", True, dps)
        error = value * mpf(10) ** (-(dps + 5))
        return Probability(+value, mpmath.log(value), error, "closed", True, dps)


def _single_entry(mech, output):
    """Noisy max outputs one number: accept it bare, or as a one-entry sequence or ``Runs``."""
    if isinstance(output, (Runs, list, tuple)):
        runs = as_output(output)
        if len(runs) != 1:
            raise InputError(f"not an output {mech.name} can produce: one number, got "
                             f"{len(runs)} entries")
        output = runs.runs[0][0]
    return output


@probability.register
def _(mech: NoisyMaxMechanism, queries, output, dps: int = 30, method: str = "auto"):
    dps, method = check_dps(dps), check_method(method)
    answers = _answers(queries)
    output = _single_entry(mech, output)
    if mech.releases_value:
        return _value_density(mech, answers, output, dps)
    return _index_probability(mech, answers, output, dps, method)
