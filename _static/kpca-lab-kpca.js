/* Chapter 4's kernel PCA lab, computed in the page.
 *
 * kpca_lib.explorers.kernel_pca_lab writes the chapter's data sets (each
 * split once into a training and a held-out half) and the initial setting;
 * the page fits kernel PCA on the training half for any kernel (Gaussian of
 * width c, polynomial of degree p) and shows: one component's value over
 * the plane, the points on a pair of components, the eigenvalue spectrum and
 * the held-out accuracy of a linear classifier on the first q components
 * (kpca-lab-kpca-model.js computes, kpca-lab-kpca-draw.js draws). "Draw your
 * own" edits the points: click to add one of the chosen class, drag to move;
 * on the focused plane the arrow keys move a cursor, Enter adds a point,
 * Delete removes the nearest. Moves of q, the mapped component or the pair
 * reuse the fitted eigenpairs; the others refit.
 */
(function () {
  "use strict";
  const DRAWN = "draw your own";

  function extentOf(sets) {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const X of sets) {
      for (let i = 0; i < X.length; i += 2) {
        x0 = Math.min(x0, X[i]); x1 = Math.max(x1, X[i]);
        y0 = Math.min(y0, X[i + 1]); y1 = Math.max(y1, X[i + 1]);
      }
    }
    const half = (Math.max(x1 - x0, y1 - y0) / 2) * 1.12 || 1, cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    const r = (v) => Number(v.toPrecision(6)); // round numbers: the grid is sent to the tests as is
    return [r(cx - half), r(cx + half), r(cy - half), r(cy + half)];
  }

  /** The map's grid: size values along each axis of the extent (point row * size + col is (xs[col], ys[row])). */
  function gridAxes(extent, size) {
    const [x0, x1, y0, y1] = extent;
    return {
      xs: Float64Array.from({ length: size }, (_, col) => x0 + ((x1 - x0) * col) / (size - 1)),
      ys: Float64Array.from({ length: size }, (_, row) => y0 + ((y1 - y0) * row) / (size - 1)),
    };
  }

  function mount(root, payload) {
    const C = window.kpcaLabCore, M = window.kpcaKernelPCALab, D = window.kpcaKernelPCALabDraw, el = C.el;
    const qMax = payload.max_components, size = payload.n_grid;
    const sets = {};
    for (const set of payload.datasets) {
      sets[set.name] = { X: C.matrix(set.X), y: Int32Array.from(set.y), Xt: C.matrix(set.X_test), yt: Int32Array.from(set.y_test) };
      sets[set.name].extent = extentOf([sets[set.name].X, sets[set.name].Xt]);
    }
    const initial = Object.assign({}, payload.settings, { pair: payload.settings.pair.slice() });
    const settings = Object.assign({}, initial, { pair: initial.pair.slice(), points: [] });
    const drawing = { extent: [-1, 1, -1, 1], cursor: [0, 0], cls: 0, version: 0, focused: false };
    let fit = null, fitKey = null, score = null, scoreKey = null;
    let shownGrid = null; // the last grid whose map was computed: drawn while a new one is on its way
    const timings = [], timer = new C.MoveTimer(timings);

    function currentData() {
      if (settings.dataset !== DRAWN) return Object.assign({ n: sets[settings.dataset].y.length, m: sets[settings.dataset].yt.length }, sets[settings.dataset]);
      const train = settings.points.filter((p) => !p[3]), test = settings.points.filter((p) => p[3]);
      return {
        X: Float64Array.from(train.flatMap((p) => [p[0], p[1]])), y: Int32Array.from(train, (p) => p[2]), n: train.length,
        Xt: Float64Array.from(test.flatMap((p) => [p[0], p[1]])), yt: Int32Array.from(test, (p) => p[2]), m: test.length,
        extent: drawing.extent,
      };
    }
    function kernel() {
      return settings.kernel === "gaussian" ? { name: "gaussian", c: settings.c } : { name: "polynomial", degree: settings.degree };
    }

    /**
     * Fit (when the data or the kernel changed) and score; returns whether it refitted. With
     * laterMap the map's grid (the dearest part) is left for finishMap(), in a task of its own.
     */
    function compute(laterMap) {
      const data = currentData(), k = kernel();
      const key = JSON.stringify([settings.dataset, k, settings.dataset === DRAWN ? drawing.version : 0]);
      let refitted = false;
      if (key !== fitKey) {
        fitKey = key;
        refitted = true;
        scoreKey = null;
        fit = null;
        if (data.n >= 2) {
          const model = M.fit(data.X, data.n, k, qMax);
          if (model.nComponents >= 1) {
            fit = {
              model, data, q: model.nComponents, n: data.n, m: data.m, Z: model.Z, trace: model.trace,
              eigenvalues: model.eigenvalues, Zt: M.project(model, data.Xt, data.m),
              grid: Object.assign(gridAxes(data.extent, size), { size, stride: model.nComponents }),
            };
            if (!laterMap) finishMap();
          }
        }
      }
      const q = fit ? Math.min(settings.n_components, fit.q) : 0;
      if (fit && scoreKey !== fitKey + q) {
        scoreKey = fitKey + q;
        score = M.heldOutAccuracy(fit.Z, fit.data.y, fit.n, fit.Zt, fit.data.yt, fit.m, fit.q, q);
      }
      return refitted;
    }

    function finishMap() {
      if (fit && !fit.grid.values) fit.grid.values = M.projectGrid(fit.model, fit.grid.xs, fit.grid.ys);
    }

    // ------------------------------------------------------------- controls
    const controls = el("div", { class: "kpca-lab-controls" });
    const left = el("div", { class: "kpca-lab-main" }), right = el("div", { class: "kpca-lab-side" });
    root.append(controls, el("div", { class: "kpca-lab-body" }, left, right));
    function select(label, options, value, onChange) {
      const id = "kpca-lab-kpca-" + Math.random().toString(36).slice(2, 9);
      const input = el("select", { id, class: "kpca-lab-select" });
      for (const [v, text] of options) input.append(el("option", { value: v, text }));
      input.value = value;
      input.style.gridColumn = "2 / 4"; // the slider's value column too: room for "draw your own"
      input.addEventListener("change", () => onChange(input.value));
      return { row: el("div", { class: "kpca-lab-slider" }, el("label", { for: id, text: label }), input), input };
    }
    const setSelect = select("data set", payload.datasets.map((s) => [s.name, s.name]).concat([[DRAWN, DRAWN]]),
      settings.dataset, (value) => { chooseDataset(value); move("data set"); });
    const kernelSelect = select("kernel", [["gaussian", "Gaussian"], ["polynomial", "polynomial"]], settings.kernel,
      (value) => { settings.kernel = value; move("kernel"); });
    const cSlider = C.widthSlider(settings, payload.c_range, () => queueMove("c"));
    const degreeSlider = C.slider({
      label: "degree p", min: 1, max: payload.max_degree, value: settings.degree, format: () => String(settings.degree),
      onInput: (value) => { settings.degree = value; queueMove("degree"); },
    });
    const shown = (name) => () => String(fit ? Math.min(settings[name], fit.q) : settings[name]);
    const qSlider = C.slider({
      label: "components q", min: 1, max: qMax, value: settings.n_components, format: shown("n_components"),
      onInput: (value) => { settings.n_components = value; move("q"); },
    });
    const mapSlider = C.slider({
      label: "mapped component", min: 1, max: qMax, value: settings.component, format: shown("component"),
      onInput: (value) => { settings.component = value; move("component"); },
    });
    const pairSliders = [0, 1].map((axis) => C.slider({
      label: "pair: " + (axis ? "second" : "first"), min: 1, max: qMax, value: settings.pair[axis],
      format: () => String(fit ? Math.min(settings.pair[axis], fit.q) : settings.pair[axis]),
      onInput: (value) => { settings.pair[axis] = value; move("pair"); },
    }));
    const classSelect = select("new points' class", D.CLASS_COLORS.map((_, k) => [String(k), "class " + (k + 1)]), "0",
      (value) => { drawing.cls = Number(value); });
    const clear = C.button("clear the points", () => { settings.points = []; drawing.version++; move("clear"); });
    const reset = C.button("reset to the chapter's setting", () => lab.reset());
    const hint = el("p", { class: "kpca-lab-small" });
    controls.append(setSelect.row, kernelSelect.row, cSlider.row, degreeSlider.row, qSlider.row, mapSlider.row,
      pairSliders[0].row, pairSliders[1].row, classSelect.row,
      el("div", { class: "kpca-lab-buttons" }, clear, reset), hint);

    // one label width for the lab's longer labels
    for (const row of controls.querySelectorAll(".kpca-lab-slider")) row.style.gridTemplateColumns = "10em minmax(80px, 1fr) 2.5em";

    function sync() {
      setSelect.input.value = settings.dataset;
      kernelSelect.input.value = settings.kernel;
      cSlider.sync();
      degreeSlider.set(settings.degree);
      qSlider.set(settings.n_components);
      mapSlider.set(settings.component);
      pairSliders.forEach((s, axis) => s.set(settings.pair[axis]));
    }
    function enable() {
      const own = settings.dataset === DRAWN;
      cSlider.input.disabled = settings.kernel !== "gaussian";
      degreeSlider.input.disabled = settings.kernel !== "polynomial";
      classSelect.input.disabled = !own;
      clear.disabled = !own;
      classSelect.row.style.display = own ? "" : "none";
      // drawing your own points: a finger on the plane adds or drags a point, it does not scroll the page
      plane.canvas.style.touchAction = own ? "none" : "";
      clear.style.display = own ? "" : "none";
      hint.textContent = own
        ? "Click the plane to add a point of the chosen class (every second one of a class is held out), drag a point "
          + "to move it. On the focused plane: the arrow keys move the cross, Enter adds a point, Delete removes the nearest, "
          + "1-3 choose the class."
        : "Filled discs: the training half, on which kernel PCA and the classifier are fitted; rings: the held-out half.";
    }

    /** Switching to "draw your own" starts from the points shown, in the same plane. */
    function chooseDataset(value) {
      if (value === DRAWN && settings.dataset !== DRAWN) {
        const data = currentData();
        settings.points = [];
        for (let i = 0; i < data.n; i++) settings.points.push([data.X[2 * i], data.X[2 * i + 1], data.y[i], false]);
        for (let i = 0; i < data.m; i++) settings.points.push([data.Xt[2 * i], data.Xt[2 * i + 1], data.yt[i], true]);
        drawing.extent = data.extent.slice();
        drawing.cursor = [(drawing.extent[0] + drawing.extent[1]) / 2, (drawing.extent[2] + drawing.extent[3]) / 2];
        drawing.version++;
      }
      settings.dataset = value;
    }

    // ------------------------------------------------------------- panels
    const plane = new C.Panel(left, {
      label: "the plane with the value of the mapped component as colours, and the points coloured by class",
      height: (width) => Math.min(width - 64, 470) + 64, draw: () => draw(),
    });
    plane.canvas.tabIndex = 0;
    left.append(C.legend(D.CLASS_COLORS.map((color, k) => ({ label: "class " + (k + 1), swatch: "disc", color }))
      .concat([{ label: "component > 0", swatch: "line", color: "#b40426" }, { label: "< 0", swatch: "line", color: "#3b4cc0" }])));
    const numbers = C.numbersBox(right);
    const projections = new C.Panel(right, {
      label: "the training and held-out points on the chosen pair of components",
      height: (width) => Math.min(300, Math.max(220, width * 0.75)), draw: () => draw(),
    });
    const spectrum = new C.Panel(right, {
      label: "the leading eigenvalues as shares of the variance in feature space",
      height: (width) => Math.min(240, Math.max(190, width * 0.55)), draw: () => draw(),
    });
    let planeAxes = null;

    // what a move that reuses the eigenpairs changes; any other move redraws everything
    const PARTS = {
      q: ["spectrum", "numbers"], component: ["plane", "spectrum"], pair: ["projections"], cursor: ["plane"],
      fitted: ["projections", "spectrum", "numbers"], map: ["plane"], // a slider's new kernel, then its map
    };

    function draw(control) {
      const parts = new Set(PARTS[control] || ["plane", "projections", "spectrum", "numbers"]);
      const data = fit ? fit.data : currentData();
      const component = fit ? Math.min(settings.component, fit.q) : 1, q = fit ? Math.min(settings.n_components, fit.q) : 0;
      if (parts.has("plane")) {
        // the fit's map once computed; until then (a task later) the last one computed
        const grid = fit && (fit.grid.values ? fit.grid : shownGrid);
        if (fit && fit.grid.values) shownGrid = fit.grid;
        planeAxes = D.drawPlane({
          panel: plane, extent: data.extent, data, grid, component: grid ? Math.min(component, grid.stride) : component,
          cursor: drawing.cursor, focused: drawing.focused, drawing: settings.dataset === DRAWN,
        });
      }
      const pair = settings.pair.map((v) => (fit ? Math.min(v, fit.q) : v));
      if (fit) {
        if (parts.has("projections")) D.drawProjections({ panel: projections, fit, data, pair });
        if (parts.has("spectrum")) D.drawSpectrum({ panel: spectrum, fit, q, component, maxComponents: qMax });
      } else {
        projections.begin();
        spectrum.begin();
      }
      [qSlider, mapSlider, ...pairSliders].forEach((s) => s.refresh());
      if (!parts.has("numbers")) return;
      const lines = [];
      if (!fit) {
        lines.push(data.n < 2 ? "Add at least two training points (and points of two classes for the score)."
          : "The centred kernel matrix has no positive eigenvalue: every point is the same in feature space.");
      } else {
        let kept = 0;
        for (let k = 0; k < q; k++) kept += fit.eigenvalues[k];
        const range = q === 1 ? "component 1 holds " : "components 1–" + q + " hold ";
        lines.push(range + (kept / fit.trace).toFixed(3) + " of the variance in feature space");
        if (fit.q < qMax) lines.push("only " + fit.q + (fit.q === 1 ? " component has" : " components have") + " a positive eigenvalue");
        if (score) {
          lines.push("held-out accuracy of a linear classifier on them: " + score.accuracy.toFixed(3)
            + " (" + fit.m + " points, chance " + C.formatNumber(1 / score.classes.length, 2) + ")");
        } else {
          lines.push("held-out accuracy: needs training points of two classes and held-out points");
        }
      }
      numbers.replaceChildren(...lines.map((text) => el("div", { text })));
    }

    function move(control) {
      const record = timer.start(control);
      enable();
      record.newFit = compute();
      timer.mark("computedMs");
      draw(record.newFit ? "fit" : control);
      timer.mark("firstDrawMs");
      timer.mark("settledMs");
    }

    // A slider that changes the kernel (c, p) answers in tasks of its own, not in its input
    // handler: the fit, its projections, spectrum and numbers in one task, the map (about as
    // dear as the fit) in the next, each followed by its drawing; moves that come while a task
    // waits are merged into one (the latest setting). During a drag the browser paints between
    // two tasks, so no frame waits for a fit and a map together.
    let queued = null, mapNeeded = false, posted = false;
    const idleWaiters = [];
    const channel = new MessageChannel();
    function post() {
      if (!posted && (queued || mapNeeded)) { posted = true; channel.port2.postMessage(null); }
    }
    function queueMove(control) {
      queued = control;
      post();
    }
    channel.port1.onmessage = () => {
      posted = false;
      if (mapNeeded) {
        // the map of the fit drawn last (a newer move waits for this task: the map keeps up)
        mapNeeded = false;
        finishMap();
        draw("map");
        timer.mark("settledMs");
      } else if (queued) {
        const control = queued, record = timer.start(control);
        queued = null;
        enable();
        record.newFit = compute(true);
        timer.mark("computedMs");
        draw(record.newFit ? "fitted" : control);
        timer.mark("firstDrawMs");
        mapNeeded = !!(fit && !fit.grid.values);
        if (!mapNeeded) timer.mark("settledMs");
      }
      post();
      if (!queued && !mapNeeded) while (idleWaiters.length) idleWaiters.shift()();
    };

    // ---------------------------------------------- drawing your own points
    let dragging = -1, pending = null;
    function nearest(x, y, pixels) {
      let best = -1, bestDistance = Infinity;
      settings.points.forEach((p, i) => {
        const d = Math.hypot(planeAxes.x(p[0]) - planeAxes.x(x), planeAxes.y(p[1]) - planeAxes.y(y));
        if (d < bestDistance) { bestDistance = d; best = i; }
      });
      return bestDistance <= pixels ? best : -1;
    }
    function addPoint(x, y) {
      if (settings.points.length >= payload.max_points) return -1;
      const same = settings.points.filter((p) => p[2] === drawing.cls).length;
      settings.points.push([x, y, drawing.cls, same % 2 === 1]);
      drawing.version++;
      return settings.points.length - 1;
    }
    // a drag refits at most once per animation frame
    function moveSoon(control) {
      if (pending) return;
      pending = new Promise((resolve) => requestAnimationFrame(() => { pending = null; move(control); resolve(); }));
    }
    plane.canvas.addEventListener("pointerdown", (event) => {
      if (settings.dataset !== DRAWN || !planeAxes) return;
      const [px, py] = plane.pointer(event);
      if (!planeAxes.contains(px, py)) return;
      const [x, y] = planeAxes.invert(px, py);
      dragging = nearest(x, y, 8);
      if (dragging < 0) { addPoint(x, y); move("point"); return; }
      plane.canvas.setPointerCapture(event.pointerId);
    });
    plane.canvas.addEventListener("pointermove", (event) => {
      if (dragging < 0) return;
      const [px, py] = plane.pointer(event);
      const [x, y] = planeAxes.invert(px, py), [x0, x1, y0, y1] = drawing.extent;
      settings.points[dragging][0] = Math.min(x1, Math.max(x0, x));
      settings.points[dragging][1] = Math.min(y1, Math.max(y0, y));
      drawing.version++;
      moveSoon("drag");
    });
    const stop = () => { dragging = -1; };
    plane.canvas.addEventListener("pointerup", stop);
    plane.canvas.addEventListener("pointercancel", stop);
    plane.canvas.addEventListener("focus", () => { drawing.focused = true; draw("cursor"); });
    plane.canvas.addEventListener("blur", () => { drawing.focused = false; draw("cursor"); });
    plane.canvas.addEventListener("keydown", (event) => {
      if (settings.dataset !== DRAWN) return;
      const [x0, x1, y0, y1] = drawing.extent, step = ((x1 - x0) / 40) * (event.shiftKey ? 5 : 1);
      const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
      if (arrows[event.key]) {
        drawing.cursor[0] = Math.min(x1, Math.max(x0, drawing.cursor[0] + arrows[event.key][0] * step));
        drawing.cursor[1] = Math.min(y1, Math.max(y0, drawing.cursor[1] + arrows[event.key][1] * step));
        draw("cursor");
      } else if (event.key === "Enter" || event.key === " ") {
        if (addPoint(drawing.cursor[0], drawing.cursor[1]) >= 0) move("point");
      } else if (event.key === "Delete" || event.key === "Backspace") {
        const i = nearest(drawing.cursor[0], drawing.cursor[1], Infinity);
        if (i >= 0) { settings.points.splice(i, 1); drawing.version++; move("point"); }
      } else if (["1", "2", "3"].includes(event.key)) {
        drawing.cls = Number(event.key) - 1;
        classSelect.input.value = String(drawing.cls);
      } else {
        return;
      }
      event.preventDefault();
    });

    // ------------------------------------------------------- the test hooks
    const lab = {
      timings, timer,
      set(changes) {
        const next = Object.assign({}, changes);
        if ("dataset" in next) { chooseDataset(next.dataset); delete next.dataset; }
        if ("points" in next) { settings.points = next.points.map((p) => p.slice()); drawing.version++; delete next.points; }
        if ("extent" in next) { drawing.extent = next.extent.slice(); drawing.version++; delete next.extent; }
        Object.assign(settings, next);
        if (next.pair) settings.pair = next.pair.slice();
        sync();
        move("set");
        return Promise.resolve();
      },
      reset() {
        drawing.cls = 0;
        classSelect.input.value = "0";
        return lab.set(Object.assign({}, initial, { pair: initial.pair.slice(), points: [] }));
      },
      whenIdle: () => Promise.resolve(pending).then(() => (queued || mapNeeded
        ? new Promise((resolve) => idleWaiters.push(resolve)) : undefined)),
      get state() {
        const q = fit ? Math.min(settings.n_components, fit.q) : 0;
        return {
          dataset: settings.dataset, kernel: settings.kernel, c: settings.c, degree: settings.degree,
          n_components: q, component: fit ? Math.min(settings.component, fit.q) : 0,
          pair: settings.pair.map((v) => (fit ? Math.min(v, fit.q) : v)), n_fitted: fit ? fit.q : 0,
          points: settings.points.map((p) => p.slice()), extent: (fit ? fit.data : currentData()).extent.slice(),
          X: fit ? Array.from(fit.data.X) : [], y: fit ? Array.from(fit.data.y) : [],
          X_test: fit ? Array.from(fit.data.Xt) : [], y_test: fit ? Array.from(fit.data.yt) : [],
          eigenvalues: fit ? Array.from(fit.eigenvalues) : [], trace: fit ? fit.trace : 0,
          Z: fit ? Array.from(fit.Z) : [], Z_test: fit ? Array.from(fit.Zt) : [],
          grid_x: fit ? Array.from(fit.grid.xs) : [], grid_y: fit ? Array.from(fit.grid.ys) : [],
          grid_values: fit && fit.grid.values ? Array.from(fit.grid.values) : [],
          accuracy: score && fit ? score.accuracy : null, lanczos: fit ? fit.model.lanczos : null,
        };
      },
    };
    C.onThemeChange(() => draw());
    enable();
    move("load");
    return lab;
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {})["kernel-pca"] = mount;
})();
