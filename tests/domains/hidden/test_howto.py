"""How-to projects: WikiHow's layouts, the paper's filter, the tasks."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from veriplan.core.verdict import FindingKind
from veriplan.domains.hidden import Oracle
from veriplan.domains.hidden.common import TaskFileError
from veriplan.domains.hidden.howto import (
    HOWTO,
    article_task,
    howto_tasks,
    read_howto,
    things_from_text,
    usable_articles,
)


def missing(judgement):
    """The (step, item) pairs the decider found using an item the user lacks."""
    return [(f.step, f.subject) for f in judgement.findings
            if f.kind is FindingKind.MISSING_ITEM]

STEPS = ["Measure the board with a measuring tape.", "Mark the cut with a pencil.",
         "Cut the board with a hand saw.", "Sand the edges with sandpaper.",
         "Nail the pieces together with a hammer."]
THINGS = ["Measuring tape", "Pencil", "Hand saw", "Sandpaper (120 grit)", "Hammer", "Nails"]


def _article(i: int, **kw) -> dict:
    a = {"id": f"a{i}", "title": f"How to Build Thing {i}", "steps": STEPS,
         "things_needed": THINGS}
    a.update(kw)
    return {k: v for k, v in a.items() if v is not None}


def _write(path: Path, objs: list) -> Path:
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n"
                            for o in objs), encoding="utf-8")
    return path


def test_reader_on_the_repository_file():
    read = read_howto(HOWTO)
    assert read.rows == 73 and len(read.articles) == 73 and read.skipped == ()
    first = read.articles[0]
    assert (first.id, first.title, first.line) == ("h001", "How to Build a Birdhouse", 1)
    assert len(first.steps) == 8  # two methods of four steps, in order
    assert first.steps[0].startswith("Measure the front")
    assert first.things_needed[:2] == ("1 cedar board, 6 feet long", "Measuring tape")
    assert sum(a.things_needed is None for a in read.articles) == 1


def test_the_papers_filter_counts_what_it_leaves_out():
    usable = usable_articles()
    assert len(usable.articles) == 71
    assert sorted(s.reason for s in usable.skipped) == [
        "3 steps (at least 4 needed)", "no Things You'll Need list"]
    assert all(len(a.steps) >= 4 and a.things_needed for a in usable.articles)


def test_at_least_200_tasks():
    ts = howto_tasks()
    assert len(ts) >= 200 and len({t.id for t in ts}) == len(ts)
    for t in ts:
        assert 3 <= t.m <= 8 and len(t.reference) >= 4 and t.family == "howto"
        assert t.decide(list(t.reference)).valid, (t.id, t.decide(list(t.reference)))
        assert all(p.holds or p.substitutes for p in t.latent)
    assert sum(not p.holds for t in ts for p in t.latent) > len(ts)
    assert ts.tasks[0].goal == "Build a Birdhouse"


def test_decider_and_oracle_with_a_substitute(tmp_path):
    p = _write(tmp_path / "a.jsonl", [_article(1)])
    art = read_howto(p).articles[0]
    task = next(t for v in range(40) for t in [article_task(art, v)]
                if any(p.subject == "hammer" and not p.holds for p in t.latent))
    hammer = next(p for p in task.latent if p.subject == "hammer")
    assert "rubber mallet" in hammer.substitutes
    assert missing(task.decide(["Drive the nails with a hammer."])) == [(1, "hammer")]
    assert missing(task.decide(["Drive the nails with a rubber mallet."])) == []
    answer = Oracle(task).ask("Do you have a hammer?")
    assert answer.status == "no" and answer.substitutes == hammer.substitutes
    assert task.variant(2, seed=1).revealed == task.variant(2, seed=1).revealed


def test_methods_layout_and_step_objects(tmp_path):
    obj = _article(1, steps=None, methods=[
        {"name": "Cutting", "steps": [{"headline": STEPS[0], "description": "Twice."},
                                      STEPS[1], {"headline": STEPS[2]}]},
        {"name": "Finishing", "steps": STEPS[3:]}])
    obj["things_youll_need"] = obj.pop("things_needed")
    art = read_howto(_write(tmp_path / "m.jsonl", [obj])).articles[0]
    assert art.steps == tuple(STEPS) and art.things_needed == tuple(THINGS)


@pytest.mark.parametrize("line, field", [
    ("{not json", None),
    (json.dumps(["a list"]), None),
    (json.dumps(_article(2, title="")), "title"),
    (json.dumps(_article(2, things_needed="Hammer")), "things_needed"),
    (json.dumps(_article(2, steps=None, methods=[{"steps": ["a", 3]}])), "methods[0].steps[1]"),
    (json.dumps(_article(2, steps=None)), "steps"),
    (json.dumps(_article(1)), "id"),  # the id repeats line 1
])
def test_malformed_lines_name_file_line_and_field(tmp_path, line, field):
    p = _write(tmp_path / "bad.jsonl", [_article(1), "", line])
    with pytest.raises(TaskFileError) as e:
        read_howto(p)
    assert (e.value.file, e.value.line, e.value.field) == (str(p), 3, field)
    assert str(e.value).startswith(f"{p}:3: ")


def test_skip_mode_counts_malformed_lines(tmp_path):
    p = _write(tmp_path / "s.jsonl", [_article(1), "{oops", _article(3, things_needed=None)])
    ts = howto_tasks(path=p, variants=2, on_error="skip")
    assert len(ts) == 2
    assert sorted(s.line for s in ts.skipped) == [2, 3]
    assert any("not valid JSON" in s.reason for s in ts.skipped)


def test_wikihow_csv_layout(tmp_path):
    p = tmp_path / "wikihowAll.csv"
    text = ("Some intro.\nThings You'll Need\n- Hammer\n- Nails\n- Sandpaper\n- Pencil\n\n"
            "More text.")
    with open(p, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["headline", "title", "text"])
        w.writerow(["\n".join(s + "," for s in STEPS), "How to Build Thing1", text])
        w.writerow(["\nOne step.,\nTwo steps.", "How to Do Little2", "No list here."])
    read = read_howto(p)
    assert read.rows == 2
    a = read.articles[0]
    assert a.steps == tuple(STEPS) and a.things_needed == ("Hammer", "Nails", "Sandpaper",
                                                           "Pencil")
    ts = howto_tasks(path=p, variants=1)
    assert len(ts) == 1 and ts.tasks[0].goal == "Build Thing"
    assert [s.reason for s in ts.skipped] == ["no Things You'll Need list"]


def test_things_from_text():
    assert things_from_text("Steps.\nThings You’ll Need:\n* Glue\n* Tape\n") == ("Glue", "Tape")
    assert things_from_text("No list.") is None


def test_missing_csv_columns(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("title,text\nHow to X,y\n", encoding="utf-8")
    with pytest.raises(TaskFileError) as e:
        read_howto(p)
    assert (e.value.line, e.value.field) == (1, "headline")


def test_text_that_is_not_utf8_is_a_located_error(tmp_path):
    p = tmp_path / "latin1.jsonl"
    p.write_bytes(json.dumps(_article(1)).encode() + b"\n" + b'{"title": "Caf\xe9"}\n')
    with pytest.raises(TaskFileError) as e:
        read_howto(p)
    assert e.value.line == 2


def test_the_artefact_is_the_object_of_the_goals_verb():
    from veriplan.domains.hidden.howto import artefact

    assert artefact("Build a Birdhouse") == "birdhouse"
    assert artefact("Clean Windows Without Streaks") == "windows"
    assert artefact("Make a toy car from a wooden table") == "toy car"
    assert artefact("Hang a Picture Frame") == "picture frame"


def test_a_task_carries_its_product_and_what_it_is_made_with():
    from veriplan.domains.hidden.howto import howto_tasks

    t = next(t for t in howto_tasks().tasks if t.id == "howto-h001-v0")
    assert t.product == "birdhouse" and "cedar board" in t.made_with
    assert t.decide(["Paint the birdhouse."]).findings[0].kind is FindingKind.NOT_PRODUCED
