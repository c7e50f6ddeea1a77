"""The points of the book's exercises: declared in every chapter, totalled by ``check``, tabled in the guide.

Every graded exercise declares ``kpca_points`` in the metadata of its graded
cell, every check its ``kpca_share``, and every derivation its points on the
markdown cell holding its ``{solution}`` (:mod:`coursework.authoring.points`).
The totals are summed here from the raw metadata, independently of the
grader's reading of it, and compared with what ``python -m coursework check``
prints and with the guide's table "Points per chapter".
"""

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest

from coursework.__main__ import main
from coursework.authoring.exercises import solution_cells
from coursework.authoring.points import declared_written
from toc_pages import CHAPTER_PAGES

ROOT = Path(__file__).resolve().parents[1]
ALL_CHAPTERS = CHAPTER_PAGES  # the chapter pages (their sections hold no exercises)
SOLUTION = re.compile(r"^ {0,3}(?:`{3,}|:{3,})\{solution\}\s+(\S+)", re.MULTILINE)
SOLUTION_START = re.compile(r"^ {0,3}(?:`{3,}|:{3,})\{solution-start\}\s+(\S+)", re.MULTILINE)


def declared_written_parts(path):
    """label -> points of the written part of each code exercise that declares one, read straight from the
    metadata of the markdown cell opening its solution: a number (on a cell holding no derivation's solution,
    whose number it would be) or a mapping naming the label."""
    parts = {}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"]) if cell["cell_type"] == "markdown" else ""
        value = cell["metadata"].get("kpca_points")
        for label in SOLUTION_START.findall(source) if value is not None else ():
            if isinstance(value, dict) and label in value:
                parts[label] = value[label]
            elif not isinstance(value, dict) and not SOLUTION.search(source):
                parts[label] = value
    return parts


def declared_points(path):
    """(code, written): label -> points, read straight from the chapter's cell metadata.

    Fails the test when a graded exercise, one of its checks or a derivation declares nothing.
    """
    text = path.read_text(encoding="utf-8")
    raw, nb = json.loads(text), nbformat.reads(text, as_version=4)
    code = {}
    for found in solution_cells(nb, path.name):
        metadata = raw["cells"][found.index]["metadata"]
        assert "kpca_share" in metadata, f"{path.name}: a check of {found.exercise} declares no kpca_share"
        if found.graded and not found.hidden:
            assert "kpca_points" in metadata, f"{path.name}: {found.exercise} declares no kpca_points"
            code.setdefault(found.exercise, metadata["kpca_points"])
    written = {}
    for cell in raw["cells"]:
        source = "".join(cell["source"]) if cell["cell_type"] == "markdown" else ""
        for label in SOLUTION.findall(source):
            value = cell["metadata"].get("kpca_points")
            assert value is not None and (not isinstance(value, dict) or label in value), \
                f"{path.name}: the derivation {label} declares no kpca_points"
            written[label] = value[label] if isinstance(value, dict) else value
    return code, written


@pytest.mark.parametrize("path", ALL_CHAPTERS, ids=lambda path: path.stem)
def test_every_exercise_of_every_chapter_declares_its_points(path):
    code, written = declared_points(path)
    assert len(code) >= 2 and len(written) >= 1
    for label, points in {**code, **written}.items():
        assert isinstance(points, int) and 2 <= points <= 6, f"{label}: {points!r}"
    for label, points in declared_written_parts(path).items():  # the written part of a code exercise
        assert label in code, f"{label}: a written part declared on the solution of no graded exercise"
        assert isinstance(points, int) and 1 <= points <= 6, f"{label} (written part): {points!r}"


def check_totals(capsys):
    """The chapter totals that ``check chapters/`` prints: name -> (total, by the checks, by hand)."""
    assert main(["check", str(ROOT / "chapters")]) == 0
    out = capsys.readouterr().out
    totals = re.findall(r"^chapters/(\S+)\.ipynb\n(?:  .*\n)*?  (\S+) points: (\S+) by the checks, (\S+) by hand$",
                        out.replace(str(ROOT) + "/", ""), flags=re.MULTILINE)
    return {name: tuple(float(x) for x in numbers) for name, *numbers in totals}, out


def test_check_prints_each_exercise_and_the_totals_declared(capsys):
    totals, out = check_totals(capsys)
    assert sorted(totals) == [path.stem for path in ALL_CHAPTERS]
    grand = 0
    for path in ALL_CHAPTERS:
        code, written = declared_points(path)
        parts = declared_written_parts(path)  # graded by hand, apart from the points of the checks
        by_hand = sum(written.values()) + sum(parts.values())
        assert totals[path.stem] == (sum(code.values()) + by_hand, sum(code.values()), by_hand)
        grand += sum(code.values()) + by_hand
        for label, points in written.items():
            assert re.search(rf"\({label}\): written, graded by hand; {points} points?$", out, flags=re.MULTILINE)
        for label, points in code.items():  # the visible check is worth its share of the points
            part = rf"; written part {parts[label]} points?, by hand" if label in parts else ""
            assert re.search(rf"\({label}\): graded, .*; {points} points? \(visible [^)]*\){part}$", out,
                             flags=re.MULTILINE)
    assert f"\n{grand:g} points in {len(ALL_CHAPTERS)} chapters\n" in out


def test_check_counts_the_written_part_of_a_code_exercise_by_hand(tmp_path, capsys):
    # chapter 1 with a written part declared on the solution-start cell of each of its code exercises, in both
    # forms (a number; a mapping that names the label, and must when the cell holds a derivation's solution too)
    path = tmp_path / "01_pca.ipynb"
    nb = json.loads((ROOT / "chapters" / "01_pca.ipynb").read_text(encoding="utf-8"))
    code, written = declared_points(ROOT / "chapters" / "01_pca.ipynb")
    starts = [(cell, label) for cell in nb["cells"] if cell["cell_type"] == "markdown"
              for label in SOLUTION_START.findall("".join(cell["source"]))]
    for k, (cell, label) in enumerate(starts):
        source = "".join(cell["source"])
        number = 3 + k % 2  # 3 or 4, not all the same
        cell["metadata"]["kpca_points"] = number if k % 2 and not SOLUTION.search(source) \
            else {label: number, **{other: written[other] for other in SOLUTION.findall(source)}}
    path.write_text(json.dumps(nb), encoding="utf-8")
    parts = declared_written_parts(path)
    assert set(parts) == set(code)
    assert main(["check", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for label, points in parts.items():
        assert re.search(rf"\({label}\): graded, .*; {code[label]} points? \(visible [^)]*\); "
                         rf"written part {points} points?, by hand$", out, flags=re.MULTILINE)
    checks, by_hand = sum(code.values()), sum(written.values()) + sum(parts.values())
    assert f"\n  {checks + by_hand:g} points: {checks:g} by the checks, {by_hand:g} by hand\n" in out


def test_the_guide_tables_the_points_that_check_prints(capsys):
    totals, _ = check_totals(capsys)
    guide = (ROOT / "instructor_guide.md").read_text()
    table = guide[guide.index("Points per chapter"):]
    rows = re.findall(r"^\| `(\w+)\.ipynb` \| (\d+) \| (\d+) \| (\d+) \|", table, flags=re.MULTILINE)
    assert {name: tuple(float(x) for x in numbers) for name, *numbers in rows} == totals
    assert re.search(rf"^\| \*\*all\*\* \| \*\*{sum(t[0] for t in totals.values()):g}\*\* \|", table,
                     flags=re.MULTILINE)


def test_one_cell_may_give_each_of_its_derivations_its_own_points():
    cell = {"metadata": {"kpca_points": {"ch1-ex1": 4, "ch1-ex2": 3}}}
    assert declared_written(cell, "ch1-ex1", "here") == 4
    assert declared_written(cell, "ch1-ex2", "here") == 3
    assert declared_written(cell, "ch1-ex9", "here") == 1  # a label the mapping does not name: the default
    assert declared_written({"metadata": {"kpca_points": 2}}, "ch1-ex9", "here") == 2
    with pytest.raises(ValueError, match=r"here \(ch1-ex1\): the cell metadata kpca_points must be a number >= 0"):
        declared_written({"metadata": {"kpca_points": {"ch1-ex1": -1}}}, "ch1-ex1", "here")


def test_the_guide_shows_what_check_prints(capsys, monkeypatch):
    # the one output block of the guide cheap enough to regenerate here: benchmarks/guide_outputs.py
    # --check compares every other one, but it grades notebooks (about ten minutes)
    spec = importlib.util.spec_from_file_location("guide_outputs", ROOT / "benchmarks" / "guide_outputs.py")
    guide_outputs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(guide_outputs)
    monkeypatch.chdir(ROOT)
    assert main(["check", "chapters/"]) == 0
    command = ".venv/bin/python -m coursework check chapters/"
    guide = (ROOT / "instructor_guide.md").read_text()
    _, stale = guide_outputs.fill_guide(guide, {command: (0, capsys.readouterr().out, "")})
    assert stale == []
    # and the filling finds the block: an output it does not show is stale
    _, stale = guide_outputs.fill_guide(guide, {command: (0, "chapters/01_pca.ipynb\n", "")})
    assert stale == [command]
