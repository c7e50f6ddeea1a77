"""What a reader of chapter 4's kernel PCA lab waits for, in headless Chromium.

Used by ``tests/test_labs_in_browser.py``, which prints its table (the generic
sweep of ``bench_lab_latency.py`` moves every lab's sliders and menus, but makes
no drawn points). For each control of the lab, the sweep
makes moves as a reader does (arrow keys on a slider, a choice in a menu, a
click on the plane that adds a drawn point, a key on the focused plane) and
measures from the event's ``timeStamp`` to the second animation frame after
it: the lab computes in the event's handler, so by then the frame holding its
answer has been painted. Each move is classed by what it needed: a new
kernel and eigenpairs (``new fit``) or the fitted eigenpairs again
(``reuse``).
"""

import statistics

# (control, what to do, how many times); "slider k" is the lab's k-th range input
SWEEP = [
    ("q", ("slider", 2, ["ArrowRight"] * 4 + ["ArrowLeft"] * 4)),
    ("mapped component", ("slider", 3, ["ArrowRight"] * 4 + ["ArrowLeft"] * 4)),
    ("pair", ("slider", 5, ["ArrowRight"] * 4 + ["ArrowLeft"] * 4)),
    ("c", ("slider", 0, ["ArrowLeft"] * 8)),
    ("data set", ("select", 0, ["two moons", "two rings", "three rings"] * 2)),
    ("kernel", ("select", 1, ["polynomial", "gaussian"] * 3)),
    ("degree", ("slider", 1, ["ArrowRight"] * 3 + ["ArrowLeft"] * 3)),
    ("drawn point", ("click", None, [(0.3 + 0.05 * k, 0.4 + 0.03 * k) for k in range(8)])),
    ("drawn point (keys)", ("plane keys", None, ["Enter", "Delete"] * 4)),
]

PROBE = """([selector]) => {
  const lab = window.kpcaLabs[window.kpcaLatencyLab];
  window.latencies = window.latencies || [];
  for (const element of lab.element.querySelectorAll(selector)) {
    if (element.dataset.probed) continue;
    element.dataset.probed = '1';
    for (const type of ['input', 'change', 'pointerdown', 'keydown']) {
      element.addEventListener(type, (event) => {
        if (type === 'change' && element.type === 'range') return;  // the input event measures a slider
        const record = { start: event.timeStamp, type };
        window.latencies.push(record);
        requestAnimationFrame(() => requestAnimationFrame(() => {
          record.frame = performance.now() - record.start;
          const move = lab.timer.current;
          record.kind = move && move.newFit ? 'new fit' : 'reuse';
          record.work = move && move.start >= record.start ? move.firstDrawMs : undefined;  // computing and drawing
        }));
      }, true);
    }
  }
}"""


def sweep(page, lab_index=0, repeats=1):
    """{control: [records]} for the lab at ``lab_index`` of the open page."""
    page.evaluate("i => { window.kpcaLatencyLab = i; }", lab_index)
    lab = page.locator(".kpca-lab").nth(lab_index)
    sliders, selects, plane = lab.locator("input[type=range]"), lab.locator("select"), lab.locator("canvas").first
    page.evaluate(PROBE, ["input[type=range], select, canvas"])
    results = {}
    for _ in range(repeats):
        for control, (how, index, steps) in SWEEP:
            if how in ("click", "plane keys"):
                selects.nth(0).select_option("draw your own")
            if control == "degree":  # its slider works for the polynomial kernel
                selects.nth(1).select_option("polynomial")
            for step in steps:
                page.evaluate("() => { window.latencies = []; }")
                if how == "slider":
                    sliders.nth(index).focus()
                    page.keyboard.press(step)
                elif how == "select":
                    selects.nth(index).select_option(step)
                elif how == "click":
                    box = plane.bounding_box()
                    page.mouse.click(box["x"] + step[0] * box["width"], box["y"] + step[1] * box["height"])
                else:
                    plane.focus()
                    page.keyboard.press(step)
                page.evaluate(f"() => window.kpcaLabs[{lab_index}].whenIdle()")
                page.wait_for_function("() => window.latencies.every(r => 'frame' in r)")
                # a select's change also fires input: one move, measured once
                records = page.evaluate("() => window.latencies")
                results.setdefault(control, []).extend(
                    [r for r in records if r["type"] != "input" or how != "select"][:1])
            if control == "degree":
                selects.nth(1).select_option("gaussian")
        lab.get_by_role("button", name="reset to the chapter's setting").click()
    return results


def table(results):
    """Lines: per control and kind of move, the number of moves, the median and the worst ms."""
    lines = [f"{'control':>20} {'move needs':>10} {'moves':>5} | {'median':>7} {'worst':>7} | "
             f"{'of which the page computed and drew (median)':>10}"]
    for control, records in results.items():
        for kind in ("new fit", "reuse"):
            frames = [r["frame"] for r in records if r.get("kind") == kind]
            work = [r["work"] for r in records if r.get("kind") == kind and r.get("work") is not None]
            if frames:
                lines.append(f"{control:>20} {kind:>10} {len(frames):>5} | "
                             f"{statistics.median(frames):7.0f} {max(frames):7.0f} | "
                             f"{statistics.median(work) if work else float('nan'):7.0f}")
    return lines
