"""Programs drawing Gaussian noise with ``prng.normal`` (numpy's signature), for the tests."""


def gaussian_svt(prng, queries, sigma1=2, sigma2=4, T=0):
    """The Gaussian Sparse Vector with cutoff 1 (Zhu & Wang, NeurIPS 2020)."""
    rho = prng.normal(scale=sigma1)
    out = []
    for q in queries:
        if q + prng.normal(scale=sigma2) >= T + rho:
            out.append(True)
            break
        out.append(False)
    return out


def negated_threshold(prng, queries):
    """``q + ν − ρ ≥ 0`` written with the threshold noise subtracted: ν ~ N(0, 1), ρ ~ N(0, 4)."""
    rho = prng.normal(0, 2)
    return [q + prng.normal() - rho >= 0 for q in queries]
