"""``exactdp reconstruct``: Chen & Machanavajjhala's reconstruction attack with GPTT
(``exactdp.attacks``; the mathematics in docs/reconstruction.md)."""

from __future__ import annotations

import argparse
import json
import sys

import mpmath

from ..attacks import (DEFAULT_DELTA, Budget, Histogram, exact_accuracy, parse_dataset,
                       simulate, theorem_5_12_probability)
from ..checks import check_positive, check_seed
from ..errors import InputError
from ..formatting import format_supported, format_value
from ..sequences import format_number, to_fraction
from .common import add_json_argument, error_digits

#: Chen & Machanavajjhala, arXiv:1508.07306, Tables 1–3, the Adult row (means of 10 repetitions).
PAPER_ADULT = {"domain": 4096, "scale": 17665, "k": 15, "small_cells": 4062,
               "accuracy": {"1": "0.994", "0.5": "0.991", "0.1": "0.981"},
               "accuracy_small": {"1": "0.999", "0.5": "0.997", "0.1": "0.992"}}
#: Significant digits of the exact figures in the text tables (JSON carries all of them).
TABLE_DIGITS = 8


def parse_budgets(text: str) -> list:
    """``"1,0.5,0.1"`` → the exact budgets (each positive, none repeated)."""
    budgets = [to_fraction(item, "--eps") for item in text.split(",")]
    for budget, item in zip(budgets, text.split(",")):
        if budget <= 0:
            raise InputError(f"--eps values must be positive, got {item.strip()!r}")
    if len(set(budgets)) != len(budgets):
        raise InputError(f"--eps lists a value twice, got {text!r}")
    return budgets


def _exact(figure, dps: int) -> tuple[str, str]:
    return format_supported(figure.value, figure.error, dps), error_digits(figure.error)


def record(histogram: Histogram, epsilon, delta, repetitions: int, seed: int, dps: int) -> dict:
    """The JSON object of one budget: Table 1's columns, exact and simulated accuracies
    (Tables 2 and 3), and Theorem 5.12's exact probability against its bound 1 − δ."""
    budget = Budget.algorithm_4(epsilon, delta)
    exact = exact_accuracy(histogram, budget, dps)
    simulated = simulate(histogram, budget, repetitions, seed)
    theorem = Budget.algorithm_3(epsilon, delta)
    last = histogram.support_k - 2 * theorem.threshold
    probability = theorem_5_12_probability(histogram, theorem, dps=dps) if last >= 0 else None
    out = {"dataset": histogram.name, "domain": histogram.domain, "scale": histogram.scale,
           "k": histogram.support_k, "small_cells": histogram.small_cells(),
           "eps": format_number(epsilon), "eps1": format_number(budget.epsilon1),
           "eps2": format_number(budget.epsilon2), "delta": format_number(delta),
           "threshold": budget.threshold}
    out["exact_accuracy"], out["exact_accuracy_error"] = _exact(exact.accuracy, dps)
    if exact.accuracy_small is None:
        out["exact_accuracy_small"] = out["exact_accuracy_small_error"] = None
    else:
        out["exact_accuracy_small"], out["exact_accuracy_small_error"] = \
            _exact(exact.accuracy_small, dps)
    small = simulated.accuracy_small
    out |= {"simulated_accuracy": float(simulated.accuracy.mean()),
            "simulated_accuracy_small": None if exact.accuracy_small is None
            else float(small.mean()),
            "repetitions": simulated.repetitions, "seed": seed,
            "theorem_5_12_alpha": theorem.threshold, "theorem_5_12_m": last if last >= 0 else None,
            "theorem_5_12_probability": None, "theorem_5_12_error": None,
            "theorem_5_12_bound": format_number(1 - delta)}
    if probability is not None:
        out["theorem_5_12_probability"], out["theorem_5_12_error"] = _exact(probability, dps)
    return out


def _row(label: str, cells: list[str], width: int = 14) -> str:
    return f"  {label:<34}" + "".join(f"{cell:>{width}}" for cell in cells)


def print_tables(records: list[dict], adult: bool) -> None:
    """Tables 1–3 in the paper's layout, the paper's Adult numbers beside exactdp's."""
    first = records[0]
    eps = [r["eps"] for r in records]
    print(f"Reconstruction attack with GPTT (Chen & Machanavajjhala, arXiv:1508.07306, §5) on "
          f"{first['dataset']}: Algorithm 4 with ε1 = ε2 = ε/2, δ = {first['delta']} (the paper "
          f"does not state its δ)")
    print()
    print("Table 1: the data set")
    print(_row("", ["Domain", "Scale", "k"], 10))
    print(_row(f"{first['dataset']} (exactdp)",
               [str(first["domain"]), str(first["scale"]), str(first["k"])], 10))
    if adult:
        print(_row("Adult (paper)", [str(PAPER_ADULT[key]) for key in ("domain", "scale", "k")],
                   10))
    for number, (key, title) in enumerate((("accuracy", "all cells"),
                                          ("accuracy_small", "cells with counts in [0, 5]")),
                                         start=2):
        print()
        cells = f", # of cells {first['small_cells']}" if key == "accuracy_small" else ""
        paper_cells = f" (paper {PAPER_ADULT['small_cells']})" if adult and cells else ""
        print(f"Table {number}: fraction of {title} guessed right{cells}{paper_cells}")
        print(_row("", [f"ε = {e}" for e in eps]))
        print(_row(f"exact expected ({TABLE_DIGITS} digits)",
                   [_short(r[f"exact_{key}"]) for r in records]))
        print(_row(f"simulated (mean of {first['repetitions']}, seed {first['seed']})",
                   ["—" if r[f"simulated_{key}"] is None else f"{r[f'simulated_{key}']:.4f}"
                    for r in records]))
        if adult:
            print(_row("paper (mean of 10)", [PAPER_ADULT[key].get(e, "—") for e in eps]))
    if adult:
        print()
        print("The paper's Adult histogram has 17665 tuples and k = 15; this one (UCI Adult "
              "training file, 4096 equal-width capital-loss cells) has 32561 and k = 10, so the "
              "numbers differ.")
    print()
    print("Theorem 5.12 (Algorithm 3 alone with budget ε, α = ⌈ln(1/δ)/ε⌉, m = k − 2α): "
          "Pr[P_i = S_i for all i ≤ m] ≥ 1 − δ when k > 2α")
    for r in records:
        if r["theorem_5_12_m"] is None:
            print(f"  ε = {r['eps']}: hypothesis fails (k = {r['k']} ≤ 2α = "
                  f"{2 * r['theorem_5_12_alpha']})")
        else:
            verdict = "holds" if float(r["theorem_5_12_probability"]) >= float(
                r["theorem_5_12_bound"]) else "FAILS"
            print(f"  ε = {r['eps']}: α = {r['theorem_5_12_alpha']}, m = {r['theorem_5_12_m']}: "
                  f"exact {r['theorem_5_12_probability']} (± {r['theorem_5_12_error']}) vs "
                  f"1 − δ = {r['theorem_5_12_bound']}: {verdict}")
    print("Lemma 5.10 (parts ordered by count): probability 1 for every noisy threshold "
          "(docs/reconstruction.md).")


def _short(text: str | None) -> str:
    if text is None:
        return "—"
    if "±" in text:
        return text
    return format_value(mpmath.mpf(text), TABLE_DIGITS)


def run_reconstruct(args: argparse.Namespace) -> int:
    histogram = parse_dataset(args.dataset, args.column)
    budgets = parse_budgets(args.eps)
    delta = to_fraction(args.delta, "--delta")
    if not 0 < delta < 1:
        raise InputError(f"--delta must be strictly between 0 and 1, got {args.delta}")
    repetitions = check_positive("--repetitions", args.repetitions)
    seed = check_seed(args.seed)
    records = [record(histogram, epsilon, delta, repetitions, seed, args.dps)
               for epsilon in budgets]
    if args.json:
        json.dump(records, sys.stdout)
        sys.stdout.write("\n")
    else:
        print_tables(records, args.dataset == "adult")
    return 0


def register(subparsers) -> None:
    """Add the ``reconstruct`` subcommand."""
    sub = subparsers.add_parser(
        "reconstruct", help="Chen & Machanavajjhala's reconstruction of a histogram with GPTT: "
        "exact expected accuracy and simulation")
    sub.add_argument("--dataset", required=True, metavar="DATA",
                     help="adult (UCI Adult capital-loss, 4096 cells), "
                     "zipf:DOMAIN,TOTAL,EXPONENT,SEED, or FILE.csv (one count per line, or the "
                     "column named by --column)")
    sub.add_argument("--column", default=None, metavar="NAME",
                     help="the CSV column holding the counts (the file then has a header line)")
    sub.add_argument("--eps", required=True, metavar="LIST",
                     help="comma-separated total budgets ε (ε1 = ε2 = ε/2), e.g. 1,0.5,0.1")
    sub.add_argument("--delta", default=str(DEFAULT_DELTA.numerator / DEFAULT_DELTA.denominator),
                     metavar="D", help="δ of the threshold ⌈(1/ε1) ln(1/δ)⌉ (default 0.05; "
                     "the paper does not state its δ)")
    sub.add_argument("--repetitions", type=int, default=10, metavar="R",
                     help="simulated repetitions (default 10, as in the paper)")
    sub.add_argument("--seed", type=int, default=0, help="simulation seed (default 0)")
    sub.add_argument("--dps", type=int, default=30,
                     help="significant digits of the exact figures (default 30)")
    add_json_argument(sub)
    sub.set_defaults(run=run_reconstruct)
