"""A controlled function writer for AutoToS: a seeded stand-in model whose
successor functions and goal tests carry known bugs, so that the paper's
claims (Table 1's calls, Figure 2 with and without the partial soundness
check, the completeness step's effect, "100% accuracy after feedback") can be
tested where no strong model runs.

``--backend controlled-autotos --model autotos:e=0.2,q=0.42,r=0.17,seed=0``

What it writes. It reads the conversation as a model would: the first user
message is one of the five domains' Step 1 requests (24 Game, Blocksworld,
crosswords, PrOntoQA, Sokoban; ``succ`` or ``goal``), each later user message
is AutoToS's feedback. Its answer is one fenced Python function: the domain's
hand-written reference component (``veriplan.domains.autotos.*_reference``) as
an inner function, with the bugs the writer currently has written around it.
That code goes through the real loop: the sandbox runs it, the judge finds
(or misses) its bugs, the solutions are validated in the parent. Nothing in
the answer is a verdict; a bug is found only if AutoToS's checks find it.

The bug classes (:class:`Bug`) are the paper's Figure 4 categories 1-5 (the
five it says hold nearly all errors; section 6.1), each as the recorded
functions show it:

- ``unsound``: a successor the partial soundness check rejects, after the
  paper's bloopers (section 6.2) and the recorded logs: the 24 Game drops
  numbers when the state holds duplicates (the "remaining numbers chosen by
  value" blooper: successors one number too short); Blocksworld's unstack
  leaves the block it lifts in ``clear`` (GPT-4o-mini's recorded Blocksworld
  run); Sokoban's player may step onto a stone (the ``is_clear`` blooper);
  a crossword successor fills two words at once; a PrOntoQA successor adds two
  facts at once (both "several steps at once", section 4.4);
- ``incomplete``: about a third of the successors are left out (which ones is
  fixed by the state and the bug's draw);
- ``shallow``: the input state ends up equal to the first successor, the
  visible effect of building successors from a shallow copy (section 4.4; the
  recorded GPT-4o Sokoban and Llama3.1-70b Blocksworld runs);
- ``exception``: the function raises ``IndexError`` on about a quarter of
  the states;
- ``goal``: the goal test also accepts states that are not goals: the 24 Game
  ``24 in state`` (the paper's [24, 1], section 4.3), Blocksworld only the
  goal's first ``on`` fact, crosswords only the rows (the vertical-clue
  blooper), PrOntoQA any negated target, Sokoban any stone on a goal cell;
- ``slow`` (off unless set): an endless loop on about 1 state in 50 (the paper
  saw 2 such errors in all its runs).

Rates. Each class is present in the first function of its kind with its own
probability, drawn independently. ``e=E`` sets all five of Figure 4's classes to
E (the sweep's axis); without ``e`` the rates are the recorded profile
(:data:`RECORDED`). Feedback: an answer to feedback naming a class the function
has (the category it reads from the feedback text: :func:`reported`) removes
that bug with the class's fix probability (:data:`FIX`; ``q=Q`` sets one for
all) and, whatever it fixed, brings in a new successor bug with probability
``r`` (:data:`REGRESS`; a class drawn by the rates, among those it does not
have at that moment: the class it just fixed included, so a fix can be followed
by a new bug of the same class, with a new draw of the states it shows on).

Where every rate comes from (:data:`RECORDED`, :data:`FIX`, :data:`REGRESS`):
a sample of 19 recorded AutoToS runs, w/ val, from the authors' repository
(IBM/AutoToS, ``src/clean_logs``, commit a2a0d27; the crossword logs are not
there), named by folder and time stamp: gpt4-mini on 24game (20240802_234610),
blocks (20240802_235303), sokoban (20240802_124355), prontoqa
(20240804_000943); gpt4 on 24game (20240803_104248), blocks (20240801_111822),
sokoban (20240802_123531), prontoqa (20240804_001235); llama3.1-405b on 24game
(20240808_022206), blocks (20240808_105053), sokoban (20240808_102323),
prontoqa (20240808_235857); llama3.1-70b on blocks (20240809_001641), sokoban
(20240810_181143), prontoqa (20240809_000202); deepseek-coderv2 on 24game
(20240808_022446), blocks (20240808_110852), sokoban (20240808_142113),
prontoqa (20240808_023643). Their 19 first successor functions: 5 failed the
partial soundness check (one of them, GPT-4o-mini's PrOntoQA, only once its
exception was fixed), 2 raised, 3 changed their input, 1 was incomplete, 9 had
no bug; their 19 first goal tests: none wrong. Their 32 answers to feedback
whose outcome the log shows (an answer the budget left untested is not
counted): soundness fixed 5 of 8, exception 4 of 7, input change 3 of 3,
completeness 1 of 14 (two runs, GPT-4o-mini's 24 Game and Llama3.1-70b's
Sokoban, spent their budgets on it); 3 of the 32 brought in a bug of a class
the run had not shown (two soundness fixes that left successors out, one
exception fix that exposed an unsound successor). The goal test's fix
probability, with no goal feedback in the sample, is the pooled 13 of 32. The
sample is small; the paper says completeness feedback is common ("more often
than not", section 5) where the first functions here were rarely incomplete:
hence the sweep over ``e``, every class at the same rate, as the study's main
axis.

Determinism: every draw is seeded by (``seed``, the request's seed, domain,
function, call), so the same settings give the same answers in any process,
and ``veriplan autotos run --repeats N`` (seeds 0..N-1 in the request) gives N
different runs. The writer keeps no state between calls: it replays the
conversation it is sent.
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache

from veriplan.errors import BackendError, ConfigError
from veriplan.llm.controlled import ControlledModel
from veriplan.llm.types import LLMRequest

__all__ = ["FIX", "POOLED_FIX", "RECORDED", "REGRESS", "Bug", "ControlledAutoToSBackend",
           "Settings", "reported", "write"]


class Bug(StrEnum):
    UNSOUND = "unsound"
    INCOMPLETE = "incomplete"
    SHALLOW = "shallow"
    EXCEPTION = "exception"
    GOAL = "goal"
    SLOW = "slow"


SUCC_BUGS = (Bug.UNSOUND, Bug.INCOMPLETE, Bug.SHALLOW, Bug.EXCEPTION, Bug.SLOW)
# the five classes of the paper's Figure 4 (what ``e=`` sets)
FIGURE4 = (Bug.UNSOUND, Bug.INCOMPLETE, Bug.SHALLOW, Bug.EXCEPTION, Bug.GOAL)

# First-function rates from the 19 recorded runs named in the module docstring.
RECORDED: dict[Bug, float] = {Bug.UNSOUND: 5 / 19, Bug.EXCEPTION: 2 / 19, Bug.SHALLOW: 3 / 19,
                              Bug.INCOMPLETE: 1 / 19, Bug.GOAL: 0.0, Bug.SLOW: 0.0}
# Answers to feedback that fixed the bug reported, by class, same runs (the goal
# test and slow functions: none in the sample; the pooled 13 of 32).
POOLED_FIX = 13 / 32
FIX: dict[Bug, float] = {Bug.UNSOUND: 5 / 8, Bug.EXCEPTION: 4 / 7, Bug.SHALLOW: 3 / 3,
                         Bug.INCOMPLETE: 1 / 14, Bug.GOAL: POOLED_FIX, Bug.SLOW: POOLED_FIX}
REGRESS = 3 / 32  # answers to feedback that brought in a bug of a class not seen before

# The feedback category (veriplan.domains.autotos.harness.CATEGORIES) -> the bug
# it reports.
CATEGORY_BUG = {"succ_soundness": Bug.UNSOUND, "succ_completeness": Bug.INCOMPLETE,
                "input_changed": Bug.SHALLOW, "succ_exception": Bug.EXCEPTION,
                "goal_soundness": Bug.GOAL, "succ_too_slow": Bug.SLOW,
                "search_timeout": Bug.SLOW}


@dataclass(frozen=True)
class Settings:
    """The writer's rates: ``rates[bug]`` the chance a first function has it,
    ``q[bug]`` the chance an answer fixes that bug when it is reported, ``r``
    the chance an answer brings in a new successor bug, ``seed`` its own seed."""

    rates: dict[Bug, float] = field(default_factory=lambda: dict(RECORDED))
    q: dict[Bug, float] = field(default_factory=lambda: dict(FIX))
    r: float = REGRESS
    seed: int = 0

    @classmethod
    def parse(cls, model: str) -> Settings:
        """``autotos`` (the recorded profile) or ``autotos:e=0.2,q=0.5,...``;
        keys: ``e`` (all five Figure 4 classes), one class by name
        (``unsound``, ``incomplete``, ``shallow``, ``exception``, ``goal``,
        ``slow``), ``q`` (every class's fix probability), ``r``, ``seed``."""
        family, _, rest = model.partition(":")
        if family.strip() != "autotos":
            raise ConfigError(f"controlled-autotos model {model!r}: write autotos or "
                              "autotos:e=0.2,q=0.42,r=0.17,seed=0")
        rates, q, r, seed = dict(RECORDED), dict(FIX), REGRESS, 0
        names = {b.value: b for b in Bug}
        items = [p.split("=", 1) for p in rest.split(",") if p.strip()]
        for item in items:
            if len(item) != 2:
                raise ConfigError(f"controlled-autotos model {model!r}: {item[0]!r} is not "
                                  "key=value")
        given = {k.strip(): v.strip() for k, v in items}
        for key, value in given.items():
            try:
                x = int(value) if key == "seed" else float(value)
            except ValueError:
                raise ConfigError(f"controlled-autotos model {model!r}: {key}={value!r} is "
                                  "not a number") from None
            if key != "seed" and not 0.0 <= x <= 1.0:
                raise ConfigError(f"controlled-autotos model {model!r}: {key} must be a "
                                  "probability (0 to 1)")
            if key == "e":
                rates.update(dict.fromkeys(FIGURE4, x))
            elif key in ("q", "r", "seed"):
                pass
            elif key not in names:
                raise ConfigError(f"controlled-autotos model {model!r}: unknown key {key!r} "
                                  f"(e, q, r, seed, {', '.join(names)})")
        for key, value in given.items():  # a class named wins over e
            if key in names:
                rates[names[key]] = float(value)
        if "q" in given:
            q = dict.fromkeys(Bug, float(given["q"]))
        r = float(given.get("r", r))
        seed = int(given.get("seed", seed))
        return cls(rates, q, r, seed)


def reported(feedback: str) -> Bug | None:
    """The bug a feedback text reports, read as a model reads it (the phrases
    of ``prompts/feedback.j2``, one per category); None for a request to answer
    again (a parse error)."""
    text = feedback
    if text.startswith("I could not use your answer"):
        return None
    if text.startswith("The goal test function failed"):
        return Bug.GOAL
    if text.startswith("The successor function changed its input state"):
        return Bug.SHALLOW
    if "did not produce all of its successors" in text:
        return Bug.INCOMPLETE
    if text.startswith(("The successor function raised", "The goal test function raised")):
        return Bug.EXCEPTION
    if "took too long" in text or text.startswith("A search with the successor function"):
        return Bug.SLOW
    return Bug.UNSOUND  # a partial soundness check's message, or "not a state"


# --- the code -----------------------------------------------------------------

_HASH = '''\
def _h(x):
    if isinstance(x, (set, frozenset)):
        x = sorted(x)
    v = 0
    for ch in repr(x):
        v = (v * 131 + ord(ch)) % 1000003
    return v
'''

_CLOBBER = '''\
def _clobber(dst, src):
    if isinstance(dst, dict):
        for k, v in src.items():
            if isinstance(dst.get(k), list) and isinstance(v, list):
                dst[k][:] = v
            else:
                dst[k] = v
    elif isinstance(dst, set):
        dst.clear()
        dst.update(src)
    elif isinstance(dst, list):
        dst[:] = src
'''

# A successor the domain's partial soundness check rejects: the class each
# recorded blooper belongs to (module docstring). Works on ``out`` in place.
_UNSOUND = {
    "24game": '''\
if len(set(state)) < len(state):
    out = out + [s[1:] for s in out if len(s) > 1]
''',
    "blocksworld": '''\
if state["arm-empty"]:
    for s in out:
        if s["holding"] is not None and s["holding"] not in state["on-table"]:
            s["clear"] = list(s["clear"]) + [s["holding"]]
''',
    "sokoban": '''\
_r, _c = state["at-player"]
_stones = [list(p) for p in state["at-stone"]]
for _dr, _dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
    if [_r + _dr, _c + _dc] in _stones:
        out.append({"at-player": [_r + _dr, _c + _dc], "at-stone": [list(p) for p in _stones]})
''',
    "crossword": '''\
if len(out) > 1:
    _a, _b = out[0], out[-1]
    out.append([[_b[i][j] if _b[i][j] is not None else _a[i][j] for j in range(5)]
                for i in range(5)])
''',
    "prontoqa": '''\
if len(out) > 1 and out[0] != out[-1]:
    out.append(out[0] | out[-1])
''',
}

# A goal test that also accepts states that are not goals (module docstring).
_WEAK_GOAL = {
    "24game": "any(abs(x - 24) < 1e-6 for x in state)",
    "blocksworld": "all(tuple(p) in {tuple(q) for q in state['on']} "
                   "for p in args[0].get('on', [])[:1])",
    "sokoban": "any(args[0][r][c] == 2 for r, c in state['at-stone'])",
    "crossword": "all(None not in state[i] and ''.join(state[i]) in args[0][i] "
                 "for i in range(5))",
    "prontoqa": "args[0] in state or str(args[0]).startswith('not-')",
}


@cache
def _reference(domain: str, which: str) -> str:
    from veriplan.domains.autotos import get_domain

    src = get_domain(domain).reference_code(which)
    return src.replace(f"def {which}(", "def _ref(", 1)


def write(domain: str, which: str, bugs: dict[Bug, int]) -> str:
    """The function the writer answers with for ``which`` ("succ" or "goal")
    of ``domain``, with ``bugs`` (each with its draw, which picks the states
    it shows on)."""
    if domain not in _UNSOUND:
        raise BackendError(f"controlled-autotos: no model of the domain {domain!r}")
    body = [_reference(domain, which), _HASH]
    if which == "goal":
        test = "_ref(state, *args)"
        if Bug.GOAL in bugs:
            test = f"{test} or ({_WEAK_GOAL[domain]})"
        body.append(f"return bool({test})\n")
        return "def goal(state, *args):\n" + textwrap.indent("\n".join(body), "    ")
    if Bug.SLOW in bugs:
        body.append(f"if _h(state) % 50 == {bugs[Bug.SLOW] % 50}:\n    while True:\n"
                    "        pass\n")
    if Bug.EXCEPTION in bugs:
        body.append(f"if _h(state) % 4 == {bugs[Bug.EXCEPTION] % 4}:\n"
                    "    raise IndexError('list index out of range')\n")
    body.append("out = _ref(state, *args)\n")
    if Bug.INCOMPLETE in bugs:
        body.append(f"out = [s for s in out if _h(s) % 3 != {bugs[Bug.INCOMPLETE] % 3}]\n")
    if Bug.UNSOUND in bugs:
        body.append(_UNSOUND[domain])
    if Bug.SHALLOW in bugs:
        body.append(_CLOBBER + "if out:\n    _clobber(state, out[0])\n")
    body.append("return out\n")
    return "def succ(state, *args):\n" + textwrap.indent("\n".join(body), "    ")


@cache
def _requests() -> dict[str, tuple[str, str]]:
    """Each domain's Step 1 request -> (domain, function)."""
    from veriplan.domains.autotos import DOMAINS, get_domain

    return {get_domain(d).prompt(w): (d, w) for d in DOMAINS for w in ("succ", "goal")}


class ControlledAutoToSBackend(ControlledModel):
    """``--backend controlled-autotos --model autotos[:e=E,q=Q,r=R,seed=S]``:
    see the module docstring. Stateless between calls (it replays the
    conversation), so any number of threads may share it."""

    name = "controlled-autotos"
    family = "autotos"

    def __init__(self, model: str = "autotos", **_: object) -> None:
        self.settings = Settings.parse(model)
        self.default_model = model
        self.requests = []

    def _rng(self, request: LLMRequest, domain: str, which: str, call: int) -> random.Random:
        return random.Random(f"{self.settings.seed}|{request.seed}|{domain}|{which}|{call}")

    def bugs(self, request: LLMRequest) -> tuple[str, str, dict[Bug, int]]:
        """(domain, function, the bugs of the answer to ``request``), replaying
        the conversation: the first function's draws, then each feedback."""
        msgs = request.messages
        if len(msgs) < 2:
            raise BackendError("controlled-autotos: the conversation has no Step 1 request")
        found = _requests().get(msgs[1].content.strip())
        if found is None:
            raise BackendError("controlled-autotos: the conversation does not open with one "
                               "of the AutoToS domains' Step 1 requests")
        domain, which = found
        s = self.settings
        own = (Bug.GOAL,) if which == "goal" else SUCC_BUGS
        rng = self._rng(request, domain, which, 0)
        bugs: dict[Bug, int] = {}
        for bug in own:  # one draw each, in a fixed order
            present, salt = rng.random() < s.rates.get(bug, 0.0), rng.randrange(1 << 30)
            if present:
                bugs[bug] = salt
        feedbacks = [m.content for m in msgs[2:] if m.role == "user"]
        for call, text in enumerate(feedbacks, start=1):
            rng = self._rng(request, domain, which, call)
            fix, new, pick, salt = (rng.random(), rng.random(), rng.random(),
                                    rng.randrange(1 << 30))
            bug = reported(text)
            if bug is not None and bug in bugs and fix < s.q.get(bug, POOLED_FIX):
                del bugs[bug]
            if which == "succ" and new < s.r:
                weights = [(b, s.rates.get(b, 0.0)) for b in SUCC_BUGS
                           if b not in bugs and s.rates.get(b, 0.0) > 0]
                total = sum(w for _, w in weights)
                x = pick * total
                for b, w in weights:
                    x -= w
                    if x < 0 or b == weights[-1][0]:
                        bugs[b] = salt
                        break
        return domain, which, bugs

    def answer(self, prompt: str, request: LLMRequest) -> str:
        domain, which, bugs = self.bugs(request)
        return "```python\n" + write(domain, which, bugs) + "```\n"
