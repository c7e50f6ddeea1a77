"""Code a dishonest student puts in a submission, one trick per constant (issue 13).

Each is a regression test of the grader: a submission using it must FAIL
(``tests/test_grading.py``). The tricks stay inside the grading run they
belong to: they write only under their own grading folders, and touch no
process outside their own chain of parents.
"""

# a trap set in the first cell: every later print shows the expected visible output
PRINT_PATCH = """
import builtins
_real_print = builtins.print
def _forged_print(*args, **kwargs):
    _real_print("[42]")
builtins.print = _forged_print
print = _forged_print
"""

# a trap set in the first cell: a stub's NotImplementedError prints the expected text, and
# nbval sees no error (IPython sends no error message for a custom handler)
CUSTOM_EXCEPTION_HANDLER = """
import sys
def _handler(shell, etype, value, tb, tb_offset=None):
    sys.stdout.write("[42]\\n")
get_ipython().set_custom_exc((NotImplementedError, NameError, TypeError), _handler)
"""

# a trap set in the first cell: any cell mentioning a hidden check is replaced by a guess
INPUT_TRANSFORMER = """
def _rewrite(lines):
    if any("hidden check" in line or "_kpca_grader" in line for line in lines):
        return ["print([0.0, 0.0, 0.0, 0.0])\\n"]
    return lines
get_ipython().input_transformers_post.append(_rewrite)
"""

# configuration files that would make every later notebook pass, written into the
# kernel's working folder and the two folders above it
CONFTEST_WRITER = '''
import pathlib
CONFTEST = """
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
"""
INI = "[pytest]\\naddopts = -p no:nbval\\n"
here = pathlib.Path.cwd()
for folder in [here, here.parent, here.parent.parent]:
    for name, text in [("conftest.py", CONFTEST), ("pytest.ini", INI), ("tox.ini", INI)]:
        try:
            (folder / name).write_text(text)
        except OSError:
            pass
'''

# a process that leaves the kernel's session and, for two minutes, rewrites every file
# of its submission's folder and writes forged results into every file descriptor it can
# open in its two parents (the runner's result pipe, the grader's output)
DETACHED_FORGER = '''
import glob, json, os, pathlib, time
MARKER = "{marker}"
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        forged = json.dumps({{"event": "cell", "cell": 1, "when": "call", "outcome": "passed",
                             "compared": True}}) + "\\nPASS  forged\\n"
        parents, pid = [], os.getpid()
        while pid > 1:
            try:
                pid = int(open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                break
            parents.append(pid)
        root = pathlib.Path.cwd().parent  # this submission's folder
        deadline = time.time() + 120
        while time.time() < deadline:  # MARKER keeps this loop findable in /proc
            for path in root.rglob("*"):
                try:
                    if path.is_file():
                        path.write_text(forged)
                except OSError:
                    pass
            for parent in parents[:2]:  # the runner and the grader, nothing further up
                for fd in glob.glob(f"/proc/{{parent}}/fd/*"):
                    try:
                        with open(fd, "w") as stream:
                            stream.write(forged)
                    except OSError:
                        pass
            time.sleep(0.05)
        os._exit(0)
    os._exit(0)
os.wait()
'''

# a cell that never ends, after starting processes that try to outlive it
HANG_WITH_CHILDREN = '''
import os, subprocess, sys, time
subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{marker}"])
    os._exit(0)
while True:
    time.sleep(1)
'''

# kill the process that runs this notebook
KILL_PARENT = '''
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
'''

# in a sandbox, kill every process in sight (only when few are visible: never outside one)
KILL_ALL = '''
import os, signal
visible = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
if len(visible) < 20:
    for pid in visible:
        if pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
'''

OUTPUT_FLOOD = '''
for _ in range(30000):
    print("x" * 100)
'''

# find the reference through /proc (the grader's --reference argument) or its known
# path, and run the instructor's solution cells
READ_REFERENCE = '''
import json, os, pathlib
def _candidates():
    yield pathlib.Path("{reference}")
    for pid in os.listdir("/proc"):
        try:
            argv = open(f"/proc/{{pid}}/cmdline").read().split("\\0")
            cwd = os.readlink(f"/proc/{{pid}}/cwd")
        except OSError:
            continue
        if "--reference" in argv:
            yield pathlib.Path(cwd) / argv[argv.index("--reference") + 1]
for folder in _candidates():
    try:
        chapter = json.loads((folder / "syn.ipynb").read_text())
    except OSError:
        continue
    for cell in chapter["cells"]:
        if "solution" in cell["metadata"].get("tags", []):
            source = "".join(cell["source"])
            exec(source.split("\\n\\n\\n")[0])
    break
'''

# what the sandbox promises, checked from inside a kernel: any failure fails the notebook
SANDBOX_PROBE = '''
import os, socket, pathlib
assert os.geteuid() != 0, "the kernel runs as root"
for hidden in {hidden!r}:
    assert not os.path.exists(hidden), f"{{hidden}} is visible"
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
except OSError:
    pass
else:
    raise AssertionError("the network is reachable")
for forbidden in ["/usr/kpca-probe", "/etc/kpca-probe", os.path.dirname(os.__file__) + "/kpca-probe"]:
    try:
        open(forbidden, "w")
    except OSError:
        pass
    else:
        raise AssertionError(f"{{forbidden}} is writable")
pathlib.Path("scratch.txt").write_text("the working folder is writable")
processes = [p for p in os.listdir("/proc") if p.isdigit()]
assert len(processes) < 10, f"{{len(processes)}} processes are visible"
assert os.environ.get("OPENBLAS_NUM_THREADS") == "{threads}", "BLAS settings did not reach the kernel"
'''


# ---------------------------------------------------------------- issue 28: floods, deaths, leaks, limits

# output that never ends: the cap must stop it while the cell runs
FLOOD_FOREVER = '''
while True:
    print("x" * 1000)
'''

# large output messages sent straight from the kernel, past ipykernel's stream buffering
FLOOD_MESSAGES = '''
import time
_kernel = get_ipython().kernel
for _ in range(40):
    _kernel.session.send(_kernel.iopub_socket, "stream", {"name": "stdout", "text": "y" * 300000})
time.sleep(600)  # longer than the timeout: only a count as the messages arrive stops it in time
'''

# 50 messages of 19 MB, each far over a 1 MB cap, sent straight from the kernel (signed once,
# then about 50 a second: no more than a GB waits in the kernel), and a sleep: whatever a
# runner lets in before it stops piles up in its memory
FLOOD_BIG_MESSAGES = '''
import time
_kernel = get_ipython().kernel
_frames = _kernel.session.serialize(_kernel.session.msg("stream", {"name": "stdout", "text": "y" * 19_000_000}))
for _ in range(50):
    _kernel.iopub_socket.send_multipart(_frames)
    time.sleep(0.02)
time.sleep(30)
'''

KERNEL_EXIT = '''
import os
os._exit(1)
'''

# a spy in place of the hidden-check helper: what it captures comes back as an exception's
# name (with spaces and newlines) or value
SPY_NAME = '''
import sys
class _Spy:
    def run_hidden_check(self, exercise, number, source):
        raise type(source, (Exception,), {})("captured")
sys.modules["_kpca_grader"] = _Spy()
'''
SPY_VALUE = '''
import sys
class _Spy:
    def run_hidden_check(self, exercise, number, source):
        raise ValueError(" ".join(source.split("\\n")[1:]))
sys.modules["_kpca_grader"] = _Spy()
'''

# a spy that keeps the seed of the hidden check (a snippet shorter than any verbatim quote the
# grader looks for), raises it as an exception's value, and raises it again later under a
# made-up exception name (a valid identifier) from a cell of the student's own
SPY_SEED = '''
import re, sys
class _Spy:
    def run_hidden_check(self, exercise, number, source):
        global _stolen
        _stolen = re.search(r"default_rng\\(\\d+\\)", source)[0]
        raise ValueError([_stolen])
sys.modules["_kpca_grader"] = _Spy()
'''
SPY_SEED_LATER = '''
raise type(re.sub(r"\\W", "_", _stolen), (Exception,), {})(_stolen)
'''

_KEYRING = '''
import ctypes, time
_libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = 248, 250  # x86_64
USER, SESSION, USER_SESSION = -4, -3, -5
'''

# leave a note in every keyring this kernel may write to, and stay a while
KEYRING_WRITER = _KEYRING + '''
for keyring in (USER, SESSION, USER_SESSION):
    key = _libc.syscall(ADD_KEY, b"user", b"kpca-note", b"secret", 6, keyring)
    assert key > 0, ("add_key failed", keyring, ctypes.get_errno())
time.sleep(6)
'''

# look for that note, and for the grader's own, in every keyring this kernel can reach
KEYRING_READER = _KEYRING + '''
KEYCTL_SEARCH = 10
deadline = time.time() + 6
while time.time() < deadline:
    for keyring in (USER, SESSION, USER_SESSION):
        for name in (b"kpca-note", b"{grader_note}"):
            found = _libc.syscall(KEYCTL, KEYCTL_SEARCH, keyring, b"user", name, 0)
            assert found < 0, (name, "is readable in keyring", keyring)
    time.sleep(0.5)
'''

# several processes that together go over the memory limit, each under it
MEMORY_HOGS = '''
import subprocess, sys
hogs = [subprocess.Popen([sys.executable, "-c", "import time; b = b'x' * (500 * 2**20); time.sleep(15)"])
        for _ in range(4)]
assert [hog.wait() for hog in hogs] == [0, 0, 0, 0], "a process was killed"
'''

# a bounded stand-in for a fork bomb: 200 sleeping children, which the limit must refuse
MANY_PROCESSES = '''
import subprocess
children, refused = [], None
try:
    for _ in range(200):
        children.append(subprocess.Popen(["sleep", "30"]))
except OSError as error:
    refused = error
finally:
    for child in children:
        child.kill()
        child.wait()
assert refused is not None, f"{len(children)} processes started"
'''

# write 1 MB files into the working folder, the temporary folder and the sockets folder,
# until the space runs out: each must be bounded (a few MB over a 4 MB limit)
SCRATCH_FILLER = '''
import os, tempfile
from ipykernel import get_connection_file
folders = [".", tempfile.gettempdir()] + ([os.path.dirname(get_connection_file())] if {sockets} else [])
for folder in folders:
    written = 0
    try:
        for number in range(12):
            with open(os.path.join(folder, f"fill-{{number}}"), "wb") as file:
                file.write(b"z" * 2**20)
            written += 1
    except OSError:
        pass
    assert written < 8, f"{{written}} MB written into {{folder}}"
'''

LIBRARY_PROBE = '''
import kpca_lib
assert getattr(kpca_lib, "MARK", None) == "the grader's copy", kpca_lib.__file__
'''
