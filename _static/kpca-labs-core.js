/* The labs' shared core: controls, legends, timing, and the registry that
 * mounts every lab of a page (the canvases and axes are in kpca-labs-plot.js).
 *
 * A lab is a <div class="kpca-lab" data-kind="..."> written by
 * kpca_lib.explorers.browser.BrowserExplorer, holding its data as JSON in a
 * <script type="application/json"> and a fallback text for places where
 * this script is absent (JupyterLab). Each kind's file puts its mount
 * function in window.kpcaLabKinds[kind]; Jupyter Book links every file of
 * _static/ in an order of its own, so nothing runs before the document is
 * parsed, when all of them are there. Every mounted lab is pushed to
 * window.kpcaLabs (the browser test reads its state there).
 *
 * Themes: a lab draws its non-data colours with kpcaLabCore.ink() (the CSS of
 * the box and controls is in kpca-labs.css). When the reader switches the
 * book between light and dark, the core redraws every mounted lab once, at
 * the next animation frame: it calls lab.redraw() if the object the mount
 * function returned has one, and otherwise the draw() of every
 * kpcaLabCore.Panel inside the lab's root. A lab that caches a drawing
 * (a bitmap of points that do not move) keys the cache by isDark() too.
 */
(function () {
  "use strict";
  window.kpcaLabs = window.kpcaLabs || [];
  window.kpcaLabKinds = window.kpcaLabKinds || {};

  // ---------------------------------------------------------------- DOM
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child != null) node.append(child);
    return node;
  }

  let uniqueCounter = 0;
  function uniqueId(prefix) {
    uniqueCounter += 1;
    return prefix + "-" + uniqueCounter;
  }

  /**
   * A labelled range input with its value shown beside it (<output>).
   * opts: label, min, max, step, value (slider position), format(position)
   * -> text, onInput(position, event). Arrow keys, Page Up/Down, Home and
   * End move it (the browser's own range input).
   */
  function slider(opts) {
    const id = uniqueId("kpca-lab-input");
    const input = el("input", {
      type: "range", id, min: opts.min, max: opts.max, step: opts.step || 1, value: opts.value,
    });
    const output = el("output", { for: id });
    const row = el("div", { class: "kpca-lab-slider" }, el("label", { for: id, text: opts.label }), input, output);
    function show() {
      const text = opts.format(Number(input.value));
      output.textContent = text;
      input.setAttribute("aria-valuetext", text);
    }
    input.addEventListener("input", (event) => {
      opts.onInput(Number(input.value), event);
      show(); // after onInput, which may set what format shows
    });
    show();
    return {
      row, input, output,
      get position() { return Number(input.value); },
      set(position) { input.value = position; show(); },
      refresh: show,
    };
  }

  /**
   * The kernel width c on a log scale over range = [low, high], in steps of
   * 0.01 decade. c keeps three significant digits, so that the value shown
   * is the value used. sync() moves the thumb after settings.c changed
   * elsewhere (a reset, the width rule).
   */
  function widthSlider(settings, range, onMove) {
    const position = (c) => Math.log10(c).toFixed(2);
    const control = slider({
      label: "kernel width c", min: position(range[0]), max: position(range[1]), step: 0.01,
      value: position(settings.c),
      format: () => window.kpcaLabCore.formatNumber(settings.c, 3),
      onInput: (value) => {
        settings.c = Number(Math.pow(10, value).toPrecision(3));
        onMove();
      },
    });
    control.sync = () => control.set(position(settings.c));
    return control;
  }

  function checkbox(opts) {
    const id = uniqueId("kpca-lab-check");
    const input = el("input", { type: "checkbox", id });
    input.checked = !!opts.checked;
    input.addEventListener("change", (event) => opts.onChange(input.checked, event));
    const row = el("div", { class: "kpca-lab-check" }, input, el("label", { for: id, text: opts.label }));
    return { row, input };
  }

  function button(label, onClick) {
    return el("button", { type: "button", class: "kpca-lab-button", onclick: onClick }, label);
  }

  /**
   * A lab's numbers, appended to parent: returns the element to fill (class
   * kpca-lab-numbers, a polite live region). The numbers change as a lab
   * computes, up to once a frame, and new text in a page normally lays out the
   * whole page: on a chapter's page that took most of a frame (chapter 5's
   * components move waited a frame more for it). So the text sits in a box of
   * its own size (contain: strict), which is a layout boundary: it is not a
   * flex item, its holder is. The box takes the text's height, but while its
   * width stays it only grows, so what is below does not jump as lines come
   * and go.
   */
  function numbersBox(parent) {
    const text = el("div", { class: "kpca-lab-numbers", "aria-live": "polite" });
    const box = el("div", { class: "kpca-lab-numbers-box" }, text);
    parent.append(el("div", { class: "kpca-lab-numbers-holder" }, box));
    let width = -1;
    const fit = () => {
      const height = Math.ceil(text.getBoundingClientRect().height), boxWidth = box.clientWidth;
      if (boxWidth !== width || height > box.clientHeight) {
        box.style.height = height + "px";
        width = boxWidth;
      }
    };
    if (window.ResizeObserver) new ResizeObserver(fit).observe(text);
    else box.classList.add("kpca-lab-numbers-free"); // no observer: no containment, the page lays it out
    return text;
  }

  const themedSwatches = []; // repainted by redrawAll()

  /**
   * An HTML legend: items {label, swatch: "disc"|"cross"|"line"|"ring", color}, or
   * {..., ink: "muted"} for a colour of ink() (a CSS variable of kpca-labs.css that
   * follows the theme), or color: () => colour for a data colour that depends on the
   * theme (set again when the theme changes).
   */
  function legend(items) {
    const list = el("ul", { class: "kpca-lab-legend" });
    for (const item of items) {
      const swatch = el("span", { class: "kpca-lab-swatch kpca-lab-swatch-" + item.swatch, "aria-hidden": "true" });
      const paint = () => swatch.style.setProperty("--swatch",
        item.ink ? "var(--kpca-lab-" + item.ink + ")" : typeof item.color === "function" ? item.color() : item.color);
      paint();
      if (typeof item.color === "function") themedSwatches.push(paint);
      if (item.swatch === "cross") swatch.textContent = "×";
      list.append(el("li", {}, swatch, " " + item.label));
    }
    return list;
  }

  // ------------------------------------------------------------ payload
  function readPayload(root) {
    const script = root.querySelector('script[type="application/json"]');
    return JSON.parse(script.textContent);
  }

  /** Flat Float64Array from a list of rows (or a flat list). */
  function matrix(rows) {
    return Float64Array.from(Array.isArray(rows[0]) ? rows.flat() : rows);
  }

  /**
   * How long a move of a control took: start(control) in the input handler,
   * then mark("firstDrawMs") after the first drawing of the new setting,
   * and so on; window.kpcaLabs[i].timings keeps the last moves.
   */
  class MoveTimer {
    constructor(log) { this.log = log; this.current = null; }
    start(control) {
      this.current = { control, start: performance.now() };
      this.log.push(this.current);
      if (this.log.length > 500) this.log.shift();
      return this.current;
    }
    /** Milliseconds from the start to the first call with this name (later calls keep it). */
    mark(name) {
      if (this.current && !(name in this.current)) this.current[name] = performance.now() - this.current.start;
    }
  }

  /**
   * The moves and test hooks of a lab that computes a setting at once, with
   * no work left for later (the Gram-spectrum and PCA labs). opts: settings
   * (the object the controls change), initial (the chapter's setting),
   * update() computes and draws the settings, redraw() draws them again
   * (a theme switch), sync() puts them in the controls, state() returns
   * what the page computed.
   */
  function instantLab(opts) {
    const timings = [], timer = new MoveTimer(timings);
    function move(control) {
      timer.start(control);
      opts.update();
      timer.mark("firstDrawMs");
      timer.mark("settledMs");
    }
    function set(changes, control) {
      Object.assign(opts.settings, changes);
      opts.sync();
      move(control || "set");
      return Promise.resolve();
    }
    return {
      timings, move, set,
      reset: () => set(opts.initial, "reset"),
      redraw: opts.redraw,
      whenIdle: () => Promise.resolve(),
      get state() { return opts.state(); },
    };
  }

  // ------------------------------------------------------ phones: the plot in view
  const PHONE_QUERY = "(max-width: 599px)";
  const STAGE_SHARE = 0.6; // the plot (below the page's header) may take this share of the screen's height

  /**
   * On a phone's width the lab is one column, its controls above its plot: a
   * slider and the plot it moves were more than a screen apart. There the
   * lab's plot (the first canvas of .kpca-lab-main) moves into a stage above
   * the controls that sticks below the page's header while the rest of the lab
   * scrolls under it, so the plot stays in view while any control moves; on a
   * wider screen, or where the plot would take more than STAGE_SHARE of the
   * screen's height, it stays in its place. The controls get a scroll margin
   * of the stage's height, so that a control reached by Tab is not hidden under it.
   */
  function keepPlotInView(root) {
    const main = root.querySelector(".kpca-lab-main"), controls = root.querySelector(".kpca-lab-controls");
    const canvas = main && main.querySelector("canvas");
    const panel = canvas && window.kpcaLabCore.panelsIn(root).find((p) => p.canvas === canvas);
    if (!panel || !controls || !window.matchMedia) return;
    const stage = el("div", { class: "kpca-lab-stage" }), home = canvas.parentNode, next = canvas.nextSibling;
    const query = window.matchMedia(PHONE_QUERY);
    function headerHeight() {
      const header = document.querySelector(".bd-header, header");
      const position = header ? getComputedStyle(header).position : "";
      return position === "sticky" || position === "fixed" ? header.getBoundingClientRect().height : 0;
    }
    function place() {
      const top = headerHeight();
      let staged = canvas.parentNode === stage;
      const wanted = query.matches && panel.height(root.clientWidth) + top <= STAGE_SHARE * window.innerHeight;
      if (wanted && !staged) {
        controls.before(stage);
        stage.append(canvas);
      } else if (!wanted && staged) {
        home.insertBefore(canvas, next);
        stage.remove();
      }
      staged = wanted;
      root.classList.toggle("kpca-lab-staged", staged);
      stage.style.top = top + "px";
      root.style.setProperty("--kpca-lab-stage-clearance", staged ? Math.ceil(top + panel.height(root.clientWidth) + 8) + "px" : "0px");
      panel.resize();
      panel.draw(panel);
    }
    query.addEventListener("change", place);
    window.addEventListener("resize", () => requestAnimationFrame(place));
    place();
  }

  // ----------------------------------------------------------- registry
  function mountAll() {
    const kinds = window.kpcaLabKinds;
    const roots = document.querySelectorAll(".kpca-lab[data-kind]");
    for (const root of roots) {
      if (root.dataset.mounted || !kinds[root.dataset.kind]) continue;
      root.dataset.mounted = "true";
      const fallback = root.querySelector(".kpca-lab-fallback");
      if (fallback) fallback.remove();
      const lab = kinds[root.dataset.kind](root, readPayload(root));
      lab.kind = root.dataset.kind;
      lab.element = root;
      root.dataset.labIndex = String(window.kpcaLabs.length);
      window.kpcaLabs.push(lab);
      keepPlotInView(root);
    }
  }

  /** Redraw every mounted lab in the current theme (see the header). */
  function redrawAll() {
    for (const paint of themedSwatches) paint();
    for (const lab of window.kpcaLabs) {
      if (typeof lab.redraw === "function") lab.redraw();
      else for (const panel of window.kpcaLabCore.panelsIn(lab.element)) panel.draw(panel);
    }
  }

  let themeRedrawPending = false;
  function watchTheme() {
    window.kpcaLabCore.onThemeChange(() => {
      if (themeRedrawPending) return;
      themeRedrawPending = true;
      requestAnimationFrame(() => { themeRedrawPending = false; redrawAll(); });
    });
  }

  // the drawing helpers (kpca-labs-plot.js) join the same object
  Object.assign((window.kpcaLabCore = window.kpcaLabCore || {}), {
    el, slider, widthSlider, checkbox, button, legend, numbersBox, readPayload, matrix, MoveTimer, instantLab, mountAll,
    redrawAll, keepPlotInView,
  });
  function start() {
    mountAll();
    if (window.kpcaLabCore.onThemeChange) watchTheme(); // kpca-labs-plot.js's, linked by then
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();