"""What the benchmark scripts share: the command line, the data directory and VAL."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veriplan.verify.val import ValTool


def parser(doc: str) -> argparse.ArgumentParser:
    """An argument parser with ``--data-dir`` (default: ``VERIPLAN_DATA`` or
    ``../shared/data`` beside the checkout)."""
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    default = os.environ.get("VERIPLAN_DATA") or str(
        Path(__file__).resolve().parents[1].parent / "shared" / "data")
    ap.add_argument("--data-dir", type=Path, default=Path(default))
    return ap


def bytecode_env(cache_dir: Path, bytecode: bool = True) -> dict[str, str]:
    """The environment for veriplan processes a benchmark times: with ``bytecode``,
    veriplan's compiled modules kept under ``cache_dir`` (``PYTHONPYCACHEPREFIX``;
    written by the first run, read by the others), as an installed package has them.
    Without it, an environment that sets ``PYTHONDONTWRITEBYTECODE`` (as on the
    machine these figures come from) makes every process compile veriplan's sources
    again (about 0.2 s CPU a process)."""
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
    return env


def planbench_and_val(data_dir: Path) -> tuple[Path, ValTool] | None:
    """PlanBench's folder under ``data_dir`` and VAL's ``Validate``, or None after
    saying on stderr which is missing and how to get it."""
    import sys

    from veriplan.verify.val import ValUnavailable, find_val

    pb = Path(data_dir) / "planbench"
    if not pb.is_dir():
        print(f"no PlanBench data at {pb}: pass --data-dir", file=sys.stderr)
        return None
    try:
        return pb, find_val()
    except ValUnavailable as exc:
        print(f"VAL is needed for this benchmark: {exc}", file=sys.stderr)
        return None
