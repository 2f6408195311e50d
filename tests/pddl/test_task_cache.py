"""load_task caches parsed domains by file identity."""

from __future__ import annotations

import os
import threading
import warnings

import pytest

from tests.helpers import BLOCKS_DOMAIN, blocks_problem
from veriplan.errors import PDDLLenientWarning, PDDLParseError
from veriplan.pddl import task as task_module
from veriplan.pddl.task import cached_domain, clear_domain_cache, load_task
from veriplan.verify import validate_plan

HOUR_NS = 3600 * 10**9
# The blocks domain with the built-in type declared: an error when strict, a
# warning when lenient.
LENIENT_DOMAIN = BLOCKS_DOMAIN.replace("(:requirements :strips)",
                                       "(:requirements :strips :typing)\n  (:types object)")


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_domain_cache()
    yield
    clear_domain_cache()


def _files(tmp_path, domain: str = BLOCKS_DOMAIN, *, age_ns: int = HOUR_NS):
    dom, prob = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
    dom.write_text(domain)
    prob.write_text(blocks_problem(3))
    if age_ns:
        _age(dom, age_ns)
    return dom, prob


def _age(path, age_ns: int) -> None:
    """Give ``path`` an mtime ``age_ns`` in the past (beyond the racy window)."""
    t = os.stat(path).st_mtime_ns - age_ns
    os.utime(path, ns=(t, t))


def test_unchanged_domain_file_is_parsed_once_and_shared(tmp_path, monkeypatch):
    dom, prob = _files(tmp_path)
    parses = []
    real = task_module.parse_domain
    monkeypatch.setattr(task_module, "parse_domain",
                        lambda *a, **k: parses.append(1) or real(*a, **k))
    t1, t2 = load_task(dom, prob), load_task(str(dom), prob)
    t3 = load_task(dom, prob)
    assert len(parses) == 1
    assert t1.domain is t2.domain is t3.domain
    assert t1 is not t3 and t1.problem is not t3.problem  # the problem is read each time
    # Tasks of one domain object share the STRIPS operators validated so far.
    assert validate_plan(t1, ["(pick-up b2)", "(stack b2 b3)"]).steps_executed == 2
    assert t3.operator("stack", ("b2", "b3")) is t1.checked_operator("stack", ("b2", "b3"))
    assert t3.checked_operator("stack", ("b2", "b3")) is None  # checked per task


def test_changed_domain_file_is_read_again(tmp_path):
    dom, prob = _files(tmp_path)
    first = load_task(dom, prob).domain
    dom.write_text(BLOCKS_DOMAIN.replace("(define (domain bw)", "(define (domain bw) ; v2"))
    _age(dom, HOUR_NS // 2)  # a new size and an older, but different, mtime
    second = load_task(dom, prob).domain
    assert second is not first and second == first  # re-read: equal content, new object
    assert load_task(dom, prob).domain is second


def test_same_size_rewrite_within_the_timestamp_resolution_is_seen(tmp_path):
    dom, prob = _files(tmp_path, age_ns=0)  # just written: a racy entry
    first = load_task(dom, prob).domain
    st = os.stat(dom)
    dom.write_text(BLOCKS_DOMAIN.replace("pick-up", "pick-uq"))  # same size
    os.utime(dom, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime
    assert os.stat(dom).st_size == st.st_size
    second = load_task(dom, prob).domain
    assert second is not first and second.action("pick-uq") is not None
    assert load_task(dom, prob).domain is second


def test_racy_entry_is_trusted_once_confirmed(tmp_path, monkeypatch):
    dom, prob = _files(tmp_path, age_ns=0)
    first = load_task(dom, prob).domain
    reads = []
    real = task_module._read_text
    monkeypatch.setattr(task_module, "_read_text", lambda p: reads.append(p) or real(p))
    assert load_task(dom, prob).domain is first and len(reads) == 1  # compared by content
    monkeypatch.setattr(task_module._DomainCache, "RACY_NS", 0)  # the window has passed
    assert load_task(dom, prob).domain is first and len(reads) == 2  # confirmed once more
    assert load_task(dom, prob).domain is first and len(reads) == 2  # then the stat will do


def test_strict_and_lenient_are_cached_apart_and_warnings_repeat(tmp_path):
    dom, prob = _files(tmp_path, LENIENT_DOMAIN)
    with pytest.raises(PDDLParseError, match="built in"):
        load_task(dom, prob)
    with pytest.raises(PDDLParseError, match="built in"):
        load_task(dom, prob)  # errors are not cached
    for _ in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = load_task(dom, prob, strict=False)
        assert [str(w.message) for w in caught if w.category is PDDLLenientWarning] == \
            list(t.domain.warnings) and len(t.domain.warnings) == 1
    with pytest.warns(PDDLLenientWarning, match="type 'object' is built in"):
        assert load_task(dom, prob, strict=False).domain is t.domain

    (tmp_path / "plain").mkdir()
    plain, _ = _files(tmp_path / "plain")
    strict = cached_domain(plain)
    lenient = cached_domain(plain, strict=False)
    assert strict is not lenient and strict == lenient
    assert cached_domain(plain) is strict and cached_domain(plain, strict=False) is lenient


def test_missing_domain_file_raises_the_read_error(tmp_path):
    with pytest.raises(PDDLParseError, match="cannot read PDDL file"):
        load_task(tmp_path / "nope.pddl", tmp_path / "nope-problem.pddl")


def test_cache_is_bounded(tmp_path):
    paths = []
    for i in range(70):
        p = tmp_path / f"d{i}.pddl"
        p.write_text(BLOCKS_DOMAIN)
        _age(p, HOUR_NS)
        paths.append(p)
    domains = [cached_domain(p) for p in paths]
    assert len(task_module._DOMAINS) == 64
    assert cached_domain(paths[-1]) is domains[-1]  # recent ones stay
    assert cached_domain(paths[0]) is not domains[0]  # the oldest were dropped


def test_threads_share_one_domain(tmp_path):
    dom, prob = _files(tmp_path)
    barrier = threading.Barrier(8)
    got = []

    def load():
        barrier.wait()
        got.append(load_task(dom, prob).domain)

    threads = [threading.Thread(target=load) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all(d is got[0] for d in got)


MOVES = """(define (domain m) (:requirements :strips :typing) (:types thing place)
  (:predicates (at ?x - thing) (moved ?x - thing ?to - place))
  (:action move :parameters (?x - thing ?to - place) :precondition (at ?x)
    :effect (moved ?x ?to)))"""


def test_a_step_checked_in_one_problem_is_checked_again_in_another(tmp_path):
    """Tasks of one cached domain share operators, never the checks of objects
    and types: (move a b) is valid where b is a place, not where b is a thing or
    no object at all."""
    dom = tmp_path / "m.pddl"
    dom.write_text(MOVES)
    problems = {"place": "(:objects a - thing b - place)", "thing": "(:objects a b - thing)",
                "none": "(:objects a - thing)"}
    for name, objects in problems.items():
        (tmp_path / f"{name}.pddl").write_text(
            f"(define (problem {name}) (:domain m) {objects} (:init (at a)) (:goal (at a)))")
    ok = load_task(dom, tmp_path / "place.pddl")
    assert validate_plan(ok, ["(move a b)"]).valid
    thing = load_task(dom, tmp_path / "thing.pddl")
    none = load_task(dom, tmp_path / "none.pddl")
    assert thing.domain is ok.domain is none.domain
    assert validate_plan(thing, ["(move a b)"]).error == "wrong-type"
    assert validate_plan(none, ["(move a b)"]).error == "unknown-object"
    assert validate_plan(ok, ["(move a b)"]).valid
