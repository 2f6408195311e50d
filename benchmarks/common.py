"""What the benchmark scripts share: the command line and the data directory."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def parser(doc: str) -> argparse.ArgumentParser:
    """An argument parser with ``--data-dir`` (default: ``VERIPLAN_DATA`` or
    ``../shared/data`` beside the checkout)."""
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    default = os.environ.get("VERIPLAN_DATA") or str(
        Path(__file__).resolve().parents[1].parent / "shared" / "data")
    ap.add_argument("--data-dir", type=Path, default=Path(default))
    return ap
