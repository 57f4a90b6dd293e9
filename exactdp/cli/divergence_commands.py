"""``exactdp profile``, ``renyi``, ``zcdp`` and ``pld``: the privacy profile δ(ε) (of the pair
or of its ``--compose K``-fold composition), the Rényi divergences D_α, the zCDP
``ρ = sup_α D_α/α`` and the privacy-loss distribution of a mechanism on two inputs, one record
per ε or α (a table, ``--json`` a list, ``--plot`` δ against ε), one record for ``ρ`` and for
the distribution."""

from __future__ import annotations

import argparse

import mpmath

from ..checks import check_writable
from ..errors import InputError
from ..exact.divergences.composition import MAX_COMPOSED_ATOMS, check_compositions
from ..exact.divergences.loss_distribution import privacy_loss_distribution
from ..exact.divergences.profile import privacy_profile
from ..exact.divergences.renyi import renyi_divergence
from ..exact.divergences.zcdp import zcdp
from ..formatting import decimal_text, printed_number
from .common import (add_any_pair_argument, add_json_argument, add_mechanism_arguments,
                     add_precision_arguments, build_mechanism, emit, query_text,
                     write_json)


def _tokens(text: str, option: str) -> list[str]:
    """The comma-separated entries of ``option`` (each parsed by the library)."""
    tokens = [token.strip() for token in text.split(",")]
    if not text.strip() or not all(tokens):
        raise InputError(f"{option} must be a comma-separated list of numbers, got {text!r}")
    return tokens


def _record(name: str, token: str, order, value_name: str, enclosed, digits: int,
            text: bool) -> dict[str, str]:
    """One row: the ε or α as typed (``token``) in the table, as a decimal in JSON (``order``,
    the exact value: ``1/2`` is ``"0.5"``), and the enclosed value."""
    printed = printed_number(enclosed.value, digits, enclosure=(enclosed.lower, enclosed.upper))
    if text:
        return {name: token, value_name: printed.text,
                "enclosure": f"[{printed.lower}, {printed.upper}]"}
    return {name: decimal_text(order, digits), value_name: printed.value,
            "lower": printed.lower, "upper": printed.upper}


def _print(args: argparse.Namespace, records: list[dict[str, str]], title: str) -> None:
    """``--json``: the list of records; else a title and one aligned row per record."""
    if args.json:
        write_json(records)
        return
    print(title)
    widths = {key: max(len(key), *(len(record[key]) for record in records))
              for key in records[0]}
    print("  " + "  ".join(key.ljust(width) for key, width in widths.items()))
    for record in records:
        print("  " + "  ".join(record[key].ljust(width) for key, width in widths.items()))


def _plot(path, points, title: str) -> None:
    """δ against ε (the centres; each enclosure is far below a pixel at the digits asked)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 3.5))
    axes.plot([float(point.eps) for point in points],
              [float(point.delta.value) for point in points], marker=".")
    axes.set_xlabel("ε")
    axes.set_ylabel("δ(ε)")
    axes.set_title(title, fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def run_profile(args: argparse.Namespace) -> int:
    plot = None if args.plot is None else check_writable(args.plot, "--plot", (".png",))
    compositions = check_compositions(args.compose)
    mech = build_mechanism(args)
    tokens = _tokens(args.eps, "--eps")
    points = privacy_profile(mech, args.d1, args.d2, tokens, dps=args.dps,
                             allow_any_pair=args.any_pair, compositions=compositions)
    title = f"{mech}: privacy profile δ(ε) = sup_E P[M(D1)∈E] − e^ε P[M(D2)∈E] (certified)"
    if compositions > 1:
        title += (f"\n  of {compositions} independent runs on D1 against {compositions} on D2 "
                  f"(a lower bound on the composed mechanism's δ unless the pair dominates)")
    records = [_record("eps", token, point.eps, "delta", point.delta, args.dps, not args.json)
               for token, point in zip(tokens, points)]
    step = points[0].grid_step
    if step is not None:
        title += "\n  " + _coarsened_note(points, step, args.dps)
        if args.json:
            for record in records:
                record["grid_step"] = decimal_text(step, 30)
    _print(args, records, title)
    if plot is not None:
        _plot(plot, points, f"{mech}\nD1 = {args.d1}, D2 = {args.d2}")
    return 0


def _coarsened_note(points, step, dps: int) -> str:
    """The table's line on a coarsened composition: the grid step, and whether the brackets
    prove the digits asked."""
    short = any(mpmath.fsub(point.delta.upper, point.delta.lower, exact=True)
                > mpmath.mpf(10) ** -dps for point in points)
    reach = (f"wider than the 10^-{dps} asked (the finest grid within the size budget): "
             f"printed to the digits it proves" if short else f"within 10^-{dps}")
    return (f"too many composed atoms to sum exactly: [lower, upper] brackets δ with every loss "
            f"coarsened to a grid of step {decimal_text(step, 6)}, {reach}")


def run_renyi(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    tokens = _tokens(args.alpha, "--alpha")
    points = renyi_divergence(mech, args.d1, args.d2, tokens, dps=args.dps,
                              allow_any_pair=args.any_pair)
    title = f"{mech}: Rényi divergence D_α(M(D1) ‖ M(D2)) in nats (certified)"
    _print(args, [_record("alpha", token, point.alpha, "divergence", point.divergence,
                          args.dps, not args.json) for token, point in zip(tokens, points)],
           title)
    return 0


def run_zcdp(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    result = zcdp(mech, args.d1, args.d2, dps=args.dps, allow_any_pair=args.any_pair)
    emit(args, result.fields(args.dps, text=not args.json),
         f"{mech}: zCDP ρ = sup_α D_α(M(D1) ‖ M(D2))/α in nats (certified)")
    return 0


def run_pld(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    distribution = privacy_loss_distribution(mech, args.d1, args.d2, dps=args.dps,
                                             allow_any_pair=args.any_pair)
    emit(args, distribution.fields(args.dps, text=not args.json),
         f"{mech}: privacy-loss distribution of ln(P[M(D1)=o]/P[M(D2)=o]), o ~ M(D1), in nats "
         f"(certified)")
    return 0


#: ``--compose``'s help, which ``docs/mathematics.md`` §15 expands.
COMPOSE_HELP = ("δ(ε) of K independent runs on D1 against K on D2 (default 1): exact for "
                f"finitely many outputs up to {MAX_COMPOSED_ATOMS:,} composed atoms, beyond "
                "that a certified bracket [lower, upper] from losses coarsened to a grid "
                "(printed to the digits it proves, JSON key grid_step), and exact for Gaussian "
                "releases. A lower bound on the composed mechanism's δ unless the "
                "pair is a dominating pair (Zhu, Dong & Wang, AISTATS 2022)")


def register(subparsers) -> None:
    """Add ``profile``, ``renyi``, ``zcdp`` and ``pld``."""
    for name in ("profile", "renyi", "zcdp", "pld"):
        sub = subparsers.add_parser(name)
        add_mechanism_arguments(sub)
        sub.add_argument("--d1", required=True, metavar="Q", type=query_text,
                         help="query answers on D1 (or @FILE: one number per line)")
        sub.add_argument("--d2", required=True, metavar="Q", type=query_text,
                         help="query answers on D2 (or @FILE)")
        if name == "profile":
            sub.add_argument("--eps", required=True, metavar="LIST",
                             help="values of ε ≥ 0, comma-separated, e.g. 0,0.5,1")
            sub.add_argument("--plot", metavar="FILE.png", help="also draw δ against ε")
            sub.add_argument("--compose", metavar="K", default="1", help=COMPOSE_HELP)
        elif name == "renyi":
            sub.add_argument("--alpha", required=True, metavar="LIST",
                             help="orders α > 1 or inf, comma-separated, e.g. 1.5,2,inf")
        add_precision_arguments(sub, method=False)
        add_any_pair_argument(sub)
        if name == "zcdp":
            add_json_argument(sub, 'one JSON object {"rho", "rho_lower", "rho_upper", '
                              '"alpha"}')
        elif name == "pld":
            add_json_argument(sub, 'one JSON object {"losses", "probabilities", '
                              '"infinity_mass"} with the enclosures "losses_lower", '
                              '"losses_upper", "probabilities_lower", … (lists)')
        elif name == "profile":
            add_json_argument(sub, 'a JSON list with one object per ε {"eps", "delta", '
                              '"lower", "upper", and "grid_step" when a composition is '
                              'bracketed on a grid}')
        else:
            add_json_argument(sub, "a JSON list with one object per α")
        sub.set_defaults(run={"profile": run_profile, "renyi": run_renyi, "zcdp": run_zcdp,
                              "pld": run_pld}[name])
