"""``exactdp pvalue``, ``crosscheck`` and ``test``: StatDP's sampling tester on the command line."""

from __future__ import annotations

import argparse

import numpy as np

from mpmath import mpf

from ..formatting import format_bound, printed_probability
from ..checks import check_seed
from ..sampling.hypothesis import MAX_SAMPLES, STATDP_SAMPLES, p_value
from ..sampling.inputs import LENGTHS
from ..sampling.tester import (MAX_RUNS, MAX_TEST_EPS, NEIGHBOUR_NOTIONS, SELECT_RUNS, TEST_RUNS,
                               check_event_log, check_lengths, crosscheck, detect,
                               parse_eps_list, write_event_log)
from ..sequences import format_number
from .common import (add_any_pair_argument, add_jobs_argument, add_json_argument,
                     add_mechanism_arguments, add_scheduler_argument, build_mechanism, emit,
                     query_text, write_json)

#: ``exactdp test``'s default test budgets.
DEFAULT_TEST_EPS = "0.2:2:0.2"


def run_pvalue(args: argparse.Namespace) -> int:
    """``exactdp pvalue``: StatDP's p-value of two counts (exact expectation, or ``--samples``)."""
    rng = None if args.samples is None else np.random.default_rng(check_seed(args.seed))
    value = p_value(args.c1, args.c2, args.n, args.eps, samples=args.samples, rng=rng)
    emit(args, {"p_value": value}, "StatDP p-value of H0: p1 ≤ e^ε p2"
         + (" (exact expectation over the thinning)" if args.samples is None else
            f" (average over {args.samples} thinning draws)"))
    return 0


def _queries(values) -> str:
    return ",".join(format_number(v) for v in values)


def run_crosscheck(args: argparse.Namespace) -> int:
    """``exactdp crosscheck``: sampled counts of one event against its exact probabilities."""
    mech = build_mechanism(args)
    check = crosscheck(mech, args.d1, args.d2, args.event, runs=args.runs, seed=args.seed,
                       jobs=args.jobs, progress=True, allow_any_pair=args.any_pair,
                       lengths=check_lengths(args.lengths), neighbours=args.neighbours)
    emit(args, {
        "d1": _queries(check.d1), "d2": _queries(check.d2), "event": str(check.event),
        **{side: printed_probability(getattr(check.exact, side), 12)[0].value
           for side in ("p1", "p2")},
        **check.exact.loss_fields(),
        "runs": check.runs, "c1": check.c1, "c2": check.c2,
        "interval1": list(check.interval1), "interval2": list(check.interval2),
        "consistent": check.consistent,
    }, f"{mech}: sampled counts against exact probabilities (99.9% binomial intervals)")
    return 0


#: The table's column of the exact loss: which way it is taken.
LOSS_HEADER = "ln P[M(d1)∈E] − ln P[M(d2)∈E]"


def _shown_loss(record: dict) -> str:
    """The exact loss of a record: its certified enclosure ``[lower, upper]`` rounded outward
    to 6 significant digits, else the value (an infinity, or an estimate) or ``n/a``."""
    exact = record["exact_event_eps"]
    if exact is None:
        return "n/a"
    if "exact_event_eps_lower" in record and "inf" not in exact:
        return (f"[{format_bound(mpf(record['exact_event_eps_lower']), 6, False)}, "
                f"{format_bound(mpf(record['exact_event_eps_upper']), 6, True)}]")
    return exact


def run_test(args: argparse.Namespace) -> int:
    """``exactdp test``: StatDP's detector, each verdict beside the event's exact loss."""
    mech = build_mechanism(args)
    log_path = None if args.log_events is None else check_event_log(args.log_events)
    event_log = [] if log_path is not None else None
    results = detect(mech, parse_eps_list(args.test_eps), args.d1, args.d2, runs=args.runs,
                     select_runs=args.select_runs, seed=args.seed, jobs=args.jobs, progress=True,
                     allow_any_pair=args.any_pair, lengths=check_lengths(args.lengths),
                     neighbours=args.neighbours, reselect=args.reselect, event_log=event_log)
    if log_path is not None:
        write_event_log(log_path, event_log)
    records = [result.record() for result in results]
    if args.json:
        write_json(records)
        return 0
    print(f"{mech}: StatDP test (p < 0.05 rejects ε-DP), beside the exact privacy loss of the "
          f"event E tested, in nats: positive when E is likelier on d1, negative on d2")
    shown = [_shown_loss(r) for r in records]
    width = max([len(LOSS_HEADER)] + [len(text) for text in shown])
    print(f"  {'test ε':>7}  {'p-value':>10}  {LOSS_HEADER:>{width}}  event  [d1 | d2]")
    for result, r, text in zip(results, records, shown):
        print(f"  {result.test_eps:>7g}  {result.p_value:>10.3g}  {text:>{width}}  "
              f"{r['event']}  [{r['d1']} | {r['d2']}]")
    for reason in dict.fromkeys(r["exact_unavailable"] for r in records
                                if "exact_unavailable" in r):
        print(f"  exact loss: not available: {reason}")
    if log_path is not None:
        print(f"  counts and p-values of {len(event_log):,} candidate events: {log_path}")
    return 0


def _add_tester_arguments(parser: argparse.ArgumentParser, runs: int, json_shape: str) -> None:
    add_mechanism_arguments(parser)
    parser.add_argument("--d1", metavar="Q", type=query_text, help="query answers on D1 "
                        "(or @FILE: one number per line; default: StatDP's input patterns, "
                        "lengths 5 and 10)")
    parser.add_argument("--d2", metavar="Q", type=query_text, help="query answers on D2 "
                        "(or @FILE)")
    add_any_pair_argument(parser)
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), metavar="N,N",
                        help="lengths of StatDP's input patterns (default "
                        f"{','.join(map(str, LENGTHS))})")
    parser.add_argument("--neighbours", choices=NEIGHBOUR_NOTIONS, default="all",
                        help="StatDP's neighbour notion: every query may move by the "
                        "sensitivity (all, default) or one query only (one)")
    parser.add_argument("--runs", type=int, default=runs, help=f"runs per input (default {runs}, "
                        f"at most {MAX_RUNS:,}); progress is reported on stderr")
    parser.add_argument("--seed", type=int, default=0, help="seed of every draw (default 0)")
    add_jobs_argument(parser, 1)
    add_scheduler_argument(parser)
    add_json_argument(parser, json_shape)


def register(subparsers) -> None:
    """Add ``pvalue``, ``crosscheck`` and ``test``."""
    pvalue = subparsers.add_parser("pvalue")
    pvalue.add_argument("--c1", type=int, required=True, help="count of the event on D1")
    pvalue.add_argument("--c2", type=int, required=True, help="count of the event on D2")
    pvalue.add_argument("--n", type=int, required=True, help="runs on each input")
    pvalue.add_argument("--eps", type=float, required=True, help="test ε")
    pvalue.add_argument("--samples", type=int, metavar="K", help=f"average over K random "
                        f"thinning draws (StatDP: K={STATDP_SAMPLES}; at most {MAX_SAMPLES:,}) "
                        f"instead of the exact expectation")
    pvalue.add_argument("--seed", type=int, default=0, help="seed of the draws (default 0)")
    add_json_argument(pvalue)
    pvalue.set_defaults(run=run_pvalue)

    check = subparsers.add_parser("crosscheck")
    _add_tester_arguments(check, SELECT_RUNS, "one JSON object")
    check.add_argument("--event", metavar="E", help="e.g. 'false_count=3', 'hamming=2', "
                       "'index=0', 'out0 in (-inf, 1.5)', 'output=F,T', clauses joined by 'and' "
                       "(default: selected); exact_event_eps is ln P[M(d1)∈E] − ln P[M(d2)∈E] "
                       "in nats")
    check.set_defaults(run=run_crosscheck)

    test = subparsers.add_parser("test")
    _add_tester_arguments(test, TEST_RUNS, "a JSON list with one object per test ε")
    test.add_argument("--test-eps", default=DEFAULT_TEST_EPS, metavar="LIST|a:b:step",
                      help=f"test budgets (default {DEFAULT_TEST_EPS}; at most {MAX_TEST_EPS})")
    test.add_argument("--select-runs", type=int, default=SELECT_RUNS,
                      help=f"runs per input for the event selection (default {SELECT_RUNS}, at "
                      f"most {MAX_RUNS:,})")
    test.add_argument("--reselect", action="store_true", help="a fresh selection batch for "
                      "every test ε, as StatDP's paper (default: one batch serves every ε)")
    test.add_argument("--log-events", metavar="FILE", help="write the selection counts and "
                      "p-value of every candidate event (FILE.json or FILE.csv)")
    test.set_defaults(run=run_test)

