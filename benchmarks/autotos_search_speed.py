"""AutoToS search speed: the 24 Game's 1352 evaluation puzzles solved with
the reference successor function and goal test, checks on, through veriplan's
sandboxed harness, against a peer in the style of the AutoToS authors' BFS,
measured in the same run.

Ours: a fresh Python process (what ``veriplan autotos reference`` does after
its imports: the sandbox started, one sandbox child running BFS over every
puzzle with a 1 s limit on each call of the generated functions, every
transition replayed in veriplan's process with the input-mutation check and
the partial soundness check, every solution validated). The peer, in
process with no sandbox: BFS with a list as queue, the goal test on
expansion, a deep copy of every expanded state compared after the successor
call, a verification call per generated state and keys made of the sorted
element strings (the design of IBM/AutoToS src/utils/search.py, re-written
here). ``--before REV`` also runs veriplan's tree at git revision REV the same
way, in the same run (what a change did to the ratio). Target (issue 36):
the peer's time / ours >= 5, printed at the end with the ratios of every run (wall
time; with ``--cpu`` CPU time too) and met or not met.

``--cpu`` also counts CPU time, which a loaded machine distorts less than wall
time: the peer's (in process), and ours as the parent's plus the sandbox
child's, with the child started as a plain process (``VERIPLAN_SANDBOX=process``:
the same harness and work, but its CPU time is seen by the parent, which
bubblewrap's own child processes hide).

``--parts`` prints where ours spends its CPU time, each part run in this
process (no sandbox; best of ``--repeats``): the model's functions alone, the
harness's search without and with its answer lines, and veriplan's side
(reading the lines, the replay with every check, validating the solutions).

    python benchmarks/autotos_search_speed.py [--data-dir ../shared/data] [--repeats 3]
        [--before 55ea6d3] [--cpu] [--parts]
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import common
from targets import Target, span
from veriplan.domains.autotos import get_domain

ROOT = Path(__file__).resolve().parents[1]

# Run in a fresh interpreter with the tree to measure first on sys.path.
DRIVER = r"""
import json, resource, sys, time
src, data = sys.argv[1:3]
sys.path.insert(0, src)
from pathlib import Path
from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos.config import Config
from veriplan.methods.autotos.method import reference
import veriplan.sandbox.runner as runner
assert runner.__file__.startswith(src), runner.__file__
d = get_domain("24game"); dd = d.load(Path(data))
t, c = time.perf_counter(), time.process_time()
r = reference(d, dd, Config())
seconds, cpu = time.perf_counter() - t, time.process_time() - c
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "cpu": cpu, "child_cpu": child.ru_utime + child.ru_stime,
                  "valid": r["valid"], "instances": r["instances"], "calls": r.get("calls"),
                  "categories": r["categories"]}))
"""


def tree(rev: str, into: Path) -> Path:
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def ours(src: Path, data: Path, sandbox: str = "bwrap") -> dict:
    out = subprocess.run([sys.executable, "-c", DRIVER, str(src), str(data)],
                         capture_output=True, text=True, check=False,
                         env=dict(os.environ, VERIPLAN_SANDBOX=sandbox))
    if out.returncode:
        raise SystemExit(f"the reference run ({src}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def peer_key(state) -> str:
    """Their state key for list states: the elements as sorted strings."""
    return " ".join(sorted(str(x) for x in state))


def peer_bfs(init, succ, goal, check):
    """The authors' design, our code: goal test on expansion, list queue."""
    queue = [(init, None)]
    closed = {}
    while queue:
        s, parent = queue[0]
        del queue[0]
        k = peer_key(s)
        if k in closed:
            continue
        closed[k] = parent
        if goal(s):
            path = []
            while s is not None:
                path.append(s)
                s = closed[peer_key(s)]
            return path[::-1]
        before = copy.deepcopy(s)
        children = succ(s)
        if peer_key(s) != peer_key(before):
            raise AssertionError("input changed")
        for t in children:
            ok, _ = check(s, t)
            if not ok:
                raise AssertionError("unsound transition")
            queue.append((t, s))
    return None


def cpu_row(r: int, peer_cpu: float, new: dict, old: dict | None, bwrap: dict) -> str:
    """One row of CPU seconds: ours with the process sandbox (its child counted)."""
    assert new["valid"] == bwrap["valid"] and new["calls"] == bwrap["calls"], new
    mine = new["cpu"] + new["child_cpu"]
    row = (f"| {r} | {peer_cpu:.2f} s | {new['cpu']:.2f} + {new['child_cpu']:.2f} = "
           f"{mine:.2f} s | {peer_cpu / mine:.2f}x |")
    if old:
        assert old["valid"] == new["valid"] and old["calls"] == new["calls"], old
        theirs = old["cpu"] + old["child_cpu"]
        row += (f" {old['cpu']:.2f} + {old['child_cpu']:.2f} = {theirs:.2f} s | "
                f"{peer_cpu / theirs:.2f}x |")
    return row


def parts(domain, data, repeats: int) -> None:
    """CPU seconds of each part of our run, in this process (see --parts)."""
    import gc
    from collections import deque

    from veriplan.domains.autotos import harness
    from veriplan.methods.autotos import judge
    from veriplan.sandbox import runner
    from veriplan.sandbox.child import BUFFER, HEADER, Channel

    class Kept(Channel):  # the sandbox's channel, its pipe replaced by a list
        def __init__(self) -> None:
            fd = os.memfd_create("parts")
            os.ftruncate(fd, HEADER + BUFFER)
            super().__init__(-1, fd)
            self.out: list[bytes] = []

        def _write_all(self, data) -> None:
            self.out.append(bytes(data))

    class Reader(runner.Job):  # the parent's line reading, without a process
        def __init__(self) -> None:
            self._init_reading(runner.Limits())
            self._booted = True

        def next(self):
            while not self._lines:
                self._parse_piece()
            return self._lines.popleft()

    class Replay(judge.Session):
        def __init__(self, job: Reader) -> None:
            self.d, self.job, self.loaded, self.limit = domain, job, False, 1.0
            self.mode, self.search_limit = "search", 600.0

    insts = data.evaluation
    succ = harness.load_function(domain.reference_code("succ"), "succ", "succ", Kept())
    goal = harness.load_function(domain.reference_code("goal"), "goal", "goal", Kept())
    expanded, tested = [], []  # the states the search expands, the states it goal-tests
    for inst in insts:
        seen, frontier, found = {domain.key(inst.init)}, deque([inst.init]), goal(inst.init)
        while frontier and not found:
            s = frontier.popleft()
            expanded.append(s)
            for c in succ(s):
                if (k := domain.key(c)) not in seen:
                    seen.add(k)
                    tested.append(c)
                    if goal(c):
                        found = True
                        break
                    frontier.append(c)

    def search(trace: bool) -> bytes:
        ch = Kept()
        payload = {"trace": trace, "mutation": trace, "search_limit": 600}
        for k, inst in enumerate(insts):
            ch.send(["I", k])
            harness.search(domain, inst, succ, goal, ch, payload)
        ch.flush()
        return b"".join(ch.out)

    def read(text: bytes) -> Reader:  # as the lines come from the sandbox's buffer
        job = Reader()
        for at in range(0, len(text), BUFFER):
            job._take(text[at:at + BUFFER])
        return job

    def parse(job: Reader) -> None:
        while job._pending:
            job._parse_piece()

    def replay(job: Reader) -> list:
        s, paths = Replay(job), []
        for k, inst in enumerate(insts):
            s.instance(k)
            paths.append(judge.replay(s, domain, inst, True)[0])
        return paths

    best: dict[str, float] = {}

    def timed(name: str, f):
        c = time.process_time()
        out = f()
        best[name] = min(best.get(name, float("inf")), time.process_time() - c)
        return out

    gc.disable()  # as in the sandbox and in the replay
    for _ in range(repeats):
        timed("the model's successor function, on every expanded state",
              lambda: [succ(s) for s in expanded])
        timed("the model's goal test, on every new state", lambda: [goal(c) for c in tested])
        timed("sandbox: the search, no answer lines", lambda: search(False))
        text = timed("sandbox: the search with its answer lines (mutation check on)",
                     lambda: search(True))
        timed("veriplan: parsing the lines alone", lambda text=text: parse(read(text)))
        paths = timed("veriplan: the replay with every check, parsing the lines as it goes",
                      lambda text=text: replay(read(text)))
        timed("veriplan: validating the solutions", lambda paths=paths: [
            domain.validate(i, p, True) for i, p in zip(insts, paths)])
        assert sum(p is not None for p in paths) == len(insts)
    print(f"\nCPU seconds, best of {repeats}, in this process (load average "
          f"{os.getloadavg()[0]:.2f}): {len(expanded)} expansions, {len(tested)} goal tests, "
          f"{len(text) / 1e6:.1f} MB of answer lines\n\n| part | CPU |\n|---|---|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.3f} s |")


def main() -> None:
    ap = common.parser(__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before", default=None, help="also run the tree at this git revision")
    ap.add_argument("--cpu", action="store_true",
                    help="also count CPU time (ours with the process sandbox, child included)")
    ap.add_argument("--parts", action="store_true",
                    help="also print where our CPU time goes, part by part")
    args = ap.parse_args()
    domain = get_domain("24game")
    data = domain.load(args.data_dir)
    ns: dict = {}
    exec(domain.reference_code("succ") + "\n" + domain.reference_code("goal"), ns)

    def check(s, t):
        msg = domain.partial_check(s, t)
        return msg is None, msg

    with tempfile.TemporaryDirectory() as tmp:
        before = tree(args.before, Path(tmp)) if args.before else None
        print(f"24 Game: {len(data.evaluation)} instances, reference components, checks on; "
              f"load average {os.getloadavg()[0]:.2f}")
        head = "| run | peer | veriplan | parent CPU | ratio (target >= 5) |"
        if before:
            head += f" veriplan at {args.before} | its ratio |"
        print(f"\n{head}\n|{'---|' * (head.count('|') - 1)}")
        cpu_rows = []
        ratios: dict[str, list[float]] = {"wall": [], "CPU": []}
        before_ratios: dict[str, list[float]] = {"wall": [], "CPU": []}
        for r in range(1, args.repeats + 1):
            t0, c0 = time.perf_counter(), time.process_time()
            solved = sum(peer_bfs(i.init, ns["succ"], ns["goal"], check) is not None
                         for i in data.evaluation)
            peer, peer_cpu = time.perf_counter() - t0, time.process_time() - c0
            old = ours(before, args.data_dir) if before else None
            new = ours(ROOT / "src", args.data_dir)
            assert solved == len(data.evaluation), solved
            assert new["valid"] == new["instances"] == len(data.evaluation), new
            row = (f"| {r} | {peer:.2f} s | {new['seconds']:.2f} s | {new['cpu']:.2f} s | "
                   f"{peer / new['seconds']:.2f}x |")
            if old:
                assert old["valid"] == new["valid"] and old["calls"] == new["calls"], old
                row += f" {old['seconds']:.2f} s | {peer / old['seconds']:.2f}x |"
            print(row, flush=True)
            ratios["wall"].append(peer / new["seconds"])
            if old:
                before_ratios["wall"].append(peer / old["seconds"])
            if args.cpu:
                proc = ours(ROOT / "src", args.data_dir, "process")
                old_proc = ours(before, args.data_dir, "process") if before else None
                cpu_rows.append(cpu_row(r, peer_cpu, proc, old_proc, new))
                ratios["CPU"].append(peer_cpu / (proc["cpu"] + proc["child_cpu"]))
                if old_proc:
                    before_ratios["CPU"].append(
                        peer_cpu / (old_proc["cpu"] + old_proc["child_cpu"]))
        if cpu_rows:
            head = ("| run | peer CPU | veriplan CPU: parent + child | CPU ratio |"
                    + (f" at {args.before}: parent + child | its CPU ratio |" if before else ""))
            print(f"\n{head}\n|{'---|' * (head.count('|') - 1)}")
            print("\n".join(cpu_rows))
        print(f"\n{len(data.evaluation)}/{len(data.evaluation)} solved by the peer, "
              f"{new['valid']}/{new['instances']} solved and validated by veriplan "
              f"({new['calls']} calls of the generated functions); load average at the end "
              f"{os.getloadavg()[0]:.2f}, {time.strftime('%H:%M')}")
        target = Target("target (issue 36), the peer's time / veriplan's, checks on, "
                        f"over {args.repeats} run(s)", 5)
        print(target.line({k: v for k, v in ratios.items() if v}))
        if before:
            print(f"  (veriplan at {args.before}: "
                  + ", ".join(f"{k} {span(v)}" for k, v in before_ratios.items() if v) + ")")
    if args.parts:
        parts(domain, data, args.repeats)


if __name__ == "__main__":
    main()
