"""The packages stay layered: the shared vocabulary (``core``) sits below
everything; the domains, environments and methods never import the harness
(``bench``) or the command line (``cli``). Today's code is scanned, every
import counted, lazy ones inside functions included; only a script's own
``if __name__ == "__main__"`` block may reach the command line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import veriplan

ROOT = Path(veriplan.__file__).parent

# package -> packages it must never import
FORBIDDEN = {
    "core": {"bench", "cli", "methods", "domains", "envs", "pddl", "verify", "planio", "llm"},
    "domains": {"bench", "cli"},
    "envs": {"bench", "cli", "methods"},
    "methods": {"bench", "cli"},
    "verify": {"bench", "cli", "methods"},
    "pddl": {"bench", "cli", "methods", "verify"},
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in tree.body:  # a script's main block may call the CLI
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"):
            skip |= {id(n) for n in ast.walk(node)}
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


def _violations(package: str) -> list[str]:
    bad = []
    for f in sorted((ROOT / package).rglob("*.py")):
        for line, module in _imports(f):
            parts = module.split(".")
            if parts[0] == "veriplan" and len(parts) > 1 and parts[1] in FORBIDDEN[package]:
                bad.append(f"{f.relative_to(ROOT)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_layers_above_it(package: str) -> None:
    assert _violations(package) == []


def test_the_scan_sees_lazy_imports(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from veriplan.bench.datasets import Dataset\n"
                 "if __name__ == '__main__':\n    from veriplan.cli import main\n")
    assert _imports(f) == [(2, "veriplan.bench.datasets")]
