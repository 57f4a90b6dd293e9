"""Mechanisms written as plain Python functions in StatDP's calling convention.

``f(prng, queries, epsilon, **kwargs)``, whose only randomness is ``prng.laplace`` /
``prng.exponential`` (Wang, Ding, Wang, Kifer & Zhang, "StatDP: Proving Differential Privacy
Violations by Statistical Testing", CCS 2018, §5).  :func:`program` wraps such a function as a
mechanism; :func:`load_program` finds one from the command line's ``FILE.py:FUNCTION`` or
``package.module:FUNCTION``.
"""

from .. import exact as _engine  # noqa: F401  (the engine first: it imports programs.exact)
from . import outputs, sampling  # noqa: F401  (register the sampler and the event view)
from .model import Program, is_program_spec, load_program, program
from . import exact  # registers the exact engine of programs  # noqa: E402,F401

__all__ = ["Program", "is_program_spec", "load_program", "program"]
