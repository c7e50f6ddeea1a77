"""Grade a folder of submissions: one line per notebook, a CSV report, exit status 0, 1 or 2.

For each submission (:func:`grade`):

1. the reference chapters were read once, before anything ran
   (:mod:`coursework.grading.reference`), and the isolation was chosen (an
   impossible ``--sandbox`` stops everything here);
2. the submission is found and read defensively, and graded against the
   chapter that its file name and its metadata both name
   (:mod:`coursework.grading.submissions`);
3. it is turned into a run notebook: nbval markers and tags removed, graded
   cells locked to the reference, hidden checks appended
   (:mod:`coursework.grading.preparation`);
4. it runs in a fresh folder, under the limits of
   :mod:`coursework.isolation.limits` (the time left after steps 2 and 3),
   isolated as :mod:`coursework.isolation.sandbox` says
   (:mod:`coursework.isolation.execution`);
5. the runner's records become reasons (:mod:`coursework.grading.results`) and a
   line (:mod:`coursework.grading.report`).

Whatever a submission holds or does, it gets one line, and the next one is
graded. Only trouble with the grader itself (bad arguments, a malformed
reference, no working sandbox when one is required, no kpca_lib for chapters
that import it) raises.
"""

import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from ..isolation.execution import Limits, run_notebook
from ..isolation.limits import cgroup_support, describe_fallback, scratch_support
from .precheck import check_environment
from .preparation import build_run_notebook
from .reference import load_references
from .report import shown_name, student_of, summary_line, write_report
from .results import Verdict, interpret
from .stuck import run_past_stuck
from .submissions import SubmissionProblem, claimed_chapter, find_submissions, read_submission, MAX_DEPTH
from ..isolation.sandbox import GraderError, choose_isolation, grader_library

__all__ = ["Outcome", "grade"]


@dataclass
class Outcome:
    """The grading of one submission.

    ``chapter`` is the chapter it was graded against (None if unknown),
    ``ran`` whether it was run (else it could not be read or prepared: the
    status ``error``), ``places`` where the student finds each code cell.
    """

    path: Path
    name: str
    student: str
    verdict: Verdict
    seconds: float
    chapter: str = None
    ran: bool = False
    places: list = None


def _full_run_needed(verdict):
    """Whether a run of the needed cells alone lost points in a way the left-out book cells might explain.

    A check that failed for any reason but time, an empty or deleted cell or
    the handout's stub (``NotImplementedError``) does; a failed cell outside
    the exercises (a note, no point lost) does not: the cells it reads were run.
    """
    if verdict.trouble:
        return False
    # time, a deleted or empty cell, the handout's stub: no left-out cell explains them
    unexplained = ("timed out", "not run: its exercise", "empty", "raised NotImplementedError")
    return any(not check.passed and not (check.reason or "").startswith(unexplained)
               and "deleted" not in (check.reason or "") for check in verdict.checks.values())


def _grade_one(path, references, run, limits, start, prune=True):
    """The verdict of one submission, the chapter it answers (None if unknown), whether it ran, and its places.

    Any failure of the submission becomes a reason. Reading and preparing it
    count against its time limit (``start`` is when its grading began).

    With ``prune``, the run leaves out the book's cells that nothing graded
    needs (:func:`coursework.grading.preparation.needed_cells`); if a check
    fails in that run for any reason but time, the submission is run again
    whole and that run is its verdict: leaving cells out never costs a point,
    and a correct notebook is graded in one short run. A cell that does not stop
    when interrupted costs its exercise alone: the run is repeated without it
    (:func:`coursework.grading.stuck.run_past_stuck`).
    """
    chapter = None
    try:
        submission = read_submission(path)
        reference = claimed_chapter(submission, path, references, shown_name)
        chapter = reference.name
        if not reference.graded and not reference.hidden:
            raise SubmissionProblem(f"{shown_name(chapter)} has no graded exercise: there is nothing to grade")
        plan = build_run_notebook(submission, reference, prune=prune)
        whole = build_run_notebook(submission, reference) if prune else plan
        if limits.timeout - (time.monotonic() - start) < 1:
            raise SubmissionProblem(f"timed out after {limits.timeout:g} s while being read and prepared")
        stuck = {}  # the cells that did not stop when interrupted, left out of every later run
        verdict = interpret(plan, run_past_stuck(plan, run, limits, start, stuck), limits, reference)
        left = limits.timeout - (time.monotonic() - start)
        if len(whole.roles) != len(plan.roles) and _full_run_needed(verdict) and left >= 1:
            verdict = interpret(whole, run_past_stuck(whole, run, limits, start, stuck), limits, reference)
        return verdict, chapter, True, plan.places
    except SubmissionProblem as problem:  # an unreadable file named like a chapter is that chapter's error
        chapter = chapter or (Path(path).name if Path(path).name in references else None)
        return Verdict([str(problem)]), chapter, False, None
    except Exception as error:  # never a traceback, and the next submission is still graded
        reason = f"the grader could not grade it ({type(error).__name__}: {str(error)[:200]})"
        return Verdict([reason]), chapter, False, None


def _library(reference):
    """The grader's kpca_lib, which the kernels import; GraderError if the chapters need one and there is none."""
    library = grader_library()
    if library is None and any(b"kpca_lib" in path.read_bytes() for path in Path(reference).glob("*.ipynb")):
        raise GraderError("the chapters import kpca_lib, but the Python that runs the grader cannot: "
                          f"run it with the book's environment ({sys.executable} has no kpca_lib)")
    return library


def _warn_old_handouts(outcomes, reference, notes):
    """Warn, per submission, when its handout was made from another version of its chapter
    (coursework.authoring.version.check_handout_version): the grade stands, the instructor knows."""
    import nbformat

    from ..authoring.handout import recorded_entry
    from ..authoring.version import check_handout_version
    from ..authoring.student import make_student_notebook

    versions = {}  # the current handout's version of each chapter, made once
    for outcome in outcomes:
        if outcome.chapter is None or not outcome.ran:
            continue
        if outcome.chapter not in versions:
            chapter = nbformat.read(Path(reference) / outcome.chapter, as_version=4)
            versions[outcome.chapter] = recorded_entry(
                make_student_notebook(chapter, name=outcome.chapter))["version"]
        try:
            submission = read_submission(outcome.path)
        except SubmissionProblem:
            continue
        warning = check_handout_version(submission, versions[outcome.chapter], outcome.name)
        if warning:
            print(warning, file=notes)


def _warn_unhidden(references, used, notes):
    for name in sorted(used):
        reference = references[name]
        weak = [label for label in reference.exercises
                if any(key[0] == label for key in reference.graded) and not reference.hidden_count(label)]
        if weak:
            verbs = ("has", "is") if len(weak) == 1 else ("have", "are")
            print(f"note: {name}: {', '.join(weak)} {verbs[0]} no hidden check and {verbs[1]} graded by "
                  "the visible output only (python -m coursework check)", file=notes)


def grade(submissions, reference, *, limits=Limits(), sandbox=False, jobs=1, report=None,  # long: plan, grade, retry alone, record
          stream=sys.stdout, notes=sys.stderr, isolation=None, student=None, records=None, precheck=True,
          prune=True):
    """Grade every notebook of ``submissions`` against the chapters in ``reference``.

    Parameters
    ----------
    submissions : str or Path
        A notebook, or a folder searched recursively (e.g. one sub-folder per student).
    reference : str or Path
        The folder of the chapters (with their hidden checks) the exercises come from.
    limits : Limits, default=Limits()
        Wall-clock seconds, output bytes and memory allowed per notebook.
    sandbox : bool, default=False
        Run each kernel in a bubblewrap sandbox (see :func:`coursework.isolation.sandbox.choose_isolation`).
    jobs : int, default=1
        How many submissions run at the same time (the lines still come in order).
    report : str or Path, optional
        Where to write the CSV report (not written if None).
    stream, notes : file
        Where the one-line-per-notebook summary goes, and the notes about the run.
    isolation : coursework.isolation.sandbox.Isolation, optional
        Overrides the choice made from ``sandbox`` (for tests).
    student : str, optional
        The student of a single notebook (default: the name of its folder).
    records : coursework.grading.records.Records, optional
        Where the gradebook and the feedback go (:func:`coursework.grading.records.keep`).
    precheck : bool, default=True
        Before any submission runs, import every module the chapters import in a
        kernel isolated as the submissions' are (:mod:`coursework.grading.precheck`).
    prune : bool, default=True
        Run only the cells the graded cells and hidden checks need, and the
        whole notebook only when that run fails (:func:`_grade_one`); False runs
        every cell of every submission.

    Returns
    -------
    outcomes : list of Outcome

    Raises
    ------
    FileNotFoundError, ValueError
        If an argument or a reference chapter is unusable.
    coursework.isolation.sandbox.GraderError
        If the requested isolation is not available, or the chapters' modules
        cannot be imported in it.
    """
    if not (isinstance(jobs, int) and jobs >= 1):
        raise ValueError(f"jobs must be a whole number >= 1, got {jobs!r}")
    references = load_references(reference)
    found = find_submissions(submissions)
    paths, base = found.notebooks, found.base
    isolation = replace(isolation or choose_isolation(sandbox), library=_library(reference))
    print(f"isolation: {isolation.describe()}", file=notes)
    for warning in isolation.warnings():
        print(f"WARNING: not isolated: {warning}", file=notes)
    # without a cgroup or a private tmpfs the limits are weaker: say so at every run, not in the guide only
    for warning in describe_fallback(cgroup_support(), scratch_support()):
        print(f"WARNING: not bounded: {warning}", file=notes)
    if precheck:  # the chapters the notebooks are named after; all of them if a name is no chapter's
        names = {path.name for path in paths}
        check_environment(reference, isolation, limits, [Path(reference).resolve(), Path(base).resolve()],
                          names if names <= set(references) else None)
    if found.mac_leftovers:
        print(f"note: ignored {len(found.mac_leftovers)} macOS archive leftovers (__MACOSX/ folders and "
              "._* files), which are not notebooks", file=notes)
    outcomes, used = [], set()
    with tempfile.TemporaryDirectory(prefix="kpca-grade-", ignore_cleanup_errors=True) as root:
        root = Path(root)
        if isolation.uid is not None:
            root.chmod(0o711)
        hidden = [Path(reference).resolve(), Path(base).resolve(), root.resolve()]

        def work(numbered, again=""):
            number, path = numbered
            start = time.monotonic()
            runs = []

            def run(notebook, left):
                runs.append(notebook)  # a second run (the whole notebook) gets a folder of its own
                folder = root / (f"{number:03d}{again}" + (f"-{len(runs)}" if len(runs) > 1 else ""))
                return run_notebook(notebook, folder, isolation, left, hidden)

            return *_grade_one(path, references, run, limits, start, prune), time.monotonic() - start

        single = Path(submissions).is_file() or Path(submissions).is_symlink()

        def record(path, verdict, chapter, ran, places, seconds):
            name = shown_name(path.relative_to(base) if path != base else path.name)
            who = (student or shown_name(Path(path).resolve().parent.name)) if single or (
                path.parent == base and path.name in references) else student_of(path, base)
            outcomes.append(Outcome(path, name, who, verdict, seconds, chapter, ran, places))
            print(summary_line(name, verdict), file=stream, flush=True)
            return chapter

        again = []  # the grader's trouble (the machine too busy?): graded again alone, after the others
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for number, (path, result) in enumerate(zip(paths, pool.map(work, enumerate(paths)))):
                if result[0].trouble:
                    print(f"note: {shown_name(path.relative_to(base) if path != base else path.name)}: "
                          f"{result[0].trouble}: graded again alone at the end", file=notes, flush=True)
                    again.append((number, path))
                    continue
                used |= {record(path, *result)} - {None}
        for number, path in again:
            verdict, chapter, ran, places, seconds = work((number, path), again="-alone")
            if verdict.trouble:  # never the student's 0: an error, graded again by the instructor
                verdict, ran = Verdict([f"{verdict.trouble}, and again when graded alone: the grader could not "
                                        "grade it (not the student's fault); grade it again later, or with a "
                                        f"larger {verdict.option}"]), False
            used |= {record(path, verdict, chapter, ran, places, seconds)} - {None}
    for folder in found.too_deep:  # one line for the upload, the others were graded
        name = shown_name(folder.relative_to(base))
        verdict = Verdict([f"folders nested deeper than {MAX_DEPTH} levels: not searched"])
        outcomes.append(Outcome(folder, name, student_of(folder, base), verdict, 0.0))
        print(summary_line(name, verdict), file=stream, flush=True)
    failed = sum(not outcome.verdict.passed for outcome in outcomes)
    print(f"{len(outcomes)} notebooks: {len(outcomes) - failed} passed, {failed} failed", file=stream)
    _warn_unhidden(references, used, notes)
    _warn_old_handouts(outcomes, reference, notes)
    if report is not None:
        write_report(report, outcomes)
        print(f"report: {report}", file=notes)
    if records is not None:
        records.keep(outcomes, references, notes)
    return outcomes
