"""The main thread's CPU time during a drag of each lab slider, from a Chromium trace.

``bench_lab_latency.py`` gives a drag's frame rate and largest gap in wall-clock
time, which on a shared machine grows with the load (other processes take the
CPU between two frames). This script drags the same sliders the same way
(tests/lab_latency.py: the mouse on the thumb, 40 moves 25 ms apart) with
Chromium's tracing on, and reads the renderer main thread's *thread time*
(CPU time, ``tdur``) of each task: time the page itself spent, which the
load changes far less. Per drag it prints the longest tasks, the busiest
intervals between two animation frames (the CPU a frame waited for: above
16.7 ms a 60 Hz frame is missed even on a quiet machine), how many intervals
needed more than 16.7 ms, and the longest input event. The first row of each
page drags a range input with a no-op handler: what the page's own rendering
costs (layout, paint, hit tests) with no lab work at all.

Run: PYTHONPATH=. .venv/bin/python benchmarks/bench_lab_drag_cpu.py --html <book>/_build/html
     [--static DIR] [--pages chapters/B_robust_pca.html ...] [--controls "rank of L"]
"""

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_lab_latency import lab_pages, with_labs_of  # noqa: E402
from busy import load  # noqa: E402
from lab_latency import BASELINE, PROBE, _controls, _drag, _reset  # noqa: E402
from test_book_in_browser import CHROMIUM, CHROMIUM_ARGS, local_server, sync_api  # noqa: E402

FRAME = 1000 / 60


def main_thread_cpu(trace_path):
    """(task CPU ms sorted down, CPU ms per interval between frames sorted down, input event CPU ms sorted down)."""
    trace = json.loads(Path(trace_path).read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    # the renderer's main thread: where the page's JavaScript runs
    calls = collections.Counter((e.get("pid"), e.get("tid")) for e in events if e.get("name") == "FunctionCall")
    main = calls.most_common(1)[0][0]
    mine = [e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"]
    tasks = sorted((e for e in mine if e["name"] == "ThreadControllerImpl::RunTask"), key=lambda e: e["ts"])
    frames = []
    for time in sorted(e["ts"] for e in mine if e["name"] == "FireAnimationFrame"):
        if not frames or time - frames[-1] > 2000:  # (callbacks of one frame: one start)
            frames.append(time)
    per_frame = [sum(t.get("tdur", 0) for t in tasks if a <= t["ts"] < b) / 1000 for a, b in zip(frames, frames[1:])]
    inputs = [e.get("tdur", 0) / 1000 for e in mine
              if e["name"] == "EventDispatch" and e.get("args", {}).get("data", {}).get("type") == "input"]
    down = lambda values: sorted(values, reverse=True)
    return down(t.get("tdur", 0) / 1000 for t in tasks), down(per_frame), down(inputs)


def traced_drag(browser, page, locator, lab_index, control_id, path):
    browser.start_tracing(page=page, path=str(path), categories=["toplevel", "devtools.timeline", "v8"])
    result = _drag(page, locator, lab_index, control_id)
    browser.stop_tracing()
    return result, main_thread_cpu(path)


def row(page_name, label, result, cpu):
    tasks, per_frame, inputs = cpu
    over = sum(1 for v in per_frame if v > FRAME)
    fmt = lambda values: ", ".join(f"{v:.1f}" for v in values[:3])
    return (f"{page_name:<26} {label[:34]:<34} {result['fps']:6.1f} {result['max_gap']:8.1f} | {fmt(tasks):<18} | "
            f"{fmt(per_frame):<18} | {over:>4}/{len(per_frame):<4} | {inputs[0] if inputs else 0:6.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="a built book's HTML folder")
    parser.add_argument("--static", type=Path, help="serve the labs' files of this _static folder instead")
    parser.add_argument("--pages", nargs="*", help="only these pages (e.g. chapters/B_robust_pca.html)")
    parser.add_argument("--controls", nargs="*", help="only the sliders whose label contains one of these")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        html = args.html.resolve()
        if args.static:
            html = with_labs_of(html, args.static, Path(directory) / "html")
        trace = Path(directory) / "trace.json"
        before, lines = load(), []
        with local_server(html) as url, sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            for name in args.pages or lab_pages(html):
                page = context.new_page()
                page.goto(url + name, wait_until="load")
                page.wait_for_function("() => window.kpcaLabs && window.kpcaLabs.length === "
                                       "document.querySelectorAll('.kpca-lab[data-kind]').length")
                page.evaluate(BASELINE)
                page.evaluate(f"() => ({PROBE})(document.getElementById('kpca-latency-baseline'))")
                locator = page.locator("#kpca-latency-baseline")
                lines.append(row(Path(name).stem, "no-op range input (baseline)",
                                 *traced_drag(browser, page, locator, None, "baseline", trace)))
                page.evaluate("() => document.getElementById('kpca-latency-baseline').remove()")
                for index in range(page.evaluate("() => window.kpcaLabs.length")):
                    for _, control, locator, label in _controls(page, index, types=("range",)):
                        if args.controls and not any(c in label for c in args.controls):
                            continue
                        lines.append(row(Path(name).stem, label,
                                         *traced_drag(browser, page, locator, index, control["id"], trace)))
                        _reset(page, index)
                page.close()
            browser.close()
        after = load()
    print(f"labs' files: {args.static or 'the book’s own'}; {before} at the start, {after} at the end")
    print("drags: the mouse on the thumb, 40 moves 25 ms apart; CPU = the renderer main thread's thread time (ms)")
    print(f"{'page':<26} {'control':<34} {'fps':>6} {'max gap':>8} | {'longest tasks':<18} | "
          f"{'busiest frames':<18} | {'>16.7':>9} | {'input':>6}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
