"""A hidden-fact task is the same whatever the process built before it.

Tasks built from one domain object share its fact numbering, which once set the
order of the supporting facts and the reference search's tie-breaks: instance-10
withheld other facts when built after instances 1-9 than when built alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from veriplan.domains.hidden.pddl_hidden import hidden_task, problem_files

ALONE = """
import json, sys
from veriplan.domains.hidden.pddl_hidden import hidden_task, problem_files
dom, _, cfg, files = problem_files(sys.argv[1], "blocksworld")
t = hidden_task(dom, files[9], cfg, id="blocksworld/" + files[9].stem)
print(json.dumps([t.payload["withheld"], t.payload["reference_steps"]]))
"""


def test_same_task_alone_and_after_others(data_dir: Path):
    root = data_dir / "planbench"
    dom, _, cfg, files = problem_files(root, "blocksworld")
    built = [hidden_task(dom, f, cfg, id=f"blocksworld/{f.stem}") for f in files[:10]]
    after = [list(built[9].payload["withheld"]), list(built[9].payload["reference_steps"])]
    again = hidden_task(dom, files[9], cfg, id=f"blocksworld/{files[9].stem}")
    assert [list(again.payload["withheld"]), list(again.payload["reference_steps"])] == after
    out = subprocess.run([sys.executable, "-c", ALONE, str(root)], capture_output=True,
                         text=True, check=True, timeout=120)
    assert json.loads(out.stdout) == after
