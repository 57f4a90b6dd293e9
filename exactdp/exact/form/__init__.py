"""Building the integral form: each family's outputs as sums of integrals over one hub noise
(docs/mathematics.md §3), and the log integrand the quadratures share."""
