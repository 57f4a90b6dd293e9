"""Every command's JSON parses: each field meant as a number is a JSON integer (a count) or a
decimal string that ``float``, ``decimal.Decimal`` and ``mpmath.mpf`` all accept ("inf"/"-inf"
included), and
printed enclosures hold their printed values.  Every field of every record must be named in one of
the lists below: a new field fails the test until it is classified."""

import json
from decimal import Decimal

import mpmath
import pytest

from exactdp.cli import main

#: Strings that are numbers.
DECIMAL_FIELDS = {
    "probability", "log_probability", "lower", "upper", "log_lower", "log_upper", "error",
    "log_error", "p1", "p2", "log_ratio", "log_ratio_lower", "log_ratio_upper", "log_ratio_error",
    "sum_p1", "sum_p2", "outputs_enumerated", "t", "event_log_ratio", "eps", "eps1", "eps2",
    "delta", "exact_accuracy", "exact_accuracy_error", "exact_accuracy_lower",
    "exact_accuracy_upper", "exact_accuracy_small", "exact_accuracy_small_error",
    "exact_accuracy_small_lower", "exact_accuracy_small_upper", "theorem_5_12_bound",
    "theorem_5_12_probability", "theorem_5_12_error", "theorem_5_12_probability_lower",
    "theorem_5_12_probability_upper", "closed_form", "alpha", "divergence", "fnr", "fnr_lower",
    "fnr_upper", "ser", "ser_lower", "ser_upper", "delta_lower", "delta_upper", "claimed_delta",
    "test_eps", "p_value", "exact_event_eps", "exact_event_eps_lower", "exact_event_eps_upper",
    "simulated_accuracy", "simulated_accuracy_halfwidth", "simulated_accuracy_small",
    "simulated_accuracy_small_halfwidth", "rho", "rho_lower", "rho_upper", "claimed_rho",
    "infinity_mass", "infinity_mass_lower", "infinity_mass_upper",
}
#: Lists of strings that are numbers.
DECIMAL_LIST_FIELDS = {"selection", "selection_lower", "selection_upper", "losses",
                       "losses_lower", "losses_upper", "probabilities", "probabilities_lower",
                       "probabilities_upper"}
#: Strings that are numbers, or the word "none" for an absent claim.
DECIMAL_OR_NONE_FIELDS = {"claimed"}
#: Strings that are not numbers (names, inputs, outputs, events, verdicts, commands, prose).
TEXT_FIELDS = {
    "method", "output", "mechanism", "d1", "d2", "event", "verdict", "stopped_by", "recheck",
    "event_recheck", "dataset", "id", "source", "claim", "family", "detail", "what", "latex",
    "series", "exact_unavailable", "order",
}
#: Fields holding JSON integers (counts), booleans, null, lists or objects (walked into).
OTHER_FIELDS = {
    "c1", "c2", "runs", "interval1", "interval2",
    "consistent", "evaluations", "first_violation", "domain", "scale", "k", "small_cells",
    "threshold", "repetitions", "seed", "theorem_5_12_alpha",
    "theorem_5_12_m", "size", "certified", "closed_forms", "points",
}
#: Objects whose every value is a decimal string (a mechanism's parameters).
PARAMETER_FIELDS = {"params"}
#: Pairs (value, lower end, upper end) printed together.
ENCLOSURES = [("probability", "lower", "upper"), ("log_probability", "log_lower", "log_upper"),
              ("log_ratio", "log_ratio_lower", "log_ratio_upper"),
              ("delta", "lower", "upper"), ("delta", "delta_lower", "delta_upper"),
              ("divergence", "lower", "upper"), ("rho", "rho_lower", "rho_upper"),
              ("exact_accuracy", "exact_accuracy_lower", "exact_accuracy_upper"),
              ("exact_accuracy_small", "exact_accuracy_small_lower", "exact_accuracy_small_upper"),
              ("theorem_5_12_probability", "theorem_5_12_probability_lower",
               "theorem_5_12_probability_upper"),
              ("fnr", "fnr_lower", "fnr_upper"), ("ser", "ser_lower", "ser_upper"),
              ("exact_event_eps", "exact_event_eps_lower", "exact_event_eps_upper"),
              ("infinity_mass", "infinity_mass_lower", "infinity_mass_upper")]


def assert_decimal(text, where: str) -> None:
    assert isinstance(text, str), f"{where}: {text!r} is not a decimal string"
    for parse in (float, Decimal, mpmath.mpf):
        try:
            parse(text)
        except Exception as exc:  # the message names the field and the spelling
            pytest.fail(f"{where}: {parse.__name__}({text!r}) fails: {exc}")


def walk(node, where: str = "$") -> int:
    """Check every field under ``node``; the number of numbers (strings or JSON) checked."""
    if isinstance(node, list):
        return sum(walk(item, f"{where}[{i}]") for i, item in enumerate(node))
    if not isinstance(node, dict):
        return 0
    checked = 0
    for key, value in node.items():
        at = f"{where}.{key}"
        if value is None:
            continue
        if key in DECIMAL_FIELDS or (key in DECIMAL_OR_NONE_FIELDS and value != "none"):
            assert_decimal(value, at)
            checked += 1
        elif key in DECIMAL_LIST_FIELDS:
            assert isinstance(value, list) and value, f"{at}: {value!r} is not a list"
            for i, item in enumerate(value):
                assert_decimal(item, f"{at}[{i}]")
                checked += 1
        elif key in PARAMETER_FIELDS:
            for name, parameter in value.items():
                assert_decimal(parameter, f"{at}.{name}")
                checked += 1
        elif key in TEXT_FIELDS or key in DECIMAL_OR_NONE_FIELDS:
            assert isinstance(value, str), f"{at}: {value!r}"
        elif key in OTHER_FIELDS:
            assert not isinstance(value, str), f"{at}: {value!r} is a string"
            checked += 1 + walk(value, at)
        else:
            pytest.fail(f"{at}: field not classified in this test")
    for value_key, lower_key, upper_key in ENCLOSURES:
        if node.get(lower_key) is not None and node.get(value_key) is not None:
            low, value, high = (mpmath.mpf(node[k]) for k in (lower_key, value_key, upper_key))
            assert low <= value <= high, f"{where}: {value_key} outside its printed enclosure"
    return checked


COMMANDS = {
    "prob": ["prob", "svt1", "--queries", "0,1,0", "--output", "F,T", "--dps", "5"],
    "prob-estimate": ["prob", "svt1", "--queries", "0,1,0", "--output", "F,T", "--dps", "5",
                      "--method", "estimate"],
    "prob-event": ["prob", "svt1", "--queries", "0,1", "--event", "false_count=1"],
    "prob-zero": ["prob", "gptt", "--param", "eps2=inf", "--queries", "1,0", "--output", "F,T"],
    # identical inputs: ln(p1/p2) is 0 and smaller than its error bound
    "loss-identical": ["loss", "svt1", "--d1", "0,0", "--d2", "0,0", "--output", "F,T"],
    "loss-identical-estimate": ["loss", "svt1", "--d1", "0,0", "--d2", "0,0", "--output", "F,T",
                                "--method", "estimate"],
    "loss-infinite": ["loss", "gptt", "--param", "eps2=inf", "--d1", "0,1", "--d2", "1,0",
                      "--output", "F,T"],
    "loss-event": ["loss", "svt1", "--d1", "0,0", "--d2", "1,1", "--event", "false_count=2"],
    "maxloss": ["maxloss", "svt1", "--d1", "0,0", "--d2", "1,1"],
    "profile": ["profile", "svt1", "--d1", "0,0", "--d2", "1,1", "--eps", "0,0.1,2"],
    "renyi": ["renyi", "svt1", "--d1", "0,0", "--d2", "1,1", "--alpha", "1.5,2,inf"],
    "zcdp": ["zcdp", "svt1", "--d1", "0,0", "--d2", "1,1"],
    "profile-compose": ["profile", "svt1", "--d1", "0,0", "--d2", "1,1", "--eps", "0,0.1",
                        "--compose", "3"],
    "pld": ["pld", "svt1", "--d1", "0,0,0", "--d2", "0,0,1"],
    "sweep": ["sweep", "svt1", "--param", "eps=0.5,1", "--d1", "0*{t}", "--d2", "1*{t}",
              "--output", "F*{t}", "--t", "1,2"],
    "test": ["test", "statdp.SVT", "--d1", "1,1", "--d2", "2,0", "--test-eps", "0.5", "--runs",
             "2000", "--select-runs", "1000"],
    "crosscheck": ["crosscheck", "statdp.histogram_eps", "--param", "eps=0.5", "--d1", "1",
                   "--d2", "2", "--event", "value in (-inf, 0.5)", "--runs", "500"],
    "pvalue": ["pvalue", "--c1", "3", "--c2", "1", "--n", "5", "--eps", "0.3"],
    "search": ["search", "bad_partial_sum", "--max-length", "3", "--evaluations", "5"],
    "utility": ["utility", "svt1", "--param", "c=2", "--queries", "3,1,2", "--digits", "8"],
    "utility-em-top": ["utility", "em_top", "--param", "c=1", "--queries", "0,0",
                       "--order", "random", "--digits", "8"],
    "search-delta": ["search", "svt1", "--delta", "0.01", "--eps", "0.5", "--max-length", "2",
                     "--evaluations", "4"],
    "reconstruct": ["reconstruct", "--dataset", "adult", "--eps", "1,0.1", "--repetitions", "2"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_number_in_a_commands_json_parses(name, capsys):
    assert main([*COMMANDS[name], "--json"]) == 0
    assert walk(json.loads(capsys.readouterr().out)) > 0


def test_every_number_in_claims_json_parses(tmp_path, capsys):
    assert main(["reproduce", "--out", str(tmp_path), "--only", "svt5-simple"]) == 0
    capsys.readouterr()
    assert walk(json.loads((tmp_path / "claims.json").read_text(encoding="utf-8"))) > 0


def test_a_loss_smaller_than_its_error_parses_in_json_and_reads_zero_in_text():
    # the equal probabilities of two inputs computed along different integrals: the log ratio's
    # centre −1.4e-48 is far inside its error bound 1.2e-43
    from exactdp.exact.losses.privacy_loss import PrivacyLoss
    from exactdp.formatting import loss_record
    from exactdp.precision import Probability

    side = Probability(mpmath.mpf("0.25"), mpmath.log(mpmath.mpf("0.25")), mpmath.mpf("1e-44"),
                       "estimate closed+quad", False, 30)
    loss = PrivacyLoss(side, side, mpmath.mpf("-1.4e-48"), mpmath.mpf("1.2e-43"))
    record = loss_record(loss, 30)
    assert walk(record) == 4
    assert mpmath.mpf(record["error"]) >= mpmath.mpf("1.2e-43")
    assert loss_record(loss, 30, text=True)["log_ratio"].startswith("0 ± ")
