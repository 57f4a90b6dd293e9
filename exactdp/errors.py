"""Exception types of exactdp.

Every error a user can cause is an :class:`InputError` (a ``ValueError``) whose message names the
broken condition and echoes the offending value; the CLI prints that message on one line and exits
with code 2.  A computation that cannot reach the requested precision raises :class:`PrecisionError`
instead of returning doubtful digits.
"""


class ExactDPError(Exception):
    """Base class of every exception raised on purpose by exactdp."""


class InputError(ExactDPError, ValueError):
    """A mechanism, parameter, query vector or output that is not valid."""


class PrecisionError(ExactDPError, ArithmeticError):
    """The requested number of correct digits could not be reached (or defended)."""


class MethodUnavailableError(ExactDPError):
    """The requested evaluation method cannot be applied to this integral (e.g. a closed form too
    large to expand)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM reached the command line: it unwinds like Ctrl-C (ending any worker process) and
    exits with code 143 (128 + 15)."""
