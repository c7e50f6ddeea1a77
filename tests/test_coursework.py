"""Tests of the coursework package: the student version of a notebook, and grading.

The transformation is tested on a small synthetic chapter and on every chapter
of the book. Grading is tested end to end, as an instructor runs it: pytest
--nbval-lax in a subprocess on the fastest real chapter (01_pca), and the
``grade`` command on a folder of submissions of the synthetic chapter.
"""

import copy
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from coursework import make_student, make_student_notebook, prepare_submission
from coursework.__main__ import main
from coursework.student import ANSWER_PLACEHOLDER, CHECK_MARKER, METADATA_KEY

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
ALL_CHAPTERS = sorted(CHAPTERS.glob("*.ipynb"))
# the fastest chapter under nbval (about 4 s): the one run end to end
FAST_CHAPTER = CHAPTERS / "01_pca.ipynb"


def _code(source, text=None, count=None, tags=()):
    outputs = [new_output("stream", name="stdout", text=text)] if text is not None else []
    cell = new_code_cell(source, outputs=outputs, execution_count=count)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


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
                "```{solution} syn-ex1\n:class: dropdown\n\nThe SECRET derivation:\n\n"
                "```{math}\n2 \\times 21 = 42\n```\n```\n\n"
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
        {"exercise": "syn-ex2", "part": 0, "graded": True},
        {"exercise": "syn-ex3", "part": 0, "graded": False},
        {"exercise": "syn-ex3", "part": 1, "graded": True},
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
    assert "*Your answer to exercise syn-ex1:*" in text
    for label in ("syn-ex1", "syn-ex2", "syn-ex3"):
        assert f":label: {label}\n" in text  # the exercises stay
    assert "## References" in text


def test_other_cells_are_untouched():
    chapter = synthetic_chapter()
    student = make_student_notebook(chapter)
    kept = [c for c in chapter.cells if c.cell_type == "code" and "solution" not in c.metadata.get("tags", [])]
    assert kept == [c for c in student.cells if c.cell_type == "code" and METADATA_KEY not in c.metadata]
    assert student.cells[0] == chapter.cells[0]
    # only the markdown cell that held nothing but a directive marker is gone
    assert len(student.cells) == len(chapter.cells) - 1


def test_input_is_not_changed_and_the_transformation_is_idempotent():
    chapter = synthetic_chapter()
    before = copy.deepcopy(chapter)
    student = make_student_notebook(chapter, name="syn.ipynb")
    assert chapter == before
    assert make_student_notebook(student, name="other.ipynb") == student
    assert student.metadata[METADATA_KEY] == {"source": "syn.ipynb"}


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
    stubs = solution_cells(student)
    assert {s.metadata[METADATA_KEY]["exercise"] for s in stubs} == coded
    # a solution line may also stand in the chapter's own code (an import, a
    # fit): only lines found nowhere else would give the answer away
    shared = "\n".join(c.source for c in chapter.cells if c not in solution_cells(chapter))
    for stub, solution in zip(stubs, solution_cells(chapter)):
        code_lines = [line for line in solution.source.splitlines() if line.strip() and not line.startswith("#")]
        leaked = [line for line in code_lines if len(line) > 20 and line in all_text(student) and line not in shared]
        assert not leaked
        if stub.metadata[METADATA_KEY]["graded"]:
            # the answer is what the solution prints
            assert any(o.output_type == "stream" and o.name == "stdout" for o in stub.outputs)
            assert stub.outputs == solution.outputs


def test_prepare_submission_restores_reference_outputs():
    chapter = synthetic_chapter()
    student = make_student_notebook(chapter)
    submission = put_solutions_back(student, chapter)
    graded = next(c for c in submission.cells if METADATA_KEY in c.metadata)
    graded.outputs = [new_output("stream", name="stdout", text="the student's own run\n")]
    graded.source = graded.source.replace(CHECK_MARKER + "\n", "")  # marker deleted by the student
    prepared, missing = prepare_submission(submission, chapter)
    restored = next(c for c in prepared.cells if METADATA_KEY in c.metadata)
    assert restored.outputs == solution_cells(chapter)[0].outputs
    assert restored.source.startswith(CHECK_MARKER + "\n")
    assert missing == []

    deleted = copy.deepcopy(submission)
    deleted.cells = [c for c in deleted.cells if c.metadata.get(METADATA_KEY, {}).get("part") != 1]
    assert prepare_submission(deleted, chapter)[1] == ["syn-ex3 (part 2)"]


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
    ],
)
def test_bad_arguments_give_clear_errors(tmp_path, capsys, arguments, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "syn.txt").write_text("not a notebook")
    (tmp_path / "ref").mkdir()
    nbformat.write(synthetic_chapter(), tmp_path / "ref" / "syn.ipynb")
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


# ---------------------------------------------------------------- grading, end to end


def run_nbval_lax(notebook):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q", notebook.name],
        cwd=notebook.parent, capture_output=True, text=True, timeout=600,
    )


@pytest.fixture(scope="module")
def fast_chapter(tmp_path_factory):
    """The fastest chapter, its student version, and the cells graded in it."""
    folder = tmp_path_factory.mktemp("coursework")
    make_student(FAST_CHAPTER, folder)
    chapter = nbformat.read(FAST_CHAPTER, as_version=4)
    student = nbformat.read(folder / FAST_CHAPTER.name, as_version=4)
    graded = [i for i, c in enumerate(student.cells) if c.metadata.get(METADATA_KEY, {}).get("graded")]
    assert graded
    return folder, chapter, student, graded


def test_student_version_as_handed_out_fails_naming_each_graded_cell(fast_chapter):
    folder, _, student, graded = fast_chapter
    completed = run_nbval_lax(folder / FAST_CHAPTER.name)
    assert completed.returncode == 1, completed.stdout
    for cell in graded:
        assert f"{FAST_CHAPTER.name}::Cell {code_cell_number(student, cell)} " in completed.stdout
    assert f"{len(graded)} failed" in completed.stdout
    assert "NotImplementedError" in completed.stdout


def test_student_version_with_the_solutions_put_back_passes(fast_chapter):
    folder, chapter, student, _ = fast_chapter
    solved = folder / "solved.ipynb"
    nbformat.write(put_solutions_back(student, chapter), solved)
    completed = run_nbval_lax(solved)
    assert completed.returncode == 0, completed.stdout
    assert " passed" in completed.stdout and "failed" not in completed.stdout


def test_wrong_answer_fails_naming_the_cell(fast_chapter):
    folder, chapter, student, graded = fast_chapter
    wrong = folder / "wrong.ipynb"
    nbformat.write(print_wrong_answer(put_solutions_back(student, chapter), graded[0]), wrong)
    completed = run_nbval_lax(wrong)
    assert completed.returncode == 1, completed.stdout
    assert f"wrong.ipynb::Cell {code_cell_number(student, graded[0])} " in completed.stdout
    assert "Cell outputs differ" in completed.stdout
    assert "1 failed" in completed.stdout


def test_grade_command_prints_one_line_per_submission(tmp_path):
    chapter = synthetic_chapter()
    student = make_student_notebook(chapter, name="syn.ipynb")
    # the handed-out copies serve as the reference; the submissions in a sub-folder of
    # theirs, with the same file names, must not be taken for references
    reference = tmp_path / "coursework"
    reference.mkdir()
    nbformat.write(student, reference / "syn.ipynb")
    solved = put_solutions_back(student, chapter)
    graded = [i for i, c in enumerate(student.cells) if c.metadata.get(METADATA_KEY, {}).get("graded")]
    # a student who ran the notebook: the graded cells hold their own (wrong) outputs
    ran_it = print_wrong_answer(solved, graded[1])
    ran_it.cells[graded[1]].outputs = [new_output("stream", name="stdout", text="552\n")]
    deleted = copy.deepcopy(solved)
    del deleted.cells[graded[0]]
    submissions = {"ann": solved, "ben": student, "cat": ran_it, "dan": deleted}
    for name, nb in submissions.items():
        (reference / "submissions" / name).mkdir(parents=True)
        nbformat.write(nb, reference / "submissions" / name / "syn.ipynb")
    (reference / "submissions" / "eve").mkdir()
    (reference / "submissions" / "eve" / "syn.ipynb").write_text("{ not json")

    completed = subprocess.run(
        [sys.executable, "-m", "coursework", "grade", "coursework/submissions", "--reference", "coursework"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    # code cells: 0 and 1 the text's, 2 syn-ex2's solution, 3 and 4 syn-ex3's (3 is not graded)
    assert [code_cell_number(student, cell) for cell in graded] == [2, 4]
    assert completed.stdout.splitlines() == [
        "PASS  ann/syn.ipynb",
        "FAIL  ben/syn.ipynb  Cell 2 (exercise syn-ex2): raised NotImplementedError; "
        "Cell 3 (exercise syn-ex3): raised NotImplementedError; "
        "Cell 4 (exercise syn-ex3): raised NotImplementedError",
        "FAIL  cat/syn.ipynb  Cell 4 (exercise syn-ex3): output differs from the reference",
        "FAIL  dan/syn.ipynb  graded cell of syn-ex2 deleted",
        "FAIL  eve/syn.ipynb  not a readable notebook (NotJSONError)",
        "5 notebooks: 1 passed, 4 failed",
    ]


# the second BLAS configuration of CI (.ci/run): SSE kernels and one thread, as on
# a student's older laptop; a correct student must PASS there too
SECOND_BLAS = {"OPENBLAS_CORETYPE": "Nehalem", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def test_solved_notebook_passes_grading_under_a_second_blas_configuration(fast_chapter, tmp_path):
    folder, chapter, student, _ = fast_chapter
    (tmp_path / "reference").mkdir()
    (tmp_path / "submissions").mkdir()
    nbformat.write(chapter, tmp_path / "reference" / FAST_CHAPTER.name)
    nbformat.write(put_solutions_back(student, chapter), tmp_path / "submissions" / FAST_CHAPTER.name)
    completed = subprocess.run(
        [sys.executable, "-m", "coursework", "grade", "submissions", "--reference", "reference"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env={**os.environ, **SECOND_BLAS},
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.splitlines()[0] == f"PASS  {FAST_CHAPTER.name}"
