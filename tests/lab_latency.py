"""What a reader of a lab waits for after moving a control, measured in Chromium.

Shared by ``tests/test_labs_in_browser.py`` (which prints the medians) and
``benchmarks/bench_lab_latency.py`` (which prints the table over every lab of
the built book). The latency of a move is the time from the control's
``input`` event (its ``timeStamp``) to the second animation frame after it:
by then the frame that holds the page's answer to the move has been painted
(a lab that computes before it draws delays that frame by its computing).
The baseline is the same measure for a range input with a handler that does
nothing, on the same page: what no lab can beat (two frames). For a lab with
its own move timer, a second figure runs to the frame after the lab's first
drawing of the new setting (a lab may paint a status line first).

A drag (``drag_lab``) holds the mouse on a range input's thumb and moves it
in ``DRAG_MOVES`` steps ``DRAG_SPACING_MS`` apart to the farther end, as a
reader's hand does: it reports the frame rate over the drag, the largest gap
between two frames (a stall the reader sees), and the latency of each of
its input events as above; ``drag_baseline`` drags the no-op range input
the same way, the frame rate and gaps the machine itself allows.

Every control of a lab is swept: each range input by the arrow keys (up to
``RANGE_MOVES`` steps, all towards the farther end, so that no move finds its
setting cached), each select through its options, each checkbox on and off.
A control that is disabled (chapter 5's width slider while the width rule is
on) is swept after toggling the lab's checkboxes until it is enabled. The lab
is reset between controls. Nothing here asserts a time: timings on a shared
machine are noisy, so they are printed.
"""

import statistics

RANGE_MOVES = 8
# target per class of move (issue 40, item 6; RPCA / sparse PCA from issue 27), in ms; a control
# whose moves the lab never times (a select of what a click does) computes nothing: a mode
MODE = "mode: computes nothing"
TARGETS = {"reuses eigenpairs": 33, "changes the kernel": 100, "RPCA / sparse PCA": 150, MODE: 33}

# a capture listener on the element: each input event while window.kpcaLatency.on gets a record
PROBE = """(element) => {
  const state = window.kpcaLatency = window.kpcaLatency || { on: false, records: [] };
  if (element.dataset.latencyProbe) return;
  element.dataset.latencyProbe = '1';
  element.addEventListener('input', (event) => {
    if (!state.on) return;
    const record = { start: event.timeStamp, control: event.target.dataset.latencyId };
    state.records.push(record);
    const since = () => performance.now() - record.start;
    requestAnimationFrame(() => requestAnimationFrame(() => { record.frame = since(); }));
    // with the lab's own timer (kpcaLabCore.MoveTimer): the frame after its first drawing of the move
    const lab = window.kpcaLabs[Number(element.dataset.labIndex)];
    if (!lab || !lab.timings) return;
    const watch = () => {
      const move = lab.timings[lab.timings.length - 1];
      if (move && move.start >= record.start - 1 && 'firstDrawMs' in move) {
        requestAnimationFrame(() => { record.drawn = since(); });
      } else if (since() < 5000) requestAnimationFrame(watch);
      else record.undrawn = true; // a move the lab does not time (a mode select)
    };
    watch();
  }, true);
}"""

# the controls of lab `index`, each tagged with an id: type, label, disabled
CONTROLS = """(index) => {
  const lab = window.kpcaLabs[index], found = [];
  lab.element.querySelectorAll('input[type=range], select, input[type=checkbox]').forEach((control, k) => {
    control.dataset.latencyId = index + ':' + k;
    const label = (control.labels && control.labels[0] && control.labels[0].textContent)
      || control.getAttribute('aria-label') || control.name || ('control ' + k);
    found.push({ id: control.dataset.latencyId, type: control.type, label: label.trim(),
                 disabled: control.disabled, options: control.options ? control.options.length : 0 });
  });
  return found;
}"""

SETTLE = """async (index) => {
  const lab = index === null ? null : window.kpcaLabs[index];
  if (lab && lab.whenIdle) await lab.whenIdle();
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""

BASELINE = """() => {
  const input = document.createElement('input');
  Object.assign(input, { type: 'range', min: 0, max: 100, value: 0, id: 'kpca-latency-baseline' });
  input.dataset.latencyId = 'baseline';
  input.addEventListener('input', () => {}); // the no-op handler
  document.body.prepend(input);
}"""


def classify(kind, label):
    """The class of a move, from the lab's kind and the control's label."""
    text = f"{kind} {label}".lower()
    if "robust" in text or "sparse" in text or "rpca" in text:
        return "RPCA / sparse PCA"
    kernel_words = ("width", "σ", "sigma", "noise", "data set", "dataset", "kernel", "degree",
                    "rule", "gamma", "point")
    if any(word in label.lower() for word in kernel_words) and "component" not in label.lower():
        return "changes the kernel"
    return "reuses eigenpairs"


def _wait_for_records(page, count):
    page.wait_for_function(
        f"() => window.kpcaLatency.records.length >= {count} && window.kpcaLatency.records.every("
        "r => 'frame' in r && ('drawn' in r || r.undrawn || r.control === 'baseline' || !window.kpcaLabs["
        "Number(r.control.split(':')[0])].timings))", timeout=60_000)


def _move(page, locator, action, lab_index):
    """Do one move (action(locator) -> whether an input event is expected), wait until settled."""
    before = page.evaluate("() => window.kpcaLatency.records.length")
    if action(locator):
        _wait_for_records(page, before + 1)
    page.evaluate(SETTLE, lab_index)


def _range_moves(page, locator):
    value, low, high = locator.evaluate("e => [Number(e.value), Number(e.min), Number(e.max)]")
    key = "ArrowRight" if high - value >= value - low else "ArrowLeft"
    moves = []
    for _ in range(RANGE_MOVES):
        def press(element, key=key):
            element.focus()
            old = element.input_value()
            page.keyboard.press(key)
            return element.input_value() != old
        moves.append(press)
    return moves


def _select_moves(page, locator, n_options):
    current = locator.evaluate("e => e.selectedIndex")
    order = [i for i in range(n_options) if i != current] + [current]
    return [lambda element, i=i: (element.select_option(index=i), True)[1] for i in order]


def _checkbox_moves(page, locator):
    def toggle(element):
        element.focus()
        page.keyboard.press("Space")
        return True
    return [toggle, toggle]


def _controls(page, lab_index, types=None):
    """Prepare the lab for timing (probe, settle), then yield (kind, control, locator, label) for
    each control a reader can move (of the given input types), enabling it first by toggling the
    lab's checkboxes; the label names the checkboxes toggled."""
    kind = page.evaluate(f"() => window.kpcaLabs[{lab_index}].kind")
    page.evaluate(f"() => ({PROBE})(window.kpcaLabs[{lab_index}].element)")
    page.evaluate(SETTLE, lab_index)
    for control in page.evaluate(CONTROLS, lab_index):
        if types is not None and control["type"] not in types:
            continue
        locator = page.locator(f'[data-latency-id="{control["id"]}"]')
        toggled = _enable(page, lab_index, control, locator)
        if toggled is None:
            continue  # stays disabled: nothing a reader can move
        yield kind, control, locator, control["label"] + (
            " (" + ", ".join(toggled) + " toggled)" if toggled else "")


def sweep_lab(page, lab_index):
    """{control label: {"kind", "class", "ms": [...]}} for every control of the lab."""
    results = {}
    for kind, control, locator, label in _controls(page, lab_index):
        if control["type"] == "range":
            moves = _range_moves(page, locator)
        elif control["type"] == "checkbox":
            moves = _checkbox_moves(page, locator)
        else:
            moves = _select_moves(page, locator, control["options"])
        page.evaluate("() => { window.kpcaLatency.records = []; window.kpcaLatency.on = true; }")
        for action in moves:
            _move(page, locator, action, lab_index)
        page.evaluate("() => { window.kpcaLatency.on = false; }")
        records = page.evaluate("() => window.kpcaLatency.records")
        mine = [r for r in records if r["control"] == control["id"]]
        # a move the lab's own timer never saw computed nothing (chapter 5's 'what a click on the
        # plane does': the click computes, not the select; chapter 4's class of new points)
        mode = bool(mine) and all(r.get("undrawn") for r in mine)
        results[label] = {"kind": kind, "class": MODE if mode else classify(kind, control["label"]),
                          "ms": [r["frame"] for r in mine], "drawn": [r["drawn"] for r in mine if "drawn" in r]}
        _reset(page, lab_index)
    return results


def _enable(page, lab_index, control, locator):
    """Toggle the lab's checkboxes until the control is enabled; the labels toggled, or None."""
    toggled = []
    if not control["disabled"]:
        return toggled
    boxes = page.evaluate(
        f"() => Array.from(window.kpcaLabs[{lab_index}].element.querySelectorAll('input[type=checkbox]'))"
        ".map(b => b.dataset.latencyId)")
    for box in boxes:
        page.locator(f'[data-latency-id="{box}"]').click()
        page.evaluate(SETTLE, lab_index)
        toggled.append(page.evaluate(
            f"() => document.querySelector('[data-latency-id=\"{box}\"]').labels[0].textContent"))
        if not locator.is_disabled():
            return toggled
    return None


def _reset(page, lab_index):
    page.evaluate(f"""async () => {{
      const lab = window.kpcaLabs[{lab_index}];
      if (lab.reset) await lab.reset();
    }}""")
    page.evaluate(SETTLE, lab_index)


def baseline(page, moves=20):
    """Latencies (ms) of a range input with a no-op handler on the page."""
    page.evaluate(BASELINE)
    page.evaluate(f"() => ({PROBE})(document.getElementById('kpca-latency-baseline'))")
    page.evaluate("() => { window.kpcaLatency.records = []; window.kpcaLatency.on = true; }")
    locator = page.locator("#kpca-latency-baseline")
    for _ in range(moves):
        _move(page, locator, lambda element: (element.focus(), page.keyboard.press("ArrowRight"), True)[2], None)
    page.evaluate("() => { window.kpcaLatency.on = false; }")
    page.evaluate("() => document.getElementById('kpca-latency-baseline').remove()")
    return [r["frame"] for r in page.evaluate("() => window.kpcaLatency.records")]


DRAG_MOVES = 40
DRAG_SPACING_MS = 25
# every animation frame's time while window.kpcaFrames.on
FRAME_LOG = """() => {
  const log = window.kpcaFrames = { times: [], on: true };
  const tick = (time) => { if (!log.on) return; log.times.push(time); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}"""


def mouse_drag(page, slider, moves=DRAG_MOVES, spacing_ms=DRAG_SPACING_MS):
    """The mouse on the slider's thumb, moved in ``moves`` steps ``spacing_ms`` apart to its farther end.

    As a reader's hand drags it: every step is a real mouse move, so the page
    gets its input events at the browser's pace, not a burst of set values.
    """
    box = slider.bounding_box()
    value, low, high = slider.evaluate("e => [Number(e.value), Number(e.min), Number(e.max)]")
    inset = 8  # the thumb's half width: where the track starts and ends
    at = lambda v: box["x"] + inset + (box["width"] - 2 * inset) * (v - low) / (high - low)
    x0, x1, y = at(value), at(high if high - value >= value - low else low), box["y"] + box["height"] / 2
    page.mouse.move(x0, y)
    page.mouse.down()
    for step in range(1, moves + 1):
        page.mouse.move(x0 + (x1 - x0) * step / moves, y)
        page.wait_for_timeout(spacing_ms)
    page.mouse.up()


def _drag(page, locator, lab_index, control_id):
    """A mouse drag of the range input's thumb to its farther end: {"moves", "fps", "max_gap", "ms"}."""
    locator.scroll_into_view_if_needed()
    page.evaluate(SETTLE, lab_index)
    page.evaluate("() => { window.kpcaLatency.records = []; window.kpcaLatency.on = true; }")
    page.evaluate(FRAME_LOG)
    start = page.evaluate("() => performance.now()")
    mouse_drag(page, locator)
    end = page.evaluate("() => performance.now()")
    page.evaluate(SETTLE, lab_index)
    page.evaluate("() => { window.kpcaLatency.on = false; window.kpcaFrames.on = false; }")
    times = [t for t in page.evaluate("() => window.kpcaFrames.times") if start <= t <= end + 50]
    records = [r for r in page.evaluate("() => window.kpcaLatency.records") if r["control"] == control_id]
    gaps = [b - a for a, b in zip(times, times[1:])]
    return {
        "moves": len(records),
        "fps": (len(times) - 1) / ((times[-1] - times[0]) / 1000) if len(times) > 1 else 0.0,
        "max_gap": max(gaps) if gaps else float("nan"), "ms": [r["frame"] for r in records if "frame" in r],
    }


def drag_lab(page, lab_index):
    """{control label: {"kind", "class", "fps", "max_gap", "ms": [...]}} for a mouse drag of every range input."""
    results = {}
    for kind, control, locator, label in _controls(page, lab_index, types=("range",)):
        results[label] = dict(_drag(page, locator, lab_index, control["id"]),
                              kind=kind, **{"class": classify(kind, control["label"])})
        _reset(page, lab_index)
    return results


def drag_baseline(page):
    """The same drag of a range input with a no-op handler on the page: what the machine allows."""
    page.evaluate(BASELINE)
    page.evaluate(f"() => ({PROBE})(document.getElementById('kpca-latency-baseline'))")
    result = _drag(page, page.locator("#kpca-latency-baseline"), None, "baseline")
    page.evaluate("() => document.getElementById('kpca-latency-baseline').remove()")
    return dict(result, kind="-", **{"class": "no-op handler"})


def drag_table(rows):
    """Lines of the drag table: rows are (page, kind, label, class, result of drag_lab)."""
    lines = [f"drags: the mouse on the thumb, {DRAG_MOVES} moves {DRAG_SPACING_MS} ms apart to the farther end "
             "(target: >= 50 fps, no frame gap over 50 ms)",
             f"{'page':<28} {'lab':<14} {'control':<44} {'class':<19} {'inputs':>6} {'fps':>6} {'max gap':>8} "
             f"{'in->2nd frame median':>21} {'p90':>7}  ok"]
    for page, kind, label, klass, result in rows:
        ms = result["ms"]
        median = f"{statistics.median(ms):21.1f} {p90(ms):7.1f}" if ms else f"{'-':>21} {'-':>7}"
        ok = result["fps"] >= 50 and result["max_gap"] <= 50
        lines.append(f"{page:<28} {kind:<14} {label[:44]:<44} {klass:<19} {result['moves']:>6} {result['fps']:6.1f} "
                     f"{result['max_gap']:8.1f} {median}  {'yes' if ok else 'NO'}")
    return lines


def p90(values):
    """The 90th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.9 * len(ordered)) - 1))]


def table(rows, base):
    """Lines of the latency table: rows are (page, kind, label, class, ms list, drawn ms list).

    "drawn": to the frame after the lab's own first drawing of the move (labs with a
    kpcaLabCore.MoveTimer), which a lab that paints a status line first reaches later
    than the second frame.
    """
    base_median = statistics.median(base)
    lines = [f"baseline (no-op input handler, event -> 2nd frame): median {base_median:.1f} ms, "
             f"p90 {p90(base):.1f} ms over {len(base)} moves",
             f"{'page':<28} {'lab':<14} {'control':<44} {'class':<19} {'n':>3} {'median':>7} "
             f"{'p90':>7} {'/base':>6} {'target':>6}  ok | {'drawn':>7} {'p90':>7}"]
    for page, kind, label, klass, ms, drawn in rows:
        if not ms:
            lines.append(f"{page:<28} {kind:<14} {label[:44]:<44} {klass:<19} {0:>3}  (no input event)")
            continue
        median, target = statistics.median(ms), TARGETS[klass]
        shown = f"{statistics.median(drawn):7.1f} {p90(drawn):7.1f}" if drawn else f"{'-':>7} {'-':>7}"
        lines.append(f"{page:<28} {kind:<14} {label[:44]:<44} {klass:<19} {len(ms):>3} {median:7.1f} "
                     f"{p90(ms):7.1f} {median / base_median:6.2f} {target:>6}  "
                     f"{'yes' if median <= target else 'NO ':<3} | {shown}")
    return lines
