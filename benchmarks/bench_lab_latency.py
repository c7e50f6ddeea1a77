"""What a reader of the book's labs waits for, per control, in headless Chromium.

``bench_labs.py`` measures the CPU time of the labs' computing under node;
this script measures the latency a reader perceives, for every control of
every lab of the built book (the labs are found on the pages, so a new lab
is measured as soon as it is in the book): from the control's ``input``
event (its ``timeStamp``) to the second animation frame after it, by when
the frame holding the page's answer to the move has been painted. Each
range input is moved by the arrow keys, up to 8 steps towards its farther
end (so that no move finds its setting in a lab's cache), each select
through its options, each checkbox on and off (``tests/lab_latency.py``).

Each control is classed by what its move computes, with the targets of
issue 40 (item 6): moves that reuse the eigenpairs (q, iterations, component
pair, the PCA angle) <= 33 ms; moves that change the kernel (c, sigma, the
data set, a drawn point) <= 100 ms; robust and sparse PCA moves <= 150 ms
(issue 27); a control whose moves the lab never times computes nothing (a
mode: what a click on the plane does, the class of new points) <= 33 ms. The
table gives the median and the 90th percentile over the moves, and the
median's ratio to a baseline measured on the same pages in the same run:
a range input whose handler does nothing (two animation frames). A last
column runs to the frame after the lab's own first drawing of the new setting
(its move timer), which is later than the second frame when a lab first
paints a status line ("computing ...") and then computes. Drags (the mouse
on a slider's thumb) give the frame rate and the largest gap between two
frames, beside the same drag of the no-op range input (what the machine
allows: under load it too misses frames). On a busy machine wall-clock times
grow with the load; the ratios less so.

The book is the one at ``--html`` (default: built from the committed
notebooks, execution off, into a temporary folder, as the browser test
builds it). ``--static DIR`` serves it with another ``_static`` folder's
lab files, so that two versions of the labs can be compared in one run.

``--busy 2`` runs two CPU-bound processes beside the measurement (issue 40 asks for the
table quiet and with two CPU-bound processes beside it).

Run: PYTHONPATH=. .venv/bin/python benchmarks/bench_lab_latency.py [--html _build/html] [--static DIR] [--busy 2]
"""

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

sys.path.insert(0, str(ROOT / "benchmarks"))
from busy import busy, load  # noqa: E402
from lab_latency import baseline, drag_baseline, drag_lab, drag_table, sweep_lab, table  # noqa: E402
from test_book_in_browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    book_pages,
    build_book,
    local_server,
    sync_api,
)


def with_labs_of(html, static, copy):
    """A copy of the built book ``html`` at ``copy`` whose labs' files are those of the folder ``static``."""
    shutil.copytree(html, copy)
    for lab_file in static.glob("kpca-lab*"):
        shutil.copy(lab_file, copy / "_static" / lab_file.name)
    return copy


def lab_pages(html):
    """The pages of the built book that hold a lab computed in the browser."""
    return [name for name in book_pages(html) if 'class="kpca-lab ' in (html / name).read_text()]


def measure(html, pages, repeats, drags=True):
    """Rows (page, lab kind, control, class, ms), drag rows and the baseline's ms, over every lab of the pages."""
    rows, base, drag_rows = [], [], []
    with local_server(html) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        for name in pages:
            page = context.new_page()
            page.goto(url + name, wait_until="load")
            page.wait_for_function(
                "() => window.kpcaLabs && window.kpcaLabs.length === "
                "document.querySelectorAll('.kpca-lab[data-kind]').length")
            n_labs = page.evaluate("() => window.kpcaLabs.length")
            base += baseline(page)
            collected = {}
            for _ in range(repeats):
                for index in range(n_labs):
                    for label, result in sweep_lab(page, index).items():
                        key = (index, label)
                        entry = collected.setdefault(key, dict(result, ms=[], drawn=[]))
                        entry["ms"].extend(result["ms"])
                        entry["drawn"].extend(result["drawn"])
            for (index, label), result in collected.items():
                rows.append((Path(name).stem, result["kind"], label, result["class"], result["ms"],
                             result["drawn"]))
            if drags:
                drag_rows.append((Path(name).stem, "-", "no-op range input (baseline)", "no-op handler",
                                  drag_baseline(page)))
            for index in range(n_labs if drags else 0):
                for label, result in drag_lab(page, index).items():
                    drag_rows.append((Path(name).stem, result["kind"], label, result["class"], result))
            page.close()
        browser.close()
    return rows, drag_rows, base


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, help="a built book's HTML folder (default: build one)")
    parser.add_argument("--static", type=Path, help="serve the labs' files of this _static folder instead")
    parser.add_argument("--repeats", type=int, default=1, help="sweeps of every control")
    parser.add_argument("--pages", nargs="*", help="only these pages (e.g. chapters/04_kernel_pca.html)")
    parser.add_argument("--no-drags", action="store_true", help="single moves only")
    parser.add_argument("--busy", type=int, default=0,
                        help="CPU-bound processes run beside the measurement (default 0: quiet)")
    args = parser.parse_args()
    if args.busy < 0:
        parser.error("--busy must be a count >= 0")
    with tempfile.TemporaryDirectory() as directory:
        html = args.html.resolve() if args.html else build_book(Path(directory) / "book")
        if args.static:
            html = with_labs_of(html, args.static, Path(directory) / "html")
        pages = args.pages or lab_pages(html)
        with busy(args.busy):
            before = load()
            rows, drag_rows, base = measure(html, pages, args.repeats, drags=not args.no_drags)
            after = load()
    print(f"book: {args.html or 'built from the committed notebooks'}; labs' files: {args.static or 'its own'}")
    print(f"{args.busy} CPU-bound process(es) beside it; {before} at the start, {after} at the end")
    print("ms from a control's input event to the second animation frame after it")
    print("\n".join(table(rows, base)))
    by_class = {}
    for *_, klass, ms, _drawn in rows:
        by_class.setdefault(klass, []).extend(ms)
    for klass, ms in by_class.items():
        if ms:
            print(f"all '{klass}' moves: median {statistics.median(ms):.1f} ms over {len(ms)}")
    if drag_rows:
        print()
        print("\n".join(drag_table(drag_rows)))


if __name__ == "__main__":
    main()
