"""Recipes: RecipeNLG's CSV format, the substitution table, the tasks."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from veriplan.core.verdict import FindingKind
from veriplan.domains.hidden import Oracle
from veriplan.domains.hidden.common import (
    PhraseFinder,
    TaskFileError,
    item_name,
    read_substitutions,
)
from veriplan.domains.hidden.recipes import (
    RECIPES,
    equipment_finder,
    read_recipes,
    recipe_task,
    recipes_tasks,
)
from veriplan.errors import DataError


def missing(judgement):
    """The (step, item) pairs the decider found using an item the user lacks."""
    return [(f.step, f.subject) for f in judgement.findings
            if f.kind is FindingKind.MISSING_ITEM]

HEADER = ["", "title", "ingredients", "directions", "link", "source", "NER"]
DIRECTIONS = ["Preheat the oven to 350 F.", "Cream the butter and sugar in a mixing bowl.",
              "Beat in the eggs with a whisk.", "Stir in the flour.",
              "Bake in a cake pan for 30 minutes."]


def _write(path: Path, rows: list[list[str]], header: list[str] = HEADER) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def _row(i: int, title: str = "Butter Cake", ner: str | None = None,
         directions: list[str] | None = None) -> list[str]:
    return [str(i), title, json.dumps(["1 c. butter", "1 c. sugar", "2 eggs", "2 c. flour"]),
            json.dumps(directions or DIRECTIONS), f"example.org/{i}", "Gathered",
            ner if ner is not None else json.dumps(["butter", "sugar", "eggs", "flour"])]


def test_reader_on_the_repository_file():
    read = read_recipes(RECIPES)
    assert read.rows == 85 and len(read.recipes) == 85 and read.skipped == ()
    first = read.recipes[0]
    assert (first.id, first.title, first.source) == ("0", "Buttermilk Pancakes", "veriplan")
    assert first.ingredients[0] == "2 c. all-purpose flour"
    assert "buttermilk" in first.ner and len(first.directions) == 7
    assert first.line == 2 and first.link == "veriplan/recipes/0"
    assert len({r.id for r in read.recipes}) == 85
    assert all(r.title and r.directions and r.ner for r in read.recipes)


def test_at_least_200_tasks_with_the_papers_shape():
    ts = recipes_tasks()
    assert len(ts) >= 200
    assert ts.reasons() == {"3 directions (tasks have 4-10)": 2}
    assert len({t.id for t in ts}) == len(ts)
    for t in ts:
        assert 3 <= t.m <= 8 and 4 <= len(t.reference) <= 10
        assert t.family == "recipes" and t.goal.startswith("make ")
        assert t.constraints == ("use only what you have or an allowed substitute",)
        assert {p.subject for p in t.latent} <= set(t.resources)
        assert t.decide(list(t.reference)).valid, t.id  # the adapted reference is valid
        for p in t.latent:
            assert p.holds or p.substitutes  # a missing resource has a substitute
    missing = sum(not p.holds for t in ts for p in t.latent)
    assert missing > len(ts)  # about one or two per task
    assert any(p.kind == "equipment" for t in ts for p in t.latent)


def test_tasks_are_deterministic_and_seeded():
    a, b = recipes_tasks(), recipes_tasks()
    assert [(t.id, t.latent, t.reference) for t in a] == [(t.id, t.latent, t.reference)
                                                          for t in b]
    c = recipes_tasks(seed=1)
    assert [t.latent for t in a] != [t.latent for t in c]


def test_decider_missing_ingredient_violates_its_substitute_does_not():
    recipe = read_recipes(RECIPES).recipes[0]  # buttermilk pancakes
    task = next(t for v in range(30) for t in [recipe_task(recipe, v)]
                if any(p.subject == "butter" and not p.holds for p in t.latent))
    butter = next(p for p in task.latent if p.subject == "butter")
    assert butter.substitutes[0] == "margarine"
    bad = task.decide(["Melt the butter in a skillet."])
    assert missing(bad) == [(1, "butter")]
    assert missing(task.decide(["Melt the margarine in a skillet."])) == []
    answer = Oracle(task).ask("Do you have butter?")
    assert answer.status == "no" and "margarine" in answer.substitutes


def test_equipment_is_read_from_the_directions():
    finder = equipment_finder()
    assert finder.find("Line a baking sheet with parchment paper and preheat the oven.") == [
        "baking sheet", "parchment paper", "oven"]
    assert PhraseFinder(["pan", "frying pan"]).find("Heat the frying pans.") == ["frying pan"]


def test_substitution_table():
    table = read_substitutions()
    assert len(table) >= 150
    assert table.substitutes("buttermilk", "recipes")[0] == "milk with lemon juice"
    assert table.substitutes("eggs", "recipes") == ("flax egg", "mashed banana")
    assert table.substitutes("hammer", "howto")
    assert table.substitutes("hammer", "recipes") == ()
    assert all(e.note for e in table.entries)


def test_substitution_table_errors_name_line_and_field(tmp_path):
    p = tmp_path / "subs.csv"
    p.write_text("item,substitutes,family,note\nbutter,,recipes,a note\n", encoding="utf-8")
    with pytest.raises(TaskFileError) as e:
        read_substitutions(p)
    assert (e.value.line, e.value.field) == (2, "substitutes")
    p.write_text("item,substitutes,family,note\nbutter,oil,kitchen,a note\n", encoding="utf-8")
    with pytest.raises(TaskFileError, match="'family'"):
        read_substitutions(p)


def test_a_users_file_by_path_with_python_style_lists(tmp_path):
    rows = [_row(i, f"Cake {i}") for i in range(3)]
    rows.append(_row(3, "Repr lists", ner=str(["butter", "sugar", "eggs", "flour"])))
    p = _write(tmp_path / "full_dataset.csv", rows)
    ts = recipes_tasks(path=p, variants=2)
    assert len(ts) == 8 and ts.source == str(p)
    assert read_recipes(p).recipes[3].ner == ("butter", "sugar", "eggs", "flour")


def test_unsuitable_recipes_are_counted_not_dropped(tmp_path):
    rows = [_row(0), _row(1, "Too short", directions=DIRECTIONS[:3]),
            _row(2, "Few resources", ner="[]", directions=["Stir.", "Stir.", "Stir.", "Stir."])]
    ts = recipes_tasks(path=_write(tmp_path / "r.csv", rows), variants=1)
    assert len(ts) == 1
    assert [s.item for s in ts.skipped] == ["Too short", "Few resources"]
    assert ts.skipped[0].line == 3


@pytest.mark.parametrize("bad, field", [
    (lambda r: r.__setitem__(6, '["butter", 3]'), "NER"),
    (lambda r: r.__setitem__(3, "not a list"), "directions"),
    (lambda r: r.__setitem__(2, '{"a": 1}'), "ingredients"),
    (lambda r: r.__setitem__(1, "  "), "title"),
])
def test_malformed_rows_name_file_line_and_field(tmp_path, bad, field):
    rows = [_row(0), _row(1)]
    bad(rows[1])
    p = _write(tmp_path / "bad.csv", rows)
    with pytest.raises(TaskFileError) as e:
        read_recipes(p)
    assert isinstance(e.value, DataError)
    assert (e.value.file, e.value.line, e.value.field) == (str(p), 3, field)
    assert f"bad.csv:3: field {field!r}" in str(e.value)


def test_wrong_field_count_and_missing_columns(tmp_path):
    rows = [_row(0), _row(1)[:5]]
    with pytest.raises(TaskFileError, match=r"bad.csv:3: 5 fields, the header has 7"):
        read_recipes(_write(tmp_path / "bad.csv", rows))
    with pytest.raises(TaskFileError) as e:
        read_recipes(_write(tmp_path / "nohead.csv", [], ["", "title", "directions"]))
    assert (e.value.line, e.value.field) == (1, "ingredients")


def test_multiline_rows_report_their_first_line(tmp_path):
    first = _row(0)
    first[3] = json.dumps(DIRECTIONS).replace(", ", ",\n")  # a row over several lines
    second = _row(1, ner='["x"')
    p = _write(tmp_path / "multi.csv", [first, second])
    with pytest.raises(TaskFileError) as e:
        read_recipes(p)
    assert e.value.line == 2 + len(DIRECTIONS)


def test_skip_mode_records_malformed_rows(tmp_path):
    rows = [_row(0), _row(1, ner="oops"), _row(2)]
    read = read_recipes(_write(tmp_path / "r.csv", rows), on_error="skip")
    assert [r.id for r in read.recipes] == ["0", "2"]
    assert len(read.skipped) == 1 and "field 'NER'" in read.skipped[0].reason
    ts = recipes_tasks(path=tmp_path / "r.csv", on_error="skip", variants=1)
    assert len(ts) == 2 and len(ts.skipped) == 1


def test_a_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="cannot read"):
        read_recipes(tmp_path / "nope.csv")


def test_item_names():
    assert item_name("2 cups all-purpose flour") == "all-purpose flour"
    assert item_name("A pair of scissors") == "scissors"
    assert item_name("Sandpaper (120 grit)") == "sandpaper"
    assert item_name("Wood glue, optional") == "wood glue"
    assert item_name("One 8-foot 2x4 board") == "2x4 board"


def test_text_that_is_not_utf8_is_a_located_error(tmp_path):
    p = _write(tmp_path / "r.csv", [_row(0)])
    p.write_bytes(p.read_bytes() + b'1,Caf\xe9,"[]","[]",,,"[]"\n')
    with pytest.raises(TaskFileError, match="r.csv:3: not UTF-8") as e:
        read_recipes(p)
    assert e.value.line == 3


def test_a_recipe_task_makes_its_dish_from_its_ingredients():
    t = next(t for t in recipes_tasks().tasks if t.id == "recipe-0-v0")
    assert t.product == "buttermilk pancakes"
    assert set(t.made_with) <= set(t.resources) and "buttermilk" in t.made_with
    assert t.decide(["Serve the pancakes."]).findings[0].kind is FindingKind.NOT_PRODUCED
    assert t.decide(list(t.reference)).valid
