"""Tests of the coursework package without a kernel: student versions, exercise checks, the command line.

The transformation is tested on small synthetic chapters and on every chapter
of the book. Grading with kernels is in ``test_grading.py``; the grader's
parts are in ``test_grading_parts.py``.
"""

import ast
import copy
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from coursework import make_student_notebook
from coursework.__main__ import main
from coursework.authoring.exercises import ANSWER_PLACEHOLDER, CHECK_MARKER, METADATA_KEY, exercise_numbers
from coursework_notebooks import HIDDEN_DOUBLE, graded_chapter, hidden_answer
from coursework_notebooks import code as _code
from toc_pages import CHAPTER_PAGES

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
ALL_CHAPTERS = CHAPTER_PAGES  # the chapter pages (their sections hold no exercises)


def synthetic_chapter():
    """A chapter with a derivation, two code exercises and an ungraded solution."""
    return new_notebook(
        cells=[
            new_markdown_cell("# A chapter\n\n\n\nSome text, with `code` and $x^2$.\n"),
            _code("x = 21", count=1),
            _code("print(x + 1)", "22\n", count=2, tags=["nbval-ignore-output"]),
            new_markdown_cell(
                "## Exercises\n\n"
                "```{exercise}\n:label: syn-ex1\n\nShow that $2 x = 42$.\n```\n\n"
                "````{solution} syn-ex1\n:class: dropdown\n\nThe SECRET derivation:\n\n"
                "```{math}\n2 \\times 21 = 42\n```\n````\n\n"
                "```{exercise}\n:label: syn-ex2\n\nPrint $2 x$.\n```\n\n"
                "```{solution-start} syn-ex2\n:class: dropdown\n```"
            ),
            _code("print(2 * x)", "42\n", count=3, tags=["solution"]),
            new_markdown_cell(
                "The SECRET remark on the code.\n\n```{solution-end}\n```\n\n"
                "```{exercise}\n:label: syn-ex3\n\nTime it, then print $x^2$.\n```"
            ),
            new_markdown_cell("```{solution-start} syn-ex3\n:class: dropdown\n```"),
            _code("import time\nprint(time.time())  # NBVAL_IGNORE_OUTPUT", "1.0\n", count=4,
                  tags=["solution", "nbval-ignore-output"]),
            _code("print(x ** 2)", "441\n", count=5, tags=["solution"]),
            new_markdown_cell("```{solution-end}\n```"),
            new_markdown_cell("## References"),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )


def solution_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and "solution" in c.metadata.get("tags", [])]


def put_solutions_back(student, chapter):
    """The student version with the chapter's solution code in its solution cells."""
    solved = copy.deepcopy(student)
    stubs = solution_cells(solved)
    solutions = solution_cells(chapter)
    assert len(stubs) == len(solutions)
    for stub, solution in zip(stubs, solutions):
        marker = [CHECK_MARKER] if stub.source.startswith(CHECK_MARKER) else []
        stub.source = "\n".join([*marker, solution.source])
    return solved


def print_wrong_answer(student, cell):
    """Make ``cell`` of the student version print its reference output with every digit changed."""
    wrong = copy.deepcopy(student)
    target = wrong.cells[cell]
    reference = "".join(o.get("text", "") for o in target.outputs)
    changed = re.sub(r"\d", lambda m: str((int(m[0]) + 1) % 10), reference)
    target.source = f"{CHECK_MARKER}\nprint({changed!r}, end='')"
    return wrong


def code_cell_number(nb, cell):
    """nbval's "Cell N": the number of ``cell`` among the code cells."""
    return [c for c in nb.cells if c.cell_type == "code"].index(nb.cells[cell])


def all_text(nb):
    return "\n".join(c.source for c in nb.cells)


# ---------------------------------------------------------------- transformation


def test_solution_cells_are_stubbed_and_graded_ones_keep_reference_outputs():
    chapter = synthetic_chapter()
    student = make_student_notebook(chapter)
    stubs = solution_cells(student)
    assert [s.metadata[METADATA_KEY] for s in stubs] == [
        {"exercise": "syn-ex2", "part": 0, "graded": True, "points": 1},  # the default points
        {"exercise": "syn-ex3", "part": 0, "graded": False},
        {"exercise": "syn-ex3", "part": 1, "graded": True, "points": 1},
    ]
    for stub, solution in zip(stubs, solution_cells(chapter)):
        assert "# YOUR CODE HERE" in stub.source
        assert stub.source.endswith("raise NotImplementedError")
        assert solution.source not in all_text(student)
        if stub.metadata[METADATA_KEY]["graded"]:
            assert stub.source.splitlines()[0] == CHECK_MARKER
            assert stub.outputs == solution.outputs
            assert stub.execution_count == solution.execution_count  # nbval skips unrun cells
        else:
            assert CHECK_MARKER not in stub.source
            assert stub.outputs == [] and stub.execution_count is None


def test_solution_text_is_replaced_by_a_placeholder():
    student = make_student_notebook(synthetic_chapter())
    text = all_text(student)
    assert "SECRET" not in text and "2 \\times 21" not in text
    assert "{solution" not in text
    assert text.count(ANSWER_PLACEHOLDER) == 2  # the derivation, and the remark in the gated solution
    assert "*Your answer to Exercise syn-ex1:*" in text
    for label in ("syn-ex1", "syn-ex2", "syn-ex3"):
        assert f"**Exercise {label}** (" in text  # the exercises stay (a test notebook has no numbers), with points
    assert "Show that $2 x = 42$." in text and "Time it, then print $x^2$." in text
    assert "## References" in text


def test_other_cells_are_untouched():
    chapter = synthetic_chapter()
    student = make_student_notebook(chapter)
    kept = [c for c in chapter.cells if c.cell_type == "code" and "solution" not in c.metadata.get("tags", [])]
    assert kept == [c for c in student.cells if c.cell_type == "code" and METADATA_KEY not in c.metadata]
    assert student.cells[0] == chapter.cells[0]
    assert student.cells[-1] == chapter.cells[-1]
    # one exercise per cell, each answer in a cell of its own; the cell that held nothing but a
    # directive marker is gone
    markdown = [c.source.splitlines()[0].split(" (")[0] for c in student.cells if c.cell_type == "markdown"]
    assert markdown == ["# A chapter", "## Exercises", "**Exercise syn-ex1**", "*Your answer to Exercise syn-ex1:*",
                        "**Exercise syn-ex2**", ANSWER_PLACEHOLDER, "**Exercise syn-ex3**",
                        "*Your solution to Exercise syn-ex3:*", "## References"]


def test_input_is_not_changed_and_the_transformation_is_idempotent():
    chapter = synthetic_chapter()
    before = copy.deepcopy(chapter)
    student = make_student_notebook(chapter, name="syn.ipynb")
    assert chapter == before
    assert make_student_notebook(student, name="other.ipynb") == student
    assert set(student.metadata[METADATA_KEY]) == {"source", "version"}
    assert student.metadata[METADATA_KEY]["source"] == "syn.ipynb"


@pytest.mark.parametrize(
    "markdown, message",
    [
        ("```{solution-start} ex9\n```\n", "ex9 has no solution-end"),
        ("```{solution-end}\n```\n", "solution-end without a solution-start"),
        ("```{solution-start} a\n```\n```{solution-start} b\n```\n", "inside the gated solution of a"),
        ("```{solution} ex9\nnever closed\n", "never closed"),
    ],
)
def test_malformed_solutions_give_clear_errors(markdown, message):
    with pytest.raises(ValueError, match=message):
        make_student_notebook(new_notebook(cells=[new_markdown_cell(markdown)]), name="bad.ipynb")


def test_not_a_notebook_is_a_type_error():
    with pytest.raises(TypeError, match="nb must be a notebook"):
        make_student_notebook("chapters/01_pca.ipynb")


@pytest.mark.parametrize("path", ALL_CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_has_exercises_and_a_clean_student_version(path):
    chapter = nbformat.read(path, as_version=4)
    text = all_text(chapter)
    exercises = re.findall(r"\{exercise\}\n:label: (\S+)", text)
    derivations = re.findall(r"\{solution\} (\S+)", text)
    coded = set(re.findall(r"\{solution-start\} (\S+)", text))
    assert len(exercises) >= 3
    assert derivations and coded  # some derivations, some code
    assert set(derivations) | coded == set(exercises)  # every exercise has one solution

    student = make_student_notebook(chapter, name=path.name)
    assert "{solution" not in all_text(student)
    assert "hidden check for" not in all_text(student)
    assert not any("hidden-check" in c.metadata.get("tags", []) for c in student.cells)
    stubs = solution_cells(student)
    assert {s.metadata[METADATA_KEY]["exercise"] for s in stubs} == coded
    # a solution line may also stand in the chapter's own code (an import, a
    # fit): only lines found nowhere else would give the answer away. In the
    # function convention, the lines outside the functions are the visible
    # check, which the student keeps; the functions' bodies must not leak.
    shared = "\n".join(c.source for c in chapter.cells if c not in solution_cells(chapter))
    for stub, solution in zip(stubs, solution_cells(chapter)):
        code_lines = solution_lines(solution.source, functions_only="def " in stub.source)
        leaked = [line for line in code_lines if len(line) > 20 and line in all_text(student) and line not in shared]
        assert not leaked
        if stub.metadata[METADATA_KEY]["graded"]:
            # the answer is what the solution prints
            assert any(o.output_type == "stream" and o.name == "stdout" for o in stub.outputs)
            assert stub.outputs == solution.outputs


def solution_lines(source, functions_only):
    """The code lines of a solution (only those in function bodies, but docstrings, if asked)."""
    lines = source.splitlines()
    if functions_only:
        tree = ast.parse(source)
        kept = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                body = node.body[1:] if ast.get_docstring(node) is not None else node.body
                for statement in body:
                    kept |= set(range(statement.lineno - 1, statement.end_lineno))
        lines = [lines[i] for i in sorted(kept)]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


# ---------------------------------------------------------------- the function convention


def test_function_exercise_stub_keeps_signatures_docstrings_and_the_visible_check():
    chapter = graded_chapter()
    student = make_student_notebook(chapter, name="syn.ipynb")
    stub = solution_cells(student)[0]
    assert stub.source.splitlines()[0] == CHECK_MARKER
    tree = ast.parse(stub.source)
    (function,) = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert function.name == "double" and [a.arg for a in function.args.args] == ["values"]
    assert ast.get_docstring(function) == "Twice the values, as an array."
    assert ast.unparse(function.body[1]) == "raise NotImplementedError"
    assert "print(double([x]).tolist())" in stub.source  # the visible check
    assert "SECRET" not in all_text(student) and "2 * np.asarray" not in all_text(student)
    assert stub.outputs == solution_cells(chapter)[0].outputs
    # the exercise without hidden check keeps the plain stub
    assert solution_cells(student)[1].source.endswith("# YOUR CODE HERE\nraise NotImplementedError")


def test_hidden_checks_are_removed_from_the_student_version():
    chapter = graded_chapter()
    student = make_student_notebook(chapter, name="syn.ipynb")
    assert len(student.cells) == len(chapter.cells) - 2  # the hidden check, a cell holding only a marker
    text = nbformat.writes(student)
    assert "hidden check" not in text and "default_rng(5)" not in text
    assert hidden_answer().strip() not in text
    assert make_student_notebook(student, name="syn.ipynb") == student


@pytest.mark.parametrize(
    "cells, message",
    [
        ([new_code_cell(HIDDEN_DOUBLE, metadata={"tags": ["hidden-check", "remove-cell"]})],
         "must be inside a gated solution"),
        ([new_markdown_cell("```{solution-start} syn-ex1\n```"),
          new_code_cell("def double(v):\n    return v", metadata={"tags": ["solution"]}),
          new_code_cell(HIDDEN_DOUBLE, metadata={"tags": ["hidden-check"]}),
          new_markdown_cell("```{solution-end}\n```")], "must also be tagged 'remove-cell'"),
        ([new_markdown_cell("```{solution-start} syn-ex1\n```"),
          new_code_cell("def double(v):\n    return v", metadata={"tags": ["solution"]}),
          new_code_cell("print(double(3))", metadata={"tags": ["hidden-check", "remove-cell"]}),
          new_markdown_cell("```{solution-end}\n```")], "must start with the line '# hidden check for syn-ex1'"),
        ([new_markdown_cell("```{solution-start} syn-ex1\n```"),
          new_code_cell(HIDDEN_DOUBLE, metadata={"tags": ["hidden-check", "remove-cell"]}),
          new_markdown_cell("```{solution-end}\n```")], "must follow its solution cell"),
        ([nbformat.from_dict({"cell_type": "code", "source": "x = 1", "metadata": {"tags": "solution"},
                              "outputs": [], "execution_count": None})], "tags must be a list of strings"),
    ],
)
def test_malformed_hidden_checks_give_clear_errors(cells, message):
    chapter = nbformat.from_dict({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})
    with pytest.raises(ValueError, match=re.escape(message)):
        make_student_notebook(chapter, name="bad.ipynb")


# ---------------------------------------------------------------- check


def test_check_lists_hidden_checks_and_flags_exercises_without(capsys):
    assert main(["check", str(CHAPTERS)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"  Exercise 1.3 \(ch1-ex3\): graded, 1 hidden check; .*\n  Exercise 1.4 \(ch1-ex4\): graded, "
                     r"1 hidden check; .*\n  Exercise 1.5 \(ch1-ex5\): graded, 1 hidden check; ", out)
    for path in ALL_CHAPTERS:
        assert str(path) in out
    # every graded exercise of every chapter is listed once, with or without hidden check
    listed = re.findall(r"^  Exercise \w\.\d+ \((ch\w+-ex\d+)\): graded", out, flags=re.MULTILINE)
    coded = [label for path in ALL_CHAPTERS
             for label in dict.fromkeys(re.findall(r"\{solution-start\} (\S+)", all_text(nbformat.read(path, 4))))]
    assert listed == coded
    unprotected = re.findall(r"^  (.+): graded by its visible output only: NO hidden check", out, flags=re.MULTILINE)
    fixed = re.findall(r"^    hidden check \d+: FIXED inputs", out, flags=re.MULTILINE)
    seedless = [cell for path in ALL_CHAPTERS for cell in nbformat.read(path, 4).cells  # found independently
                if "hidden-check" in cell.metadata.get("tags", []) and "default_rng(" not in cell.source]
    assert len(fixed) == len(seedless)
    assert main(["check", str(CHAPTERS), "--strict"]) == (1 if unprotected or fixed else 0)


def test_check_strict_fails_on_a_hidden_check_with_fixed_inputs(tmp_path, capsys):
    # issue 39, item 4: chapter 4's check of 4.6 used fixed inputs, which no re-seeding changes
    chapter = graded_chapter()
    chapter.cells[7].metadata["tags"].append("nbval-ignore-output")  # syn-ex2, not graded: only syn-ex1 counts
    nbformat.write(chapter, tmp_path / "07_syn.ipynb")
    assert main(["check", str(tmp_path), "--strict"]) == 0
    chapter.cells[4].source = chapter.cells[4].source.replace("rng = np.random.default_rng(5)\n", "").replace(
        "rng.integers(0, 100, size=4)", "np.array([3, 1, 4, 1])")
    nbformat.write(chapter, tmp_path / "07_syn.ipynb")
    capsys.readouterr()
    assert main(["check", str(tmp_path)]) == 0  # told, not an error
    assert "hidden check 1: FIXED inputs" in capsys.readouterr().out
    assert main(["check", str(tmp_path), "--strict"]) == 1


def test_check_reports_a_malformed_chapter(tmp_path, capsys):
    chapter = graded_chapter()
    chapter.cells[4].metadata["tags"] = ["hidden-check"]  # remove-cell forgotten
    nbformat.write(chapter, tmp_path / "bad.ipynb")
    unexecuted = graded_chapter()
    unexecuted.cells[4].execution_count = None
    nbformat.write(unexecuted, tmp_path / "unexecuted.ipynb")
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ERROR: bad.ipynb, cell 4: the hidden check of syn-ex1 must also be tagged 'remove-cell'" in out
    assert "ERROR: unexecuted.ipynb: hidden check 1 of syn-ex1 was not executed" in out


# ---------------------------------------------------------------- command line


def test_make_student_command_writes_every_notebook(tmp_path, capsys):
    source = tmp_path / "chapters"
    (source / "appendix").mkdir(parents=True)
    nbformat.write(synthetic_chapter(), source / "syn.ipynb")
    nbformat.write(synthetic_chapter(), source / "appendix" / "app.ipynb")
    assert main(["make-student", str(source), str(tmp_path / "coursework")]) == 0
    assert capsys.readouterr().out.count("(2 graded cells of 3 solution cells)") == 2
    for name in ("syn.ipynb", "appendix/app.ipynb"):
        written = nbformat.read(tmp_path / "coursework" / name, as_version=4)
        chapter = nbformat.read(source / name, as_version=4)
        assert written == make_student_notebook(chapter, name=Path(name).name)


def test_a_chapters_evidence_section_is_no_coursework(tmp_path, capsys):
    # a section (no exercise) beside its chapter: no handout, no line in check (the grader
    # waits for no notebook of it either: missing rows are made only for the chapters handed
    # in, and a section handed in has "no graded exercise: nothing to grade", test_grading.py)
    source = tmp_path / "chapters"
    source.mkdir()
    nbformat.write(synthetic_chapter(), source / "01_syn.ipynb")
    section = new_notebook(cells=[new_markdown_cell("# Evidence\n\nThe full table. ```{math}\nx\n```"),
                                  _code("print(1)", "1\n", count=1)])
    nbformat.write(section, source / "01_syn_evidence.ipynb")
    assert main(["make-student", str(source), str(tmp_path / "coursework")]) == 0
    assert sorted(p.name for p in (tmp_path / "coursework").glob("*.ipynb")) == ["01_syn.ipynb"]
    capsys.readouterr()
    assert main(["check", str(source)]) == 0
    out = capsys.readouterr().out
    assert "01_syn.ipynb" in out and "01_syn_evidence" not in out and "in 1 chapter\n" in out


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["make-student", "{tmp}/missing", "{tmp}/out"], "source {tmp}/missing does not exist"),
        (["make-student", "{tmp}/empty", "{tmp}/out"], "holds no notebook"),
        (["make-student", "{tmp}/empty/syn.txt", "{tmp}/out"], "must be a notebook"),
        (["make-student", "{tmp}/empty", "{tmp}/empty"], "overwrite the source"),
        (["grade", "{tmp}/empty", "--reference", "{tmp}/missing"], "reference {tmp}/missing is not a folder"),
        (["grade", "{tmp}/missing", "--reference", "{tmp}/ref"], "submissions {tmp}/missing does not exist"),
        (["grade", "{tmp}/ref", "--reference", "{tmp}/empty"], "reference {tmp}/empty holds no notebook"),
        (["grade", "{tmp}/ref", "--reference", "{tmp}/ref", "--timeout", "0"], "--timeout must be positive"),
        (["grade", "{tmp}/ref", "--reference", "{tmp}/ref", "--jobs", "0"], "--jobs must be positive"),
        (["grade", "{tmp}/ref", "--reference", "{tmp}/unexecuted"],
         "{tmp}/unexecuted/syn.ipynb: the graded cell of syn-ex1 was not executed"),
        (["check", "{tmp}/missing"], "chapters {tmp}/missing does not exist"),
    ],
)
def test_bad_arguments_give_clear_errors(tmp_path, capsys, arguments, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "syn.txt").write_text("not a notebook")
    (tmp_path / "ref").mkdir()
    nbformat.write(synthetic_chapter(), tmp_path / "ref" / "syn.ipynb")
    (tmp_path / "unexecuted").mkdir()
    unexecuted = graded_chapter()
    unexecuted.cells[3].execution_count = None
    nbformat.write(unexecuted, tmp_path / "unexecuted" / "syn.ipynb")
    if arguments[0] == "make-student" and arguments[-1] == "{tmp}/empty":  # overwrite case: a notebook
        nbformat.write(synthetic_chapter(), tmp_path / "empty" / "syn.ipynb")
    with pytest.raises(SystemExit) as stopped:
        main([a.format(tmp=tmp_path) for a in arguments])
    assert stopped.value.code == 2
    assert message.format(tmp=tmp_path) in capsys.readouterr().err


def test_unknown_command_is_refused(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["publish"])
    assert stopped.value.code == 2
    assert "invalid choice: 'publish'" in capsys.readouterr().err


# ---------------------------------------------------------------- the book never shows a hidden check


def hidden_check_lines():
    lines = set()
    for path in ALL_CHAPTERS:
        for cell in nbformat.read(path, as_version=4).cells:
            if "hidden-check" in cell.metadata.get("tags", []):
                lines |= {line.strip() for line in cell.source.splitlines()[1:] if len(line.strip()) > 20}
    return lines


def test_hidden_checks_are_removed_from_the_notebooks_the_html_book_offers(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("remove_solutions", CHAPTERS.parent / "_ext" / "remove_solutions.py")
    extension = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extension)
    sources = tmp_path / "_sources" / "chapters"
    sources.mkdir(parents=True)
    chapter = graded_chapter()
    nbformat.write(chapter, sources / "syn.ipynb")
    nbformat.write(chapter, sources / "copy.ipynb.txt")

    class App:
        outdir = str(tmp_path)

    extension.strip_hidden_checks(App, None)
    for name in ("syn.ipynb", "copy.ipynb.txt"):
        written = nbformat.read(sources / name, as_version=4)
        assert len(written.cells) == len(chapter.cells) - 1
        assert "hidden check" not in nbformat.writes(written)


def test_the_instructor_guide_shows_no_hidden_check_of_the_book():
    guide = (CHAPTERS.parent / "instructor_guide.md").read_text()
    lines = hidden_check_lines()
    assert lines  # chapter 1 has hidden checks
    assert [line for line in lines if line in guide] == []


def test_the_instructor_guide_shows_outputs_of_the_current_chapters():
    # the guide's captured outputs (benchmarks/guide_outputs.py) drifted once: its make-student
    # block named 20 graded cells when its check block named 23, and its grading example
    # named cells that chapter 1 no longer has at those places
    guide = (CHAPTERS.parent / "instructor_guide.md").read_text()
    made = {name: int(count) for name, count in
            re.findall(r"wrote student_notebooks/(\S+)  \((\d+) graded cells", guide)}
    checked = re.search(r"```text\n(chapters/01_pca\.ipynb\n.*?)```", guide, re.S)[1]
    listed = {}
    for line in checked.splitlines():
        if line.startswith("chapters/"):
            name = line.split("/", 1)[1]
            listed[name] = 0
        elif ": graded" in line:
            listed[name] += 1
    assert made == listed and len(made) == len(ALL_CHAPTERS)
    chapter = nbformat.read(CHAPTERS / "01_pca.ipynb", as_version=4)
    code = [cell for cell in make_student_notebook(chapter, name="01_pca.ipynb").cells if cell.cell_type == "code"]
    numbers = exercise_numbers(chapter, "01_pca.ipynb")
    graded = [f"Cell {n} (Exercise {numbers[label]}, {label})"
              for n, cell in enumerate(code) if cell.metadata.get(METADATA_KEY, {}).get("graded")
              for label in [cell.metadata[METADATA_KEY]["exercise"]]]
    bob = re.search(r"FAIL  bob/01_pca\.ipynb  (.*)", guide)[1]
    assert re.findall(r"Cell \d+ \(Exercise [^)]+\)", bob) == graded


# ---------------------------------------------------------------- the book without solutions

TINY_CONFIG = """title: Tiny
author: t
only_build_toc_files: true
execute:
  execute_notebooks: "off"
parse:
  myst_enable_extensions: [colon_fence, dollarmath, amsmath]
sphinx:
  extra_extensions: [sphinx_exercise]
  local_extensions:
    remove_solutions: _ext
"""
TINY_TOC = """format: jb-book
root: intro
parts:
  - caption: Chapters
    chapters:
      - file: chapters/07_syn
  - caption: For instructors
    chapters:
      - file: instructor_guide
"""


def test_the_book_without_solutions_drops_the_guide_and_serves_the_student_notebook(tmp_path):
    # a tiny book (two pages and a chapter, not executed) built as the real one is, with the extension
    import os
    import shutil
    import subprocess
    import sys

    (tmp_path / "_ext").mkdir()
    shutil.copy(CHAPTERS.parent / "_ext" / "remove_solutions.py", tmp_path / "_ext")
    (tmp_path / "_config.yml").write_text(TINY_CONFIG)
    (tmp_path / "_toc.yml").write_text(TINY_TOC)
    (tmp_path / "intro.md").write_text("# Intro\n\nHello.\n")
    (tmp_path / "instructor_guide.md").write_text("# For instructors\n\nGrading notes.\n")
    (tmp_path / "chapters").mkdir()
    chapter = graded_chapter()
    chapter.cells[0].source = "# Chapter seven\n\nSome text."
    nbformat.write(chapter, tmp_path / "chapters" / "07_syn.ipynb")
    environment = {**os.environ, "KPCA_REMOVE_SOLUTIONS": "1",
                   "PYTHONPATH": str(CHAPTERS.parent)}
    done = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", ".", "-W", "--keep-going"],
                          cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    html = tmp_path / "_build" / "html"
    assert not (html / "instructor_guide.html").exists()
    pages = {path: path.read_text() for path in html.rglob("*.html")}
    assert not any("instructor_guide" in text or "For instructors" in text for text in pages.values())
    # every download link of every page leads to a file; the chapter's is its student version
    for path, text in pages.items():
        for link in re.findall(r'href="([^"]*_sources/[^"]*)"', text):
            assert (path.parent / link).resolve().is_file(), (path, link)
    page = pages[html / "chapters" / "07_syn.html"]
    assert 'href="../_sources/chapters/07_syn.ipynb"' in page and "SECRET" not in page
    served = nbformat.read(html / "_sources" / "chapters" / "07_syn.ipynb", as_version=4)
    assert served == make_student_notebook(chapter, name="07_syn.ipynb")
    text = nbformat.writes(served)
    assert "SECRET" not in text and "hidden check" not in text and "**Exercise 7.1**" in text


def test_private_reference_in_one_command(tmp_path, capsys):
    # issue 39, item 4: the documented default for a graded course, made by one command
    import stat

    import numpy as np

    chapter = graded_chapter()
    chapter.cells[7].metadata["tags"].append("nbval-ignore-output")  # syn-ex2 not graded: strict can pass
    (tmp_path / "chapters").mkdir()
    nbformat.write(chapter, tmp_path / "chapters" / "07_syn.ipynb")
    private = tmp_path / "private"
    assert main(["private-reference", str(tmp_path / "chapters"), str(private)]) == 0
    out = capsys.readouterr().out
    assert "07_syn.ipynb: 1 of 1 hidden checks re-seeded (1 seeds)" in out and "1 of 1 graded exercises" in out
    offset = int((private / ".secret-offset").read_text())
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert stat.S_IMODE((private / ".secret-offset").stat().st_mode) == 0o600
    copy = nbformat.read(private / "07_syn.ipynb", as_version=4)
    hidden = next(cell for cell in copy.cells if "hidden-check" in cell.metadata.get("tags", []))
    assert f"default_rng({5 + offset})" in hidden.source
    values = np.random.default_rng(5 + offset).integers(0, 100, size=4)  # the check's inputs, drawn here
    assert "".join(output["text"] for output in hidden.outputs) == f"{(2.0 * values).tolist()}\n"
    assert nbformat.read(tmp_path / "chapters" / "07_syn.ipynb", as_version=4) == chapter  # the public one stays
    # made again with the same secret; not executed, its hidden check has no expected output: strict fails
    assert main(["private-reference", str(tmp_path / "chapters"), str(private), "--no-execute"]) == 1
    assert int((private / ".secret-offset").read_text()) == offset
    assert "NOT executed" in capsys.readouterr().out
