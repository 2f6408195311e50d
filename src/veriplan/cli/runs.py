"""Which commands run a method on the kind of problem it takes, for the
hints of the commands that cannot (``veriplan solve`` plans for PDDL tasks
only): a command is an argument list as the command line takes it, with a
placeholder in capitals where the user names a thing (``--env ENV``).
``veriplan bench METHOD --dataset DATASET`` runs every method; the others run
one problem of their kind, and come from the methods' command modules
(``MethodSpec.commands``), each of which says which of its commands run a
method (its ``runs(method)``, if it has one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veriplan.methods import CommandModule


def method_commands() -> list[CommandModule]:
    """The command modules of the registered methods (``MethodSpec.commands``),
    in the order the methods are declared, each once."""
    from veriplan.methods import method_specs

    out: list[CommandModule] = []
    for spec in method_specs():
        module = spec.command_module()
        if module is not None and module not in out:
            out.append(module)
    return out


def run_commands(method: str) -> list[list[str]]:
    """The commands that run ``method`` (without ``veriplan``), one problem at
    a time first, the harness last."""
    out: list[list[str]] = []
    for module in method_commands():
        runs = getattr(module, "runs", None)
        if runs is not None:
            out += runs(method)
    out.append(["bench", method, "--dataset", "DATASET"])
    return out


def shown(commands: list[list[str]]) -> str:
    """``a``, ``b`` or ``c``, each written as ``veriplan ...`` in backquotes."""
    quoted = [f"`veriplan {' '.join(c)}`" for c in commands]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


__all__ = ["method_commands", "run_commands", "shown"]
