"""Data files shipped with exactdp (read with :mod:`importlib.resources`); each has a ``.md``
file next to it with its provenance and licence."""
