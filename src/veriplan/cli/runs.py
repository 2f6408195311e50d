"""Which commands run a method on the kind of problem it takes, for the
hints of the commands that cannot (``veriplan solve`` plans for PDDL tasks
only): a command is an argument list as the command line takes it, with a
placeholder in capitals where the user names a thing (``--env ENV``).
``veriplan bench METHOD --dataset DATASET`` runs every method; the others run
one problem of their kind."""

from __future__ import annotations

# the methods `veriplan aec run --method` offers (episodes in an environment)
ENV_METHODS = ("aec", "aec-direct", "aec-react", "wkm", "query-only")
# the method `veriplan ask` plans with (a request typed by a person, the oracle)
ASK_METHOD = "sqbcp"
# the method `veriplan autotos run` runs (search domains)
AUTOTOS_METHOD = "autotos"


def run_commands(method: str) -> list[list[str]]:
    """The commands that run ``method`` (without ``veriplan``), one problem at
    a time first, the harness last."""
    out: list[list[str]] = []
    if method in ENV_METHODS:
        out.append(["aec", "run", "--method", method, "--env", "ENV", "--task", "TASK"])
    if method == ASK_METHOD:
        out.append(["ask", "REQUEST"])
    if method == AUTOTOS_METHOD:
        out.append(["autotos", "run", "--domain", "DOMAIN"])
    out.append(["bench", method, "--dataset", "DATASET"])
    return out


def shown(commands: list[list[str]]) -> str:
    """``a``, ``b`` or ``c``, each written as ``veriplan ...`` in backquotes."""
    quoted = [f"`veriplan {' '.join(c)}`" for c in commands]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


__all__ = ["ASK_METHOD", "AUTOTOS_METHOD", "ENV_METHODS", "run_commands", "shown"]
