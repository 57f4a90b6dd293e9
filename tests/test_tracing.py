"""The exact interpreter of programs: StatDP's algorithms written as plain functions
(tests/programs/statdp_algorithms.py) and traced agree with the catalogue's ``statdp.*``
descriptions to 25 digits; out-of-class programs are refused in one line."""

import dataclasses
import itertools
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.events import Coordinate, View, parse_event
from exactdp.exact.event_probability.rules import event_probability
from exactdp.exact.form.integral_form import Constant, Term
from exactdp.noise import Gaussian, Kind
from exactdp.programs import load_program, program, tracing
from exactdp.programs.exact import outputs_with_forms, traced_paths
from exactdp.sampling.inputs import STATDP_PATTERNS

PROGRAMS = Path(__file__).parent / "programs" / "statdp_algorithms.py"
CHECKDP = Path(__file__).parent / "programs" / "checkdp_algorithms.py"
EPS = Fraction(7, 10)
T = Fraction(1, 2)
DIGITS = 25


def _inputs(n: int) -> list[list[int]]:
    """Every distinct query vector of StatDP's Table 1 patterns on ``n`` queries."""
    vectors = {tuple(make(n)) for _, first, second in STATDP_PATTERNS for make in (first, second)}
    return [list(v) for v in sorted(vectors)]


def _agree(a, b) -> bool:
    """Both exact zeros, or equal to :data:`DIGITS` significant digits."""
    if a.is_zero or b.is_zero:
        return a.is_zero and b.is_zero
    with mpmath.workdps(50):
        return abs(a.value - b.value) <= mpmath.mpf(10) ** -DIGITS * abs(b.value)


def _flags(n, cutoff):
    """Every ⊤/⊥ output on ``n`` queries (stopping after ``cutoff`` ⊤ when given)."""
    outputs = []
    for bits in itertools.product((False, True), repeat=n):
        if cutoff is not None:
            tops = [i for i, b in enumerate(bits) if b]
            if len(tops) >= cutoff and tops[cutoff - 1] < n - 1:
                if any(bits[tops[cutoff - 1] + 1:]):
                    continue
                bits = bits[:tops[cutoff - 1] + 1]
        outputs.append(",".join("T" if b else "F" for b in bits))
    return list(dict.fromkeys(outputs))


# (function, catalogue name, its parameters, outputs on n queries).  Outputs with released
# numbers take a few values around and inside the mass (a density has no finite list).
SVT_PARAMS = dict(epsilon=EPS, N=1, T=T)
CASES = [
    ("svt", "statdp.SVT", SVT_PARAMS, lambda n: _flags(n, 1)),
    ("isvt1", "statdp.iSVT1", SVT_PARAMS, lambda n: _flags(n, None)),
    ("isvt2", "statdp.iSVT2", SVT_PARAMS, lambda n: _flags(n, None)),
    ("isvt3", "statdp.iSVT3", SVT_PARAMS, lambda n: _flags(n, 1)),
    ("isvt4", "statdp.iSVT4", SVT_PARAMS,
     lambda n: ["F," * k + v for k in (0, n // 2, n - 1) for v in ("-1.25", "0.5", "3")]
     + [",".join("F" * n)]),
    ("noisy_max_v1a", "statdp.noisy_max_v1a", dict(epsilon=EPS),
     lambda n: list(map(str, range(n)))),
    ("noisy_max_v2a", "statdp.noisy_max_v2a", dict(epsilon=EPS),
     lambda n: list(map(str, range(n)))),
    ("noisy_max_v1b", "statdp.noisy_max_v1b", dict(epsilon=EPS), lambda n: ["-1", "1.5", "4"]),
    ("noisy_max_v2b", "statdp.noisy_max_v2b", dict(epsilon=EPS), lambda n: ["0.5", "2.25", "4"]),
    ("histogram", "statdp.histogram", dict(epsilon=EPS), lambda n: ["-1", "1", "2.5"]),
    ("histogram_eps", "statdp.histogram_eps", dict(epsilon=EPS), lambda n: ["-1", "1", "2.5"]),
]


def _catalogue_params(params: dict) -> dict:
    renamed = {"eps" if k == "epsilon" else k: v for k, v in params.items()}
    return renamed


@pytest.mark.parametrize("n", [5, 10])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_traced_statdp_algorithms_equal_the_catalogue(case, n):
    function, name, params, outputs = case
    traced = load_program(f"{PROGRAMS}:{function}", **params)
    declared = exactdp.mechanism(name, **_catalogue_params(params))
    all_outputs = outputs(n)
    if len(all_outputs) > 40:  # 2^10 outputs without cutoff: every 32nd, both ends included
        all_outputs = all_outputs[::32] + all_outputs[-1:]
    for queries in _inputs(n):
        for output in all_outputs:
            ours = exactdp.probability(traced, queries, output, dps=30, method="closed")
            theirs = exactdp.probability(declared, queries, output, dps=30, method="closed")
            assert _agree(ours, theirs), (queries, output, ours.value, theirs.value)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_traced_programs_are_certified_around_the_catalogue_closed_form(case):
    # The default evaluation of a traced program is an enclosure (ball arithmetic); the
    # catalogue's closed form in mpmath (exact expansion, an independent method) lies inside it
    # up to that closed form's own error bound.
    function, name, params, outputs = case
    traced = load_program(f"{PROGRAMS}:{function}", **params)
    declared = exactdp.mechanism(name, **_catalogue_params(params))
    queries = _inputs(5)[0]
    for output in outputs(5)[::3]:
        ours = exactdp.probability(traced, queries, output, dps=30)
        theirs = exactdp.probability(declared, queries, output, dps=30, method="closed")
        assert isinstance(ours, exactdp.CertifiedProbability), ours.method
        assert ours.is_zero == theirs.is_zero
        with mpmath.workdps(80):
            assert ours.lower - theirs.error <= theirs.value <= ours.upper + theirs.error
        assert ours.relative_width <= mpmath.mpf(10) ** -30


def _false_count(flags: list, n: int) -> int:
    return flags.count(False)


def _hamming_to_half(flags: list, n: int) -> int:
    """StatDP's Hamming distance to ⊤ on the first ⌊n/2⌋ queries and ⊥ on the rest; an entry
    missing after the cutoff differs."""
    reference = [i < n // 2 for i in range(n)]
    return sum(a != b for a, b in itertools.zip_longest(reference, flags))


@pytest.mark.parametrize("function, name, statistic", [
    ("svt_false_count", "statdp.SVT", _false_count),
    ("isvt3_hamming", "statdp.iSVT3", _hamming_to_half),
])
def test_statdp_post_processing_equals_the_catalogue(function, name, statistic):
    """StatDP's own return values (a count of ⊥, a Hamming distance) traced: each value's
    probability is the sum of the catalogue's probabilities of the raw outputs with that
    value (every output enumerated here)."""
    traced = load_program(f"{PROGRAMS}:{function}", **SVT_PARAMS)
    declared = exactdp.mechanism(name, eps=EPS, N=1, T=T)
    n = 5
    for queries in _inputs(n):
        expected: dict = {}
        with mpmath.workdps(50):
            for output in _flags(n, 1):
                flags = [token == "T" for token in output.split(",")]
                value = exactdp.probability(declared, queries, output, dps=30, method="closed")
                key = statistic(flags, n)
                expected[key] = expected.get(key, 0) + value.value
        for k in range(n + 1):
            ours = exactdp.probability(traced, queries, str(k), dps=30, method="closed")
            if k not in expected:
                assert ours.is_zero
                continue
            with mpmath.workdps(50):
                assert abs(ours.value - expected[k]) <= mpmath.mpf(10) ** -DIGITS * expected[k]


@pytest.mark.parametrize("function", ["gap_svt", "num_svt"])
@pytest.mark.parametrize("cutoff", [1, 2])
def test_checkdp_numeric_svt_equal_the_catalogue(function, cutoff):
    """Released gaps and fresh values: densities agree with the catalogue's gap_svt, num_svt."""
    traced = load_program(f"{CHECKDP}:{function}", epsilon=EPS, N=cutoff, T=T)
    declared = exactdp.mechanism(function, eps=EPS, N=cutoff, T=T)
    outputs = ["F,0.5", "F,F,F,F", "1.25"] if cutoff == 1 else \
        ["F,1.5,F,0.25", "1,2", "F,F,F,F", "F,F,0.75,F"]
    for queries in ([1, 0, 2, 1], [1, 1, 1, 1]):
        for output in outputs:
            ours = exactdp.probability(traced, queries, output, dps=30, method="closed")
            theirs = exactdp.probability(declared, queries, output, dps=30, method="closed")
            assert _agree(ours, theirs), (queries, output)


def test_gumbel_noisy_max_equals_the_catalogue():
    """``prng.gumbel``: report noisy max with Gumbel noise (the exponential mechanism, Dwork &
    Roth §3.4) against the catalogue's ``noisy_max_gumbel``."""
    def gumbel_max(prng, queries, epsilon):
        noisy = np.asarray(queries) + prng.gumbel(scale=2 / epsilon, size=len(queries))
        return noisy.argmax()

    traced = program(gumbel_max, epsilon=EPS)
    declared = exactdp.mechanism("noisy_max_gumbel", eps=EPS)
    for index in range(3):
        ours = exactdp.probability(traced, [1, 0, 2], str(index), dps=30)
        theirs = exactdp.probability(declared, [1, 0, 2], str(index), dps=30)
        assert _agree(ours, theirs), index


@pytest.mark.parametrize("function", ["svt", "isvt2", "noisy_max_v2a"])
def test_traced_outputs_sum_to_one(function):
    """Every path is found: the probabilities of all return values add up to 1."""
    params = dict(epsilon=EPS) if function.startswith("noisy") else SVT_PARAMS
    traced = load_program(f"{PROGRAMS}:{function}", **params)
    result = exactdp.max_privacy_loss(traced, [1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert abs(result.total1 - 1) < mpmath.mpf(10) ** -25
    assert abs(result.total2 - 1) < mpmath.mpf(10) ** -25


def noisy_count(prng, queries, epsilon):
    """How many of ``q_i + N(0, 1)`` exceed 1 (no threshold noise: each noise is alone)."""
    count = 0
    for query in queries:
        if query + prng.normal(scale=1) > 1:
            count += 1
    return count


def test_equal_factors_are_powers_and_equal_terms_add():
    """On three zero queries, a count ``k`` of :func:`noisy_count` has ``C(3, k)`` paths, each
    ``F(1)^{3−k}·S(1)^k`` of the noise ``N(0, 1)``: one term, its two constants powers, its
    multiplicity the binomial coefficient (derived by hand)."""
    law = Gaussian(Fraction(1))
    forms = outputs_with_forms(program(noisy_count, epsilon=EPS), [0, 0, 0])
    assert sorted(forms) == [(0,), (1,), (2,), (3,)]
    for (count,), form in forms.items():
        k = int(count)
        powers = ((Kind.CDF, 3 - k), (Kind.SF, k))
        constants = tuple(Constant(law, kind, Fraction(1), power) for kind, power in powers
                          if power)
        assert form.plus.terms == (Term(constants, (), math.comb(3, k)),)
        assert form.minus.terms == ()


def test_max_privacy_loss_equals_the_catalogue():
    traced = load_program(f"{PROGRAMS}:svt", **SVT_PARAMS)
    declared = exactdp.mechanism("statdp.SVT", eps=EPS, N=1, T=T)
    d1, d2 = [1, 1, 1, 1, 1], [0, 2, 2, 2, 2]
    ours = exactdp.max_privacy_loss(traced, d1, d2)
    theirs = exactdp.max_privacy_loss(declared, d1, d2)
    assert str(ours.output) == str(theirs.output)
    assert ours.outputs == theirs.outputs
    with mpmath.workdps(50):
        assert abs(ours.loss.log_ratio - theirs.loss.log_ratio) < mpmath.mpf(10) ** -25


def test_event_on_a_released_number_equals_the_catalogue():
    traced = load_program(f"{PROGRAMS}:noisy_max_v1b", epsilon=EPS)
    declared = exactdp.mechanism("statdp.noisy_max_v1b", eps=EPS)
    view = View((("out0", Coordinate()),), (("out0",),))
    queries = [1, 1, 0, 2, 1]
    for text in ("out0 < 1.5", "out0 in (0.5, 2)", "out0 > 3"):
        ours = event_probability(traced, queries, parse_event(text, view), 30)
        theirs = event_probability(declared, queries, text.replace("out0", "value"), 30)
        assert _agree(ours, theirs)


def test_event_on_a_released_number_bounded_on_both_sides():
    """iSVT4 with StatDP's post-processing (count of ⊥, last entry): a condition on the last
    entry bounds its noise on both sides (above the noisy threshold, inside the event), an
    ``F(U) − F(L)`` difference; the catalogue's event engine computes the same events
    independently (docs/mathematics.md §8)."""
    traced = load_program(f"{PROGRAMS}:isvt4_count_last", **SVT_PARAMS)
    declared = exactdp.mechanism("statdp.iSVT4", eps=EPS, N=1, T=T)
    view = View((("out0", Coordinate(0)), ("out1", Coordinate(1))), (("out0", "out1"),))
    queries = [1, 1, 0, 2, 1]
    for text in ("out1 < 1", "out1 > 1", "out1 in (0.5, 2)", "out0 = 2 and out1 < 0.25"):
        ours = event_probability(traced, queries, parse_event(text, view), 30)
        theirs = event_probability(declared, queries,
                                   text.replace("out1", "last").replace("out0 =", "false_count="),
                                   30)
        assert _agree(ours, theirs), text
    # the difference is certified: an enclosure, computed from the two sides' enclosures, that
    # holds the catalogue engine's value up to that value's own error bound
    ours = event_probability(traced, queries, parse_event("out1 in (0.5, 2)", view), 30)
    theirs = event_probability(declared, queries, "last in (0.5, 2)", 30)
    assert isinstance(ours, exactdp.CertifiedProbability) and "(difference)" in ours.method
    with mpmath.workdps(80):
        assert ours.lower - theirs.error <= theirs.value <= ours.upper + theirs.error
    assert ours.relative_width <= mpmath.mpf(10) ** -30


def test_numbers_reach_the_program_exactly():
    """``2.0 / epsilon`` keeps every digit: the density of Lap(2/ε) at 0 is ε/4 exactly
    (the Laplace density 1/(2b) at 0, b = 2/ε)."""
    def release(prng, queries, epsilon):
        return prng.laplace(scale=2.0 / epsilon)

    p = exactdp.probability(program(release, epsilon="0.7"), [0], "0", dps=40)
    with mpmath.workdps(60):
        assert abs(p.value - mpmath.mpf(7) / 40) < mpmath.mpf(10) ** -39


def test_binary_floats_are_what_the_program_asked_for():
    """``np.float64(0.1)`` is the binary number, not one tenth: the density of q + Lap(1) at
    one tenth is e^{−|0.1 − fl(0.1)|}/2 ≠ 1/2."""
    def forced(prng, queries, epsilon):
        return np.asarray(queries, dtype=np.float64)[0] + prng.laplace(scale=1)

    p = exactdp.probability(program(forced, epsilon=1), ["0.1"], "0.1", dps=40)
    gap = abs(Fraction(1, 10) - Fraction(0.1))
    with mpmath.workdps(60):
        expected = mpmath.exp(-mpmath.mpf(gap.numerator) / gap.denominator) / 2
        assert abs(p.value - expected) < mpmath.mpf(10) ** -39 and p.value != mpmath.mpf(1) / 2


# ----------------------------------------------------------------------------- refusals

def compared_around_a_cycle(prng, queries, epsilon):
    noises = [prng.laplace(scale=1.0 / epsilon) for _ in range(7)]
    return [noises[i] > noises[(i + 1) % 7] for i in range(7)]


def noise_in_while(prng, queries, epsilon):
    count = 0
    while count < prng.laplace(scale=1.0 / epsilon):
        count += 1
    return count


def numpy_exp(prng, queries, epsilon):
    return np.exp(prng.laplace(scale=1.0 / epsilon, size=len(queries))).argmax()


def uniform(prng, queries, epsilon):
    return queries[0] + prng.uniform(0, 1.0 / epsilon)


def product(prng, queries, epsilon):
    return prng.laplace(scale=1.0) * prng.laplace(scale=1.0) > 0


@pytest.mark.parametrize("function, message", [
    (compared_around_a_cycle, r"η1, η2, η3, η4, η5, η6, η7 form a cycle of comparisons "
                              r"\(drawn at test_tracing\.py lines \d+(, \d+){6}\): not a tree"),
    (noise_in_while, r"cannot trace a noise in a while condition \(at test_tracing\.py:\d+: "
                     r"while count < prng\.laplace"),
    (numpy_exp, r"cannot trace numpy\.exp on noises \(at test_tracing\.py:\d+: return np\.exp"),
    (uniform, r"cannot trace prng\.uniform .* \(at test_tracing\.py:\d+: return queries\[0\] \+ "
              r"prng\.uniform"),
    (product, r"cannot trace a product of two noises \(at test_tracing\.py:\d+"),
])
def test_out_of_class_programs_are_refused_in_one_line(function, message):
    mech = program(function, epsilon=EPS)
    with pytest.raises(InputError, match=message) as error:
        output = "T,T,F,T,F,T,F" if function is compared_around_a_cycle else "1"
        exactdp.probability(mech, [0, 1], output)
    assert "\n" not in str(error.value)


def test_path_limit():
    traced = dataclasses.replace(load_program(f"{PROGRAMS}:isvt2", **SVT_PARAMS), path_limit=100)
    with pytest.raises(InputError, match=r"more than 100 execution paths on 10 queries"):
        traced_paths(traced, [1] * 10)


def loop_ended_by_a_noise(prng, queries, epsilon):
    count = 0
    while True:
        if prng.laplace(scale=1.0 / epsilon) > queries[0]:
            break
        count += 1
    return count


def test_a_loop_only_a_noise_ends_is_bounded_per_path():
    """Every path length is feasible: the path of ``k`` failures is cut at the default bound,
    1000 + 100 per query noise draws and comparisons, naming the comparison's line."""
    mech = program(loop_ended_by_a_noise, epsilon=EPS)
    with pytest.raises(InputError, match=r"drew or compared noises more than 1,100 times "
                                         r"\(at test_tracing\.py:\d+: if prng\.laplace") as error:
        exactdp.probability(mech, [0], "1")
    assert "\n" not in str(error.value)


def test_step_limit_of_a_program():
    traced = load_program(f"{PROGRAMS}:svt", **SVT_PARAMS)
    # svt on 3 queries: 4 draws and 3 comparisons on its longest path
    assert len(traced_paths(dataclasses.replace(traced, step_limit=7), [0] * 3)) == 4
    with pytest.raises(InputError, match="more than 6 times"):
        traced_paths(dataclasses.replace(traced, step_limit=6), [0] * 3)


def test_progress_of_a_long_exploration(monkeypatch, capsys):
    monkeypatch.setattr(tracing, "PROGRESS_AFTER", 0.0)
    traced = load_program(f"{PROGRAMS}:isvt2", **SVT_PARAMS)
    paths = tracing.trace(traced.func, [Fraction(1)] * 4, traced.arguments, progress=True)
    assert len(paths) == 2 ** 4
    assert "tracing: " in capsys.readouterr().err


def test_cli_loss_of_a_program(capsys):
    code = main(["loss", f"{PROGRAMS}:svt", "--param", "epsilon=1", "--param", "N=1",
                 "--param", "T=0.5", "--d1", "1,1,1,1,1", "--d2", "0,2,2,2,2",
                 "--output", "F,F,T", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    declared = exactdp.mechanism("statdp.SVT", eps=1, N=1, T="0.5")
    expected = exactdp.privacy_loss(declared, [1] * 5, [0, 2, 2, 2, 2], "F,F,T")
    with mpmath.workdps(50):
        value = mpmath.mpf(json.loads(out)["log_ratio"])
        assert abs(value - expected.log_ratio) < mpmath.mpf(10) ** -25


def _laplace_difference_below(t: Fraction, b: Fraction) -> mpmath.mpf:
    """``Pr[η1 − η0 ≤ t]`` for η0, η1 independent Lap(b), t ≤ 0: the difference has survival
    ``½ e^{−s/b}(1 + s/(2b))`` at s ≥ 0 (convolution of two Laplace densities), and is
    symmetric."""
    s, b = mpmath.mpf(-t.numerator) / t.denominator, mpmath.mpf(b.numerator) / b.denominator
    return mpmath.exp(-s / b) * (1 + s / (2 * b)) / 2


def test_cli_event_on_a_long_vector_output(capsys):
    """iSVT4 on 5 queries returns 5 entries, each ⊥ or a released number: the tester's product
    of their events is far beyond its search limit, an explicit event is not.  ``out0=F`` is
    ``q0 + η1 ≤ T + η0`` with η0, η1 ~ Lap(2) (ε = 1, N = 1), a difference of Laplace noises."""
    code = main(["loss", f"{PROGRAMS}:isvt4", "--param", "epsilon=1", "--param", "N=1",
                 "--param", "T=0.5", "--d1", "1,1,1,1,1", "--d2", "0,2,2,2,2",
                 "--event", "out0=F", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    with mpmath.workdps(50):
        p1 = _laplace_difference_below(Fraction(-1, 2), Fraction(2))
        p2 = 1 - _laplace_difference_below(Fraction(-1, 2), Fraction(2))
        value = mpmath.mpf(json.loads(out)["log_ratio"])
        assert abs(value - mpmath.log(p1 / p2)) < mpmath.mpf(10) ** -25


def test_cli_boolean_entry_events_read_t_and_f(capsys):
    """A boolean entry's events are ``=F``/``=T`` as well as ``=0``/``=1``."""
    losses = {}
    for clause in ("out0=F", "out0=0", "out1=T", "out1=1"):
        code = main(["loss", f"{PROGRAMS}:svt", "--param", "epsilon=1", "--param", "N=1",
                     "--param", "T=0.5", "--d1", "1,1,1,1,1", "--d2", "0,2,2,2,2",
                     "--event", clause, "--json"])
        assert code == 0
        losses[clause] = json.loads(capsys.readouterr().out)["log_ratio"]
    assert losses["out0=F"] == losses["out0=0"] and losses["out1=T"] == losses["out1=1"]


def test_exactdp_program_is_the_function_after_its_package_is_imported():
    # The package of programs is ``exactdp.programs``: importing it (as the engine does) must not
    # shadow the public function ``exactdp.program`` (as a package ``exactdp.program`` did).
    code = ("import exactdp.programs.tracing, exactdp; "
            "assert callable(exactdp.program), exactdp.program")
    subprocess.run([sys.executable, "-c", code], check=True)
