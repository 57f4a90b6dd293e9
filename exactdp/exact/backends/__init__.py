"""The numeric back-ends that evaluate the integral form: closed forms, quadratures in mpmath and
in Arb balls, and the engines that evaluate every output of a mechanism at once (docs/engine.md)."""
