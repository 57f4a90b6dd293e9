"""``exactdp reconstruct``: Chen & Machanavajjhala's reconstruction attack with GPTT
(``exactdp.attacks``; the mathematics in docs/reconstruction.md)."""

from __future__ import annotations

import argparse
from fractions import Fraction

import mpmath

from ..attacks import DEFAULT_DELTA, parse_dataset
from ..attacks.reconstruction import check_budget, check_repetitions
from ..attacks.report import PAPER_ADULT, report
from ..checks import MAX_SIMULATED_ENTRIES, check_seed
from ..errors import InputError
from ..formatting import format_value
from ..progress import START_DELAY, Progress
from ..sequences import format_number, to_fraction
from .common import add_json_argument, write_json

#: Significant digits of the exact figures in the text tables (JSON carries all of them).
TABLE_DIGITS = 8


def parse_budgets(text: str) -> list:
    """``"1,0.5,0.1"`` → the exact budgets (each in the range of
    :func:`~exactdp.attacks.reconstruction.check_budget`, none repeated)."""
    budgets = [check_budget(to_fraction(item, "--eps"), "--eps values", repr(item.strip()))
               for item in text.split(",")]
    if len(set(budgets)) != len(budgets):
        raise InputError(f"--eps lists a value twice, got {text!r}")
    return budgets


def theorem_verdict(record: dict, bound: Fraction) -> str:
    """Theorem 5.12's ``Pr ≥ 1 − δ`` decided on the enclosure of the exact probability (decimal
    ends rounded outward, compared exactly with the bound ``1 − δ``)."""
    if Fraction(record["theorem_5_12_probability_lower"]) >= bound:
        return "holds"
    if Fraction(record["theorem_5_12_probability_upper"]) < bound:
        return "FAILS"
    return "undecided at this precision"


def _row(label: str, cells: list[str], width: int = 14) -> str:
    return f"  {label:<34}" + "".join(f"{cell:>{width}}" for cell in cells)


def print_tables(records: list[dict], budgets: list, delta: Fraction, adult: bool) -> None:
    """Tables 1–3 in the paper's layout, the paper's Adult numbers beside exactdp's; the
    ``budgets`` and ``delta`` spelled exactly (``1/3``)."""
    first = records[0]
    eps = [format_number(budget) for budget in budgets]
    print(f"Reconstruction attack with GPTT (Chen & Machanavajjhala, arXiv:1508.07306, §5) on "
          f"{first['dataset']}: Algorithm 4 with ε1 = ε2 = ε/2, δ = {format_number(delta)} (the "
          f"paper does not state its δ)")
    print()
    print("Table 1: the data set")
    print(_row("", ["Domain", "Scale", "k"], 10))
    print(_row(f"{first['dataset']} (exactdp)",
               [str(first["domain"]), str(first["scale"]),
                "—" if first["k"] is None else str(first["k"])], 10))
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
    for e, r in zip(eps, records):
        if r["theorem_5_12_m"] is None:
            why = "no cell is empty" if r["k"] is None else f"k = {r['k']} ≤ 2α = " \
                f"{2 * r['theorem_5_12_alpha']}"
            print(f"  ε = {e}: hypothesis fails ({why})")
        else:
            verdict = theorem_verdict(r, 1 - delta)
            print(f"  ε = {e}: α = {r['theorem_5_12_alpha']}, m = {r['theorem_5_12_m']}: "
                  f"exact {r['theorem_5_12_probability']} (± {r['theorem_5_12_error']}) vs "
                  f"1 − δ = {format_number(1 - delta)}: {verdict}")
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
    repetitions = check_repetitions(histogram, args.repetitions, "--repetitions")
    seed = check_seed(args.seed)
    records = []
    with Progress(len(budgets), "reconstructing", "budget", delay=START_DELAY) as bar:
        for epsilon in budgets:
            records.append(report(histogram, epsilon, delta, repetitions, seed, args.dps))
            bar.update()
    if args.json:
        write_json(records)
    else:
        print_tables(records, budgets, delta, args.dataset == "adult")
    return 0


def register(subparsers) -> None:
    """Add the ``reconstruct`` subcommand."""
    sub = subparsers.add_parser("reconstruct")
    sub.add_argument("--dataset", required=True, metavar="DATA",
                     help="adult (UCI Adult capital-loss, 4096 cells), "
                     "zipf:DOMAIN,TOTAL,EXPONENT,SEED, or FILE.csv (one count per line, or the "
                     "column named by --column)")
    sub.add_argument("--column", default=None, metavar="NAME",
                     help="the CSV column holding the counts (the file then has a header line)")
    sub.add_argument("--eps", required=True, metavar="LIST",
                     help="comma-separated total budgets ε (ε1 = ε2 = ε/2), each from 1e-15 to "
                     "1e15, e.g. 1,0.5,0.1")
    sub.add_argument("--delta", default=str(DEFAULT_DELTA.numerator / DEFAULT_DELTA.denominator),
                     metavar="D", help="δ of the threshold ⌈(1/ε1) ln(1/δ)⌉ (default 0.05; "
                     "the paper does not state its δ)")
    sub.add_argument("--repetitions", type=int, default=10, metavar="R",
                     help=f"simulated repetitions (default 10, as in the paper); R times the "
                     f"draws of one (the distinct counts + 1) at most {MAX_SIMULATED_ENTRIES:,}")
    sub.add_argument("--seed", type=int, default=0, help="simulation seed (default 0)")
    sub.add_argument("--dps", type=int, default=30,
                     help="significant digits of the exact figures (default 30)")
    add_json_argument(sub, "a JSON list with one object per ε")
    sub.set_defaults(run=run_reconstruct)
