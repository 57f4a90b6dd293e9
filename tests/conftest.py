"""Shared pytest configuration: hypothesis profile (deterministic, no deadline)."""

from hypothesis import HealthCheck, settings

# Derandomised: the examples are a fixed function of the test, so a run is reproducible.
settings.register_profile("exactdp", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("exactdp")
