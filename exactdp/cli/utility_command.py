"""``exactdp utility``: exact selection probabilities and expected FNR and SER of a selection
mechanism (``exactdp/utility.py``)."""

from __future__ import annotations

import argparse

from ..formatting import printed_ball
from ..progress import Progress
from ..utility import ORDERS, expected_utility
from .common import add_json_argument, build_mechanism, emit, query_text


def _order(text: str) -> str:
    if text not in ORDERS:
        raise argparse.ArgumentTypeError(f"--order must be given or random, got {text!r}")
    return text


def run_utility(args: argparse.Namespace) -> int:
    mech = build_mechanism(args, utility=True)
    with Progress(0, "selection integrals", "piece", enabled=None) as bar:
        def advance(finished):
            bar.update(1)

        result = expected_utility(mech, args.queries, args.order, args.dps, progress=advance)
    selection = [printed_ball(p, args.dps) for p in result.selection]
    fnr = printed_ball(result.fnr, args.dps)
    ser = None if result.ser is None else printed_ball(result.ser, args.dps)
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
    sub.add_argument("--dps", type=int, default=15,
                     help="decimal digits of absolute accuracy (default 15)")
    add_json_argument(sub)
    sub.set_defaults(run=run_utility, trace_timeout=None)
