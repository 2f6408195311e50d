"""A method's command module (``methods/<m>/commands.py``) writes its text through
the writer the command line gives it (:mod:`veriplan.cli.output`): it prints
nothing to standard output itself (a question asked on standard error is the
only ``print``, with its ``file=``)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from veriplan.methods import method_specs

MODULES = sorted({s.commands for s in method_specs() if s.commands})


def _stdout_writes(path: Path) -> list[str]:
    """The places in ``path`` that write to standard output without a writer: a
    ``print`` without ``file=``, any use of ``sys.stdout``, ``input(...)`` aside."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "print"
                and not any(k.arg == "file" for k in node.keywords)):
            found.append(f"{path.name}:{node.lineno}: print")
        if (isinstance(node, ast.Attribute) and node.attr == "stdout"
                and isinstance(node.value, ast.Name) and node.value.id == "sys"):
            found.append(f"{path.name}:{node.lineno}: sys.stdout")
    return found


def test_the_scan_finds_a_bare_print(tmp_path):
    f = tmp_path / "commands.py"
    f.write_text("import sys\nprint('x')\nprint('y', file=sys.stderr)\nsys.stdout.write('z')\n")
    assert _stdout_writes(f) == ["commands.py:2: print", "commands.py:4: sys.stdout"]


def test_every_method_has_its_command_module_scanned():
    assert MODULES == ["veriplan.methods.aec.commands", "veriplan.methods.autotos.commands",
                       "veriplan.methods.sqbcp.commands"]


@pytest.mark.parametrize("module", MODULES)
def test_a_methods_commands_write_through_the_writer(module):
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    assert _stdout_writes(Path(spec.origin)) == []
