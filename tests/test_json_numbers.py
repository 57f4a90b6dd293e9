"""Every number in every command's ``--json`` is a JSON integer (a count) or a decimal string that
``float``, ``decimal.Decimal`` and ``mpmath.mpf`` all read: no JSON float, and no input echoed as
typed (``1/2``); ``--help`` names the JSON's shape (one object, or a list)."""

import json
import re
from decimal import Decimal

import mpmath
import pytest

from exactdp.cli import build_parser, main

#: Fields holding inputs, outputs or events in the command line's notation (``0*3,1/3``,
#: ``F,T``, ``out0 <= 1``), or prose: text, not numbers.
NOTATION_FIELDS = {"d1", "d2", "output", "event", "recheck", "event_recheck", "mechanism",
                   "dataset"}
#: One number, or something a reader could take for one (``1/2``, ``inf``): a single token.
NUMBER_LIKE = re.compile(r"[+-]?(\d|\.\d)[\w./+-]*|[+-]?(inf|infinity|nan)", re.I)

#: Every command with --json, on small inputs; numbers typed as fractions where a command takes
#: one, to see them spelled as decimals.
COMMANDS = {
    "prob": ["prob", "svt1", "--queries", "0,1/2", "--output", "F,T", "--dps", "5"],
    "prob-zero": ["prob", "gptt", "--param", "eps2=inf", "--queries", "1,0", "--output", "F,T"],
    "loss": ["loss", "svt1", "--d1", "0,0", "--d2", "1/2,1", "--output", "F,T", "--dps", "8"],
    "loss-infinite": ["loss", "gptt", "--param", "eps2=inf", "--d1", "0,1", "--d2", "1,0",
                      "--output", "F,T"],
    "maxloss": ["maxloss", "svt1", "--d1", "0,0", "--d2", "1,1", "--dps", "8"],
    "profile": ["profile", "svt1", "--d1", "0,0", "--d2", "1,1", "--eps", "1/2,1/3,0",
                "--dps", "8"],
    "renyi": ["renyi", "svt1", "--d1", "0,0", "--d2", "1,1", "--alpha", "3/2,inf", "--dps", "8"],
    "search": ["search", "bad_partial_sum", "--param", "eps=1/3", "--max-length", "2",
               "--evaluations", "3"],
    "search-delta": ["search", "svt1", "--delta", "1/100", "--eps", "1/3", "--max-length", "2",
                     "--evaluations", "3"],
    "search-alpha": ["search", "svt1", "--alpha", "3/2", "--max-length", "2", "--evaluations",
                     "3"],
    "zcdp": ["zcdp", "svt1", "--d1", "0,0", "--d2", "1,1", "--dps", "8"],
    "profile-compose": ["profile", "svt1", "--d1", "0,0", "--d2", "1,1", "--eps", "1/2,0",
                        "--compose", "2", "--dps", "8"],
    "pld": ["pld", "svt1", "--d1", "0,0", "--d2", "1/2,1", "--dps", "8"],
    "search-rho": ["search", "svt1", "--rho", "1/3", "--max-length", "2", "--evaluations", "3",
                   "--dps", "6"],
    "verify": ["verify", "svt1", "--param", "eps=1/2", "--values", "0,1/2", "--length", "2",
               "--eps", "1/2", "--delta", "1/100", "--dps", "8"],
    "sweep": ["sweep", "svt1", "--param", "eps=1/2", "--d1", "{t},0", "--d2", "0,0", "--output",
              "F,F", "--t", "1/3,1", "--dps", "8"],
    "test": ["test", "statdp.SVT", "--d1", "1,1", "--d2", "2,0", "--test-eps", "0.5,1",
             "--runs", "2000", "--select-runs", "1000"],
    "crosscheck": ["crosscheck", "statdp.histogram_eps", "--param", "eps=1/2", "--d1", "1",
                   "--d2", "2", "--event", "value in (-inf, 1/2)", "--runs", "500"],
    "pvalue": ["pvalue", "--c1", "3", "--c2", "1", "--n", "5", "--eps", "0.3"],
    "utility": ["utility", "svt1", "--param", "c=2", "--queries", "3,1,2", "--digits", "8",
                "--simulate", "20"],
    "reconstruct": ["reconstruct", "--dataset", "zipf:20,100,1.5,0", "--eps", "1,1/3",
                    "--delta", "1/20", "--repetitions", "3", "--dps", "10"],
}


def numbers(node, where: str = "$"):
    """``(where, value)`` of every number-like value under ``node``; fails on a JSON float."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in NOTATION_FIELDS:
                yield from numbers(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from numbers(value, f"{where}[{index}]")
    elif isinstance(node, float):
        pytest.fail(f"{where}: {node!r} is a JSON float, not a decimal string")
    elif isinstance(node, int) and not isinstance(node, bool):
        yield where, node  # a count: exact in JSON
    elif isinstance(node, str) and NUMBER_LIKE.fullmatch(node.strip()):
        yield where, node


def _run(capsys, argv):
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_number_is_a_decimal_string_all_readers_parse(name, capsys):
    found = list(numbers(_run(capsys, COMMANDS[name])))
    assert any(isinstance(value, str) for _, value in found), "no decimal string was checked"
    for where, value in found:
        for parse in (float, Decimal, mpmath.mpf):
            try:
                parse(value)
            except Exception as exc:  # the message names the field and the spelling
                pytest.fail(f"{name} {where}: {parse.__name__}({value!r}) fails: {exc}")


def test_inputs_typed_as_fractions_are_echoed_as_decimals(capsys):
    # exact decimals where the fraction has one, else --dps significant digits
    profile = _run(capsys, COMMANDS["profile"])
    assert [record["eps"] for record in profile] == ["0.5", "0.33333333", "0"]
    assert [record["alpha"] for record in _run(capsys, COMMANDS["renyi"])] == ["1.5", "inf"]
    sweep = _run(capsys, COMMANDS["sweep"])
    assert [(record["t"], record["params"]) for record in sweep] == \
        [("0.33333333", {"eps": "0.5"}), ("1", {"eps": "0.5"})]
    delta = _run(capsys, COMMANDS["search-delta"])
    assert (delta["eps"], delta["claimed_delta"]) == ("0.333333333333333", "0.01")
    assert _run(capsys, COMMANDS["search"])["claimed"] == "0.333333333333333"
    reconstruct = _run(capsys, COMMANDS["reconstruct"])
    assert [(r["eps"], r["eps1"], r["delta"], r["theorem_5_12_bound"]) for r in reconstruct] == \
        [("1", "0.5", "0.05", "0.95"), ("0.3333333333", "0.1666666667", "0.05", "0.95")]


def test_the_tester_prints_its_numbers_as_decimals(capsys):
    (first, second) = _run(capsys, COMMANDS["test"])
    assert (first["test_eps"], second["test_eps"]) == ("0.5", "1.0")
    assert 0 <= Decimal(first["p_value"]) <= 1
    # the exact loss: its enclosure's ends rounded outward around the printed centre
    low, centre, high = (Decimal(first[key]) for key in (
        "exact_event_eps_lower", "exact_event_eps", "exact_event_eps_upper"))
    assert low <= centre <= high and high - low < Decimal("1e-8")
    # 0.45337350017181... by direct enumeration (tests/test_sampling_hypothesis.py, mpmath)
    (p_value,) = _run(capsys, COMMANDS["pvalue"]).values()
    assert abs(Decimal(p_value) - Decimal("0.4533735001718")) < Decimal("1e-12")


@pytest.mark.parametrize("name", ["prob", "loss", "maxloss", "profile", "renyi", "search",
                                  "sweep", "test", "crosscheck", "pvalue", "utility",
                                  "reconstruct", "zcdp", "pld"])
def test_help_names_the_shape_of_the_json(name, capsys):
    command = COMMANDS[name][0]
    parser = build_parser(command)
    subparsers = next(action for action in parser._actions if action.dest == "command")
    (json_option,) = [action for action in subparsers.choices[command]._actions
                      if "--json" in action.option_strings]
    printed = _run(capsys, COMMANDS[name])
    shape = "list" if isinstance(printed, list) else "object"
    assert f"JSON {shape}" in json_option.help
    assert ("JSON list" in json_option.help) == isinstance(printed, list)
