"""Issue 33: ScienceWorld's doors, on the engine (one simulator for the module).

- Opening the door to R from one room leaves every other room's "door to R"
  as it was, in the engine, so the stores may keep those facts (they used to
  forget them).
- ``veriplan aec check-store`` compares w with the engine's door states too
  (``true_doors``; the object tree has none): a store with a wrong door fact
  is caught, where before door facts went unchecked.
- ``true_doors`` reads the world's doors once per load and their states on
  every call: the same facts as a fresh read, after a door changed and after
  another load.
"""

from __future__ import annotations

import pytest

from veriplan.envs.base import Fact
from veriplan.envs.scienceworld import ScienceWorld
from veriplan.methods.aec.storecheck import replay_store

TASK = "chemistry-mix:24"


def _fresh(env: ScienceWorld) -> set[Fact]:
    return {Fact("open", names, door.getOpenClosedStr() == "open")
            for door, names in env._find_doors()}


def test_opening_a_door_changes_no_other_rooms_door_to_the_same_room(sciworld):
    sciworld.reset(TASK)
    here = next(f.args[1] for f in sciworld.grounded if f.pred == "at" and f.value)
    before = sciworld.true_doors()
    mine = {f.args[0] for f in before if f.args[1] == here}
    # a door of this room to R, where another room has a door to R too
    target = next(n for n in sorted(mine)
                  if any(f.args[0] == n and f.args[1] != here for f in before))
    room = target[len("door to "):]
    elsewhere = {f for f in before if f.args[0] == target and f.args[1] != here}
    seeded = sciworld.grounded | elsewhere  # the store knows the other rooms' doors to R
    sciworld.grounded = seeded
    verb = "close" if Fact("open", (target, here)) in before else "open"
    sciworld.step(f"{verb} {target}")
    after = sciworld.true_doors()
    assert Fact("open", (target, here), verb == "open") in after  # the step did change it
    assert Fact("open", (f"door to {here}", room), verb == "open") in after  # its other side
    assert elsewhere <= after  # the other rooms' doors to R did not change ...
    assert elsewhere <= sciworld.grounded  # ... and the store still knows them
    assert sciworld.contradicted(sciworld.grounded, sciworld.true_facts() | after) == []


def test_true_doors_reads_the_same_as_a_fresh_read_after_a_change_and_a_new_load(sciworld):
    sciworld.reset(TASK)
    assert sciworld.true_doors() == _fresh(sciworld)
    here = next(f.args[1] for f in sciworld.grounded if f.pred == "at" and f.value)
    door = sorted(f.args[0] for f in sciworld.true_doors() if f.args[1] == here)[0]
    was = Fact("open", (door, here)) in sciworld.true_doors()
    sciworld.step(f"{'close' if was else 'open'} {door}")
    now = sciworld.true_doors()
    assert (Fact("open", (door, here)) in now) is not was and now == _fresh(sciworld)
    sciworld.reset("find-animal:230")
    assert sciworld.true_doors() == _fresh(sciworld)


def test_check_store_catches_a_wrong_door_fact(sciworld, monkeypatch):
    """A grounder that reads every door the other way round: the store's door
    facts are wrong from the first look, and only the engine's doors can say so."""
    ground = ScienceWorld.ground

    def backwards(self, text, action=None):
        return {Fact(f.pred, f.args, not f.value) if f.pred == "open" and
                f.args[0].startswith("door to ") else f for f in ground(self, text, action)}

    monkeypatch.setattr(ScienceWorld, "ground", backwards)
    r = replay_store(sciworld, TASK)
    assert r.steps > 0 and not r.problem
    assert r.contradicted and all("door to " in c for c in r.contradicted)
    assert r.contradicted[0].startswith("at the start")


def test_check_store_with_doors_finds_nothing_on_a_gold_path(sciworld):
    r = replay_store(sciworld, TASK)
    assert r.won and r.steps > 0 and not r.problem and r.contradicted == []
    assert r.doors > 0  # w's door facts were compared with the engine's
    plain = replay_store(sciworld, TASK, doors=False)
    assert plain.contradicted == [] and plain.doors == 0


@pytest.mark.parametrize(("flag", "doors"), [([], True), (["--no-doors"], False)])
def test_check_store_passes_the_door_option_on(flag, doors, monkeypatch, capsys):
    """The door truth is on by default; ``--no-doors`` is the object tree only."""
    import veriplan.methods.aec.storecheck as storecheck
    from veriplan.cli import main

    seen = []

    def fake(name, ids, on_episode=None, **kw):
        seen.append(kw)
        return [storecheck.StoreCheck(ids[0], won=True, steps=1)]

    monkeypatch.setattr(storecheck, "check_stores_in", fake)
    assert main(["aec", "check-store", "--env", "scienceworld", "--limit", "1", *flag]) == 0
    assert seen and seen[0]["doors"] is doors
    out = capsys.readouterr().out
    assert ("door facts not checked" in out) is not doors
