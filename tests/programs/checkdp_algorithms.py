"""CheckDP's Sparse Vector variants with numeric outputs (Wang, Ding, Kifer & Zhang, "CheckDP: An
Automated and Integrated Approach for Proving Differential Privacy or Finding Precise
Counterexamples", CCS 2020, arXiv:2008.07485, appendix D) as plain functions in StatDP's calling
convention; at a ⊥ they output ``False``."""


def gap_svt(prng, queries, epsilon, N, T):
    """Releases the gap between the noisy answer and the noisy threshold at a ⊤."""
    noisy_threshold = T + prng.laplace(scale=2.0 / epsilon)
    out, count = [], 0
    for query in queries:
        noisy_query = query + prng.laplace(scale=4.0 * N / epsilon)
        if noisy_query >= noisy_threshold:
            out.append(noisy_query - noisy_threshold)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def num_svt(prng, queries, epsilon, N, T):
    """Releases a fresh noisy answer at a ⊤ (ε split in thirds)."""
    noisy_threshold = T + prng.laplace(scale=3.0 / epsilon)
    out, count = [], 0
    for query in queries:
        if query + prng.laplace(scale=6.0 * N / epsilon) >= noisy_threshold:
            out.append(query + prng.laplace(scale=3.0 * N / epsilon))
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out
