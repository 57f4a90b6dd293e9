"""Every error path of the command line: one line naming the problem and the value with exit code
2 (or a correct answer), never a traceback, an empty message, silence, or a partial result."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exactdp.cli import COMMANDS, main
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.mechanisms import mechanism
from exactdp.exact.losses.threshold_worst_output import pattern_count
from exactdp.search import MAX_PATTERNS

ROOT = Path(__file__).resolve().parent.parent


def one_line_error(capsys, argv, code=2):
    """Run ``exactdp argv``; it must exit with ``code`` and print exactly one line on stderr."""
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ------------------------------------------------------------------ numbers out of range

@pytest.mark.parametrize("argv, named, value", [
    (["--queries", "1e400", "--output", "F"], "query answer", "1e400"),
    (["--queries", "0", "--output", "F", "--param", "eps=1e300"], "eps", "1e300"),
    (["--queries", "0", "--output", "F", "--param", "eps=1e100"], "eps", "1e100"),
    (["--queries", "0", "--output", "F", "--param", "T=1e400"], "T", "1e400"),
    (["--queries", "0", "--output", "1e99"], "output entry", "1e99"),
])
def test_numbers_beyond_the_engine_range_are_refused(capsys, argv, named, value):
    err = one_line_error(capsys, ["prob", "svt1", *argv])
    assert err == f"exactdp: error: {named} must have magnitude at most 1e+15 (the range of " \
                  f"the exact engine), got '{value}'\n"


def test_the_largest_accepted_magnitude_is_answered(capsys):
    # svt1 (eps=1, c=1, T=0): ⊥ on the query 1e15 needs ρ − ν > 1e15, ρ ~ Lap(2), ν ~ Lap(4),
    # whose tail is e^{-x/4} up to a factor: ln P ≈ −2.5e14, far below any float, yet answered
    assert main(["prob", "svt1", "--queries", "1e15", "--output", "F", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert -2.6e14 < float(record["log_probability"]) < -2.4e14


def test_an_empty_exception_message_names_its_type(capsys, monkeypatch):
    import exactdp.cli.exact_commands as commands

    def fails(*args, **kwargs):
        raise ZeroDivisionError()

    monkeypatch.setattr(commands, "probability", fails)
    err = one_line_error(capsys, ["prob", "svt1", "--queries", "0", "--output", "F"], code=1)
    # the innermost exactdp frame is named (the test's own function is not in the package)
    assert err.startswith("exactdp: cannot answer: ZeroDivisionError without a message in "
                          "run_prob (exact_commands.py:")


def test_a_frame_is_ours_by_its_module_not_its_path(capsys, monkeypatch, tmp_path):
    # a clone in a folder named exactdp: its tests' files lie under …/exactdp/tests/, yet they
    # are not the package; the function raising here is compiled with such a file name
    import exactdp.cli.exact_commands as commands

    namespace = {"__name__": "tests.elsewhere"}
    source = "def fails(*args, **kwargs):\n    raise ZeroDivisionError()\n"
    exec(compile(source, str(tmp_path / "exactdp" / "tests" / "elsewhere.py"), "exec"), namespace)
    monkeypatch.setattr(commands, "probability", namespace["fails"])
    err = one_line_error(capsys, ["prob", "svt1", "--queries", "0", "--output", "F"], code=1)
    assert err.startswith("exactdp: cannot answer: ZeroDivisionError without a message in "
                          "run_prob (exact_commands.py:"), err


def test_repeat_counts_beyond_the_length_limit(capsys):
    huge = str(10**21)
    err = one_line_error(capsys, ["loss", "svt1", "--d1", f"0*{huge}", "--d2", f"1*{huge}",
                                  "--output", f"F*{huge}"])
    assert "queries may have at most 1,000,000,000,000,000 entries" in err
    assert "got 1,000,000,000,000,000,000,000" in err


def test_an_exponent_too_large_to_expand_is_refused(capsys):
    err = one_line_error(capsys, ["prob", "svt1", "--queries", "1e-99999999", "--output", "F"])
    assert "decimal exponent of at most 1000" in err and "1e-99999999" in err


# ------------------------------------------------------------------ bounded work

@pytest.mark.parametrize("argv, message", [
    (["test", "statdp.SVT", "--test-eps", "0:1000000:0.000001"],
     "test eps may hold at most 1000 budgets, got 1,000,000,000,001 budgets"),
    (["test", "statdp.SVT", "--runs", "1000000000000"],
     "runs may be at most 10,000,000,000 per input, got runs=1,000,000,000,000"),
    (["test", "statdp.SVT", "--select-runs", "1000000000000"],
     "select_runs may be at most 10,000,000,000 per input"),
    (["crosscheck", "statdp.SVT", "--runs", "1000000000000"],
     "runs may be at most 10,000,000,000 per input"),
    (["pvalue", "--c1", "1", "--c2", "1", "--n", "10", "--eps", "1", "--samples",
      "1000000000000"], "samples may be at most 1,000,000, got samples=1,000,000,000,000"),
    (["search", "svt1", "--seed", "-1"], "seed must be a non-negative integer, got seed=-1"),
    (["search", "svt6", "--max-length", "30"],
     "svt6 has 1,073,741,824 ⊤/⊥ patterns on max_length=30 queries"),
])
def test_work_beyond_the_stated_limits_is_refused(capsys, argv, message):
    assert message in one_line_error(capsys, argv)


@pytest.mark.parametrize("command, limit", [("test", "at most 10,000,000,000"),
                                            ("test", "at most 1000"),
                                            ("pvalue", "at most 1,000,000"),
                                            ("search", f"at most {MAX_PATTERNS}")])
def test_the_limits_are_stated_in_the_help(capsys, command, limit):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert limit in " ".join(capsys.readouterr().out.split())


def test_pattern_count_matches_the_enumeration():
    # the closed form Σ_{k ≤ min(c, n)} C(n, k) against the enumeration of possible_outputs
    for name, params in (("svt1", {"c": 1}), ("svt1", {"c": 3}), ("svt6", {})):
        mech = mechanism(name, **params)
        for n in range(1, 8):
            assert pattern_count(mech, n) == sum(1 for _ in possible_outputs(mech, n))


def test_search_length_limit_names_the_longest_allowed(capsys):
    # svt6 has no cutoff: 2^n patterns, so 2^12 = MAX_PATTERNS allows n ≤ 12
    err = one_line_error(capsys, ["search", "svt6", "--max-length", "13"])
    assert "max_length may be at most 12" in err and "8,192" in err


# ------------------------------------------------------------------ progress off a terminal

def test_search_reports_progress_when_stderr_is_not_a_terminal(capsys):
    assert main(["search", "svt1", "--max-length", "3", "--evaluations", "4", "--json"]) == 0
    err = capsys.readouterr().err
    assert "searching: 0/4 pairs" in err and "\r" not in err


def test_tester_reports_progress_when_stderr_is_not_a_terminal(capsys):
    assert main(["test", "statdp.SVT", "--d1", "0,0", "--d2", "1,1", "--runs", "2000",
                 "--select-runs", "2000", "--test-eps", "0.5", "--json"]) == 0
    err = capsys.readouterr().err
    assert "selecting events: 0/2 chunks" in err and "testing: 0/2 chunks" in err
    assert "\r" not in err


# ------------------------------------------------------------------ reproduce --out

def _must_not_compute(monkeypatch):
    import exactdp.claims.reproduce as reproduce

    def refuse(*args, **kwargs):
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(reproduce, "parallel_map", refuse)


def test_reproduce_out_is_an_existing_file(tmp_path, capsys, monkeypatch):
    _must_not_compute(monkeypatch)
    target = tmp_path / "figures"
    target.write_text("keep")
    err = one_line_error(capsys, ["reproduce", "--only", "svt5-simple", "--out", str(target)])
    assert "must not be an existing file" in err and str(target) in err
    assert target.read_text() == "keep"


def test_reproduce_out_under_a_file(tmp_path, capsys, monkeypatch):
    _must_not_compute(monkeypatch)
    (tmp_path / "file").write_text("keep")
    target = tmp_path / "file" / "sub" / "figures"
    err = one_line_error(capsys, ["reproduce", "--only", "svt5-simple", "--out", str(target)])
    assert f"must not lie under the file {tmp_path / 'file'}" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only directory")
def test_reproduce_out_in_a_read_only_directory(tmp_path, capsys, monkeypatch):
    _must_not_compute(monkeypatch)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        err = one_line_error(capsys, ["reproduce", "--only", "svt5-simple",
                                      "--out", str(locked / "figures")])
    finally:
        locked.chmod(0o755)
    assert f"cannot be written in {locked} (Permission denied)" in err
    assert not list(locked.iterdir())


@pytest.mark.parametrize("argv, named", [
    (["sweep", "svt1", "--d1", "0", "--d2", "1", "--output", "F", "--t", "1",
      "--plot", "/proc/exactdp-plot.png"], "--plot"),
    (["reproduce", "--only", "svt5-simple", "--out", "/proc/exactdp-out"],
     "the output directory"),
    (["test", "statdp.SVT", "--runs", "100", "--select-runs", "100",
      "--log-events", "/proc/exactdp-events.json"], "the event log"),
])
def test_an_output_path_that_cannot_be_written_is_refused_first(capsys, monkeypatch, argv,
                                                                 named):
    # /proc accepts no new file, whatever the permission bits say (and even for root)
    _must_not_compute(monkeypatch)
    import exactdp.sampling.tester as tester
    import exactdp.sweep as sweep

    def refuse(*args, **kwargs):
        raise AssertionError("computed before checking the output path")

    monkeypatch.setattr(tester, "sample_columns", refuse)
    monkeypatch.setattr(sweep, "privacy_loss", refuse)
    err = one_line_error(capsys, argv)
    assert err.startswith(f"exactdp: error: {named} cannot be written in /proc ("), err
    assert argv[-1] in err


def test_an_output_file_that_is_a_folder_is_refused(capsys, tmp_path):
    err = one_line_error(capsys, ["test", "statdp.SVT", "--log-events", str(tmp_path)])
    assert "the event log must be a .json or .csv file" in err
    folder = tmp_path / "events.json"
    folder.mkdir()
    err = one_line_error(capsys, ["test", "statdp.SVT", "--log-events", str(folder)])
    assert f"the event log must be a file, got the folder {str(folder)!r}" in err


# ------------------------------------------------------------------ Ctrl-C

def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in {"Z", "X"}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(argv: list[str], workers: int,
               sent: signal.Signals = signal.SIGINT) -> tuple[int, str, list[int]]:
    """Start ``exactdp argv``, wait for its first progress line and its ``workers`` worker
    processes, send the signal ``sent``; return the exit code, stderr and the worker pids."""
    # as typed at a terminal: SIGINT at its default even when this test run was started in the
    # background by a shell without job control, which starts its jobs with SIGINT ignored (and
    # Python then keeps it ignored, so Ctrl-C would be a no-op)
    process = subprocess.Popen([sys.executable, "-m", "exactdp", *argv], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_default_sigint)
    first = process.stderr.readline()
    assert first, "no progress line before the work"
    pids: list[int] = []
    for _ in range(600):  # up to a minute for the spawned interpreters to start
        # workers are spawned interpreters or forks (which keep the parent's command line)
        pids = [pid for pid in _children(process.pid)
                if "spawn_main" in _command_line(pid)
                or _command_line(pid) == _command_line(process.pid)]
        if len(pids) >= workers:
            break
        time.sleep(0.1)
    assert len(pids) >= workers, "the worker processes did not start"
    process.send_signal(sent)
    _, rest = process.communicate(timeout=120)
    return process.returncode, first + rest, pids


def test_ctrl_c_ends_the_tester_and_its_workers():
    code, err, workers = _interrupt(["test", "statdp.SVT", "--select-runs", "2000000",
                                     "--jobs", "2"], workers=2)
    assert code == 130
    assert "Traceback" not in err and err.splitlines()[-1] == "exactdp: interrupted"
    assert not any(_running(pid) for pid in workers)


def test_sigterm_ends_the_tester_and_its_workers():
    code, err, workers = _interrupt(["test", "statdp.SVT", "--select-runs", "2000000",
                                     "--jobs", "2"], workers=2, sent=signal.SIGTERM)
    assert code == 143
    assert "Traceback" not in err and err.splitlines()[-1] == "exactdp: terminated"
    assert not any(_running(pid) for pid in workers)


def test_ctrl_c_leaves_the_previous_reproduce_output(tmp_path):
    out = tmp_path / "figures"
    out.mkdir()
    (out / "claims.json").write_text("previous complete set\n")
    code, err, workers = _interrupt(["reproduce", "--only", "statdp-figures", "--jobs", "1",
                                     "--out", str(out)], workers=1)
    assert code == 130
    assert "Traceback" not in err and err.splitlines()[-1] == "exactdp: interrupted"
    assert not any(_running(pid) for pid in workers)
    assert [p.name for p in out.iterdir()] == ["claims.json"]            # no staging left
    assert (out / "claims.json").read_text() == "previous complete set\n"


def test_ctrl_c_leaves_no_reproduce_output_when_there_was_none(tmp_path):
    out = tmp_path / "figures"
    code, err, _ = _interrupt(["reproduce", "--only", "statdp-figures", "--jobs", "1",
                               "--out", str(out)], workers=1)
    assert code == 130 and "Traceback" not in err
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------ one neighbour option

@pytest.mark.parametrize("command, rest", [
    ("loss", ["--output", "F"]),
    ("maxloss", []),
    ("crosscheck", ["--event", "false_count=1", "--runs", "2000"]),
    ("test", ["--test-eps", "0.5", "--runs", "2000", "--select-runs", "2000"]),
])
def test_every_command_with_two_inputs_takes_any_pair(capsys, command, rest):
    mech = "statdp.SVT" if command in {"crosscheck", "test"} else "svt1"
    argv = [command, mech, "--d1", "0", "--d2", "5", *rest]
    err = one_line_error(capsys, argv)
    assert "not neighbours" in err and "--any-pair" in err
    assert main([*argv, "--any-pair", "--json"]) == 0
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    if command in {"loss", "crosscheck"}:
        # ⊥ on a query equal to the threshold: P[ν < ρ] = 1/2 (ρ − ν is symmetric)
        assert float(record["p1"]) == 0.5


# ------------------------------------------------------------------ imports, help, N, JSON

@pytest.mark.parametrize("argv", [["list"], ["prob", "svt1", "--queries", "0", "--output", "F"],
                                  ["loss", "svt1", "--d1", "0", "--d2", "1", "--output", "F"]])
def test_light_commands_do_not_import_scipy_matplotlib_or_sympy(argv):
    code = ("import sys; from exactdp.cli import main; main(%r); "
            "print(sorted(m for m in ('scipy', 'matplotlib', 'sympy') if m in sys.modules))"
            % (argv,))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    assert result.stdout.splitlines()[-1] == "[]"


def _modules_after(code: str) -> list[str]:
    """The modules of exactdp, numpy and FLINT imported by ``code`` in a fresh interpreter."""
    code += "; import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in " \
            "('exactdp', 'numpy', 'flint')))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    return eval(result.stdout.splitlines()[-1])


def test_the_top_level_help_imports_no_command_module():
    modules = _modules_after("from exactdp.cli import build_parser; build_parser()")
    assert modules == ["exactdp", "exactdp.cli", "exactdp.errors"]


def test_list_imports_the_catalogue_only():
    """The catalogue needs the noise laws (and through them mpmath and flint, ~0.1 s), not numpy
    (~0.25 s), the engine or the command modules."""
    modules = _modules_after("from exactdp.cli import main; main(['list'])")
    assert "exactdp.cli.list_command" in modules and "exactdp.mechanisms" in modules
    assert not {"numpy", "exactdp.exact", "exactdp.programs", "exactdp.cli.common",
                "exactdp.cli.exact_commands"} & set(modules)


def test_a_command_help_imports_its_module_only():
    modules = _modules_after("from exactdp.cli import build_parser; build_parser('sweep')")
    assert "exactdp.cli.sweep_command" in modules
    assert not {"exactdp.cli.tester_commands", "exactdp.cli.exact_commands",
                "exactdp.cli.reproduce_command"} & set(modules)


def test_the_top_level_help_lists_every_command_with_its_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name, (_, helptext) in COMMANDS.items():
        assert f"    {name} " in out and helptext.split()[0] in out


@pytest.mark.parametrize("argv", [
    ["test", "statdp.SVT"], ["crosscheck", "statdp.SVT"],
    ["sweep", "svt1", "--d1", "0", "--d2", "1", "--output", "F", "--t", "1"],
    ["reproduce", "--only", "svt5-simple"],
])
def test_jobs_beyond_eight_per_processor_are_refused(capsys, argv, monkeypatch):
    _must_not_compute(monkeypatch)
    bound = 8 * (os.cpu_count() or 1)
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--jobs", str(bound + 1)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--jobs must be at most {bound}" in err
    assert f"--jobs={bound + 1}" in err


@pytest.mark.parametrize("command", ["test", "crosscheck", "sweep", "reproduce"])
def test_the_jobs_bound_is_stated_in_the_help(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert f"at most {8 * (os.cpu_count() or 1)}: 8 per processor" in \
        " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_help_explains_the_notation(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    for phrase in ("x*k", "k copies of x", "T, F", "⊤", "⊥", "ln(p1/p2)", "nats"):
        assert phrase in text, (command, phrase)


@pytest.mark.parametrize("name", ["statdp.iSVT1", "statdp.iSVT2"])
def test_statdp_variants_without_cutoff_accept_n(capsys, name):
    # N has no effect: N=3 gives N=1's answer.  iSVT1 has no query noise, so with T = 0 the
    # answers to 0, 1, 2 are all ⊤ iff ρ ≤ 0: probability 1/2.
    answers = []
    for n in ("1", "3"):
        assert main(["prob", name, "--param", f"N={n}", "--queries", "0,1,2",
                     "--output", "T,T,T", "--json"]) == 0
        answers.append(json.loads(capsys.readouterr().out)["probability"])
    assert answers[0] == answers[1]
    if name == "statdp.iSVT1":
        assert float(answers[0]) == 0.5
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    block = listing[listing.index(f"{name}  —"):].split("\n\n")[0]
    assert "N has no effect" in block.splitlines()[1]


@pytest.mark.parametrize("argv", [
    ["loss", "svt1", "--d1", "0", "--d2", "1", "--output", "F", "--json"],
    ["maxloss", "svt1", "--d1", "0", "--d2", "1", "--json"],
])
def test_loss_json_has_error_and_method(capsys, argv):
    assert main(argv) == 0
    record = json.loads(capsys.readouterr().out)
    assert float(record["error"]) < 1e-25 and record["method"]


@pytest.mark.parametrize("argv, spelled", [
    (["prob", "svt1", "--queries", "-1.04*4", "--output", "F*4", "--json"],
     ["prob", "svt1", "--queries=-1.04*4", "--output", "F*4", "--json"]),
    (["loss", "svt1", "--d1", "-1,0", "--d2", "-2,1", "--output", "F,F", "--json"],
     ["loss", "svt1", "--d1=-1,0", "--d2=-2,1", "--output", "F,F", "--json"]),
    (["prob", "svt3", "--param", "c=2", "--queries", "-1,2", "--output", "-0.5,F", "--json"],
     ["prob", "svt3", "--param", "c=2", "--queries=-1,2", "--output=-0.5,F", "--json"]),
])
def test_a_negative_first_entry_is_a_value(capsys, argv, spelled):
    assert main(spelled) == 0
    expected = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == expected


# ------------------------------------------------------------------ reproducible output

def test_reproduce_writes_the_same_bytes_with_one_or_two_workers(tmp_path, capsys):
    # each worker is a fresh interpreter with its own string-hash seed, and the claims finish
    # in an order that depends on the number of workers: neither may change a byte
    for jobs in ("1", "2"):
        assert main(["reproduce", "--only", "svt5-simple", "svt3-appendix", "--jobs", jobs,
                     "--out", str(tmp_path / jobs)]) == 0
    capsys.readouterr()
    for name in ("claims.json", "claims.md", "svt5-simple.png", "svt3-appendix.png"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name


def test_a_reader_closing_the_output_early_ends_the_command_quietly():
    # `exactdp list | head -1`: the reader is gone before the command writes; it must end with
    # 128 + SIGPIPE and no traceback, as other Unix tools do (the pipe's read end is closed at
    # once, so every write fails).
    read_end, write_end = os.pipe()
    os.close(read_end)
    finished = subprocess.run([sys.executable, "-m", "exactdp", "list"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(write_end)
    assert finished.returncode == 128 + signal.SIGPIPE
    assert finished.stderr == ""
