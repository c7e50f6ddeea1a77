"""private-reference (issue 39, chapter 3 walkthrough P1b, P1c): weak hidden checks, and a kernel that stops answering.

(b) A hidden check that prints the same with the course's seed as with the
public one prints a verdict or fixed values, which a forged function can
print: the command names it and exits 1. (c) A chapter whose kernel sits idle
while the client waits for a reply is stopped and run once more from a fresh
kernel (a fake client and a fake CPU clock stand in for nbclient and the
kernel); a second stall is an error of that chapter, exit status 1.
"""

import io
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_output

from coursework.__main__ import main
from coursework_notebooks import graded_chapter, hidden_answer

VERDICT_CHECK = """# hidden check for syn-ex1
rng = np.random.default_rng(6)
values = rng.integers(0, 100, size=4)
print(bool(np.allclose(double(values), 2 * values)))"""


def chapter_with_a_verdict_check():
    """The synthetic chapter, syn-ex1 with a second hidden check that prints only ``True``; syn-ex2 not graded."""
    chapter = graded_chapter()
    at = next(i for i, cell in enumerate(chapter.cells) if "hidden-check" in cell.metadata.get("tags", []))
    verdict = new_code_cell(VERDICT_CHECK, outputs=[new_output("stream", name="stdout", text="True\n")],
                            execution_count=3)
    verdict.metadata["tags"] = ["hidden-check", "remove-cell"]
    chapter.cells.insert(at + 1, verdict)
    next(cell for cell in chapter.cells if cell.source == "print(x + 1)").metadata["tags"].append(
        "nbval-ignore-output")  # syn-ex2 not graded: check --strict passes on the rest
    return chapter


def test_a_hidden_check_that_prints_the_same_with_the_courses_seed_is_named_and_exits_1(tmp_path, capsys):
    (tmp_path / "chapters").mkdir()
    nbformat.write(chapter_with_a_verdict_check(), tmp_path / "chapters" / "07_syn.ipynb")
    assert main(["private-reference", str(tmp_path / "chapters"), str(tmp_path / "private")]) == 1
    out = capsys.readouterr().out
    assert ("WEAK: hidden check 2 of syn-ex1 prints the same with the course's seed: it checks fixed values or a "
            "verdict, which a forged function can print; make it print values of its seeded inputs") in out
    assert "hidden check 1 of syn-ex1 prints the same" not in out  # it prints its seeded inputs, doubled
    assert "2 of 2 hidden checks re-seeded" in out


# ---------------------------------------------------------------- a kernel that stops answering


class FakeKernel:
    """What the watch sees of a kernel: its process id and CPU time, and whether it was killed."""

    def __init__(self, busy, pid):
        self.busy, self.killed, self.pid, self.started = busy, [], pid, time.monotonic()

    def cpu(self):
        return (time.monotonic() - self.started) * 0.5 if self.busy else 1.0  # idle: no CPU time at all


def clock_and_kill(kernels):
    """The CPU time and the kill of the fake kernels, by process id."""
    by_pid = {kernel.pid: kernel for kernel in kernels}
    return (lambda pid: by_pid[pid].cpu()), (lambda pid: by_pid[pid].killed.append(pid))


def fake_client_class(kernels, seconds=3.0):
    """nbclient's NotebookClient as the watch sees it: each run takes the next kernel and executes cell 1,
    which finishes after ``seconds`` unless the kernel is killed first (then nbclient sees a dead kernel)."""
    from types import SimpleNamespace

    from nbclient.exceptions import DeadKernelError

    runs = iter(kernels)

    class Client:
        def __init__(self, nb, timeout, resources, on_cell_execute, on_cell_executed):
            self.nb, self.kernel = nb, next(runs)
            self.on_execute, self.on_executed = on_cell_execute, on_cell_executed
            self.km = SimpleNamespace(provisioner=SimpleNamespace(process=SimpleNamespace(pid=self.kernel.pid)))

        def execute(self):
            self.on_execute(cell=self.nb.cells[1], cell_index=1)
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if self.kernel.killed:
                    raise DeadKernelError("Kernel died")
                time.sleep(0.02)
            self.nb.cells[1].outputs = [new_output("stream", name="stdout", text="ran\n")]
            self.on_executed(cell=self.nb.cells[1], cell_index=1, execute_reply={})
            return self.nb

    return Client


def run_with(kernels, stall=0.5):
    from coursework.authoring.private_run import execute_chapter

    nb, stream = graded_chapter(), io.StringIO()
    nb.cells[1].outputs = []
    cpu, kill = clock_and_kill(kernels)
    runs = execute_chapter(nb, ".", stream, "private/07_syn.ipynb", timeout=60, stall=stall,
                           client_class=fake_client_class(kernels), cpu=cpu, kill=kill)
    return runs, nb, stream.getvalue()


def test_a_kernel_that_stops_answering_is_stopped_and_the_chapter_run_again_from_a_fresh_kernel():
    idle, fresh = FakeKernel(busy=False, pid=424242), FakeKernel(busy=True, pid=424243)
    runs, nb, said = run_with([idle, fresh])
    assert runs == 2 and idle.killed == [424242] and not fresh.killed
    assert nb.cells[1].outputs[0]["text"] == "ran\n"
    assert said == ("private/07_syn.ipynb: the kernel stopped answering in cell 1 (no CPU time used for 0.5 s); "
                    "running the chapter again from a fresh kernel\n")


def test_a_busy_kernel_is_left_alone():
    busy = FakeKernel(busy=True, pid=424242)
    runs, _, said = run_with([busy])
    assert (runs, busy.killed, said) == (1, [], "")


def test_a_second_stall_is_an_error_of_the_chapter_and_no_copy_is_left(tmp_path, capsys, monkeypatch):
    from coursework.authoring import private_run
    from coursework.authoring.private import make_private_reference

    with pytest.raises(private_run.ChapterStalled, match="stopped answering in cell 1 .*, twice: not executed"):
        run_with([FakeKernel(busy=False, pid=424242), FakeKernel(busy=False, pid=424243)])
    # the command: says so, writes no copy of that chapter (an earlier one is removed), exit status 1
    (tmp_path / "chapters").mkdir()
    nbformat.write(graded_chapter(), tmp_path / "chapters" / "07_syn.ipynb")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "07_syn.ipynb").write_text("{}")
    kernels = [FakeKernel(busy=False, pid=424242), FakeKernel(busy=False, pid=424243)]
    cpu, kill = clock_and_kill(kernels)
    monkeypatch.setattr(private_run, "cpu_seconds", cpu)
    monkeypatch.setattr(private_run, "_kill", kill)
    stream = io.StringIO()
    status = make_private_reference(tmp_path / "chapters", tmp_path / "private", stream, stall=0.5,
                                    client_class=fake_client_class(kernels))
    assert status == 1 and not (tmp_path / "private" / "07_syn.ipynb").exists()
    assert "running the chapter again from a fresh kernel" in stream.getvalue()
    assert "twice: not executed" in stream.getvalue()


def test_a_live_widget_is_left_out_of_the_run_and_the_copy_keeps_the_chapters_code():
    # chapter 4's live widget cell left nbclient waiting on an idle kernel (one run of two): the run
    # leaves out the `.live()` statement, keeps what the cell binds, and the copy keeps the source
    from coursework.authoring.private_run import execute_chapter

    nb = graded_chapter()
    nb.cells[1].source += "\nwidget = make_widget()\nwidget.live()"
    original = [cell.source for cell in nb.cells]
    seen = []

    class Client:
        def __init__(self, nb, timeout, resources, on_cell_execute, on_cell_executed):
            self.nb = nb

        def execute(self):
            seen.extend(cell.source for cell in self.nb.cells)
            return self.nb

    assert execute_chapter(nb, ".", io.StringIO(), "private/07_syn.ipynb", client_class=Client,
                           cpu=lambda pid: 0.0, kill=lambda pid: None) == 1
    assert "widget = make_widget()" in seen[1] and ".live()" not in "".join(seen)
    assert [cell.source for cell in nb.cells] == original


def test_execute_runs_a_notebook_in_place_with_its_live_widget_left_out(tmp_path, capsys):
    """The guide's by-hand recipe (and benchmarks/guide_outputs.py) executes a chapter with `execute`, which
    leaves the live widget out as private-reference does; the file keeps its code and gets its outputs."""
    nb = graded_chapter()
    # a widget whose .live() would stop the run: it must not run
    nb.cells[1].source += ("\nclass Widget:\n    def live(self):\n        raise RuntimeError('the live widget ran')"
                           "\n\n\nwidget = Widget()\nwidget.live()")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    path = tmp_path / "07_syn.ipynb"
    nbformat.write(nb, path)
    assert main(["execute", str(path)]) == 0
    assert f"{path}: executed, its live widgets left out of the run" in capsys.readouterr().out
    done = nbformat.read(path, as_version=4)
    assert [cell.source for cell in done.cells] == [cell.source for cell in nb.cells]
    printed = ["".join(output.get("text", "") for output in cell.outputs) for cell in done.cells
               if cell.cell_type == "code"]
    assert printed[1:] == ["[42]\n", hidden_answer(), "22\n"], printed  # 2 x 21, twice the hidden integers, 21 + 1


def test_the_chapter_kernel_prints_no_tcp_warning_on_the_instructors_terminal(tmp_path, capfd):
    """The third walkthrough saw ipykernel's "Kernel is running over TCP without encryption" at every
    private-reference run: the chapters' kernels talk over Unix sockets in a private folder, and what a
    cell prints still reaches the notebook."""
    from nbformat.v4 import new_code_cell, new_notebook

    from coursework.authoring.private_run import execute_chapter

    nb = new_notebook(cells=[new_code_cell("print(6 * 7)")],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    assert execute_chapter(nb, tmp_path, io.StringIO(), "private/07_syn.ipynb", timeout=120) == 1
    assert nb.cells[0].outputs[0]["text"] == "42\n"
    err = capfd.readouterr().err
    assert "without encryption" not in err and "WARNING" not in err, err
