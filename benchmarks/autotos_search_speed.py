"""AutoToS search speed: all 24 Game instances (1362 with the held-out
examples; 1352 are evaluated since issue 16) solved with the reference
successor function and goal test, checks on, through veriplan's sandboxed
harness, against a peer in the style of the AutoToS authors' BFS, measured in
the same run.

Ours: one sandbox child (process start included) runs BFS over every instance
with a 1 s limit on each call of the generated functions, the input-mutation
check and the partial soundness check on every transition; the parent then
validates every solution. The peer, in process with no sandbox: BFS with a
list as queue, the goal test on expansion, a deep copy of every expanded state
compared after the successor call, a verification call per generated state and
keys made of the sorted element strings (the design of IBM/AutoToS src/utils/search.py, re-written
here; its measured times on this machine are in the issue: 2.57 s, 4.2 s with
checks). Target: the peer's time / ours >= 3.

    python benchmarks/autotos_search_speed.py [--data-dir ../shared/data] [--repeats 3]
"""

from __future__ import annotations

import copy
import time

import common
from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos.config import Config
from veriplan.methods.autotos.method import reference


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


def main() -> None:
    ap = common.parser(__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    domain = get_domain("24game")
    data = domain.load(args.data_dir)
    ns: dict = {}
    exec(domain.reference_code("succ") + "\n" + domain.reference_code("goal"), ns)

    def check(s, t):
        msg = domain.partial_check(s, t)
        return msg is None, msg

    print(f"24 Game: {len(data.evaluation)} instances, reference components, checks on")
    for r in range(1, args.repeats + 1):
        t0 = time.perf_counter()
        solved = sum(peer_bfs(i.init, ns["succ"], ns["goal"], check) is not None
                     for i in data.evaluation)
        peer = time.perf_counter() - t0
        t0 = time.perf_counter()
        ours = reference(domain, data, Config())
        mine = time.perf_counter() - t0
        print(f"run {r}: peer {peer:.2f} s ({solved} solved); veriplan sandboxed harness "
              f"{mine:.2f} s ({ours['valid']} solved and validated, search in the child "
              f"{ours['seconds']:.2f} s); ratio {peer / mine:.2f}x (target >= 3)")


if __name__ == "__main__":
    main()
