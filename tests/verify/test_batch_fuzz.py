"""A seeded fuzz of ``validate --batch`` lines (issue 32): random JSON values, random
bytes, deep nesting, huge fields and hostile paths; every non-blank line gets one
strict-JSON record, in order, in-process and through the command (file and standard
input, one and two workers), and nothing prints a traceback. The long run is
``benchmarks/batch_fuzz.py``."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import veriplan.verify.batch as batch
from tests.verify.batch_fuzz import check, fixtures, fuzz_lines
from veriplan.verify.batch import batch_lines

SRC = str(Path(batch.__file__).parents[2])


pytestmark = pytest.mark.usefixtures("fresh_batch_caches")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_line_gets_one_strict_record_in_process(tmp_path, seed):
    lines = fuzz_lines(random.Random(seed), 150, fixtures(tmp_path), huge=50_000)
    text = [line.decode("utf-8", "replace") + "\n" for line in lines]
    records = [t for _v, t in batch_lines(text, max_bytes=40_000)]
    check(lines, records)


def test_every_line_gets_one_strict_record_through_the_command(tmp_path):
    lines = fuzz_lines(random.Random(32), 150, fixtures(tmp_path), huge=50_000)
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    env = {**os.environ, "PYTHONPATH": SRC}
    outs = []
    for source, workers in (("file", "1"), ("file", "2"), ("-", "2")):
        args = [sys.executable, "-m", "veriplan.cli", "validate", "--batch",
                str(path) if source == "file" else "-", "--workers", workers,
                "--max-bytes", "40K"]
        done = subprocess.run(args, input=data if source == "-" else None,
                              capture_output=True, env=env, timeout=120, check=False)
        assert done.returncode in (0, 1, 4) and b"Traceback" not in done.stderr, done.stderr
        out = done.stdout.decode("utf-8").splitlines()
        check(lines, out)
        outs.append(done.stdout)
    assert outs[0] == outs[1] == outs[2]
