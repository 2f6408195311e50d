"""Seeded fuzz cases for ``veriplan validate --batch`` (issue 32), shared by the quick
test (tests/verify/test_batch_fuzz.py) and the long run (benchmarks/batch_fuzz.py).

:func:`fuzz_lines` makes input lines (bytes, without line ends) of every kind a
hostile or careless batch file holds: good and bad items, random JSON values, random
bytes, deep nesting (JSON and PDDL), huge fields, strings with NUL bytes and lone
surrogates, NaN and huge numbers, truncated lines, devices and directories as paths.
:func:`check` asserts what a run must give: one record per non-blank line, in order,
each strict JSON, no traceback."""

from __future__ import annotations

import json
import random
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")
CFG = str(EXAMPLES / "blocks-planbench.yaml")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
KEYS = ("id", "domain", "problem", "plan", "plan_file", "format", "planbench_config")


def fixtures(tmp: Path) -> dict[str, str]:
    """Files the cases name: a goal nested within and beyond the reader's limit, a
    binary file, a directory, a non-PDDL text, a bad config."""
    text = Path(PROB).read_text()
    out = {}
    for depth in (100, 126, 127, 350):
        p = tmp / f"deep{depth}.pddl"
        p.write_text(text.replace("(:goal (and (on a b) (on b c)))", "(:goal " + "(and " * depth
                                  + "(on a b)" + ")" * depth + ")"))
        out[f"deep{depth}"] = str(p)
    (tmp / "binary.bin").write_bytes(bytes(range(256)) * 4)
    out["binary"] = str(tmp / "binary.bin")
    (tmp / "notes.txt").write_text("secret words, not PDDL\n")
    out["text"] = str(tmp / "notes.txt")
    (tmp / "bad.yaml").write_bytes(b"actions: [\xff\n")
    out["yaml"] = str(tmp / "bad.yaml")
    (tmp / "dir").mkdir(exist_ok=True)
    out["dir"] = str(tmp / "dir")
    return out


def _value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth > 3 or r < 0.45:
        return rng.choice([None, True, False, 0, -1, 2**70, 1.5, -0.0, 1e300, "", "a",
                           "\u0000", "\ud800", "é", "(unstack c a)", DOM, " " * 3])
    if r < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice([*KEYS, "x", ""]): _value(rng, depth + 1)
            for _ in range(rng.randint(0, 5))}


def _dumps(value, rng: random.Random) -> bytes:
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    return text.encode("utf-8", "surrogatepass")


def fuzz_lines(rng: random.Random, n: int, files: dict[str, str],
               huge: int = 200_000) -> list[bytes]:
    """``n`` input lines, each bytes without a line end."""
    paths = [DOM, PROB, files["deep100"], files["deep126"], files["deep127"],
             files["deep350"], files["binary"], files["text"], files["dir"], "/dev/zero",
             "/dev/urandom", "missing.pddl", "a\u0000b", "\ud800", "../../etc/passwd",
             "x" * 5000, ""]
    lines: list[bytes] = []
    for i in range(n):
        kind = rng.randrange(14)
        good = {"id": i, "domain": DOM, "problem": PROB, "plan": GOOD}
        if kind == 0:
            line = _dumps(good, rng)
        elif kind == 1:
            line = _dumps({**good, "plan": "(unstack c a)\n(pick-up b)\n"}, rng)
        elif kind == 2:
            line = _dumps(_value(rng), rng)
        elif kind == 3:
            line = bytes(rng.randrange(256) for _ in range(rng.randint(0, 80)))
            line = line.replace(b"\n", b" ").replace(b"\r", b" ")
        elif kind == 4:
            k = rng.choice([10, 1000, 100_000])
            line = (b"[" * k + b"]" * k) if rng.random() < 0.5 else (
                b'{"id": ' + b"[" * k + b"]" * k + b', "domain": "d"}')
        elif kind == 5:
            item = dict(good)
            item[rng.choice(["plan", "id", "domain"])] = "x" * rng.randint(huge // 2, huge)
            line = _dumps(item, rng)
        elif kind == 6:
            item = {k: rng.choice(paths) for k in ("domain", "problem")}
            item.update(id=i, plan=GOOD)
            line = _dumps(item, rng)
        elif kind == 7:
            line = _dumps({"id": i, "domain": DOM, "problem": PROB,
                           "plan_file": rng.choice(paths)}, rng)
        elif kind == 8:
            line = rng.choice([b"NaN", b'{"id": NaN}', b'{"id": Infinity, "domain": 1}',
                               b'{"id": 1e999}', b'{"id": ' + b"9" * 5000 + b"}",
                               b'{"id": -Infinity}'])
        elif kind == 9:
            full = _dumps(good, rng)
            line = full[:rng.randrange(len(full))]
        elif kind == 10:
            bom = b"\xef\xbb\xbf"
            line = rng.choice([b"", b"   ", bom, b"\t", bom + _dumps(good, rng)])
        elif kind == 11:
            line = _dumps({**good, "format": rng.choice(["planbench", "pddl", 3, None, "x" * 99]),
                           "planbench_config": rng.choice([CFG, files["yaml"], files["dir"],
                                                           "/dev/zero", 5])}, rng)
        elif kind == 12:
            line = _dumps({**good, "plan": rng.choice(
                ["(unstack c a)\n(fly \ud800)", "\u0000" * 10, "(" * 5000, "0.5: (unstack c a) [1]",
                 ["(unstack c a)", 3], "\ufeff(unstack c a)", "(((a)))\n)))"])}, rng)
        else:
            line = _dumps({**good, "plan_file": rng.choice(paths)}, rng)  # both: an error
        lines.append(line)
    return lines


def expected_lines(lines: list[bytes]) -> list[int]:
    """The input line numbers that must get a record (the non-blank ones)."""
    return [n for n, line in enumerate(lines, 1)
            if line.decode("utf-8", "replace").strip()]


def _refuse(name: str) -> None:
    raise ValueError(f"{name} in a record")


def check(lines: list[bytes], records: list[str]) -> list[dict]:
    """Assert one strict-JSON record per non-blank line, in order; the records."""
    parsed = [json.loads(text, parse_constant=_refuse) for text in records]
    assert [r["line"] for r in parsed] == expected_lines(lines)
    for r in parsed:
        assert (r["valid"] is None) == (r["error"] is not None), r
    return parsed
