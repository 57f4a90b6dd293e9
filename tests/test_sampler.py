"""The vectorised sampler against the exact engine: both read the same description, so agreement
tests the mathematics, not one implementation of it."""

import numpy as np
import pytest
from scipy.stats import binom

import exactdp
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.mechanisms import ThresholdMechanism, catalogue
from exactdp.sampling import ABSENT, output_counts

RUNS = 40_000
QUERIES = [0.5, -0.5, 1.0, 0.0]
#: The queries of a mechanism with integer-valued noise (it takes integers only).
INTEGER_QUERIES = [1.0, -1.0, 2.0, 0.0]


@pytest.mark.parametrize("name", [item.name for item in catalogue()
                                  if isinstance(item.make(), ThresholdMechanism)
                                  and not item.make().releases_numbers])
def test_frequencies_match_exact_probabilities(name):
    item = exactdp.mechanisms.entry(name)
    params = {p.name: 2 for p in item.params if p.name in ("c", "N")}
    mech = item.make(**params)
    seed = sum(map(ord, name))  # a fixed seed per mechanism
    queries = INTEGER_QUERIES if mech.law.integer_valued else QUERIES
    counts = output_counts(exactdp.sample(mech, queries, RUNS, np.random.default_rng(seed)))
    outputs = [",".join("T" if a else "F" for a in out)
               for out in possible_outputs(mech, len(queries))]
    assert set(counts) <= set(outputs)
    for output in outputs:
        p = float(exactdp.probability(mech, queries, output, dps=15).value)
        # two-sided binomial interval with 1e-6 tail mass per output
        low, high = binom.interval(1 - 1e-6, RUNS, p)
        assert low <= counts.get(output, 0) <= high, (output, p, counts.get(output, 0))


def test_cutoff_marks_absent_positions_and_values_are_released():
    mech = exactdp.mechanism("svt3", c=1)
    samples = exactdp.sample(mech, [100.0, 0.0, 0.0], 1000, np.random.default_rng(0))
    # the first query is far above the threshold: the run stops there and releases q + ν
    assert (samples.answers[:, 0] == 1).mean() > 0.99
    stopped = samples.answers[:, 0] == 1
    assert (samples.answers[stopped, 1:] == ABSENT).all()
    assert np.isfinite(samples.values[stopped, 0]).all()
    assert np.isnan(samples.values[stopped, 1:]).all()


def test_same_seed_same_draws():
    mech = exactdp.mechanism("svt2", c=2)
    a = exactdp.sample(mech, QUERIES, 500, np.random.default_rng(7)).answers
    b = exactdp.sample(mech, QUERIES, 500, np.random.default_rng(7)).answers
    assert (a == b).all()


@pytest.mark.parametrize("name,params,queries", [
    ("statdp.SVT", {"N": 1}, [1.0] * 10),
    ("statdp.iSVT4", {"N": 2}, [1.0] * 5 + [0.0] * 5),
    ("svt2", {"c": 2}, QUERIES),
    ("svt3", {"c": 1}, QUERIES),
    ("svt1", {}, QUERIES),
    ("svt1", {"c": 2}, [0.0, 1.0] + [-3.0] * 200),   # a long tail, drawn in blocks
    ("svt5", {}, [0.0, 1.0] * 40),                   # no cutoff: many ⊤'s per run in a block
])
def test_streamed_columns_equal_the_columns_of_the_samples(name, params, queries):
    """The tester's accumulated statistics against the same statistics computed from the full
    answer matrix of the same seed (the two consume the random stream identically)."""
    from exactdp.events import view_of
    from exactdp.sampling.streaming import sample_columns
    mech = exactdp.mechanism(name, **params)
    view = view_of(mech, queries)
    components = [c for _, c in view.components if type(c).__name__ in ("Additive", "LastEntry")]
    columns = sample_columns(mech, queries, 3000, np.random.default_rng(5), components)
    samples = exactdp.sample(mech, queries, 3000, np.random.default_rng(5))
    for component in components:
        np.testing.assert_array_equal(columns.column(component), component.column(samples))


def test_noisy_max_blocks_draw_the_numbers_of_one_whole_draw():
    """Drawing the runs in blocks (bounded memory) gives the numbers of one (runs, n) draw."""
    from exactdp.sampling import families
    mech = exactdp.mechanism("noisy_max_laplace")
    queries = np.linspace(0.0, 2.0, 3 * families.BLOCK_DRAWS // 1000 + 7)
    whole = mech.noise.sample(np.random.default_rng(2), (1000, queries.size), loc=queries)
    drawn = exactdp.sample(mech, list(queries), 1000, np.random.default_rng(2)).values
    np.testing.assert_array_equal(drawn, whole.argmax(axis=1))


def _position_by_position(mech, queries, runs, rng):
    """A reference sampler written independently of ``walk``: one draw per position for the
    runs still going (the sampler before it drew in blocks), answers and values as ``Samples``."""
    from exactdp.mechanisms.description import Release
    q = np.array([float(v) for v in queries])
    answers = np.full((runs, q.size), ABSENT, dtype=np.int8)
    values = np.full((runs, q.size), np.nan)
    threshold = float(mech.threshold)
    active = np.arange(runs)
    noisy_threshold = mech.threshold_noise.sample(rng, runs, loc=threshold)
    tops = np.zeros(runs, dtype=np.int64)
    for i, answer in enumerate(q):
        if active.size == 0:
            break
        noisy = mech.query_noise.sample(rng, active.size, loc=answer)
        above = noisy >= noisy_threshold
        answers[active, i] = above
        if mech.release is Release.NOISY_VALUE:
            values[active[above], i] = noisy[above]
        elif mech.release is Release.GAP:
            values[active[above], i] = (noisy - noisy_threshold)[above]
        elif mech.release is Release.FRESH_VALUE:
            values[active[above], i] = mech.release_noise.sample(rng, int(above.sum()), loc=answer)
        if mech.redraw_threshold:
            noisy_threshold[above] = mech.threshold_noise.sample(rng, int(above.sum()),
                                                                 loc=threshold)
        if mech.cutoff is not None:
            tops += above
            going = tops < mech.cutoff
            active, noisy_threshold, tops = active[going], noisy_threshold[going], tops[going]
    return answers, values


@pytest.mark.parametrize("name,params", [
    ("svt1", {"c": 1}), ("svt1", {"c": 3}), ("svt2", {"c": 2}), ("svt3", {"c": 2}),
    ("gap_svt", {"N": 2}), ("num_svt", {"N": 2}), ("svt5", {}), ("statdp.iSVT4", {"N": 2}),
    ("svt7", {"c": 2}),
])
def test_blocks_draw_the_numbers_of_one_draw_per_position(name, params):
    """Long inputs where a few runs go on for many positions: the sampler draws their tail in
    blocks; every answer and released number equals the position-by-position reference."""
    mech = exactdp.mechanism(name, **params)
    queries = [0.0, -1.0, 2.0] + [-2.0] * 300
    samples = exactdp.sample(mech, queries, 3000, np.random.default_rng(11))
    answers, values = _position_by_position(mech, queries, 3000, np.random.default_rng(11))
    np.testing.assert_array_equal(samples.answers, answers)
    if mech.releases_numbers:
        np.testing.assert_array_equal(samples.values, values)
