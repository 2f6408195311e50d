"""``veriplan ask``: SQ-BCP on a request typed by a person, who is the oracle.
Its text goes through the writer the command line gives
(:mod:`veriplan.cli.output`); the questions are asked on the terminal (under
``--json``, on standard error) and the answers read from standard input."""

from __future__ import annotations

import argparse
import sys

from veriplan.cli.core import EXIT_FAIL, EXIT_OK
from veriplan.cli.jsondoc import ErrorKind, emit, emit_error
from veriplan.cli.llm_commands import add_llm_options, build_llm, method_options
from veriplan.cli.output import Writer, stdout

# the method `veriplan ask` plans with (a request typed by a person, the oracle)
ASK_METHOD = "sqbcp"


def runs(method: str) -> list[list[str]]:
    """The commands of this module that run ``method`` (the hint of ``veriplan solve``)."""
    return [["ask", "REQUEST"]] if method == ASK_METHOD else []


def add_parsers(sub) -> None:
    a = sub.add_parser("ask", help="plan for a request of yours with SQ-BCP: it asks you "
                                   "about what it does not know, and accepts a plan only "
                                   "when every precondition is resolved and checked")
    a.add_argument("request", help='what you want, e.g. "Make a toy car from a wooden table"')
    a.add_argument("--fact", action="append", default=[], metavar="TEXT",
                   help="something true that the planner may rely on (repeatable), e.g. "
                        '"you have a saw"')
    a.add_argument("--not", dest="not_facts", action="append", default=[], metavar="TEXT",
                   help="something that is not so (repeatable)")
    a.add_argument("--constraint", action="append", default=[], metavar="TEXT",
                   help="a hard constraint, in words (repeatable)")
    a.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="an SQ-BCP setting (repeatable), e.g. t_max=12")
    a.add_argument("--json", action="store_true",
                   help="print the result and the questions asked as JSON at the end (the "
                        "questions go to stderr; answers are read from stdin)")
    add_llm_options(a)


def _ask(args: argparse.Namespace, out: Writer = stdout) -> int:
    """``veriplan ask``, its text through ``out`` (the command line's standard
    output unless another writer is given)."""
    from veriplan.methods import get_method
    from veriplan.methods.sqbcp import Request
    from veriplan.methods.sqbcp.oracle import PersonOracle

    spec = get_method(ASK_METHOD)
    config = spec.make_config(method_options(args))
    session = build_llm(args).session()

    def prompt(question: str) -> str:
        shown = question.split(" (about: ")[0]
        if args.json:  # the question on stderr: stdout holds the document only
            print(f"\n? {shown}\n> ", end="", file=sys.stderr, flush=True)
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        return input(f"\n? {shown}\n> ")

    def on_empty(message: str) -> None:
        out(f"  ({message})")

    oracle = PersonOracle(prompt, on_empty)
    facts = {f: True for f in args.fact} | {f: False for f in args.not_facts}
    request = Request(args.request, facts, oracle, tuple(args.constraint))
    out(f"Planning: {args.request}")
    out("I will ask about what I do not know. Answer yes, no, what you have instead "
        "(\"I have margarine instead\"), or \"I don't know\". Ctrl-C stops.")
    try:
        result = spec.solve(request, session, config)
    except (KeyboardInterrupt, EOFError) as exc:
        out("\n\nStopped. What I learned so far:")
        _learned(oracle, out)
        if args.json:
            why = "standard input ended" if isinstance(exc, EOFError) else "Ctrl-C"
            emit_error("ask", ErrorKind.INTERRUPTED,
                       f"stopped before a plan was accepted ({why}) after {oracle.calls} "
                       "question(s); answer every question on standard input, one line each",
                       130)
        return 130
    m = result.metrics
    if args.json:
        questions = [{"question": q.split(" (about: ")[0], "answer": a.status,
                      "substitutes": list(a.substitutes)} for q, a in oracle.log]
        emit("ask", {**result.to_dict(), "accepted": bool(m.get("accepted")),
                     "questions": questions})
        return EXIT_OK if m.get("accepted") else EXIT_FAIL
    if m.get("accepted"):
        out("\nAccepted plan (every precondition resolved; hard checks and the pullback "
            "check passed; not verified: nothing but your answers grounds it):")
        for i, step in enumerate(result.plan, 1):
            out(f"  {i}. {step}")
        relied = [f"{r['precondition']} ({r['how']})" for r in m.get("relied_on", [])]
        out("It relies on: " + ("; ".join(dict.fromkeys(relied)) or
                                "nothing beyond the request"))
        for s in m.get("substitutions", []):
            out(f"  (uses {s['use']} in place of {s['for']})")
    else:
        out(f"\nNo plan accepted ({m.get('stop')}).")
        _learned(oracle, out)
        dropped = m.get("dropped", {})
        if dropped:
            out("Why candidate steps were dropped: "
                + ", ".join(f"{k} ({v})" for k, v in dropped.items()))
        unknown = [q for q, a in oracle.log if a.status == "unknown"]
        if unknown:
            out("Still unknown: " + "; ".join(q.split(" (about: ")[0] for q in unknown))
    out(f"{oracle.calls} question(s), {result.llm_calls} LLM call(s), "
        f"{result.seconds:.1f}s")
    return EXIT_OK if m.get("accepted") else EXIT_FAIL


def _learned(oracle, out: Writer) -> None:
    if not oracle.log:
        out("  (nothing asked yet)")
    for q, a in oracle.log:
        extra = f" (instead: {', '.join(a.substitutes)})" if a.substitutes else ""
        out(f"  {q.split(' (about: ')[0]} -> {a.status}{extra}")


COMMANDS = {"ask": _ask}
