"""Chen & Machanavajjhala's reconstruction attack (arXiv:1508.07306, §5): Algorithms 3 and 4, the
exact expected accuracy, Theorem 5.12's event, the data sets and ``exactdp reconstruct``.

Reference values come from independent computations written here: Algorithm 3 from its pairwise
definition, Laplace masses integrated with ``mpmath.quad`` or from the Laplace CDF's closed form
threshold by threshold, and seeded simulations.
"""

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from exactdp.attacks import (Budget, Histogram, adult, algorithm_3, algorithm_3_pairwise,
                             exact_accuracy, from_csv, simulate, theorem_5_12_probability, zipf)
from exactdp.attacks import reconstruction
from exactdp.cli import main
from exactdp.errors import InputError

TINY = (0, 1, 1, 3, 4, 7)


# ------------------------------------------------------------------ independent brute force

def pairwise_partition(counts, noisy_threshold):
    """Algorithm 3 from its definition: larger(v) = {u : x_u − x_v ≥ θ̃}; parts = equal
    larger-sets, ordered by decreasing larger-set."""
    larger = [frozenset(u for u in range(len(counts)) if counts[u] - counts[v] >= noisy_threshold)
              for v in range(len(counts))]
    ordered = sorted(set(larger), key=len, reverse=True)
    return [[v for v in range(len(counts)) if larger[v] == members] for members in ordered]


def laplace_mass(scale, low, high):
    """∫_low^high e^{−|x|/b}/(2b) dx by quadrature (split at the kink 0)."""
    density = lambda x: mpmath.exp(-abs(x) / scale) / (2 * scale)  # noqa: E731
    points = [low] + ([mpmath.mpf(0)] if low < 0 < high else []) + [high]
    return mpmath.quad(density, points)


def threshold_cases(counts, theta, scale):
    """(a representative θ̃, Pr[⌈θ + ρ⌉ = t]) for every integer t, the t ≤ −span and
    t > span ends lumped (one part there, by the pairwise definition itself)."""
    span = max(counts) - min(counts)
    cases = [(-span - mpmath.mpf(1) / 2,
              laplace_mass(scale, -mpmath.inf, -span - theta))]
    cases += [(t - mpmath.mpf(1) / 2, laplace_mass(scale, t - 1 - theta, t - theta))
              for t in range(-span + 1, span + 1)]
    cases.append((span + mpmath.mpf(1) / 2, laplace_mass(scale, span - theta, mpmath.inf)))
    return cases


def brute_force_accuracy(counts, eps, delta="0.05"):
    """Algorithm 4's expected accuracy with ε1 = ε2 = ε/2, by quadrature."""
    eps1 = eps2 = mpmath.mpf(eps) / 2
    theta = int(mpmath.ceil(mpmath.log(1 / mpmath.mpf(delta)) / eps1))
    total = mpmath.mpf(0)
    for noisy, mass in threshold_cases(counts, theta, 1 / eps1):
        right = mpmath.mpf(0)
        for part in pairwise_partition(counts, noisy):
            size, part_total = len(part), sum(counts[u] for u in part)
            right += sum(laplace_mass(1 / eps2, size * (counts[u] - mpmath.mpf(1) / 2) - part_total,
                                      size * (counts[u] + mpmath.mpf(1) / 2) - part_total)
                         for u in part)
        total += mass * right / len(counts)
    return total


def brute_force_theorem(counts, eps, last):
    """Pr[P_i = S_i for i ≤ last] for Algorithm 3 with budget ε, δ = 0.05, by quadrature."""
    theta = int(mpmath.ceil(mpmath.log(20) / mpmath.mpf(eps)))
    total = mpmath.mpf(0)
    for noisy, mass in threshold_cases(counts, theta, 1 / mpmath.mpf(eps)):
        parts = pairwise_partition(counts, noisy)
        if all(i < len(parts) and set(parts[i]) == {u for u, x in enumerate(counts) if x == i}
               for i in range(last + 1)):
            total += mass
    return total


# ------------------------------------------------------------------ Algorithm 3

def test_fast_partition_equals_the_pairwise_definition():
    rng = np.random.default_rng(7)
    for _ in range(200):
        counts = rng.integers(0, rng.integers(1, 30), size=rng.integers(1, 25))
        noisy = float(rng.normal(0, 10))
        fast = algorithm_3(Histogram("random", counts), noisy)
        parts = pairwise_partition(counts.tolist(), noisy)
        expected = np.empty(counts.size, dtype=np.int64)
        for label, part in enumerate(parts):
            expected[part] = label
        assert np.array_equal(fast, expected), (counts, noisy)
        assert np.array_equal(algorithm_3_pairwise(counts, noisy), expected)


def test_lemma_5_10_ordering_holds_for_every_threshold():
    # Lemma 5.10 claims probability ≥ 1 − δ; from the pairwise definition the parts are ordered
    # by count for every noisy threshold, negative ones included.
    rng = np.random.default_rng(3)
    for _ in range(50):
        counts = rng.integers(0, 12, size=8).tolist()
        for t in range(-13, 14):
            parts = pairwise_partition(counts, t - 0.5)
            for lower, upper in zip(parts, parts[1:]):
                assert max(counts[u] for u in lower) < min(counts[u] for u in upper)


# ------------------------------------------------------------------ exact expected accuracy

@pytest.mark.parametrize("eps, delta", [("1", "0.05"), ("0.3", "0.05"), ("4", "0.3"),
                                        ("1", "1e-100")])   # θ = 461: all mass beyond the span
def test_exact_accuracy_equals_brute_force_on_a_tiny_domain(eps, delta):
    exact = exact_accuracy(Histogram("tiny", np.array(TINY)), Budget.algorithm_4(eps, delta),
                           dps=25)
    with mpmath.workdps(40):
        reference = brute_force_accuracy(list(TINY), mpmath.mpf(eps), delta)
    assert abs(exact.accuracy.value - reference) < mpmath.mpf(10) ** -24
    assert exact.accuracy.error < mpmath.mpf(10) ** -25 * exact.accuracy.value


@pytest.mark.parametrize("eps, delta, dps", [("1", "0.05", 25), ("0.3", "0.05", 12),
                                              ("1", "1e-100", 20)])
def test_exact_accuracy_enclosures_contain_the_brute_force_value(eps, delta, dps):
    # The window truncation is part of the enclosure [lower, upper]: the brute-force sum over
    # every threshold (no window) at 40 digits lies inside it, and it is 10^-dps narrow.
    exact = exact_accuracy(Histogram("tiny", np.array(TINY)), Budget.algorithm_4(eps, delta),
                           dps=dps)
    figure = exact.accuracy
    with mpmath.workdps(60):     # the enclosure can be far narrower than 10^-dps
        reference = brute_force_accuracy(list(TINY), mpmath.mpf(eps), delta)
        assert figure.lower <= reference <= figure.upper
        assert figure.lower <= figure.value <= figure.upper
        assert figure.upper - figure.lower <= 2 * mpmath.mpf(10) ** -dps * figure.value


def laplace_cdf(scale, x):
    """Pr[η ≤ x] for η ~ Lap(scale), from its closed form."""
    return mpmath.exp(x / scale) / 2 if x < 0 else 1 - mpmath.exp(-x / scale) / 2


def every_threshold_accuracy(counts, eps1, eps2, theta):
    """Algorithm 4's expected accuracy (all cells, small cells, per count) summed over every
    integer threshold t ∈ (−span, span] one by one (the two one-part ends lumped), each cell's
    right-guess probability from the Laplace CDF: no runs, no shared parts, no window."""
    span, cells = max(counts) - min(counts), len(counts)
    small = [u for u in range(cells) if counts[u] <= 5]
    b1, b2 = (mpmath.mpf(e.denominator) / e.numerator for e in (eps1, eps2))
    cases = [(-span, laplace_cdf(b1, -span - theta))]
    cases += [(t, laplace_cdf(b1, t - theta) - laplace_cdf(b1, t - 1 - theta))
              for t in range(-span + 1, span + 1)]
    cases.append((span + 1, 1 - laplace_cdf(b1, span - theta)))
    right = [mpmath.mpf(0)] * cells
    for t, mass in cases:
        for part in pairwise_partition(counts, t - mpmath.mpf(1) / 2):
            size, total = len(part), sum(counts[u] for u in part)
            for u in part:
                right[u] += mass * (laplace_cdf(b2, size * (counts[u] + mpmath.mpf(1) / 2) - total)
                                    - laplace_cdf(b2, size * (counts[u] - mpmath.mpf(1) / 2)
                                                  - total))
    by_count = {c: right[counts.index(c)] for c in set(counts)}
    return sum(right) / cells, sum(right[u] for u in small) / len(small), by_count


@pytest.mark.parametrize("histogram, eps", [
    (zipf(40, 400, 1.1, 3), "0.5"),     # the window covers every threshold
    (Histogram("wide", np.array([0, 0, 1, 2, 2, 5, 9, 30, 31, 120, 300])), "8"),   # it does not
])
def test_exact_accuracy_encloses_a_threshold_by_threshold_sum(histogram, eps):
    budget = Budget.algorithm_4(eps)
    exact = exact_accuracy(histogram, budget, dps=30, by_count=True)
    with mpmath.workdps(60):
        accuracy, small, by_count = every_threshold_accuracy(
            histogram.counts.tolist(), budget.epsilon1, budget.epsilon2, budget.threshold)
        for figure, reference in [(exact.accuracy, accuracy), (exact.accuracy_small, small)] + [
                (exact.by_count[c], by_count[c]) for c in by_count]:
            assert abs(figure.value - reference) <= figure.error, (figure, reference)
            assert figure.error <= mpmath.mpf(10) ** -30 * figure.value


@pytest.mark.parametrize("low, high", [(0, 3), (2, 9), (-7, -1), (-3, 4), (None, -2), (5, None),
                                       (None, 1), (-1, None), (None, None), (4, 4)])
def test_laplace_masses_enclose_the_integrated_density(low, high):
    from flint import ctx

    from exactdp.attacks.exact_accuracy import LaplaceMasses, ball_to_mpf

    with ctx.workprec(120), mpmath.workdps(50):
        ball = LaplaceMasses(Fraction(3, 7)).interval(low, high)
        reference = laplace_mass(mpmath.mpf(7) / 3, -mpmath.inf if low is None else low,
                                 mpmath.inf if high is None else high) \
            if low is None or high is None or low < high else 0
        value, radius = ball_to_mpf(ball)
        assert abs(value - reference) <= radius + mpmath.mpf(10) ** -45
        assert radius <= mpmath.mpf(10) ** -30


def test_exact_accuracy_has_30_digits_and_small_counts():
    exact = exact_accuracy(Histogram("tiny", np.array(TINY)), Budget.algorithm_4("1"))
    assert 0 < exact.accuracy.error < mpmath.mpf(10) ** -30
    # TINY has every count ≤ 5 except 7: the small-count accuracy excludes one cell.
    assert exact.accuracy_small.value != exact.accuracy.value


def binomial_interval_holds(mean, exact, repetitions, z=5):
    """|mean − μ| ≤ z·sqrt(μ(1 − μ)/R): an accuracy lies in [0, 1], so its variance is at most
    the binomial μ(1 − μ)."""
    mu = float(exact)
    return abs(mean - mu) <= z * math.sqrt(mu * (1 - mu) / repetitions)


@pytest.mark.parametrize("histogram, eps, repetitions", [
    (Histogram("tiny", np.array(TINY)), "1", 20000),
    (zipf(60, 600, 1.1, 2), "0.5", 20000),
])
def test_simulation_mean_is_within_the_binomial_interval_of_the_exact_value(histogram, eps,
                                                                            repetitions):
    budget = Budget.algorithm_4(eps)
    exact = exact_accuracy(histogram, budget, dps=15)
    simulated = simulate(histogram, budget, repetitions, seed=11)
    assert binomial_interval_holds(simulated.accuracy.mean(), exact.accuracy.value, repetitions)
    assert binomial_interval_holds(simulated.accuracy_small.mean(), exact.accuracy_small.value,
                                   repetitions)


def test_simulation_on_adult_is_within_the_binomial_interval():
    histogram, budget = adult(), Budget.algorithm_4("0.1")
    exact = exact_accuracy(histogram, budget, dps=15)
    simulated = simulate(histogram, budget, 3000, seed=5)
    assert binomial_interval_holds(simulated.accuracy.mean(), exact.accuracy.value, 3000)
    assert binomial_interval_holds(simulated.accuracy_small.mean(), exact.accuracy_small.value,
                                   3000)


def test_simulation_is_seeded_and_independent_of_the_block_size(monkeypatch):
    histogram, budget = zipf(40, 300, 1.0, 1), Budget.algorithm_4("0.5")
    first = simulate(histogram, budget, 50, seed=4)
    monkeypatch.setattr(reconstruction, "CHUNK_ENTRIES", 7)
    second = simulate(histogram, budget, 50, seed=4)
    assert np.array_equal(first.accuracy, second.accuracy)
    assert not np.array_equal(first.accuracy, simulate(histogram, budget, 50, seed=5).accuracy)


# ------------------------------------------------------------------ Theorem 5.12

def test_theorem_5_12_probability_is_at_least_one_minus_delta_under_its_hypothesis():
    # Every count 0..6 present; ε = 3, δ = 0.05: α = ⌈ln(20)/3⌉ = 1, k = 6 > 2α, m = 4.
    counts = [0, 0, 1, 2, 2, 3, 4, 5, 6, 6, 9, 15]
    histogram, budget = Histogram("support", np.array(counts)), Budget.algorithm_3("3")
    assert budget.threshold == 1 and histogram.support_k == 6
    exact = theorem_5_12_probability(histogram, budget)
    with mpmath.workdps(60):     # the enclosure can be far narrower than 10^-30
        reference = brute_force_theorem(counts, 3, 4)
        assert exact.lower <= reference <= exact.upper
    assert abs(exact.value - reference) < mpmath.mpf(10) ** -28
    assert exact.value >= 1 - 0.05


def test_theorem_5_12_on_adult_at_eps_1():
    # Adult: k = 10; ε = 1, δ = 0.05: α = 3, m = 4.
    exact = theorem_5_12_probability(adult(), Budget.algorithm_3("1"))
    assert exact.value >= 0.95 and exact.error < 1e-30


def test_theorem_5_12_event_without_its_hypothesis():
    # Counts 0..4, then 20 and 40: k = 4 ≤ 2α = 6 for ε = 1.  The event P_i = S_i for i ≤ 2
    # needs the count i + t present for i = 0, 1, 2, i.e. t = ⌈3 + ρ⌉ ∈ {0, 1, 2}:
    # Pr = Pr[−4 < ρ ≤ −1] = (e^{−1} − e^{−4})/2 ≈ 0.175, far below 1 − δ.
    counts = [0, 1, 2, 3, 4, 20, 40]
    histogram, budget = Histogram("gap", np.array(counts)), Budget.algorithm_3("1")
    with pytest.raises(InputError, match="needs k > 2α"):
        theorem_5_12_probability(histogram, budget)
    exact = theorem_5_12_probability(histogram, budget, last=2)
    with mpmath.workdps(40):
        assert abs(exact.value - (mpmath.exp(-1) - mpmath.exp(-4)) / 2) < 1e-28
        assert abs(exact.value - brute_force_theorem(counts, 1, 2)) < 1e-28
    assert exact.value < 0.95
    # A missing count makes the event impossible: an exact zero.
    assert theorem_5_12_probability(Histogram("hole", np.array([0, 2, 3])), budget,
                                    last=1).value == 0


# ------------------------------------------------------------------ data sets

def test_adult_histogram_table_1_columns():
    # exactdp/data/adult_capital_loss.md: 32561 tuples of UCI Adult's training file, 4096 cells.
    histogram = adult()
    assert (histogram.domain, histogram.scale) == (4096, 32561)
    assert histogram.support_k == 10 and histogram.small_cells() == 4046


def test_zipf_is_seeded():
    first, second = zipf(100, 1000, 1.2, 3), zipf(100, 1000, 1.2, 3)
    assert np.array_equal(first.counts, second.counts) and first.scale == 1000
    assert not np.array_equal(first.counts, zipf(100, 1000, 1.2, 4).counts)


def test_csv_one_count_per_line_or_a_named_column(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("3\n0\n\n5\n")
    assert from_csv(plain).counts.tolist() == [3, 0, 5]
    named = tmp_path / "named.csv"
    named.write_text("cell,count\na,4\nb,1\n")
    assert from_csv(named, "count").counts.tolist() == [4, 1]
    with pytest.raises(InputError, match="no column named 'n'"):
        from_csv(named, "n")


# ------------------------------------------------------------------ command line

def one_line_error(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("args, message", [
    (["--dataset", "census", "--eps", "1"], "--dataset must be adult"),
    (["--dataset", "zipf:10,100", "--eps", "1"], "zipf:DOMAIN,TOTAL,EXPONENT,SEED"),
    (["--dataset", "adult", "--eps", "0"], "--eps values must be positive, got '0'"),
    (["--dataset", "adult", "--eps", "1,-0.5"], "got '-0.5'"),
    (["--dataset", "adult", "--eps", "1", "--delta", "1"], "--delta must be strictly between"),
    (["--dataset", "adult", "--eps", "1", "--delta", "0"], "got 0"),
    (["--dataset", "adult", "--eps", "1", "--repetitions", "0"], "--repetitions"),
])
def test_bad_arguments_are_one_line_errors(capsys, args, message):
    assert message in one_line_error(capsys, ["reconstruct", *args])


def test_bad_csv_is_a_one_line_error(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("3\nx\n")
    assert "line 2: a count must be a non-negative integer, got 'x'" in one_line_error(
        capsys, ["reconstruct", "--dataset", str(bad), "--eps", "1"])


def test_json_output_schema(capsys):
    assert main(["reconstruct", "--dataset", "adult", "--eps", "1,0.5,0.1", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["eps"] for r in records] == ["1", "0.5", "0.1"]
    for r in records:
        assert {"eps", "exact_accuracy", "exact_accuracy_small", "simulated_accuracy",
                "simulated_accuracy_small", "repetitions", "theorem_5_12_probability",
                "theorem_5_12_bound", "domain", "scale", "k"} <= set(r)
        assert (r["domain"], r["scale"], r["k"], r["repetitions"]) == (4096, 32561, 10, 10)
        assert 0 < float(r["exact_accuracy"]) < float(r["exact_accuracy_small"]) < 1
        assert float(r["exact_accuracy_error"]) < 1e-30
        for key in ("exact_accuracy", "exact_accuracy_small"):
            lower, upper = Fraction(r[f"{key}_lower"]), Fraction(r[f"{key}_upper"])
            assert 0 < upper - lower < Fraction(1, 10**29)
        assert 0 <= Fraction(r["simulated_accuracy"]) <= 1  # a decimal string, as every number
    assert Fraction(records[0]["theorem_5_12_probability_lower"]) >= Fraction(95, 100)
    assert records[1]["theorem_5_12_probability"] is None     # k = 10 ≤ 2α = 12


def test_text_output_shows_the_papers_tables(capsys):
    assert main(["reconstruct", "--dataset", "adult", "--eps", "1", "--repetitions", "2"]) == 0
    out = capsys.readouterr().out
    for phrase in ("Table 1", "Table 2", "Table 3", "17665", "0.994", "0.999", "δ = 0.05",
                   "Theorem 5.12"):
        assert phrase in out


# ------------------------------------------------------------------ the reproduce claim

def test_chenm_reconstruction_claim(tmp_path):
    from exactdp.claims import CONFIRMED, get_claim
    from exactdp.claims.plots import draw
    from exactdp.claims.reproduce import to_markdown

    from .claims_cache import result

    claim = result("chenm-reconstruction")
    assert claim.verdict == CONFIRMED
    adult_points = [p for p in claim.points if p["series"] == "Adult"]
    assert [p["eps"] for p in adult_points] == ["1", "0.5", "0.1"]
    # The paper's Table 2 and 3 rows for Adult, beside exactdp's numbers.
    assert [p["paper_accuracy_small"] for p in adult_points] == ["0.999", "0.997", "0.992"]
    exact = exact_accuracy(adult(), Budget.algorithm_4("0.1"), dps=20)
    assert abs(float(adult_points[2]["exact_accuracy"]) - float(exact.accuracy.value)) < 1e-15
    assert all(float(p["exact_accuracy_small"]) > 0.95 for p in adult_points)
    # decided on the enclosures: every lower end above 95%
    assert claim.certified
    assert all(Fraction(p["exact_accuracy_small_lower"]) > Fraction(95, 100)
               for p in adult_points)
    markdown = to_markdown([(get_claim("chenm-reconstruction"), claim)])
    assert "| series | eps | exact_accuracy |" in markdown
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    draw(claim.figure, first)
    draw(claim.figure, second)
    assert first.read_bytes() == second.read_bytes()
