"""``exactdp utility``: exact selection probabilities and expected FNR and SER of a selection
mechanism (``exactdp/exact/selection/``)."""

from __future__ import annotations

import argparse

import numpy as np

from ..checks import check_seed
from ..errors import InputError
from ..formatting import printed_ball
from ..programs.tracing import PATH_LIMIT
from ..progress import START_DELAY, Progress
from ..sampling.selection import check_runs, run_rates, simulate_selection
from ..sequences import as_queries
from ..exact.selection import ORDERS, expected_utility
from .common import add_jobs_argument, add_json_argument, build_mechanism, emit, query_text


def _order(text: str) -> str:
    if text not in ORDERS:
        raise argparse.ArgumentTypeError(f"--order must be given or random, got {text!r}")
    return text


def _simulated(mech, args: argparse.Namespace, c: int) -> dict:
    """The mean and standard deviation of FNR and SER over ``--simulate`` seeded runs of a
    mechanism selecting (at most) ``c`` queries."""
    selected = simulate_selection(mech, args.queries, args.simulate,
                                  np.random.default_rng(args.seed), args.order)
    summary = {"runs": args.simulate, "seed": args.seed}
    for name, rates in zip(("fnr", "ser"), run_rates(selected, args.queries, c)):
        if rates is not None:
            spread = rates.std(ddof=1) if rates.size > 1 else 0.0
            summary.update({f"{name}_mean": f"{rates.mean():.6g}", f"{name}_sd": f"{spread:.6g}"})
    return summary


def run_utility(args: argparse.Namespace) -> int:
    mech = build_mechanism(args, utility=True)
    if args.simulate is not None:  # refused before the exact computation, not after
        if args.simulate < 1:
            raise InputError(f"--simulate must be a positive number of runs, got "
                             f"{args.simulate}")
        check_runs(args.simulate, len(as_queries(args.queries).expand()))
        check_seed(args.seed)
    with Progress(0, "selection integrals", "piece", delay=START_DELAY) as bar:
        reported = 0

        def advance(finished, note=""):
            nonlocal reported
            if note:  # work before or after the quadrature
                bar.update(0, note)
            else:  # the pieces finished so far: one by one, or a group at a time
                bar.update(max(0, finished - reported))
                reported = finished

        result = expected_utility(mech, args.queries, args.order, args.digits,
                                  progress=advance, jobs=args.jobs)
    selection = [printed_ball(p, args.digits) for p in result.selection]
    fnr = printed_ball(result.fnr, args.digits)
    ser = None if result.ser is None else printed_ball(result.ser, args.digits)
    errors = [fnr.error] + ([ser.error] if ser is not None else [])
    record = {"mechanism": str(mech), "order": args.order}
    if args.json:
        record.update({
            "selection": [p.value for p in selection],
            "selection_lower": [p.lower for p in selection],
            "selection_upper": [p.upper for p in selection],
        })
    else:
        record["selection"] = ", ".join(p.text for p in selection)
    record.update(fnr.fields("fnr", not args.json))
    if ser is None:  # null in JSON
        record["ser"] = None if args.json else "undefined (the top c answers sum to at most 0)"
    else:
        record.update(ser.fields("ser", not args.json))
    record["error"] = max(errors, key=float)
    record["method"] = "certified"
    if args.simulate is not None:
        simulated = _simulated(mech, args, len(result.top))
        record["simulated"] = simulated if args.json else (
            f"{simulated['runs']} runs (seed {simulated['seed']}): FNR "
            f"{simulated['fnr_mean']} ± {simulated['fnr_sd']}"
            + (f", SER {simulated['ser_mean']} ± {simulated['ser_sd']}" if "ser_mean" in simulated
               else "") + " (mean ± standard deviation)")
    emit(args, record, f"{mech}: expected utility ({args.order} order, certified)")
    return 0


def register(subparsers) -> None:
    """Add ``utility``."""
    sub = subparsers.add_parser("utility")
    sub.add_argument("mechanism", metavar="MECH",
                     help="a ⊤/⊥ Sparse Vector variant with a cutoff c, em_top or "
                          "svt_retraversal (see `exactdp list`)")
    sub.add_argument("--param", action="append", default=[], metavar="K=V",
                     help="mechanism parameter, e.g. eps=0.5, c=2, T=1 (repeatable)")
    sub.add_argument("--queries", required=True, metavar="Q", type=query_text,
                     help="query answers (scores), e.g. 5,3,3,1 or 1*10, or @FILE: one number "
                          "per line")
    sub.add_argument("--order", type=_order, default="given",
                     help="queries examined in the given order (default) or a uniformly "
                          "random one")
    sub.add_argument("--digits", type=int, default=15,
                     help="decimal digits of absolute accuracy of each probability (default "
                          "15; not the significant digits --dps means for the other commands)")
    sub.add_argument("--simulate", type=int, metavar="RUNS",
                     help="also run the mechanism RUNS times (seeded) and print the mean and "
                          "standard deviation of the runs' FNR and SER beside the exact values")
    sub.add_argument("--seed", type=int, default=0, help="seed of the simulated runs (default 0)")
    add_jobs_argument(sub, 1)
    add_json_argument(sub)
    sub.set_defaults(run=run_utility, trace_timeout=None, max_paths=PATH_LIMIT)
