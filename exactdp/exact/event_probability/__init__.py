"""The exact probability of an event ``Pr[M(D) ∈ E]``: the generic rule and each family's."""
