"""The packages stay layered: the shared vocabulary (``core``) sits below
everything; the domains, environments and methods never import the harness
(``bench``) or the command line (``cli``); and no module of the package
reaches itself again through the modules it imports (no import circle).

A method's folder holds two modules of the upper floors, found by the
registry from the ``"module:attr"`` strings of its registration: its report
section (``methods/<m>/report*.py``) sits on the harness's floor and may
import ``bench``, its command module (``methods/<m>/commands.py``) on the
command line's and may import ``cli``; no module below those floors imports
them.
Today's code is scanned, every import counted, lazy ones inside functions
included; only imports under ``if TYPE_CHECKING:`` (never run) are left out."""

from __future__ import annotations

import ast
from collections.abc import Container, Iterator
from pathlib import Path

import pytest

import veriplan

ROOT = Path(veriplan.__file__).parent

# package -> packages it must never import
FORBIDDEN = {
    "core": {"bench", "cli", "methods", "domains", "envs", "pddl", "verify", "planio", "llm",
             "papers"},
    "domains": {"bench", "cli", "papers"},
    "envs": {"bench", "cli", "methods", "papers"},
    # backends only: a method's controlled stand-in plugs in by name (veriplan.llm.controlled)
    "llm": {"bench", "cli", "mcp", "inspect", "methods", "domains", "envs", "papers"},
    "methods": {"bench", "cli", "papers"},
    # the papers' claims and protocols: on the harness's floor (they run sweeps, read stores)
    "papers": {"cli", "mcp", "inspect"},
    "verify": {"bench", "cli", "methods", "envs", "domains", "llm", "papers"},
    "pddl": {"bench", "cli", "methods", "verify", "papers"},
}
# A method's modules of the upper floors (see above): floor -> what it must never import.
PLUGIN_FLOORS = {"report": {"cli", "mcp", "inspect"}, "commands": {"mcp", "inspect"}}


def plugin_floor(module: str) -> str | None:
    """``report`` for a method's report modules (``veriplan.methods.<m>.report``,
    ``...report_<part>``) and its paper (``...paper``: it runs the harness and
    reads stores, through ``veriplan.papers``), ``commands`` for its command
    module, else None."""
    parts = module.split(".")
    if len(parts) != 4 or parts[:2] != ["veriplan", "methods"]:
        return None
    if parts[3] == "commands":
        return "commands"
    if parts[3] == "paper":
        return "report"
    return "report" if parts[3] == "report" or parts[3].startswith("report_") else None


def _type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports for type
    checkers only, never run."""
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, inside functions and classes too,
    but not under ``if TYPE_CHECKING:`` (its ``else`` runs and is read)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif _type_checking(child):
            for other in child.orelse:
                yield from _import_nodes(ast.Module(body=[other], type_ignores=[]))
        else:
            yield from _import_nodes(child)


def _module_of(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _loaded(node: ast.Import | ast.ImportFrom, here: str, is_package: bool,
            modules: Container[str]) -> list[str]:
    """The package's modules an import statement in module ``here`` loads:
    ``import m``; ``from m import n`` is the module ``m.n`` when there is
    one, else ``m``; a relative import is made absolute."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        package = here.split(".") if is_package else here.split(".")[:-1]
        package = package[:len(package) - (node.level - 1)]
        base = ".".join([*package, *([node.module] if node.module else [])])
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every absolute import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in _import_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return sorted(out)


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """Module -> {module of the same package it imports: the line}. ``from m
    import n`` points at the module ``m.n`` when there is one, else at ``m``;
    a package's own ``__init__`` is not counted as imported by its modules
    (Python runs it first either way)."""
    files = {_module_of(f, root): f for f in sorted(root.rglob("*.py"))
             if "__pycache__" not in f.parts}
    graph: dict[str, dict[str, int]] = {}
    for name, f in files.items():
        edges: dict[str, int] = {}
        for node in _import_nodes(ast.parse(f.read_text(encoding="utf-8"))):
            for target in _loaded(node, name, f.name == "__init__.py", files):
                if target in files and target != name:
                    edges.setdefault(target, node.lineno)
        graph[name] = edges
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module, each
    sorted (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, targets = work[-1]
            w = next(targets, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _described(graph: dict[str, dict[str, int]], circle: list[str]) -> str:
    inside = set(circle)
    return "; ".join(f"{m} imports {t} (line {line})" for m in circle
                     for t, line in sorted(graph[m].items()) if t in inside)


def _violations(package: str) -> list[str]:
    bad = []
    for f in sorted((ROOT / package).rglob("*.py")):
        floor = plugin_floor(_module_of(f, ROOT))
        forbidden = FORBIDDEN[package] if floor is None else PLUGIN_FLOORS[floor]
        for line, module in _imports(f):
            parts = module.split(".")
            if parts[0] == "veriplan" and len(parts) > 1 and parts[1] in forbidden:
                bad.append(f"{f.relative_to(ROOT)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_layers_above_it(package: str) -> None:
    assert _violations(package) == []


def test_a_methods_upper_floors_are_imported_from_above_only() -> None:
    """A method's report modules are imported by its other report modules and
    its command module only; its command module by nothing (the registry
    resolves both by name): no module of a lower floor reaches them."""
    graph = import_graph(ROOT)
    bad = []
    for module, targets in graph.items():
        for target, line in targets.items():
            floor = plugin_floor(target)
            if floor is None:
                continue
            same_method = module.split(".")[:3] == target.split(".")[:3]
            allowed = floor == "report" and same_method and plugin_floor(module) is not None
            if not allowed:
                bad.append(f"{module}:{line} imports {target}")
    assert bad == []


def test_the_floors_of_a_methods_modules() -> None:
    assert plugin_floor("veriplan.methods.aec.report") == "report"
    assert plugin_floor("veriplan.methods.aec.report_episodes") == "report"
    assert plugin_floor("veriplan.methods.sqbcp.commands") == "commands"
    assert plugin_floor("veriplan.methods.sqbcp.paper") == "report"
    assert plugin_floor("veriplan.methods.aec.reporting") is None
    assert plugin_floor("veriplan.methods.aec.controller") is None
    assert plugin_floor("veriplan.methods.records") is None


def test_the_scan_sees_lazy_imports(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("from typing import TYPE_CHECKING\n"
                 "def f():\n    from veriplan.bench.datasets import Dataset\n"
                 "if TYPE_CHECKING:\n    from veriplan.llm import LLM\n"
                 "if __name__ == '__main__':\n    from veriplan.cli import main\n")
    assert _imports(f) == [(1, "typing"), (3, "veriplan.bench.datasets"), (7, "veriplan.cli")]


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph(ROOT)
    assert [_described(graph, c) for c in circles(graph)] == []


def test_the_circle_scan_finds_a_circle(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from pkg.sub import b\n")
    (root / "a.py").write_text("from typing import TYPE_CHECKING\n"
                               "from . import c\nif TYPE_CHECKING:\n    from pkg import d\n")
    (root / "c.py").write_text("def f():\n    from pkg.sub.b import thing\n")
    (root / "d.py").write_text("import pkg.a\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("from pkg import a\nthing = 1\n")
    graph = import_graph(root)
    assert graph["pkg"] == {"pkg.sub.b": 1}  # a module, not the package's __init__
    assert graph["pkg.a"] == {"pkg.c": 2}  # the TYPE_CHECKING import is not run
    assert circles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (root / "c.py").write_text("")
    assert circles(import_graph(root)) == []
