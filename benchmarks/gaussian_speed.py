"""Benchmark: certified Gaussian Sparse Vector probabilities, Gauss–Legendre with the ellipse
bound between the breakpoints (the default) against ``acb.integral`` on the same breakpoints.

Case: ``svt_gaussian`` (σ1 = 1, σ2 = 2, c = 100, T = 0) on 10 and 100 distinct query values,
drawn in [−3, 3] and rounded to 3 decimals, with a random ⊤/⊥ output (seeded), at 15 and 30
digits.  For each: the median of ``REPEATS`` calls of

* ``exactdp.probability`` (the public call, the default rule);
* the certified enclosure of the one integral with the rule ``segment-gauss`` and with the
  baseline ``integral`` (``acb.integral``), both through ``certified.enclose`` and
  ``certified.integrate_piecewise`` with the rule passed explicitly;

the ratio baseline/new (the machine-independent figure), and whether the two enclosures
overlap (two rigorous methods on one integral).  Then Gumbel report noisy max (``noisy_max_gumbel``,
ε = 1) on 100 distinct values, both rules, against the exact softmax.

Run: ``python benchmarks/gaussian_speed.py`` from the repository root.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.backends import certified  # noqa: E402
from exactdp.exact.form.threshold import build_output_integral  # noqa: E402
from exactdp.exact.form.noisy_max import index_form  # noqa: E402

REPEATS = 5
SIZES = (10, 100)
DIGITS = (15, 30)
RULES = dict(certified.SEGMENT_RULES)


def svt_case(n: int):
    """``n`` distinct values in [−3, 3] rounded to 3 decimals and a random ⊤/⊥ output."""
    rng = np.random.default_rng(n)
    queries = [Fraction(int(k) - 3000, 1000) for k in rng.permutation(6001)[:n]]
    output = ",".join("T" if top else "F" for top in rng.integers(0, 2, n))
    return queries, output


def enclose_with(integral, dps: int, rule: str):
    """The certified log enclosure of one integral by ``integrate_piecewise`` with the single
    segment rule ``rule`` (``certified.enclose`` drives the precision, as for a probability)."""
    rules = ((rule, RULES[rule]),)

    def compute(goal):
        value, name = certified.integrate_piecewise(integral, goal, rules)
        return value, [name]
    return certified.enclose(compute, integral.magnitude, dps, "probability")[0]


def the_integral(form):
    """The one integral of a form that is exactly one integral."""
    (term,) = form.terms
    assert not term.constants and len(term.integrals) == 1
    ((integral, multiplicity),) = term.integrals
    assert multiplicity == 1
    return integral


def compare(label: str, form, public) -> None:
    integral = the_integral(form)
    for dps in DIGITS:
        public_time, result = median_time(lambda: public(dps), REPEATS)
        new_time, new = median_time(lambda: enclose_with(integral, dps, "segment-gauss"), REPEATS)
        old_time, old = median_time(lambda: enclose_with(integral, dps, "integral"), REPEATS)
        print(f"{label:>32}, dps {dps}: exactdp.probability {public_time:.3f} s "
              f"({result.method}); Gauss–Legendre {new_time:.3f} s, acb.integral "
              f"{old_time:.3f} s, ratio acb/GL {old_time / new_time:.2f}; overlap "
              f"{new.overlaps(old)}", flush=True)


def main() -> None:
    mech = exactdp.mechanism("svt_gaussian", sigma1=1, sigma2=2, c=100, T=0)
    for n in SIZES:
        queries, output = svt_case(n)
        form = build_output_integral(mech, queries, output)
        compare(f"svt_gaussian, {n} distinct values", form,
                lambda dps: exactdp.probability(mech, queries, output, dps=dps))
    gumbel = exactdp.mechanism("noisy_max_gumbel", eps=1)
    queries = svt_case(100)[0]
    compare("noisy_max_gumbel, 100 values", index_form(gumbel, queries, 0),
            lambda dps: exactdp.probability(gumbel, queries, 0, dps=dps))
    # Gumbel noisy max selects index 0 with the softmax probability e^{q_0/b}/Σ_j e^{q_j/b}
    with mpmath.workdps(60):
        b = mpmath.mpf(gumbel.noise.scale.numerator) / gumbel.noise.scale.denominator
        weights = [mpmath.exp((mpmath.mpf(q.numerator) / q.denominator) / b) for q in queries]
        softmax = weights[0] / mpmath.fsum(weights)
        result = exactdp.probability(gumbel, queries, 0, dps=30)
        print(f"Gumbel noisy max, index 0: exact softmax {mpmath.nstr(softmax, 30)} inside the "
              f"enclosure: {result.lower <= softmax <= result.upper}")


if __name__ == "__main__":
    main()
