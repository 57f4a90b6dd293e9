"""Small untruths and leaks of the command line: a seed refused after the work, guard digits in a
range check, a number out of range reported as a precision failure, unbounded simulated
repetitions, query answers one command refuses and another accepts, the ``last`` entry of every
⊤/⊥ family, and progress of long ``utility`` runs."""

from __future__ import annotations

import signal
import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import exactdp
from exactdp.attacks import parse_dataset, reconstruction
from exactdp.checks import MAX_SIMULATED_ENTRIES
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.events import parse_event, view_of
from exactdp.exact.event_probability.rules import event_probability
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.mechanisms import catalogue
from exactdp.mechanisms.description import Release, ThresholdMechanism
from exactdp.progress import Progress

from .test_cli_errors import ROOT, one_line_error
from .test_unified_events import _output


def _refuse_to_compute(monkeypatch, module, name: str) -> None:
    """Make ``module.name`` fail the test if the command reaches it."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"{name} ran before the arguments were checked")
    monkeypatch.setattr(module, name, refuse)


# ------------------------------------------------------------------ utility

def test_utility_refuses_a_negative_seed_before_the_exact_computation(capsys, monkeypatch):
    import exactdp.cli.utility_command as command

    _refuse_to_compute(monkeypatch, command, "expected_utility")
    err = one_line_error(capsys, ["utility", "svt1", "--queries", "3,1,2", "--simulate", "10",
                                  "--seed", "-1"])
    # the message the other commands print for the same seed (exactdp.checks.check_seed)
    assert err == "exactdp: error: seed must be a non-negative integer, got seed=-1\n"


def test_utility_refuses_the_query_answers_prob_refuses(capsys):
    # svt_discrete compares integers: 1.5 is refused by prob (ThresholdMechanism.check_queries)
    expected = "exactdp: error: svt_discrete takes integer query answers, got 1.5\n"
    assert one_line_error(capsys, ["prob", "svt_discrete", "--queries", "1.5,2",
                                   "--output", "F,T"]) == expected
    assert one_line_error(capsys, ["utility", "svt_discrete", "--queries", "1.5,2"]) == expected
    with pytest.raises(InputError, match="takes integer query answers, got 1.5"):
        exactdp.selection_probabilities(exactdp.mechanism("svt_discrete"), [1.5, 2], digits=6)


def test_utility_reports_progress_when_stderr_is_not_a_terminal(capsys, monkeypatch):
    import exactdp.cli.utility_command as command

    # the delay before the first line is a second of work; none here, so that the quick
    # computation of the test shows its lines (the delay itself: the next test)
    monkeypatch.setattr(command, "START_DELAY", 0)
    assert main(["utility", "svt1", "--queries", "3,1,2", "--param", "c=2", "--digits", "6",
                 "--json"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("selection integrals: 0 pieces, 0:00 elapsed") and "\r" not in err


def test_quick_work_shows_no_progress_before_its_delay(capsys):
    with Progress(3, "quick", "step", enabled=True, delay=3600) as bar:
        bar.update(3)
    assert capsys.readouterr().err == ""
    with Progress(3, "quick", "step", enabled=True) as bar:  # no delay: a line at the start
        bar.update(3)
    assert capsys.readouterr().err == "quick: 0/3 steps, 0:00 elapsed\n"


# ------------------------------------------------------------------ renyi and profile --dps

@pytest.mark.parametrize("command, values", [("renyi", ["--alpha", "2"]),
                                             ("profile", ["--eps", "0.5"])])
def test_the_largest_dps_is_accepted_and_the_next_is_refused_as_typed(capsys, command, values):
    # svt2 (threshold redrawn after each ⊤): every output's probability is computed with the
    # divergence's guard digits added to the 1000 asked for
    argv = [command, "svt2", "--d1", "0,1", "--d2", "1,0", *values, "--json"]
    assert main([*argv, "--dps", "1000"]) == 0
    capsys.readouterr()
    assert one_line_error(capsys, [*argv, "--dps", "1001"]) == \
        "exactdp: error: dps must be an integer from 1 to 1000, got dps=1001\n"


# ------------------------------------------------------------------ reconstruct

@pytest.mark.parametrize("eps", ["1e-300", "1e-16"])
def test_reconstruct_refuses_a_budget_below_its_range_in_one_line(capsys, monkeypatch, eps):
    import exactdp.cli.reconstruct_command as command

    _refuse_to_compute(monkeypatch, command, "report")
    err = one_line_error(capsys, ["reconstruct", "--dataset", "zipf:10,50,1,0", "--eps",
                                  f"1,{eps}"])
    assert err == f"exactdp: error: --eps values must lie in [1e-15, 1e+15], got '{eps}'\n"


def test_the_smallest_budget_is_answered():
    # ε = 1e-15: θ = ⌈ln 20/(5·10^-16)⌉ = ⌈5.99146454710798199e15⌉ (ln 20 = 2.99573227355399…)
    histogram = parse_dataset("zipf:10,50,1,0", None)
    budget = reconstruction.Budget.algorithm_4("1e-15")
    assert budget.threshold == 5991464547107982
    assert reconstruction.simulate(histogram, budget, 10, 0).repetitions == 10


def test_the_threshold_of_a_delta_near_one_is_decided():
    # δ = 1 − 10^-100: 0 < ln(1/δ) < 2·10^-100, so ⌈ln(1/δ)/ε⌉ = 1 for ε = 1 (formerly a
    # precision failure at 100 digits that printed δ as a 100-digit fraction)
    delta = 1 - Fraction(1, 10**100)
    assert reconstruction.ceiling_log_ratio(delta, Fraction(1)) == 1
    # and one far from 0: ⌈ln(20)/0.1⌉ = ⌈29.957…⌉ = 30
    assert reconstruction.ceiling_log_ratio(Fraction(1, 20), Fraction(1, 10)) == 30


def test_reconstruct_bounds_the_repetitions_before_any_work(capsys, monkeypatch):
    import exactdp.cli.reconstruct_command as command

    _refuse_to_compute(monkeypatch, command, "report")
    # zipf:10,50,1,0 has 6 distinct counts: 7 draws per repetition (a threshold noise and one
    # count noise per distinct count)
    histogram = parse_dataset("zipf:10,50,1,0", None)
    assert np.unique(histogram.counts).size == 6
    most = MAX_SIMULATED_ENTRIES // 7
    err = one_line_error(capsys, ["reconstruct", "--dataset", "zipf:10,50,1,0", "--eps", "1",
                                  "--repetitions", "1000000000"])
    assert err == (f"exactdp: error: --repetitions=1,000,000,000 with 7 draws per run exceeds "
                   f"the {MAX_SIMULATED_ENTRIES:,} entries simulated at once; use at most "
                   f"{most:,} runs\n")
    with pytest.raises(InputError, match=f"repetitions={most + 1:,} with 7 draws per run"):
        reconstruction.simulate(histogram, reconstruction.Budget.algorithm_4(1), most + 1, 0)


def test_sigterm_ends_a_long_reconstruction_promptly():
    # the most repetitions allowed on Adult (seconds per budget), eight budgets: SIGTERM at the
    # first progress line, which comes after a budget; the hang guard (timeout) is generous
    histogram = parse_dataset("adult", None)
    most = MAX_SIMULATED_ENTRIES // (np.unique(histogram.counts).size + 1)
    process = subprocess.Popen(
        [sys.executable, "-m", "exactdp", "reconstruct", "--dataset", "adult", "--eps",
         "1,0.9,0.8,0.7,0.6,0.5,0.4,0.3", "--repetitions", str(most)], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stderr.readline()
    assert first.startswith("reconstructing: ") and "/8 budgets" in first, first
    process.send_signal(signal.SIGTERM)
    out, rest = process.communicate(timeout=120)
    assert process.returncode == 143 and out == ""
    assert "Traceback" not in rest and rest.splitlines()[-1] == "exactdp: terminated"


# ------------------------------------------------------------------ last=F on every ⊤/⊥ family

FLAG_FAMILIES = [item.name for item in catalogue()
                 if isinstance(item.make(), ThresholdMechanism)
                 and item.make().release is Release.FLAG]
QUERIES = "1,0,1"


def test_every_flag_family_is_covered():
    assert {"svt1", "svt2", "svt_discrete", "svt_gaussian", "gptt", "statdp.SVT",
            "statdp.iSVT1"} <= set(FLAG_FAMILIES)


@pytest.mark.parametrize("name", FLAG_FAMILIES)
def test_last_is_bottom_sums_the_outputs_that_end_in_bottom(name):
    # Pr[last = ⊥] against the sum of the exact probabilities of the outputs whose last entry
    # is ⊥ (exactdp.probability, one output at a time: the output engine, not the event's)
    mech = exactdp.mechanism(name)
    event = event_probability(mech, QUERIES, "last=F", dps=10)
    with mpmath.workdps(30):
        reference = mpmath.fsum(exactdp.probability(mech, QUERIES, list(output), dps=15).value
                                for output in possible_outputs(mech, 3) if output[-1] is False)
    assert 0 < reference < 1
    assert abs(event.value - reference) <= event.error + mpmath.mpf(10) ** -14


@pytest.mark.parametrize("name", FLAG_FAMILIES)
def test_last_is_bottom_decides_a_run_as_its_output(name):
    # Event.mask on a sampled batch decides what Event.contains decides on each output
    mech = exactdp.mechanism(name)
    event = parse_event("last=F", view_of(mech, QUERIES))
    draws = exactdp.sample(mech, QUERIES, 300, np.random.default_rng(3))
    mask = event.mask(draws)
    assert 0 < mask.sum() < 300
    assert all(event.contains(_output(mech, draws, run)) == mask[run] for run in range(300))


def test_crosscheck_counts_last_is_bottom_within_its_intervals(capsys):
    assert main(["crosscheck", "svt1", "--d1", "1,0,1", "--d2", "0,0,1", "--event", "last=F",
                 "--runs", "4000", "--json"]) == 0
    assert '"consistent": true' in capsys.readouterr().out


def test_the_last_entry_of_a_flag_output_is_not_a_number(capsys):
    err = one_line_error(capsys, ["prob", "svt1", "--queries", QUERIES, "--event", "last<1"])
    assert err == ("exactdp: error: the event clause 'last<1' compares last with a number, but "
                   "last is ⊤ or ⊥ in this output: write last=F\n")
