"""The sampling interpreter of programs and the tester on them: seeded draws independent of the
number of workers, events inferred from the return type, verdicts as on the catalogue."""

import math
import textwrap

import numpy as np
import pytest

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.events import Equals, Interval, IsBottom, parse_event, search_space, view_of
from exactdp.programs import load_program, program
from exactdp.programs.outputs import Category, Number, NumberOrBottom, program_view
from exactdp.programs.sampling import INTEGER
from exactdp.sampling.tester import detect

#: StatDP's algorithms as its users write them (Ding, Wang, Wang, Zhang & Kifer, CCS 2018,
#: Algorithms 1 and 5; the calling convention of StatDP's ``algorithms.py``).
ALGORITHMS = textwrap.dedent("""
    import numpy as np

    def SVT(prng, queries, epsilon, N, T):
        out = []
        eta1 = prng.laplace(scale=2.0 / epsilon)
        noisy_T = T + eta1
        c1 = 0
        for query in queries:
            eta2 = prng.laplace(scale=4.0 * N / epsilon)
            if query + eta2 >= noisy_T:
                out.append(True)
                c1 += 1
                if c1 >= N:
                    break
            else:
                out.append(False)
        return out.count(False)

    def iSVT1(prng, queries, epsilon, N, T):
        out = []
        eta1 = prng.laplace(scale=2.0 / epsilon)
        noisy_T = T + eta1
        for query in queries:
            out.append(query >= noisy_T)
        true_count = int(len(queries) / 2)
        return sum(a != b for a, b in zip((i < true_count for i in range(len(queries))), out))

    def iSVT4(prng, queries, epsilon, N, T):
        out = []
        eta1 = prng.laplace(scale=2.0 / epsilon)
        noisy_T = T + eta1
        c1 = 0
        for query in queries:
            eta2 = prng.laplace(scale=2.0 * N / epsilon)
            if query + eta2 > noisy_T:
                out.append(query + eta2)
                c1 += 1
                if c1 >= N:
                    break
            else:
                out.append(False)
        return out.count(False), out[-1]

    def noisy_max_v1a(prng, queries, epsilon):
        noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=2.0 / epsilon,
                                                                     size=len(queries))
        return noisy.argmax()

    def histogram(prng, queries, epsilon):
        noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=1.0 / epsilon,
                                                                     size=len(queries))
        return noisy[0]

    def answers(prng, queries, epsilon):
        return [q + prng.laplace(scale=1.0 / epsilon) >= 1 for q in queries]

    def shifted(prng, queries, epsilon):
        return int(prng.integers(-2, 2))

    def uniform_noise(prng, queries, epsilon):
        return int(queries[0] + prng.uniform(-1, 1) > 1)

    def broken(prng, queries, epsilon):
        return queries[10]
""")


@pytest.fixture(scope="module")
def algorithms(tmp_path_factory):
    path = tmp_path_factory.mktemp("programs") / "statdp_algorithms.py"
    path.write_text(ALGORITHMS)
    return lambda name, **kwargs: load_program(f"{path}:{name}", **kwargs)


def _pilot(mech, queries, runs=2000, seed=0):
    return exactdp.sample(mech, queries, runs, np.random.default_rng(seed))


def test_sampling_is_the_function_itself_with_the_generator_given(algorithms):
    mech = algorithms("histogram", epsilon=0.5)
    drawn = _pilot(mech, [3, 1], runs=5, seed=7)
    # the same generator called as the program calls it: one laplace(size=2) per run
    rng = np.random.default_rng(7)
    expected = [3 + rng.laplace(scale=2.0, size=2)[0] for _ in range(5)]
    assert drawn.values[:, 0].tolist() == expected


def test_parameters_reach_the_function_as_floats_and_integers(algorithms):
    seen = {}

    def spy(prng, queries, epsilon, N):
        seen.update(epsilon=epsilon, N=N, queries=queries)
        return 0

    _pilot(program(spy, epsilon="0.7", N=2), "1,2", runs=1)
    assert seen == {"epsilon": 0.7, "N": 2, "queries": [1.0, 2.0]}
    assert type(seen["epsilon"]) is float and type(seen["N"]) is int


def test_return_types_give_statdp_event_spaces(algorithms):
    # integers: one event per value seen (StatDP's categorical outputs)
    svt = program_view([_pilot(algorithms("SVT", epsilon=1, N=1, T=1), [1] * 5)])
    (name, category), = svt.components
    assert name == "out0" and isinstance(category, Category)
    assert set(category.values()) <= set(range(6)) and len(category.values()) >= 4
    # numpy integers (argmax) too
    index = program_view([_pilot(algorithms("noisy_max_v1a", epsilon=1), [1, 2, 3])])
    assert index.components[0][1].values() == (0, 1, 2)
    # floats: the half-lines (−inf, α) and (α, inf) of StatDP's grid
    pilot = _pilot(algorithms("histogram", epsilon=1), [1, 1])
    number = program_view([pilot])
    assert isinstance(number.components[0][1], Number)
    events = search_space(number, [pilot])
    assert len(events) == 20 and all(isinstance(c, Interval) for e in events
                                     for _, c in e.conditions)
    # a tuple: the product of its entries' events; ⊥ or a number: "=F" and the half-lines
    pilot = _pilot(algorithms("iSVT4", epsilon=1, N=1, T=1), [1] * 5)
    pair = program_view([pilot])
    first, second = (component for _, component in pair.components)
    assert isinstance(first, Category) and isinstance(second, NumberOrBottom)
    events = search_space(pair, [pilot])
    assert len(events) == len(first.values()) * 21
    assert sum(isinstance(e.conditions[1][1], IsBottom) for e in events) == len(first.values())
    # a list of booleans: one entry each, the product of {0, 1}
    answers = program_view([_pilot(algorithms("answers", epsilon=1), [0, 1, 2])])
    assert [c.values() for _, c in answers.components] == [(0, 1)] * 3
    # negative integers are numbers (an event "outJ=k" names a non-negative k)
    assert isinstance(program_view([_pilot(algorithms("shifted", epsilon=1), [0])])
                      .components[0][1], Number)


def test_sampled_counts_agree_with_the_events_on_each_output(algorithms):
    mech = algorithms("iSVT4", epsilon=1, N=1, T=1)
    rng = np.random.default_rng(3)
    outputs = [mech.func(rng, [1.0] * 4, epsilon=1.0, N=1, T=1) for _ in range(300)]
    drawn = _pilot(mech, [1] * 4, runs=300, seed=3)
    view = program_view([drawn])
    # with N = 1 the last entry is ⊥ only when all four answers are ⊥
    for text in ("out0=4 and out1=F", "out0=1 and out1 in (1.5, inf)", "out1 in (-inf, 2)"):
        event = parse_event(text, view)
        assert event.mask(drawn).sum() == sum(event.contains(o) for o in outputs) > 0


def test_event_grammar_on_program_outputs(algorithms):
    view = view_of(algorithms("iSVT4", epsilon=1, N=1, T=1), [1] * 5)
    event = parse_event("out0=3 and out1=F", view)
    assert event.conditions[0][1] == Equals(3) and event.contains((3, False))
    assert not event.contains((3, 2.5)) and event.contains("3,F")
    with pytest.raises(InputError, match="unknown event component 'out2'"):
        parse_event("out2=1", view)


def test_an_error_in_the_function_is_one_line(algorithms):
    with pytest.raises(InputError, match=r"broken on \[1.0\] raised IndexError: .* \(line \d+ of"):
        _pilot(algorithms("broken", epsilon=1), [1], runs=1)


def test_runs_do_not_depend_on_the_number_of_workers(algorithms):
    mech = algorithms("SVT", epsilon=1, N=1, T=1)
    args = dict(d1=[1] * 5, d2=[2] * 5, runs=3000, select_runs=2000, seed=4)
    one = detect(mech, [0.3, 1.0], jobs=1, **args)
    two = detect(mech, [0.3, 1.0], jobs=2, **args)
    assert [(r.event, r.c1, r.c2, r.p_value) for r in one] == \
        [(r.event, r.c1, r.c2, r.p_value) for r in two]


@pytest.mark.parametrize("name, catalogue, test_eps", [
    # statdp.SVT is ε-DP (ε = 0.7): rejected far below 0.7 only; iSVT1 is not private at all
    ("SVT", "statdp.SVT", [0.2, 1.5]),
    ("iSVT1", "statdp.iSVT1", [1.5]),
])
def test_verdicts_reproduce_the_catalogue_mechanism(algorithms, name, catalogue, test_eps):
    # same seed budget: StatDP's patterns of length 5, 5000 selection and 20000 test runs
    budget = dict(runs=20_000, select_runs=5000, seed=1, lengths=(5,))
    ours = detect(algorithms(name, epsilon=0.7, N=1, T=1), test_eps, **budget)
    theirs = detect(exactdp.mechanism(catalogue, eps=0.7, N=1, T=1), test_eps, **budget)
    assert [r.p_value < 0.05 for r in ours] == [r.p_value < 0.05 for r in theirs]
    # both far from the 0.05 border, so the verdicts do not hinge on the random streams
    assert all(r.p_value < 1e-6 or r.p_value > 0.5 for r in ours + theirs)


def test_exact_loss_beside_the_verdict_or_why_not(algorithms, capsys):
    # the uniform law is outside every exact engine: the verdict stands, the reason is printed
    mech = algorithms("uniform_noise", epsilon=1)
    result, = detect(mech, [0.5], d1=[1], d2=[2], runs=2000, select_runs=1000)
    assert result.exact_event_eps is None and result.exact.unavailable
    code = main(["test", mech.name, "--param", "epsilon=1", "--d1", "1", "--d2", "2",
                 "--runs", "2000", "--select-runs", "1000", "--test-eps", "0.5"])
    out = capsys.readouterr().out
    assert code == 0 and "exact loss: not available: " in out
    assert math.isfinite(result.p_value)


def test_scalar_outputs_are_recorded_as_the_function_returns_them(algorithms):
    # one conversion for scalar outputs: the values and kinds of the per-run path
    mech = algorithms("SVT", epsilon=1, N=1, T=1)
    drawn = _pilot(mech, [1] * 6, runs=500, seed=5)
    rng = np.random.default_rng(5)
    expected = [mech.func(rng, [1.0] * 6, epsilon=1.0, N=1, T=1) for _ in range(500)]
    assert drawn.values[:, 0].tolist() == expected and (drawn.kinds == INTEGER).all()


def test_exact_event_loss_of_a_program_equals_the_catalogues():
    # needs the exact interpreter of programs (exactdp.programs.exact)
    pytest.importorskip("exactdp.programs.exact")
    from exactdp.exact.event_probability.rules import event_privacy_loss

    source = textwrap.dedent(ALGORITHMS)
    namespace: dict = {}
    exec(compile(source, "statdp_algorithms", "exec"), namespace)
    mech = program(namespace["SVT"], epsilon="0.7", N=1, T=1)
    result, = detect(mech, [0.3], d1=[1] * 5, d2=[2, 2, 0, 0, 0], runs=5000, select_runs=2000)
    (_, condition), = result.event.conditions
    # StatDP's SVT returns the number of ⊥: the catalogue's event false_count = k
    expected = event_privacy_loss(exactdp.mechanism("statdp.SVT", eps="0.7", N=1, T=1), [1] * 5,
                                  [2, 2, 0, 0, 0], f"false_count={condition.value}", dps=12)
    assert result.exact_event_eps == pytest.approx(float(expected.log_ratio), rel=1e-9)
