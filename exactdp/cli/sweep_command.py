"""``exactdp sweep``: the exact privacy loss over a family of inputs ``D1(t)``, ``D2(t)``,
``a(t)``, one series per parameter value, as a table, JSON or a plot (``exactdp.sweep``)."""

from __future__ import annotations

import argparse
import sys

from ..checks import check_writable
from ..sweep import parameter_series, parse_t_values, plot, series_label, sweep
from .common import (add_any_pair_argument, add_jobs_argument, add_json_argument,
                     add_program_arguments, add_scheduler_argument, make_mechanism,
                     parse_params, write_json)


def run_sweep(args: argparse.Namespace) -> int:
    plot_path = None if args.plot is None else check_writable(args.plot, "--plot", (".png",))
    ts = parse_t_values(args.t)
    values = {name: [v.strip() for v in text.split(",")]
              for name, text in parse_params(args.param).items()}
    series = [(params, make_mechanism(args.mechanism, params, args.trace_timeout,
                                      args.max_paths))
              for params in parameter_series(values)]
    points = sweep(series, args.d1, args.d2, ts, output=args.output, event=args.event,
                   dps=args.dps, jobs=args.jobs, progress=True, allow_any_pair=args.any_pair)
    if plot_path is not None:
        plot(points, [mech.claimed_eps for _, mech in series], plot_path,
             f"{args.mechanism}: D1 = {args.d1}, D2 = {args.d2}, "
             f"{'a' if args.output else 'E'} = {args.output or args.event}")
    records = [point.record(args.dps, text=not args.json) for point in points]
    if args.json:
        write_json(records)
    else:
        _print_table(args, records, plot_path)
    failed = sum(point.failure is not None for point in points)
    if failed:
        print(f"exactdp: cannot answer: {failed} of {len(points)} points failed (their rows "
              f"say why)", file=sys.stderr)
    return 1 if failed else 0


def _print_table(args: argparse.Namespace, records: list[dict], plot_path) -> None:
    """One line per point: its loss, or why it failed."""
    print(f"{args.mechanism}: exact privacy loss ln(p1/p2) of "
          f"{'the output ' + args.output if args.output else 'the event ' + args.event} "
          f"on D1 = {args.d1}, D2 = {args.d2}")
    width = max(len(r["t"]) for r in records)
    for r in records:
        label = series_label(r["params"]) if r["params"] else ""
        result = f"failed: {r['failure']}" if "failure" in r else \
            f"ln ratio {r['log_ratio']}  (error {r['error']}; p1 {r['p1']}, p2 {r['p2']})"
        print(f"  t={r['t'].rjust(width)}  {label + '  ' if label else ''}{result}")
    if plot_path is not None:
        print(f"  plot: {plot_path}")


def register(subparsers) -> None:
    """Add the ``sweep`` subcommand."""
    sub = subparsers.add_parser("sweep")
    sub.add_argument("mechanism", metavar="MECH", help="catalogue name (see `exactdp list`), or "
                     "a function in StatDP's convention as FILE.py:FUNCTION")
    sub.add_argument("--param", action="append", default=[], metavar="K=V[,V...]",
                     help="parameter; several comma-separated values make one series each "
                     "(repeatable; several swept parameters give every combination)")
    add_program_arguments(sub)
    sub.add_argument("--d1", required=True, metavar="TEMPLATE",
                     help="query answers on D1, {t} standing for t, e.g. '0*{t},1*{t}'")
    sub.add_argument("--d2", required=True, metavar="TEMPLATE", help="query answers on D2")
    chosen = sub.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--output", metavar="TEMPLATE", help="the output, e.g. 'F*{t},T'")
    chosen.add_argument("--event", metavar="TEMPLATE", help="an event instead, e.g. "
                        "'false_count={t}'")
    sub.add_argument("--t", required=True, metavar="LIST|a:b:step|a:b:log",
                     help="values of t: a list (1,2,5), a range a:b:step, or log-spaced "
                     "integers a:b:log (ten per decade, ends included)")
    sub.add_argument("--plot", metavar="FILE.png", help="draw ln ratio against t")
    sub.add_argument("--dps", type=int, default=15, help="significant digits (default 15)")
    add_jobs_argument(sub, 1)
    add_scheduler_argument(sub)
    add_any_pair_argument(sub)
    add_json_argument(sub, "a JSON list with one object per point (t and parameter values)")
    sub.set_defaults(run=run_sweep)
