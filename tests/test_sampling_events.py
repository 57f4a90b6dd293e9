"""Views, search spaces and input patterns of the tester (Ding, Wang, Wang, Zhang & Kifer, CCS 2018
(arXiv:1805.10277), §4.3 and Table 1)."""

import re
from fractions import Fraction
from itertools import zip_longest

import numpy as np
import pytest

import exactdp
from exactdp.errors import InputError
from exactdp.sampling import sample
from exactdp.events import count_events, numeric_grid, parse_event, search_space, view_of
from exactdp.sampling.inputs import candidate_inputs, input_patterns


def statdp_output(answers_row, values_row=None):
    """One run as StatDP's algorithms build it: a list of True/False (or numbers), cut at the
    cutoff."""
    out = []
    for i, a in enumerate(answers_row):
        if a == -1:
            break
        out.append(bool(a) if values_row is None or not a else float(values_row[i]))
    return out


def test_post_processed_columns_match_statdp_definitions():
    # StatDP's algorithms.py: SVT returns out.count(False); iSVT1–3 the zip_longest Hamming
    # distance to (True × ⌊n/2⌋, False × rest); iSVT4 (out.count(False), out[-1]).
    q = [1, 1, 0, 2, 1]
    rng = np.random.default_rng(3)
    for name, column in [("statdp.SVT", "false_count"), ("statdp.iSVT3", "hamming")]:
        mech = exactdp.mechanism(name, eps=0.7, N=2, T=1)
        samples = sample(mech, q, 300, rng)
        observed = view_of(mech, q).column(column, samples)
        pattern = [i < len(q) // 2 for i in range(len(q))]
        for row, value in zip(samples.answers, observed):
            out = statdp_output(row)
            expected = (out.count(False) if column == "false_count" else
                        sum(a != b for a, b in zip_longest(pattern, out)))
            assert value == expected
    mech = exactdp.mechanism("statdp.iSVT4", eps=0.7, N=1, T=1)
    samples = sample(mech, q, 300, rng)
    view = view_of(mech, q)
    counts, last = view.column("false_count", samples), view.column("last", samples)
    for row, values, count, value in zip(samples.answers, samples.values, counts, last):
        out = statdp_output(row, values)
        assert count == out.count(False)
        assert (np.isnan(value) if out[-1] is False else value == out[-1])


def test_raw_view_hamming_is_to_the_noise_free_output():
    # svt1 with c = 1 on (1, 0, 1), T = 0: noise-free output (⊤) then nothing.
    mech = exactdp.mechanism("svt1", c=1)
    view = view_of(mech, [1, 0, 1])
    answers = np.array([[1, -1, -1], [0, 1, -1], [0, 0, 0]], dtype=np.int8)
    samples = exactdp.sampling.Samples(answers, None)
    assert view.column("hamming", samples).tolist() == [0, 2, 3]
    assert view.column("length", samples).tolist() == [1, 2, 3]
    assert parse_event("output=F,T", view).mask(samples).tolist() == [False, True, False]


def test_search_space_sizes():
    q = [1] * 5
    svt = exactdp.mechanism("statdp.SVT")
    assert [str(e) for e in search_space(view_of(svt, q), [])] == [
        f"false_count={k}" for k in range(6)]
    isvt4 = exactdp.mechanism("statdp.iSVT4")
    pilots = [sample(isvt4, d, 2000, np.random.default_rng(k)) for k, d in enumerate((q, [2] * 5))]
    events = search_space(view_of(isvt4, q), pilots)
    # 6 counts × (⊥ + 10 grid points × 2 sides)
    assert len(events) == 6 * 21
    assert str(events[0]) == "false_count=0 and last=F"


def test_numeric_grid_spans_the_densest_seventy_percent():
    # StatDP: the window c[x − 700] .. c[x] (701 values) of least width among 1000 values.
    values = np.concatenate([np.linspace(0, 1, 701), np.linspace(50, 100, 299)])
    grid = numeric_grid(values)
    assert len(grid) == 10 and grid[0] == 0.0 and grid[-1] == 1.0


def test_counts_agree_with_masks():
    mech = exactdp.mechanism("statdp.iSVT2", eps=1)
    view = view_of(mech, [1, 1, 1, 1])
    samples = sample(mech, [1, 1, 1, 1], 1000, np.random.default_rng(0))
    events = search_space(view, [])
    counts = count_events(view, events, samples)
    assert counts.sum() == 1000
    assert counts.tolist() == [int(e.mask(samples).sum()) for e in events]


@pytest.mark.parametrize("text, message", [
    ("nope=1", "unknown event component 'nope' (this output has: false_count, last)"),
    ("false_count", "an event clause looks like out0<3.5, out1 in [0,2), false_count=3 or last=F, "
                    "got 'false_count'"),
    ("false_count in (0, 1)", "the event clause 'false_count in (0, 1)' compares false_count "
                              "with a number"),
    ("false_count=x", "the event clause 'false_count=x' needs false_count=k"),
    ("false_count=1 and", "has an empty clause"),
    ("false_count=1 and false_count=2", "constrains false_count twice"),
    ("", "an event must be a non-empty string"),
])
def test_bad_events(text, message):
    view = view_of(exactdp.mechanism("statdp.SVT"), [1, 1])
    with pytest.raises(InputError, match=re.escape(message)):
        parse_event(text, view)


def test_table_1_patterns():
    # Ding et al. 2018, Table 1 (length 5), D1 = [1, 1, 1, 1, 1] except for the X shape; "half
    # half" as StatDP's code generate_databases writes it (2^⌊n/2⌋ 0^⌈n/2⌉).
    pairs = [(list(map(int, d1)), list(map(int, d2)))
             for d1, d2 in input_patterns(exactdp.mechanism("svt1"), 5)]
    ones = [1] * 5
    assert pairs == [(ones, [2, 1, 1, 1, 1]), (ones, [0, 1, 1, 1, 1]), (ones, [2, 0, 0, 0, 0]),
                     (ones, [0, 2, 2, 2, 2]), (ones, [2, 2, 0, 0, 0]), (ones, [2, 2, 2, 2, 2]),
                     (ones, [0, 0, 0, 0, 0]), ([1, 1, 0, 0, 0], [0, 0, 1, 1, 1])]
    assert len(candidate_inputs(exactdp.mechanism("svt1"))) == 16


def test_histogram_uses_one_differ_patterns_scaled_by_sensitivity():
    mech = exactdp.mechanism("histogram", sensitivity=2)
    pairs = candidate_inputs(mech)
    assert len(pairs) == 4
    assert pairs[0] == ((Fraction(2),) * 5, (Fraction(4),) + (Fraction(2),) * 4)
