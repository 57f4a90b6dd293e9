"""The package's imports form a strict stack: no import circle, no import from a lower layer
into a higher one (docs/architecture.md, "The stack").

Every ``import`` and ``from … import`` of an ``exactdp`` module is an edge, wherever it stands:
at the top of a module or inside a function (an import moved into a function still runs, and a
circle it closes still exists).  Edges are read with :mod:`ast`, without importing anything.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "exactdp"

#: The layers, lowest first: a module may import modules of its own layer or of a lower one.
#: A module's layer is that of the longest prefix listed; ``""`` is the package's ``__init__``.
#: A new module outside every prefix fails :func:`test_every_module_has_a_layer` until listed.
LAYERS = (
    ("foundation", ("errors", "checks", "precision", "refinement", "sequences", "registry",
                    "progress", "cluster", "workers", "formatting", "sampled_outputs", "data",
                    "hashed_once")),
    ("noise laws", ("noise", "discrete_gaussian_law", "normal_doubles")),
    ("mechanisms", ("mechanisms",)),
    ("events", ("events",)),
    ("exact engine", ("exact",)),
    ("sampling", ("sampling",)),
    ("programs", ("programs",)),
    ("questions", ("search", "delta_search", "renyi_search", "sweep", "verify", "attacks",
                   "claims", "accounting")),
    ("command line", ("cli", "__main__", "")),
)


def _modules() -> dict:
    """Dotted name (without ``exactdp.``; the package itself is ``""``) → (path, is package)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _resolve(name: str, modules: dict) -> str:
    """The module ``name`` (or, for an imported attribute, the module holding it) refers to."""
    while name not in modules:
        name = name.rpartition(".")[0]
    return name


def _edges(modules: dict) -> dict:
    """Module → {imported module: line of the first import}, every import statement counted."""
    edges = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ["exactdp", *filter(None, package.split("."))]
                    base = base[:len(base) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if target == "exactdp" or target.startswith("exactdp."):
                    imported = _resolve(target.removeprefix("exactdp").lstrip("."), modules)
                    if imported != name:
                        edges.setdefault(name, {}).setdefault(imported, node.lineno)
    return edges


def _layer(name: str) -> int:
    """Index in :data:`LAYERS` of the longest prefix of ``name`` listed there."""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = name == prefix or bool(prefix) and name.startswith(prefix + ".")
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def _circles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return components


MODULES = _modules()
EDGES = _edges(MODULES)


def test_the_edges_are_read():
    """The reader sees a known top-level and a known relative import (the test can fail)."""
    assert "errors" in EDGES["precision"]
    assert "mechanisms.description" in EDGES["exact.form.threshold"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_has_a_layer(name):
    assert _layer(name) is not None


def test_no_import_circle():
    assert _circles(EDGES) == []


def test_the_circle_finder_finds_one():
    assert _circles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [
        ["a", "b", "c"]]


def test_no_import_runs_up():
    upward = [f"exactdp.{name} (line {line}, {LAYERS[_layer(name)][0]}) imports "
              f"exactdp.{imported} ({LAYERS[_layer(imported)][0]})"
              for name, targets in sorted(EDGES.items())
              for imported, line in sorted(targets.items()) if _layer(imported) > _layer(name)]
    assert upward == []
