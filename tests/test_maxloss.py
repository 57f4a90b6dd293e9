"""``max_privacy_loss`` / ``exactdp maxloss`` wherever the supremum of the loss is defined.

Beyond the ⊤/⊥ enumeration, ``maxloss`` takes the larger of ``D_∞(M(d1) ‖ M(d2))`` and
``D_∞(M(d2) ‖ M(d1))`` (``exact/losses/supremum.py`` on ``divergences/renyi.py``'s order ∞).  The
references are closed forms, derived in each test; where the ⊤/⊥ enumeration exists,
``renyi_divergence`` at ``α = ∞`` is the independent path it must agree with.
"""

import inspect
import json
from decimal import Decimal

import mpmath
import pytest

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.divergences.renyi import renyi_both_ways
from .conftest import assert_encloses
from .test_renyi import _mpf, gaussian_release, laplace_release


#: The two programs, as a file the command line loads.
PROGRAMS = "\n\n".join(inspect.getsource(f) for f in (laplace_release, gaussian_release))


def _ratio_ends(loss):
    return loss.log_ratio_lower, loss.log_ratio_upper


# ------------------------------------------------------------------ the library


def test_noisy_max_exponential_index_is_eps_at_the_closed_form():
    # Report noisy max with Exp(b) noise, b = 2Δ/ε = 1 at ε = 2 (the catalogue's scale).  With
    # X0, X1 i.i.d. Exp(b), X1 − X0 ~ Laplace(0, b), so on [1, −1] index 1 wins iff
    # X1 − X0 > 2: probability ½e^{−2/b}; on [0, 0] each index wins with probability ½.  Index 1:
    # ln(½ / (½e^{−2})) = 2 = ε (the pure-DP bound, tight here); index 0:
    # ln(½ / (1 − ½e^{−2})) = −ln(2 − e^{−2}) ≈ −0.623.  The largest |loss| is 2, at index 1.
    mech = exactdp.mechanism("noisy_max_exponential", eps=2)
    result = exactdp.max_privacy_loss(mech, [0, 0], [1, -1], dps=30)
    assert str(result.output) == "1" and result.outputs == 2
    with mpmath.workdps(60):
        assert_encloses(_ratio_ends(result.loss), 2, 29)
        assert_encloses(result.loss.p1, mpmath.mpf(1) / 2, 29)
        assert_encloses(result.loss.p2, mpmath.exp(-2) / 2, 29)
        assert abs(result.total1 - 1) < mpmath.mpf(10) ** -25
    # the other direction: the same output, the loss negative (d2 the likelier side)
    reverse = exactdp.max_privacy_loss(mech, [1, -1], [0, 0], dps=30)
    assert str(reverse.output) == "1"
    with mpmath.workdps(60):
        assert_encloses(_ratio_ends(reverse.loss), -2, 29)


def test_noisy_max_index_on_equal_inputs_is_exactly_zero():
    # equal inputs give equal output distributions: every loss is exactly 0
    mech = exactdp.mechanism("noisy_max_laplace", eps=1)
    result = exactdp.max_privacy_loss(mech, [0, 1, 0], [0, 1, 0])
    assert result.loss.log_ratio_lower == result.loss.log_ratio_upper == 0


@pytest.mark.parametrize("b, d1, d2, output, delta", [
    ("3", [1], [0], "1", 1),      # neighbours: Δ = 1
    ("2", [0], [3], "0", 3),      # --any-pair: Δ = 3
    ("0.5", [-1], [0], "-1", 1),
])
def test_laplace_release_is_delta_over_b(b, d1, d2, output, delta):
    # M(d) = μ_d + Lap(b): ln(p1(x)/p2(x)) = (|x − μ2| − |x − μ1|)/b ≤ Δ/b (triangle
    # inequality), with equality at x = μ1 (the output of d1 without noise), where
    # p1 = 1/(2b) and p2 = e^{−Δ/b}/(2b) (Dwork & Roth 2014, Theorem 3.6).
    mech = exactdp.program(laplace_release, b=b)
    result = exactdp.max_privacy_loss(mech, d1, d2, dps=30, allow_any_pair=True)
    assert str(result.output) == output and result.approached is None
    assert result.outputs is None  # a released number: no outputs are enumerated
    with mpmath.workdps(60):
        b = _mpf(b)
        assert_encloses(_ratio_ends(result.loss), delta / b, 29)
        assert_encloses(result.loss.p1, 1 / (2 * b), 29)
        assert_encloses(result.loss.p2, mpmath.exp(-delta / b) / (2 * b), 29)


@pytest.mark.parametrize("d1, d2, end", [([1], [0], "+inf"), ([0], [1], "-inf")])
def test_gaussian_release_is_infinite_and_not_attained(d1, d2, end):
    # M(d) = μ_d + N(0, σ²): ln(p1(x)/p2(x)) = (μ1 − μ2)(2x − μ1 − μ2)/(2σ²), finite at every
    # x but unbounded as x → sign(μ1 − μ2)·∞ (Mironov 2017, Proposition 7's D_∞ = ∞).
    mech = exactdp.program(gaussian_release, sigma=2)
    result = exactdp.max_privacy_loss(mech, d1, d2)
    assert result.output is None and result.approached == f"out0 → {end}"
    assert result.loss.log_ratio == result.loss.log_ratio_lower == mpmath.inf
    assert result.loss.p1 is None and result.method == "certified closed"


@pytest.mark.parametrize("name, output", [("histogram", "0*2"), ("statdp.histogram", "0")])
def test_laplace_histogram_is_delta_over_b_at_d1(name, output):
    # q_i + Lap(Δ/ε) per bin, ε = 1, one bin moves by Δ = 1: the other bins cancel and the
    # bin's loss is at most Δ/b = ε = 1, attained at the noiseless output of d1 (Dwork & Roth
    # 2014, §3.3).
    mech = exactdp.mechanism(name, eps=1)
    result = exactdp.max_privacy_loss(mech, [0, 0], [1, 0])
    assert str(result.output) == output
    with mpmath.workdps(60):
        assert_encloses(_ratio_ends(result.loss), 1, 29)


@pytest.mark.parametrize("name, params, d1, d2", [
    ("svt1", {"eps": 1}, [0, 0, 0], [1, 1, 1]),
    ("svt1", {"eps": 1}, [1, 1, 1], [0, 0, 0]),  # the direction d2 → d1 is the larger
    ("svt1", {"eps": "0.5", "c": 2}, [0, 1, 0], [1, 0, 1]),
    ("noisy_max_gumbel", {"eps": 1}, [0, 0, 1], [1, 0, 0]),
])
def test_largest_loss_agrees_with_the_infinite_order_both_ways(name, params, d1, d2):
    # |log_ratio| = max(D_∞(d1 ‖ d2), D_∞(d2 ‖ d1)); the ⊤/⊥ variants by their own enumeration
    # (each output's probability, the maximiser recomputed), against divergences/renyi.py's α = ∞
    mech = exactdp.mechanism(name, **params)
    result = exactdp.max_privacy_loss(mech, d1, d2)
    forward, backward = renyi_both_ways(mech, d1, d2, ["inf"])
    larger = max((forward[0].divergence, backward[0].divergence), key=lambda d: d.value)
    sign = 1 if result.loss.log_ratio > 0 else -1
    assert sign == (1 if forward[0].divergence.value >= backward[0].divergence.value else -1)
    low, high = sorted(end if sign > 0 else mpmath.fneg(end, exact=True)
                       for end in _ratio_ends(result.loss))
    assert low <= larger.upper and larger.lower <= high
    assert larger.upper - larger.lower <= mpmath.mpf(10) ** -29 * larger.value


def test_search_refuses_a_supremum_no_output_attains():
    mech = exactdp.program(gaussian_release)
    from exactdp.exact.losses.worst_output import worst_output
    from exactdp.sequences import Runs
    with pytest.raises(InputError, match=r"approached as out0 → -inf"):
        worst_output(mech, Runs.from_items([0]), Runs.from_items([1]), 20)


# ------------------------------------------------------------------ the command line


def _run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _parses(text):
    return float(text), Decimal(text), mpmath.mpf(text)


def test_cli_noisy_max_exponential_prints_renyi_infinite_order(capsys):
    argv = ["noisy_max_exponential", "--param", "eps=2", "--d1=0,0", "--d2=1,-1"]
    code, out, err = _run(capsys, "maxloss", *argv, "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["output"] == "1" and record["outputs_enumerated"] == "2"
    assert Decimal(record["log_ratio_lower"]) <= 2 <= Decimal(record["log_ratio_upper"])
    code, out, _ = _run(capsys, "renyi", *argv, "--alpha", "inf", "--json")
    renyi, = json.loads(out)
    assert [record[key] for key in ("log_ratio", "log_ratio_lower", "log_ratio_upper")] == \
        [renyi[key] for key in ("divergence", "lower", "upper")]
    code, out, _ = _run(capsys, "maxloss", *argv)
    assert code == 0 and "largest |ln(p1/p2)|" in out
    assert any(line.split() == ["log_ratio", record["log_ratio"]] for line in out.splitlines())


def test_cli_released_numbers(capsys, tmp_path):
    (tmp_path / "releases.py").write_text(PROGRAMS)
    laplace = f"{tmp_path / 'releases.py'}:laplace_release"
    code, out, err = _run(capsys, "maxloss", laplace, "--param", "b=2", "--d1", "1", "--d2",
                          "0", "--json")
    assert code == 0, err
    record = json.loads(out)
    # Δ/b = 1/2 exactly, at the output 1 = μ1; no outputs were enumerated
    assert record["output"] == "1" and record["log_ratio"] == "0.5"
    assert record["log_ratio_lower"] == record["log_ratio_upper"] == "0.5"
    assert "outputs_enumerated" not in record and "sum_p1" not in record
    gaussian = f"{tmp_path / 'releases.py'}:gaussian_release"
    code, out, err = _run(capsys, "maxloss", gaussian, "--d1", "1", "--d2", "0", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["output"] is None and record["approached"] == "out0 → +inf"
    assert "p1" not in record and record["error"] == "0"
    for key in ("log_ratio", "log_ratio_lower", "log_ratio_upper"):
        assert record[key] == "inf" and all(value == float("inf") for value in
                                            _parses(record[key]))
    code, out, _ = _run(capsys, "maxloss", gaussian, "--d1", "1", "--d2", "0")
    assert code == 0 and "not attained: approached as out0 → +inf" in out
    assert any(line.split() == ["log_ratio", "inf"] for line in out.splitlines())


@pytest.mark.parametrize("argv", [
    ["histogram", "--d1", "0,0", "--d2", "1,1", "--any-pair"],
    ["partial_sum", "--d1", "0,0", "--d2", "1,0"],
])
def test_cli_refuses_what_renyi_refuses_with_its_message(capsys, argv):
    code, _, err = _run(capsys, "maxloss", *argv)
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    _, _, renyi = _run(capsys, "renyi", *argv, "--alpha", "inf")
    assert err == renyi
