"""What a reader of chapter 5's de-noising lab waits for, in headless Chromium.

``bench_labs.py`` measures the CPU time of the lab's computing under node;
this script measures the latency a reader perceives: from the slider's
``input`` event (its ``timeStamp``) to the second animation frame after it,
by when the frame holding the page's first answer to the move has been
painted (for a q or iterations move, the first drawing of the new setting;
for a sigma or c move, the status line "computing ...", after which the new
kernel is computed). Two more columns measure up to the second frame after
the first drawing of the new setting (``firstDrawMs`` of the page's own
timer) and after its Kwok-Tsang pre-images are drawn (computed in the tasks
that follow the first drawing; ``-`` for an older ``_static`` without them).
For each control it presses the arrow keys on the slider, waits until the
page is idle after each move, and prints the median and the worst over the
moves, apart for the moves that need a new kernel and eigenpairs (sigma, c),
a new fixed-point run (q) or neither (a setting still cached).

The page is the one ``tests/test_labs_in_browser.py`` writes, with the
``_static`` directory given (default: this checkout's), so that two versions
can be compared on the same machine in turn. Wall-clock times: on a busy
machine they grow with the load, so compare runs made together.

With ``--appendices`` it measures appendix A's sparse PCA lab and appendix B's
robust PCA lab instead (every slider, ``lab_parity.APPENDIX_SWEEPS``): to the
second frame after the input event, and to the frame after the last sweep of
the new setting is drawn. With ``--lab kernel-pca``, chapter 4's kernel PCA lab
(every control, ``lab_latency_kernel_pca.SWEEP``).

Run: PYTHONPATH=. .venv/bin/python benchmarks/bench_lab_latency.py [--static DIR] [--repeats 3] [--appendices]
[--lab kernel-pca]
"""

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from lab_parity import APPENDIX_SWEEPS, latency_table, measure_latencies, write_lab_page  # noqa: E402
from test_book_in_browser import CHROMIUM, CHROMIUM_ARGS, local_server, sync_api  # noqa: E402

from kpca_lib.explorers import denoising_lab, kernel_pca_lab, robust_pca_lab, sparse_pca_lab  # noqa: E402

# (control, slider index, keys): every q and sigma move is new; c moves too (its slider steps on a log scale)
MOVES = [("q", 2, ["ArrowLeft"] * 9 + ["ArrowRight"] * 9), ("iterations", 3, ["ArrowLeft"] * 10),
         ("sigma", 0, ["ArrowRight"] * 3 + ["ArrowLeft"] * 3), ("c", 1, ["ArrowRight"] * 6)]

# listens on the slider: from the input event to the second animation frame (the reader's first feedback),
# and to the second frame after the page has drawn the new setting and its Kwok-Tsang pre-images
PROBE = """([index]) => {
  const lab = window.kpcaLabs[0], slider = lab.element.querySelectorAll('input[type=range]')[index];
  window.latencies = window.latencies || [];
  if (slider.dataset.probed) return;
  slider.dataset.probed = '1';
  const hasKwokTsang = lab.model.kwokTsangNeighbors !== undefined; // none in an older page
  slider.addEventListener('input', (event) => {
    const record = { start: event.timeStamp }, since = () => performance.now() - record.start;
    window.latencies.push(record);
    requestAnimationFrame(() => requestAnimationFrame(() => { record.frame = since(); }));
    const watch = () => {
      const move = lab.timer.current, ours = move && move.start >= record.start;
      if (ours && 'firstDrawMs' in move && !record.drawnSeen) {
        record.drawnSeen = true;
        // what the move needed: a new kernel and eigenpairs, a new run (q), or neither (cached)
        record.kind = move.newFit ? 'new fit' : move.newRun ? 'new run' : 'cached';
        requestAnimationFrame(() => { record.drawn = since(); });
      }
      if (ours && 'kwokTsangMs' in move && !record.kwokTsangSeen) {
        record.kwokTsangSeen = true;
        requestAnimationFrame(() => { record.kwokTsang = since(); });
      }
      const done = record.drawnSeen && (record.kwokTsangSeen || !hasKwokTsang);
      if (!done && since() < 20000) requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  }, true);
}"""


def measure(page, repeats):
    """{control: [records]} over `repeats` rounds of MOVES."""
    results = {}
    sliders = page.locator(".kpca-lab").nth(0).locator("input[type=range]")
    for _ in range(repeats):
        for control, index, keys in MOVES:
            page.evaluate(PROBE, [index])
            for key in keys:
                page.evaluate("() => { window.latencies = []; }")
                sliders.nth(index).focus()
                page.keyboard.press(key)
                page.evaluate("() => window.kpcaLabs[0].whenIdle()")
                page.wait_for_function("() => window.latencies.every(r => 'frame' in r && 'drawn' in r)")
                page.wait_for_timeout(100)  # the Kwok-Tsang probe's last frames
                results.setdefault(control, []).extend(page.evaluate("() => window.latencies"))
        page.get_by_role("button", name="reset to the chapter's setting").click()
        page.evaluate("() => window.kpcaLabs[0].whenIdle()")
    return results


def summary(values):
    if not values:
        return f"{'-':>15}"
    return f"{statistics.median(values):7.0f} {max(values):7.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static", type=Path, default=ROOT / "_static", help="the _static directory to serve")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the moves")
    parser.add_argument("--appendices", action="store_true", help="the sparse and robust PCA labs instead")
    parser.add_argument("--lab", choices=["denoising", "kernel-pca"], default="denoising", help="the lab to measure")
    args = parser.parse_args()
    if args.lab == "kernel-pca":
        return main_kernel_pca(args)
    labs = [sparse_pca_lab(), robust_pca_lab()] if args.appendices else [denoising_lab()]
    with tempfile.TemporaryDirectory() as directory:
        name = write_lab_page(directory, labs)
        shutil.rmtree(Path(directory) / "_static")
        shutil.copytree(args.static, Path(directory) / "_static")
        with local_server(directory) as url, sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(url + name, wait_until="load")
            page.wait_for_function("n => window.kpcaLabs && window.kpcaLabs.length === n", arg=len(labs))
            page.evaluate("() => Promise.all(window.kpcaLabs.map(lab => lab.whenIdle()))")
            if args.appendices:
                results = {}
                for _ in range(args.repeats):
                    for slider, records in measure_latencies(page, APPENDIX_SWEEPS).items():
                        results.setdefault(slider, []).extend(records)
                browser.close()
                print(f"_static: {args.static}\n" + latency_table(results))
                return
            results = measure(page, args.repeats)
            browser.close()
    print(f"_static: {args.static}")
    print("ms from the input event to the second animation frame (median, worst)")
    print(f"{'control':>10} {'move needs':>10} {'moves':>5} | {'2nd frame':>15} | {'setting drawn':>15} | "
          f"{'Kwok-Tsang drawn':>16}")
    for control, records in results.items():
        for kind in ("new fit", "new run", "cached"):
            group = [r for r in records if r.get("kind") == kind]
            if not group:
                continue
            frames, drawn = [r["frame"] for r in group], [r["drawn"] for r in group]
            kwok_tsang = [r["kwokTsang"] for r in group if "kwokTsang" in r]
            print(f"{control:>10} {kind:>10} {len(group):>5} | {summary(frames)} | {summary(drawn)} | "
                  f"{summary(kwok_tsang):>16}")


def main_kernel_pca(args):
    """Chapter 4's kernel PCA lab: every control, as lab_latency_kernel_pca.SWEEP moves it."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from lab_latency_kernel_pca import sweep, table

    with tempfile.TemporaryDirectory() as directory:
        name = write_lab_page(directory, [kernel_pca_lab()])
        shutil.rmtree(Path(directory) / "_static")
        shutil.copytree(args.static, Path(directory) / "_static")
        with local_server(directory) as url, sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(url + name, wait_until="load")
            page.wait_for_function("() => window.kpcaLabs && window.kpcaLabs.length === 1")
            results = sweep(page, 0, args.repeats)
            browser.close()
    print(f"_static: {args.static}")
    print("kernel PCA lab: ms from the input event to the second animation frame")
    print("\n".join(table(results)))


if __name__ == "__main__":
    main()
