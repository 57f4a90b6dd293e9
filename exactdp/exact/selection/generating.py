"""The generating polynomial of the number of passing queries, and the sums taken from it.

Given a point of the noise the selection mechanisms condition on, query ``j`` passes with
probability ``S_j`` and fails with ``F_j = 1 − S_j``, independently, so the number ``M`` of
passing queries has the generating polynomial

    G(x) = E[x^M] = Π_j (F_j + S_j x)^{n_j}

(``n_j`` queries share the answer ``j``).  Every selection probability is a sum of its first
``c`` coefficients, of those of a leave-one-out quotient ``G/(F_k + S_k x)``, or of a prefix
product (Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy",
PVLDB 10(6), 2017; docs/mathematics.md, "Selection probabilities"): this module holds that
algebra, truncated at degree ``c``, in Arb balls, with Markov's inequality for ``x^M``
(the Chernoff bound) to prove the terms it leaves out negligible.
"""

from __future__ import annotations

import math

from flint import arb, arb_poly


def largest_modulus(balls: list) -> arb:
    """An upper bound on every ``|x|`` of the (complex) balls."""
    return max(arb(abs(x).upper()) for x in balls)


def product_bound(passes: list, fails: list, counts: list) -> arb:
    """``Π_j (|F_j| + |S_j|)^{count_j}``: bounds every coefficient sum of the generating
    polynomial ``Π_j (F_j + S_j x)`` and of its factors (each ``|F_j| + |S_j| ≥ |F_j + S_j| = 1``,
    so a sub-product is bounded by the whole), on complex balls (module docstring)."""
    total = arb(1)
    for s, f, count in zip(passes, fails, counts):
        total *= (abs(s) + abs(f)) ** count
    return total


def generating_value(passes: list, fails: list, counts: list, x) -> arb:
    """``G(x) = Π_j (F_j + S_j x)^{n_j}``, the generating function of the number of passing
    queries (``n_j = counts[j]`` queries share the answer ``j``), at a ball ``x``."""
    total = arb(1)
    for s, f, count in zip(passes, fails, counts):
        total *= (f + s * x) ** count
    return total


def mean_passes(passes: list, counts: list) -> float:
    """``μ = Σ_j n_j S_j``, the expected number of passing queries (a float: it only places a
    point)."""
    return sum(float(s.mid()) * count for s, count in zip(passes, counts))


def _chernoff(passes: list, fails: list, counts: list, c: int, mean: float) -> arb:
    """``x^{−c}·G(x)`` at ``x = c/μ`` (``mean = μ``): the bound of :func:`fewer_than_bound`
    (``x < 1``) and of :func:`at_least_bound` (``x > 1``)."""
    x = arb(c) / arb(mean)
    return x ** -c * generating_value(passes, fails, counts, x)


def fewer_than_bound(passes: list, fails: list, counts: list, c: int) -> arb:
    """An upper bound on ``Pr[fewer than c of the queries other than any one pass]``: for every
    ``x ∈ (0, 1]``, ``Pr[M′ ≤ c − 1] ≤ E[x^{M′}]·x^{1−c} = x^{1−c}·Π_{j≠i}(F_j + S_j x)
    ≤ x^{−c}·Π_j (F_j + S_j x)`` (Markov's inequality for ``x^{M′}``, and ``F_i + S_i x ≥ x``),
    taken at ``x = c/μ``, ``μ = Σ_j S_j`` (the Chernoff bound's choice), or ``1`` when ``μ ≤ c``.
    It bounds ``Pr[fewer than c of all of them pass]`` too, which is no larger."""
    mean = mean_passes(passes, counts)
    return _chernoff(passes, fails, counts, c, mean) if mean > c else arb(1)


def at_least_bound(passes: list, fails: list, counts: list, c: int) -> arb:
    """An upper bound on ``Pr[at least c of the queries other than any one pass]``: for every
    ``x ≥ 1``, ``Pr[M′ ≥ c] ≤ E[x^{M′}]·x^{−c} ≤ x^{−c}·Π_j (F_j + S_j x)`` (Markov's inequality
    for ``x^{M′}``, and ``F_i + S_i x ≥ 1``), taken at ``x = c/μ``, ``μ = Σ_j S_j`` (the
    Chernoff bound's choice), or ``1`` when ``μ ≥ c``.  It bounds ``Pr[at least c of all the
    queries pass]`` too (Markov's inequality for ``x^M`` itself)."""
    mean = mean_passes(passes, counts)
    return _chernoff(passes, fails, counts, c, mean) if 0 < mean < c else arb(1)


def negligible_pieces(pieces: list, at_end, probability_bound, counts: list, c: int,
                      budget: arb) -> tuple:
    """``(k, E)``: the first ``k`` of the ``pieces`` ``(a, b)`` (in the order given) on which an
    integrand ``|w(x)|·p(x)`` may be dropped, and ``E`` a bound on its integral over them,
    ``E ≤ budget``.  ``at_end(a, b)`` gives the pass and fail probabilities of the distinct
    answers at the end of the piece where ``p`` is largest, and a bound on ``∫_a^b |w|``;
    ``probability_bound(passes, fails, counts, c)`` bounds ``p`` there (:func:`fewer_than_bound`
    for ``Pr[fewer than c of the others pass]``, :func:`at_least_bound` for the opposite).  Each
    piece may drop at most ``budget/len(pieces)``."""
    limit = budget / max(1, len(pieces))
    total, k = arb(0), 0
    while k < len(pieces):
        passes, fails, weight = at_end(*pieces[k])
        dropped = arb((weight * probability_bound(passes, fails, counts, c)).upper())
        if not dropped <= limit:
            break
        total += dropped
        k += 1
    return k, total


#: Queries per block of the given-order sweep (:func:`fewer_before`).
BLOCK = 12


def fewer_before(passes: list, fails: list, positions: list, c: int, negligible: arb,
                 limit: int | None = None) -> tuple:
    """``Pr[fewer than c of the queries before i pass]`` for each query ``i`` (its pass and
    fail probabilities ``passes[positions[i]]``, ``fails[positions[i]]``): the coefficients of
    degree ``< c`` of ``Π_{j<i}(F_j + S_j x)``, summed.  It is exactly 1 for ``i < c``.  From
    ``i = c`` on, in blocks of :data:`BLOCK` queries from ``b``: with ``p_m`` the coefficients
    of the prefix ``P = Π_{j<b}`` truncated at degree ``c``, ``Q_t = Π_{b≤j<b+t}(F_j + S_j x)``
    (degree ``t``) and ``C_l = Σ_{m<c−l} p_m``, the sum for ``i = b + t`` is
    ``Σ_l [x^l]Q_t·C_l``, the coefficient of degree BLOCK of ``Q_t·Σ_l C_l x^{BLOCK−l}`` (one
    product by ``F_i + S_i x`` per query, as for ``Q_t``; at ``t = BLOCK`` it is the next
    block's ``C_0``), and one product ``P·Q_BLOCK`` moves the prefix on.

    The prefix keeps only its coefficients from a degree ``L`` up, ``L`` raised after each
    block while the mass left out stays within ``D = negligible·2^{−30}``: what is left out
    only moves up (``P·Q`` adds no mass below ``L``), so the exact ``C_l`` exceeds the sum of
    the kept coefficients by at most ``D`` (where the passing queries outnumber ``c`` by far,
    only a few dozen coefficients are kept).  The probability cannot grow with ``i``: once it
    is at most ``negligible`` every later one lies in ``[0, that value]``, and the sweep stops
    there.

    Only the first ``limit`` queries are swept (default: all).

    Returns
    -------
    (list, arb)
        The probabilities up to the stop, and the ball ``[0, value at the stop]`` holding all
        the later ones (``0`` if the sweep never stops before the limit)."""
    n = len(positions) if limit is None else limit
    result = [arb(1)] * min(c, n)
    if c >= n:
        return result, arb(0)
    budget = negligible * arb(2) ** -30
    factors = [None] * len(passes)  # F_k + S_k x of the distinct answers, as they are needed
    kept = truncated_product(_linear([passes[k] for k in positions[:c]],
                                      [fails[k] for k in positions[:c]]), c)
    low, left_out = 0, arb(0)  # kept[m] = p_{low+m}; left_out ≥ the mass not kept
    total = kept(arb(1))  # C_0
    for start in range(c, n, BLOCK):
        while low < c - BLOCK:
            more = left_out + kept[0]
            if not more.upper() <= budget:
                break
            kept, low, left_out = kept.right_shift(1), low + 1, arb(more.upper())
        missing = arb(0, left_out.upper())
        cumulative = [total]  # C_0, C_1, …: the top coefficients taken off
        for degree in range(1, BLOCK + 1):
            cumulative.append(cumulative[-1] - kept[c - degree - low] if c - degree > low
                              else missing)
        # Σ_l [x^l]Q_t·C_l is the coefficient of degree BLOCK of Q_t·Σ_l C_l x^{BLOCK−l}
        weighted, local = arb_poly(cumulative[::-1]), arb_poly([1])  # the latter Q_t
        for k in positions[start:min(n, start + BLOCK)]:
            fewer = weighted[BLOCK]
            if fewer <= negligible:
                return result, arb(0, fewer.upper())
            result.append(fewer)
            factor = factors[k]
            if factor is None:
                factor = factors[k] = arb_poly([fails[k], passes[k]])
            weighted *= factor
            local *= factor
        kept, total = (kept * local).truncate(c - low), weighted[BLOCK]
    return result, arb(0)


def _linear(passes: list, fails: list) -> list:
    """The polynomials ``F_j + S_j y``."""
    return [arb_poly([f, s]) for s, f in zip(passes, fails)]


#: Most terms of the series in :func:`log_generating_series` and in the reciprocal sums of
#: ``random_position.py``.
MAX_SERIES_TERMS = 60


def log_generating_series(passes: list, counts: list, reach: arb, budget: arb):
    """``(L, E)``: the polynomial ``L(s) = −Σ_{m≤M} P_m s^m/m``, ``P_m = Σ_j n_j S_j^m``, and a
    bound ``E ≤ budget`` with ``|log G(1 − s) − L(s)| ≤ E`` for every real ``|s| ≤ reach``, where
    ``log G(1 − s) = Σ_j n_j log(1 − S_j s) = −Σ_m P_m s^m/m``; since ``P_k ≤ S^{k−m} P_m`` for
    ``k > m`` (``S = max_j S_j``) the terms after ``M`` are at most
    ``P_M·S·reach^{M+1}/((M + 1)(1 − S·reach))``.  ``None`` unless ``S·reach ≤ 1/2`` and
    :data:`MAX_SERIES_TERMS` terms suffice."""
    top = max(arb(s.upper()) for s in passes)
    ratio = top * reach
    if not ratio <= arb(1) / 2:
        return None
    powers = list(passes)
    coefficients = [arb(0)]
    for m in range(1, MAX_SERIES_TERMS + 1):
        total = sum((count * power for count, power in zip(counts, powers)), arb(0))
        coefficients.append(-total / m)
        rest = total * top * reach ** (m + 1) / ((m + 1) * (1 - ratio))
        if rest <= budget:
            return arb_poly(coefficients), rest
        powers = [power * s for power, s in zip(powers, passes)]
    return None


def weighted_others(passes: list, fails: list, counts: list, weights: list,
                    target: arb) -> list:
    """:func:`weighted_sums` for real pass probabilities, the terms of degree ``H`` and above
    left out where they are provably negligible: the coefficients of ``G/(F_k + S_k y)`` are
    ``Pr[M_k = m] ≥ 0`` (``M_k`` the number of the other queries that pass), so those terms are
    at most ``max_m |w_m|·Pr[M_k ≥ H] ≤ max_m |w_m|·Pr[M ≥ H]``, bounded by Markov's inequality
    (:func:`at_least_bound`); where :func:`_negligible_degree` finds an ``H < c`` whose bound
    is within ``target/2``, the sums are taken to degree ``H`` (products of polynomials of
    length ``H`` instead of ``c``: where few queries pass, far shorter), and that bound is added
    to each."""
    largest = largest_modulus(weights)
    cut = _negligible_degree(passes, fails, counts, len(weights), target / (2 * largest))
    if cut is None:
        return weighted_sums(passes, fails, counts, weights, target)
    degree, mass = cut
    radius = arb(0, (largest * mass).upper())
    return [value + radius
            for value in weighted_sums(passes, fails, counts, weights[:degree], target / 2)]


def _negligible_degree(passes: list, fails: list, counts: list, c: int, budget: arb):
    """``(H, E)``: a degree ``H < c`` with ``Pr[at least H of the queries pass] ≤ E ≤ budget``
    (:func:`at_least_bound`), or ``None`` if none is found.  ``H = μ + t`` is first placed by
    Bernstein's inequality for a sum of independent Bernoulli variables with mean ``μ`` (so
    variance at most ``μ``), ``Pr[M ≥ μ + t] ≤ e^{−t²/(2(μ + t/3))}``, at
    ``t = L/3 + √(L²/9 + 2μL)``, ``L = ln(1/budget)``; it only places ``H``, which is raised by a
    quarter until the rigorous bound holds."""
    if not budget > 0:
        return None
    mean = mean_passes(passes, counts)
    logarithm = -float(arb(budget.mid()).log().mid())
    degree = math.ceil(mean + logarithm / 3 + math.sqrt(logarithm ** 2 / 9 + 2 * mean * logarithm))
    while degree < c:
        bound = at_least_bound(passes, fails, counts, degree)
        if bound <= budget:
            return degree, arb(bound.upper())
        degree += max(1, degree // 4)
    return None


def weighted_sums(passes: list, fails: list, counts: list, weights: list,
                  target: arb) -> list:
    """``Σ_{m<c} w_m [y^m] G(y)/(F_k + S_k y)`` for each distinct answer ``k``, with
    ``G(y) = Π_j (F_j + S_j y)^{n_j}`` (``n_j = counts[j]`` queries share the answer ``j``): the
    weighted first ``c`` terms of the distribution of the number of the other queries that pass.

    ``G/(F_k + S_k y)`` is a polynomial, equal to its power series
    ``G(y)·Σ_r (−S_k/F_k)^r y^r/F_k``, so with ``G``'s coefficients ``g_l`` and
    ``u_r = Σ_{l<c−r} g_l w_{l+r}`` (one correlation of ``G`` truncated at degree ``c``)

        Σ_{m<c} w_m [y^m] G/(F_k + S_k y) = U(−S_k/F_k)/F_k,    U(x) = Σ_{r<c} u_r x^r,

    one polynomial evaluated at each group's ratio (docs/mathematics.md §12.2).  Where
    ``S_k > F_k`` the terms of ``U`` may grow far beyond its value and the ball loses its
    accuracy: a group whose ball is wider than ``target`` is computed by the sweep of
    :func:`weighted_around` instead, among those groups only, the others folded into the
    weights (the product of the groups with ``S_k ≤ 1/2``, which keep their accuracy, is
    formed once for both)."""
    c = len(weights)
    groups = [truncated_power(f, s, count, c) for s, f, count in zip(passes, fails, counts)]
    # the groups likelier to pass than to fail, where the evaluation may lose accuracy
    likely = [k for k, s in enumerate(passes) if s.mid() > 0.5]
    likely_set = set(likely)
    unlikely = truncated_product([g for k, g in enumerate(groups) if k not in likely_set], c)
    total = (unlikely * truncated_product([groups[k] for k in likely], c)).truncate(c)
    functional = correlate(arb_poly(weights), total, c)
    values = [functional(-s / f) / f for s, f in zip(passes, fails)]
    wide = [k for k, value in enumerate(values)
            if not (value.is_finite() and value.rad() <= target)]
    if wide:
        wide_set = set(wide)
        if wide_set <= likely_set:
            rest = truncated_product([unlikely] + [groups[k] for k in likely
                                                    if k not in wide_set], c)
        else:
            rest = truncated_product([g for k, g in enumerate(groups) if k not in wide_set], c)
        folded = correlate(arb_poly(weights), rest, c).coeffs()
        folded += [arb(0)] * (c - len(folded))
        own = [truncated_power(fails[k], passes[k], counts[k] - 1, c) for k in wide]
        chosen = [groups[k] for k in wide]
        for k, value in zip(wide, weighted_around(chosen, chosen, folded, own)):
            values[k] = value
    return values


#: Group sizes above which :func:`truncated_power` takes the binomial terms one by one.
BINOMIAL_FROM = 128


def truncated_power(fail: arb, passes: arb, count: int, c: int) -> arb_poly:
    """``(F + S y)^n`` truncated at degree ``c``.  For ``n`` above :data:`BINOMIAL_FROM` and
    ``F > 0``, its terms ``C(n, m) F^{n−m} S^m`` for ``m < c``, each from the one before by the
    factor ``(S/F)(n − m)/(m + 1)`` (all ``≥ 0``: no cancellation), instead of the full power of
    degree ``n`` (Arb's power of a long binomial costs a millisecond at ``n`` = 1000)."""
    if count <= BINOMIAL_FROM or not fail > 0:
        return (arb_poly([fail, passes]) ** count).truncate(c)
    ratio = passes / fail
    term = fail ** count
    terms = [term]
    for m in range(min(count, c - 1)):
        term = term * ratio * (count - m) / (m + 1)
        terms.append(term)
    return arb_poly(terms)


def truncated_product(polynomials: list, c: int) -> arb_poly:
    """The product of the polynomials truncated at degree ``c`` (pairwise, so that most
    products are of short polynomials)."""
    layer = list(polynomials) or [arb_poly([1])]
    while len(layer) > 1:
        layer = [(layer[k] * layer[k + 1]).truncate(c) if k + 1 < len(layer) else layer[k]
                 for k in range(0, len(layer), 2)]
    return layer[0].truncate(c)


def weighted_around(before: list, after: list, weights: list, own: list | None = None) -> list:
    """``Σ_{m<c} w_m [y^m] Π_{j<i} A_j(y)·O_i(y)·Π_{j>i} B_j(y)`` for each ``i``
    (``A = before``, ``B = after``, ``O = own`` or 1: polynomials with real-ball coefficients),
    ``c = len(weights)``: with the prefix ``Π_{j<i} A_j`` truncated at degree ``c`` and the
    functional ``u^{(i)}_k = Σ_l [y^l]Π_{j>i} B_j·w_{k+l}`` (``w_m = 0`` for ``m ≥ c``), it is
    ``Σ_{k<c} [y^k](Π_{j<i} A_j·O_i)·u^{(i)}_k``, and ``u^{(i−1)}_k = Σ_l [y^l]B_i·u^{(i)}_{k+l}``
    (:func:`correlate`).  For linear factors this is ``O(n·c)``."""
    n, c = len(before), len(weights)
    functional = [None] * n
    current = arb_poly(weights)
    for i in range(n - 1, -1, -1):
        functional[i] = current.coeffs()
        current = correlate(current, after[i], c)
    result, prefix = [], arb_poly([1])
    for i in range(n):
        left = prefix if own is None else (prefix * own[i]).truncate(c)
        result.append(sum((a * u for a, u in zip(left.coeffs(), functional[i])), arb(0)))
        prefix = (prefix * before[i]).truncate(c)
    return result


def correlate(functional: arb_poly, factor: arb_poly, c: int) -> arb_poly:
    """``Σ_l p_l u_{k+l}`` for ``k < c`` (``u`` the functional's coefficients, ``p`` the
    factor's): the coefficients ``L … L + c − 1`` of ``u(y)·y^L p(1/y)``, ``L = deg p``."""
    coefficients = factor.coeffs()
    degree = len(coefficients) - 1
    return (functional * arb_poly(coefficients[::-1])).right_shift(degree).truncate(c)
