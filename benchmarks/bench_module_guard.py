"""What guarding the libraries costs a hidden check (issue 39, chapter 3 walkthrough P1a).

The grader's setup cell saves NumPy, SciPy, scikit-learn, kpca_lib, matplotlib
and math (``coursework.grading.module_guard.snapshot``); each hidden check
restores them before each of its statements and after each call of the
submission's functions (``restore``). This prints, for a chapter's imports,
the CPU time of importing the modules (the baseline, measured in the same run:
the chapter's own first cell pays it anyway), of the snapshot, of one restore
when nothing changed, and of one restore after a patch, with the ratio to the
imports, and a count of what is watched. Chapter 3's four hidden checks run
about 80 restores (a loop of 10 calls in one of them).

Run from the repository root::

    .venv/bin/python benchmarks/bench_module_guard.py [--chapter chapters/03_kernels.ipynb] [--restores 50]
"""

import argparse
import importlib
import os
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapter", default="chapters/03_kernels.ipynb")
    parser.add_argument("--restores", type=int, default=50)
    args = parser.parse_args()
    from coursework.grading import module_guard
    from coursework.grading.reference import extract_reference

    import nbformat

    reference = extract_reference(nbformat.read(args.chapter, as_version=4), os.path.basename(args.chapter))
    names = module_guard.modules_to_import([*reference.book_sources, *(check.source for checks in
                                                                        reference.hidden.values() for check in checks)])
    started = time.process_time()
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    imports = time.process_time() - started
    started = time.process_time()
    module_guard.snapshot(names)
    snapshot = time.process_time() - started
    started = time.process_time()
    for _ in range(args.restores):
        module_guard.restore()
    quiet = (time.process_time() - started) / args.restores
    import numpy

    allclose, started = numpy.allclose, time.process_time()
    for _ in range(args.restores):
        numpy.allclose = len
        module_guard.restore()
    patched = (time.process_time() - started) / args.restores
    assert numpy.allclose is allclose
    state = module_guard._state
    print(f"{args.chapter}: {len(state['spaces'])} namespaces, {len(state['values'])} values, "
          f"{len(state['functions'])} functions watched; load average {os.getloadavg()[0]:.1f}")
    print(f"{'step':<34}{'CPU s':>10}{'/ imports':>12}")
    for step, seconds in [("imports (baseline)", imports), ("snapshot (once per notebook)", snapshot),
                          ("restore, nothing changed", quiet), ("restore after a patch", patched),
                          ("80 restores (chapter 3's checks)", 80 * quiet)]:
        print(f"{step:<34}{seconds:>10.4f}{seconds / imports:>12.3f}")


if __name__ == "__main__":
    main()
