"""The notation of the command line's values, which every subcommand's ``--help`` ends with."""

from __future__ import annotations

from ..sequences import MAX_LENGTH, MAX_MAGNITUDE

#: The notation every subcommand's ``--help`` ends with.
EPILOG = f"""\
notation:
  x*k        k copies of x: --queries 0*1000,1*1000 is 1000 zeros then 1000 ones (at most
             {MAX_LENGTH:.0e} entries in all; numbers are exact decimals of magnitude at most
             {MAX_MAGNITUDE:.0e})
  T, F       the answers ⊤ (above the threshold) and ⊥ (below) in an output: --output F*999,T
  -1,0       a value may start with a minus sign: --d1 -1,0 and --d1=-1,0 are the same
  log_ratio  the privacy loss ln(p1/p2) in nats (natural logarithm), p1 and p2 the probabilities
             (or densities) of the output or event on D1 and D2
"""
