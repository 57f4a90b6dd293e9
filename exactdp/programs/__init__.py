"""Mechanisms written as plain Python functions in StatDP's calling convention.

``f(prng, queries, epsilon, **kwargs)``, whose only randomness is ``prng.laplace`` /
``prng.exponential`` (Wang, Ding, Wang, Kifer & Zhang, "StatDP: Proving Differential Privacy
Violations by Statistical Testing", CCS 2018, §5).  :func:`program` wraps such a function as a
mechanism; :func:`load_program` finds one from the command line's ``FILE.py:FUNCTION`` or
``package.module:FUNCTION``.
"""

# Importing these registers the programs' rules: sampler, event view, exact engine.
from . import exact, outputs, sampling  # noqa: F401
from .model import Program, is_program_spec, load_program, program

__all__ = ["Program", "is_program_spec", "load_program", "program"]
