"""The fence around a user's program (``exactdp.programs.sandbox``), while it is traced and while
it is sampled: randomness not drawn from ``prng`` is refused in one line naming the call and the
program's line, the program's standard output goes to standard error, a run that does not return
is reported and stopped; everything patched is restored afterwards."""

import dataclasses
import json
import os
import random
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.programs import load_program, program
from exactdp.programs.exact import traced_paths
from exactdp.programs.sandbox import sandbox

ROOT = Path(__file__).resolve().parent.parent

#: Programs drawing elsewhere than from ``prng``, each refused at its ``# refused`` line.
PROGRAMS = textwrap.dedent("""
    import os
    import random
    import secrets
    from random import gauss

    import numpy as np

    RNG = np.random.default_rng(1)
    LEGACY = np.random.RandomState(1)

    def legacy_function(prng, queries):
        return queries[0] + np.random.laplace(scale=1.0) > 0  # refused

    def new_generator(prng, queries):
        return queries[0] + np.random.default_rng().laplace(scale=1.0) > 0  # refused

    def random_state(prng, queries):
        return queries[0] + np.random.RandomState(0).laplace(scale=1.0) > 0  # refused

    def bit_generator(prng, queries):
        generator = np.random.Generator(np.random.PCG64(3))  # refused
        return queries[0] + generator.laplace(scale=1.0) > 0

    def module_generator(prng, queries):
        return queries[0] + RNG.laplace(scale=1.0) > 0  # refused

    def module_random_state(prng, queries):
        return queries[0] + LEGACY.laplace(scale=1.0) > 0  # refused

    def random_module(prng, queries):
        return queries[0] + random.gauss(0.0, 1.0) > 0  # refused

    def imported_function(prng, queries):
        return queries[0] + gauss(0.0, 1.0) > 0  # refused

    def random_instance(prng, queries):
        return queries[0] + random.Random(2).random() > 0.5  # refused

    def system_random(prng, queries):
        return queries[0] + random.SystemRandom().random() > 0.5  # refused

    def secrets_module(prng, queries):
        return queries[0] + secrets.randbelow(2) > 0  # refused

    def os_urandom(prng, queries):
        return queries[0] + os.urandom(1)[0] > 128  # refused

    def default_argument(prng, queries, rng=np.random.default_rng(4)):
        return queries[0] + rng.laplace() > 0  # refused

    def keyword_default(prng, queries, *, draw=random.random):
        return queries[0] + draw() > 0.5  # refused

    def swallowed(prng, queries):
        try:
            noise = np.random.laplace()  # refused
        except Exception:
            noise = 0.0
        return queries[0] + noise + prng.laplace(scale=1.0) > 0

    def prints(prng, queries):
        print("noise drawn")
        return queries[0] + prng.laplace(scale=1.0) > 0

    def spins(prng, queries):
        while True:
            try:
                queries = queries  # a program's own except cannot swallow the stop
            except Exception:
                pass

    def spins_when_sampled(prng, queries):
        while isinstance(queries[0], float):
            pass
        return queries[0] + prng.laplace(scale=1.0) > 0
""")

REFUSED = {
    "legacy_function": "numpy.random.laplace()",
    "new_generator": "numpy.random.default_rng()",
    "random_state": "numpy.random.RandomState()",
    "bit_generator": "numpy.random.PCG64()",
    "module_generator": "RNG.laplace",
    "module_random_state": "LEGACY.laplace",
    "random_module": "random.gauss()",
    "imported_function": "gauss()",
    "random_instance": "random.Random()",
    "system_random": "random.SystemRandom()",
    "secrets_module": "secrets.randbelow()",
    "os_urandom": "os.urandom()",
    "swallowed": "numpy.random.laplace()",
    "default_argument": "rng.laplace",
    "keyword_default": "draw()",
}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("programs") / "hostile.py"
    path.write_text(PROGRAMS)
    return path


def _line(source: Path, name: str) -> int:
    """The line of ``# refused`` in the function ``name``."""
    lines = source.read_text().splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"def {name}(")))
    return next(i for i in range(start, len(lines)) if "# refused" in lines[i]) + 1


def _untouched(module_globals: dict) -> dict:
    """What the sandbox patches, to compare before and after."""
    return {"laplace": np.random.laplace, "default_rng": np.random.default_rng,
            "gauss": random.gauss, "Random.random": random.Random.random,
            "urandom": os.urandom, "stdout": sys.stdout,
            "RNG": module_globals["RNG"], "imported": module_globals["gauss"],
            "defaults": module_globals["default_argument"].__defaults__,
            "keyword defaults": module_globals["keyword_default"].__kwdefaults__}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_randomness_outside_prng_is_refused_while_traced(source, name):
    mech = load_program(f"{source}:{name}")
    before = _untouched(mech.func.__globals__)
    with pytest.raises(InputError) as info:
        traced_paths(mech, [0])
    message = str(info.value)
    assert "\n" not in message
    assert f"outside prng: {REFUSED[name]} (at hostile.py:{_line(source, name)}: " in message
    assert _untouched(mech.func.__globals__) == before


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_randomness_outside_prng_is_refused_while_sampled(source, name):
    mech = load_program(f"{source}:{name}")
    before = _untouched(mech.func.__globals__)
    with pytest.raises(InputError) as info:
        exactdp.sample(mech, [0], 10, np.random.default_rng(0))
    assert f"outside prng: {REFUSED[name]} (at hostile.py:{_line(source, name)}: " \
        in str(info.value)
    assert _untouched(mech.func.__globals__) == before


def test_a_generator_in_a_closure_is_refused():
    rng = np.random.default_rng(5)

    def closure(prng, queries):
        return queries[0] + rng.laplace() > 0

    with pytest.raises(InputError, match=r"outside prng: rng\.laplace \(at test_sandbox\.py:"):
        exactdp.probability(program(closure), [0], [True])
    assert isinstance(rng, np.random.Generator)  # the cell holds the generator again


def test_sandboxes_in_two_threads_and_a_thread_outside(source):
    func = load_program(f"{source}:module_generator").func
    held = func.__globals__["RNG"]
    entered, leave, drawn = threading.Event(), threading.Event(), []

    def first():
        with sandbox(func, timeout=None):
            entered.set()
            leave.wait()

    def outside():  # a thread running no program keeps numpy's functions
        drawn.append(np.random.laplace())

    thread = threading.Thread(target=first)
    thread.start()
    entered.wait()
    refusals = []
    with pytest.raises(InputError) as info:  # the refusals caught here are raised on leaving
        with sandbox(func, timeout=None):
            leave.set()
            thread.join()  # the first sandbox has closed; this one still refuses
            for call in (lambda: func(None, [0]), np.random.laplace):
                try:
                    call()
                except InputError as refusal:
                    refusals.append(str(refusal))
            helper = threading.Thread(target=outside)
            helper.start()
            helper.join()
    assert str(info.value) == refusals[0]
    assert "outside prng: RNG.laplace (at hostile.py:" in refusals[0]
    assert "outside prng: numpy.random.laplace() (at test_sandbox.py:" in refusals[1]
    assert len(drawn) == 1 and isinstance(drawn[0], float)
    assert func.__globals__["RNG"] is held


def test_prng_and_other_threads_keep_their_randomness(source):
    # the program's own prng works in both interpreters: P[0 + Lap(1) > 0] = 1/2 exactly
    # (symmetry of the Laplace law), and a seeded sample repeats itself
    mech = load_program(f"{source}:prints")
    assert exactdp.probability(mech, [0], [True]).value == 0.5
    first, second = (exactdp.sample(mech, [0], 50, np.random.default_rng(7)) for _ in range(2))
    assert np.array_equal(first.values, second.values)
    assert 0 < first.values.sum() < 50


def test_the_program_prints_on_stderr_while_traced(source, capsys):
    code = main(["prob", f"{source}:prints", "--queries", "0", "--output", "T", "--json"])
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out)["probability"] == "0.5"
    assert "noise drawn" in captured.err


def test_the_program_prints_on_stderr_while_sampled_by_workers(source):
    result = subprocess.run(
        [sys.executable, "-m", "exactdp", "test", f"{source}:prints", "--d1", "0", "--d2", "1",
         "--runs", "2000", "--select-runs", "1000", "--test-eps", "0.5", "--jobs", "2",
         "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-500:]
    assert json.loads(result.stdout)[0]["test_eps"] == "0.5"
    assert "noise drawn" in result.stderr


def test_a_trace_that_does_not_end_is_reported_and_stopped(source, capsys):
    mech = load_program(f"{source}:spins")
    mech = dataclasses.replace(mech, trace_timeout=1.0)
    before = _untouched(mech.func.__globals__)
    with pytest.raises(InputError, match=r"^the trace of one path of the program did not finish "
                       r"within 1 s \(at hostile\.py:\d+: "):
        traced_paths(mech, [0])
    assert "the trace of one path of the program has not finished" in capsys.readouterr().err
    assert _untouched(mech.func.__globals__) == before


def test_a_sampled_run_that_does_not_end_is_stopped(source):
    mech = load_program(f"{source}:spins_when_sampled")
    mech = dataclasses.replace(mech, trace_timeout=1.0)
    assert exactdp.probability(mech, [0], [True]).value == 0.5  # traced with exact numbers
    with pytest.raises(InputError, match=r"^one sampled run of the program did not finish "
                       r"within 1 s \(at hostile\.py:\d+: while isinstance"):
        exactdp.sample(mech, [0], 10, np.random.default_rng(0))


def test_cli_trace_timeout(source, capsys):
    code = main(["prob", f"{source}:spins", "--queries", "0", "--output", "T",
                 "--trace-timeout", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("exactdp: error: the trace of one path of the program did not "
                              "finish within 1 s (at hostile.py:")


@pytest.mark.parametrize("value, shown", [("0", "0.0"), ("-1", "-1.0"), ("inf", "inf"),
                                          ("nan", "nan"), ("soon", "'soon'")])
def test_cli_trace_timeout_must_be_positive(source, capsys, value, shown):
    with pytest.raises(SystemExit) as info:
        main(["prob", f"{source}:prints", "--queries", "0", "--output", "T",
              "--trace-timeout", value])
    assert info.value.code == 2
    assert capsys.readouterr().err.strip().endswith(
        f"--trace-timeout must be a positive number of seconds, got --trace-timeout={shown}")


@pytest.mark.parametrize("value", [0, -2.5, float("inf"), True, "10"])
def test_trace_timeout_must_be_positive(source, value):
    mech = dataclasses.replace(load_program(f"{source}:prints"), trace_timeout=value)
    with pytest.raises(InputError, match=r"^trace_timeout must be a positive number of seconds, "
                       r"got trace_timeout="):
        traced_paths(mech, [0])


def test_cli_trace_timeout_reaches_the_sampler(source, capsys):
    code = main(["test", f"{source}:spins_when_sampled", "--d1", "0", "--d2", "1", "--runs",
                 "2000", "--select-runs", "1000", "--test-eps", "0.5", "--trace-timeout", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("exactdp: error: one sampled run of the program did not finish "
                              "within 1 s (at hostile.py:")
