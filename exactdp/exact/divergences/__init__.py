"""Divergences of a pair of inputs: the privacy profile δ(ε) and the Rényi divergences."""
