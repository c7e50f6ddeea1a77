/* Chapter 5's de-noising lab: kernel PCA pre-images of the toy of Mika et al.,
 * computed in the page. This file holds the controls and the timing of the
 * work; the computing is in kpca-lab-denoising-model.js, the drawing in
 * kpca-lab-denoising-draw.js. kpca_lib.explorers.labs.denoising_lab writes
 * the data.
 *
 * How each control answers: no control computes in its input event, and
 * moves that come while one waits are merged (a drag gives an input event
 * per frame). The iterations slider redraws from the kept iterates at the
 * next animation frame; a q move shows the rows that depend on q as
 * placeholders at once, computes the gamma weights in slices of a few points
 * in tasks of up to 8 ms that end before the next frame is due
 * (kpcaLabCore.FrameClock), draws the new q at an animation frame of its own,
 * and computes the rest in such tasks, with a drawing per animation frame, so
 * the page never freezes (the Kwok–Tsang pre-images first, then the
 * iterations, then mean shift); a q whose run is cached is drawn at the next
 * animation frame with the iterations that fit in 2 ms; a sigma or c move
 * (a new kernel and its eigenpairs) shows
 * placeholders at once, computes the kernel, its eigenpairs, the test
 * points' projections and gamma weights in such tasks, a slice of a few ms
 * each, draws the new setting at the next animation frame, and goes on as
 * a q move (a new sigma's baselines, in slices, in the tasks after the
 * first drawing). During a drag of sigma, c or q (q: of a run not cached)
 * the old setting's picture stays, with placeholders, until the last
 * setting's is computed.
 */
(function () {
  "use strict";

  class DenoisingLab {
    constructor(root, payload) {
      const C = window.kpcaLabCore;
      this.C = C;
      this.root = root;
      this.payload = payload;
      this.model = new window.kpcaDenoising.Model(payload);
      this.draw = window.kpcaDenoising.draw;
      this.initial = Object.assign({}, payload.settings);
      this.settings = Object.assign({}, this.initial);
      this.timings = [];
      this.timer = new C.MoveTimer(this.timings);
      this.clicks = []; // up to three pre-images started by clicks
      this.current = { fitted: null, entry: null };
      this.idleWaiters = [];
      this.pumping = false;
      this.heavyPending = true;
      this.fitJob = null; // a new kernel's fit and first run, in slices (heavyMove)
      this.runOnly = false; // the job is a q move's new run only: the fit is kept (heavyMove)
      this.drawRequested = false;
      this.drawnKeys = {}; // what redraw() drew last
      this.drawOwed = false; // an iterations move waits for its drawing (requestDraw)
      this.mergedMoves = []; // the timer's records of moves merged into a later one: drawn with it
      this.firstDrawing = 0; // which new kernel's first drawing an animation frame waits for (0: none)
      // a q move waits for the next animation frame (requestDraw), merged with those before it
      this.movePending = false;
      // the iterations of a new run are computed in tasks of up to 8 ms one
      // after another (a MessageChannel has no minimum delay, unlike
      // setTimeout), each ending before the next frame is due: between two
      // tasks the browser handles input and paints
      this.channel = new MessageChannel();
      this.channel.port1.onmessage = () => this.work();
      this.clock = new C.FrameClock();
      this.buildControls();
      this.buildPanels();
      // the first fit waits until the page has loaded and painted
      setTimeout(() => {
        this.heavyPending = false;
        this.timer.start("load");
        this.startRun(8);
      }, 0);
    }

    // ------------------------------------------------------------ controls
    buildControls() {
      const { C, settings, payload } = this, el = C.el, sigmas = payload.sigmas;
      this.controls = el("div", { class: "kpca-lab-controls" });
      this.sigmaSlider = C.slider({
        label: "noise σ", min: 0, max: sigmas.length - 1, value: sigmas.indexOf(settings.sigma),
        format: (position) => String(sigmas[position]),
        onInput: (position) => {
          settings.sigma = sigmas[position];
          if (settings.width_rule) this.setRuleWidth();
          this.heavyMove("sigma");
        },
      });
      this.cSlider = C.widthSlider(settings, payload.c_range, () => this.heavyMove("c"));
      this.rule = C.checkbox({
        label: "c = 2dσ² (the width rule, d = 2)", checked: settings.width_rule,
        onChange: (checked) => {
          settings.width_rule = checked;
          this.cSlider.input.disabled = checked;
          if (checked) {
            this.setRuleWidth();
            this.heavyMove("rule");
          }
        },
      });
      this.cSlider.input.disabled = settings.width_rule;
      this.qSlider = C.slider({
        label: "components q", min: 1, max: this.model.maxComponents, value: settings.n_components,
        format: (position) => String(position),
        onInput: (position) => { settings.n_components = position; this.componentsMove(); },
      });
      this.iterationSlider = C.slider({
        label: "iterations", min: 0, max: this.model.maxIter, value: settings.n_iter,
        format: (position) => String(position),
        onInput: (position) => { settings.n_iter = position; this.iterationsMove(); },
      });
      this.mode = el("select", { class: "kpca-lab-select", "aria-label": "what a click on the plane does" },
        el("option", { value: "new", text: "a click de-noises a new point there" }),
        el("option", { value: "marked", text: "a click restarts the ★ point's pre-image there" }));
      const reset = C.button("reset to the chapter's setting", () => this.reset());
      const clear = C.button("clear clicks", () => { this.clicks.length = 0; this.redraw(); });
      this.controls.append(this.sigmaSlider.row, this.cSlider.row, this.rule.row, this.qSlider.row,
        this.iterationSlider.row, el("div", { class: "kpca-lab-buttons" }, reset, this.mode, clear));
    }

    buildPanels() {
      const C = this.C, el = C.el, COLORS = C.COLORS;
      const main = el("div", { class: "kpca-lab-main" }), side = el("div", { class: "kpca-lab-side" });
      this.root.append(this.controls, el("div", { class: "kpca-lab-body" }, main, side));
      const redraw = () => this.redraw();
      this.plane = new C.Panel(main, {
        label: "the plane: training points, noisy test points, true centres, linear PCA, mean shift, kernel PCA and Kwok–Tsang pre-images; a click starts a pre-image",
        height: (width) => width, draw: redraw,
      });
      main.append(C.legend([
        { label: "training points", swatch: "disc", ink: "faint" },
        { label: "noisy test points", swatch: "disc", ink: "muted" },
        { label: "true centres", swatch: "cross", ink: "strong" },
        { label: "linear PCA (held-out q)", swatch: "disc", color: COLORS.linear },
        { label: "mean shift (γ = 1/n)", swatch: "disc", color: this.draw.meanShiftColour },
        { label: "kernel PCA pre-images", swatch: "disc", color: COLORS.kernel },
        { label: "Kwok–Tsang pre-images (same q, " + this.model.kwokTsangNeighbors + " neighbours)", swatch: "ring",
          color: () => C.themed(this.draw.kwokTsangColour, this.draw.kwokTsangDark) },
        { label: "trajectories z₀ … zₜ from noisy starts (○ start, ★ the marked point)", swatch: "line", color: COLORS.trajectories[0] },
        { label: "your clicks (+ start)", swatch: "line", ink: "strong" },
      ]));
      this.numbers = C.numbersBox(side);
      this.rhoPanel = new C.Panel(side, { label: "rho of z_t along the trajectories", height: () => 190, draw: redraw });
      this.stepPanel = new C.Panel(side, { label: "step sizes along the trajectories", height: () => 190, draw: redraw });
      this.keyboardCursor();
      this.plane.canvas.addEventListener("pointerdown", (event) => {
        const [px, py] = this.plane.pointer(event), axes = this.draw.planeAxes(this.plane);
        if (!axes.contains(px, py) || !this.current.entry) return;
        this.timer.start("click");
        this.addClick(axes.invert(px, py), this.mode.value);
        this.timer.mark("firstDrawMs");
      });
    }

    /**
     * What a click does, from the keyboard: the plane is a tab stop; while it has the
     * focus a cursor shows, the arrow keys move it (Shift: five times as far) and
     * Enter or Space starts a pre-image there, as a click there would.
     */
    keyboardCursor() {
      const canvas = this.plane.canvas, limit = this.draw.LIMIT;
      this.cursor = [0, 0];
      this.cursorShown = false;
      canvas.tabIndex = 0;
      canvas.setAttribute("role", "application");
      canvas.setAttribute("aria-roledescription", "plane");
      canvas.setAttribute("aria-label", canvas.getAttribute("aria-label") +
        "; with the keyboard, the arrow keys move a cursor and Enter de-noises a point there");
      const show = (shown) => { this.cursorShown = shown; this.redraw(); };
      canvas.addEventListener("focus", () => show(true));
      canvas.addEventListener("blur", () => show(false));
      const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
      canvas.addEventListener("keydown", (event) => {
        if (event.key in steps) {
          const size = event.shiftKey ? 0.25 : 0.05, [dx, dy] = steps[event.key];
          this.cursor = this.cursor.map((v, i) => {
            const moved = Math.round((v + size * (i ? dy : dx)) * 100) / 100;
            return Math.max(-limit, Math.min(limit, moved));
          });
          this.cursorShown = true;
          this.redraw();
        } else if ((event.key === "Enter" || event.key === " ") && this.current.entry) {
          this.timer.start("key");
          this.addClick(this.cursor, this.mode.value);
          this.timer.mark("firstDrawMs");
        } else {
          return;
        }
        event.preventDefault(); // no page scroll
      });
    }

    setRuleWidth() {
      this.settings.c = this.model.ruleWidth(this.settings.sigma);
      this.cSlider.sync();
    }

    syncControls() {
      const s = this.settings;
      this.sigmaSlider.set(this.payload.sigmas.indexOf(s.sigma));
      this.cSlider.sync();
      this.cSlider.input.disabled = s.width_rule;
      this.rule.input.checked = s.width_rule;
      this.qSlider.set(s.n_components);
      this.iterationSlider.set(s.n_iter);
    }

    // ----------------------------------------------------------- computing
    prepare() {
      const { model, settings, current } = this;
      current.fitted = model.fit(settings.sigma, settings.c);
      current.entry = model.run(current.fitted, model.components(current.fitted, settings.n_components));
      for (const click of this.clicks) {
        if (click.key !== current.entry.key) {
          click.run = model.clickRun(current.fitted, current.entry, click);
          click.key = current.entry.key;
        }
      }
    }

    addClick(start, mode) {
      if (this.clicks.length >= 3) this.clicks.shift();
      const click = { start: Float64Array.from(start), mode, key: null };
      this.clicks.push(click);
      this.prepare();
      this.redraw();
      return click;
    }

    view() {
      return {
        model: this.model, fitted: this.current.fitted, entry: this.current.entry, settings: this.settings,
        clicks: this.clicks, cursor: this.cursorShown ? this.cursor : null,
      };
    }

    /**
     * Draw the current setting. changedOnly (the drawings that follow the work, one per frame):
     * only the panels whose picture the work has changed since the last drawing (the plane
     * shows the iterates up to the slider's t, the side panels every iterate computed); the
     * drawings of a move, a click, the cursor, a resize or a theme draw everything.
     */
    redraw(changedOnly) {
      if (!this.current.entry) return;
      const view = this.view(), { entry, fitted } = this.current, run = entry.run, t = this.settings.n_iter;
      const planeKey = [entry.key, t, Math.min(run.t, t), Math.min(fitted.meanShift.t, t), !!entry.kwokTsang,
        !!fitted.data.Zlinear].join("|");
      const sideKey = [entry.key, t, run.t].join("|");
      if (!changedOnly || planeKey !== this.drawnKeys.plane) this.draw.plane(this.plane, view);
      if (!changedOnly || sideKey !== this.drawnKeys.side) {
        this.draw.rho(this.rhoPanel, view);
        this.draw.steps(this.stepPanel, view);
      }
      this.drawnKeys = { plane: planeKey, side: sideKey };
      // (the numbers box is replaced only when its text changes: no layout for the same numbers)
      this.draw.numbers(this.numbers, Object.assign(view, this.pendingFlags()));
    }

    /** A drawing at the next animation frame, at most one per frame. */
    requestDraw() {
      if (this.drawRequested) return;
      this.drawRequested = true;
      requestAnimationFrame((time) => {
        this.clock.note(time);
        this.drawRequested = false;
        if (this.movePending) {
          // a q move: its gamma weights, first iterations and drawing, in this frame
          this.movePending = false;
          this.startRun(2);
        } else {
          this.redraw(!this.drawOwed);
        }
        if (this.drawOwed) {
          this.drawOwed = false;
          this.markFirstDrawing(); // an iterations move: drawn in the frame after its input
          this.settleIfDone();
        }
        const run = this.current.entry.run;
        if (!this.heavyPending && this.current.entry.kwokTsang) this.timer.mark("kwokTsangMs");
        // (while a new kernel is on its way, what is drawn is the old setting's)
        if (!this.heavyPending && (run.t >= this.settings.n_iter || run.finished)) this.timer.mark("shownMs");
      });
    }

    work() {
      const { fitted, entry } = this.current, deadline = this.clock.deadline(8);
      if (deadline === null) return this.clock.afterFrame(() => this.channel.port2.postMessage(null));
      if (this.fitJob) {
        // a new kernel and its eigenpairs, a Lanczos step or a slice of the kernel at a time, then
        // the test points' projections and gamma weights, a slice of points at a time
        const job = this.fitJob;
        let done = false;
        this.clock.run(deadline, () => !(done = job.next().done));
        if (done && job === this.fitJob) {
          this.fitJob = null;
          this.pumping = false;
          this.drawFirstAtNextFrame(); // (heavyPending until then: placeholders, and not idle)
        } else {
          this.channel.port2.postMessage(null);
        }
        return;
      }
      const pending = this.clock.run(deadline, () => this.model.stepPending(fitted, entry));
      this.requestDraw(); // the side panels follow the iterations beyond the slider's too
      if (!pending) {
        this.pumping = false;
        this.settleIfDone();
      } else {
        this.channel.port2.postMessage(null);
      }
    }

    pump() {
      if (this.pumping) return;
      this.pumping = true;
      this.channel.port2.postMessage(null);
    }

    /**
     * The first drawing of a new kernel, at the next animation frame (not in the task that
     * finished its fit: that frame would wait for both); the fit and run are cached by then, so
     * startRun(0) only draws (and restarts the clicks' pre-images), then the rest follows in tasks.
     */
    drawFirstAtNextFrame() {
      const token = (this.firstDrawing = this.firstDrawing + 1);
      // (afterFrame: where frames do not come, a hidden page, it draws after 100 ms all the same)
      this.clock.afterFrame(() => {
        // a newer kernel on its way, or the setting drawn since (the test hooks' set)
        if (this.firstDrawing !== token || this.fitJob) return;
        this.heavyPending = false;
        this.startRun(0);
      });
    }

    /** A new kernel's steps: its fit, then the run of the current q (again if q moved meanwhile). */
    *kernelSteps(sigma, c) {
      const { model, settings } = this, fitted = yield* model.fitSteps(sigma, c);
      while (!model.hasRun(sigma, c, settings.n_components)) {
        yield* model.runSteps(fitted, model.components(fitted, settings.n_components));
      }
    }

    /** pump(), once the first drawing of a new setting is painted (no long task before the paint). */
    pumpAfterPaint() {
      if (this.pumping) return;
      this.pumping = true;
      this.clock.afterFrame(() => this.channel.port2.postMessage(null));
    }

    /** The timer's first drawing of the current move and of the moves merged into it. */
    markFirstDrawing() {
      const now = performance.now();
      for (const move of this.mergedMoves) if (!("firstDrawMs" in move)) move.firstDrawMs = now - move.start;
      this.mergedMoves.length = 0;
      this.timer.mark("firstDrawMs");
    }

    /** A move that finds one of its kind waiting (a drag: moves faster than frames) joins it. */
    merge(control) {
      if (this.timer.current) this.mergedMoves.push(this.timer.current);
      this.timer.start(control);
    }

    settleIfDone() {
      if (this.heavyPending || this.pumping || this.movePending || this.drawOwed) return;
      this.numbers.setAttribute("aria-busy", "false"); // a screen reader reads the numbers now, not every frame
      this.timer.mark("settledMs");
      while (this.idleWaiters.length) this.idleWaiters.shift()();
    }

    /** Compute what the current setting needs for about budget ms, draw, then go on in tasks. */
    startRun(budget) {
      const start = performance.now(), { model, settings, timer } = this;
      this.firstDrawing = 0; // drawn now
      this.numbers.setAttribute("aria-busy", "true"); // until settleIfDone()
      if (timer.current) {
        // whether this move needs a new kernel and eigenpairs, or a new run, or neither (cached)
        // (a sigma or c move noted it before its fit's slices: heavyMove)
        if (!("newFit" in timer.current)) timer.current.newFit = !model.hasFit(settings.sigma, settings.c);
        if (!("newRun" in timer.current)) {
          timer.current.newRun = !model.hasRun(settings.sigma, settings.c, settings.n_components);
        }
      }
      this.prepare();
      timer.mark("preparedMs"); // the kernel, eigenpairs and projections (if new) and the gamma weights
      const run = this.current.entry.run;
      while (run.t < settings.n_iter && !run.finished && performance.now() - start < budget) run.step();
      this.redraw();
      this.markFirstDrawing();
      if (run.t >= settings.n_iter || run.finished) timer.mark("shownMs");
      if (this.current.entry.kwokTsang) timer.mark("kwokTsangMs"); // cached with its run
      this.pumpAfterPaint(); // what is left: baselines, Kwok–Tsang, the iterations, the mean-shift run
    }

    // --------------------------------------------------------------- moves
    iterationsMove() {
      if (!this.current.entry) return; // the first fit, on its way, will draw
      // drawn from the kept iterates at the next animation frame (moves before it: one drawing)
      if (this.drawOwed) this.merge("iterations");
      else this.timer.start("iterations");
      this.drawOwed = true;
      this.requestDraw();
      this.pump();
    }

    componentsMove() {
      const { model, settings: s } = this;
      // a new kernel is on its way (its fit not done yet): its first run takes this q
      if (this.heavyPending && !model.hasFit(s.sigma, s.c)) return;
      if (this.heavyPending || !model.hasRun(s.sigma, s.c, s.n_components)) {
        // a new run: its gamma weights (363 rows of the kernel's 1,100 columns, 4-7 ms whole:
        // in the frame after the input they made a q move miss 33 ms) in slices of a few points
        // in tasks after the frame that shows the q-dependent rows as placeholders, then drawn at
        // an animation frame of its own, as a sigma move's run; a newer q restarts the slices
        return this.heavyMove("q", true);
      }
      // a run already computed (cached): drawn at the next animation frame, before its painting
      // (a drag's input events come at the start of a frame: the same frame), with the
      // iterations that fit in 2 ms; the rest follow in tasks, drawn at every frame. A q move
      // that comes before that frame is merged into it. (In a task of its own, tried: the browser
      // painted a frame between the input and the task, so the drawing came a frame later.)
      if (this.movePending) return this.merge("q");
      this.timer.start("q");
      this.movePending = true;
      this.requestDraw();
    }

    /**
     * sigma or c: a new kernel and its eigenpairs, once the new values beside the sliders are
     * painted; runOnly (a q move without a cached run): the kernel's fit is kept, only the run
     * (its gamma weights) is new, and only the rows that depend on q wait.
     */
    heavyMove(control, runOnly) {
      const wasPending = this.heavyPending, wasRunOnly = this.runOnly;
      if (wasPending) this.merge(control); // (a drag: drawn with the last setting's first drawing)
      else this.timer.start(control);
      this.numbers.setAttribute("aria-busy", "true");
      this.heavyPending = true;
      // (a q move while a new kernel's run is on its way: the whole box waits all the same)
      this.runOnly = !!runOnly && (!wasPending || wasRunOnly);
      this.movePending = false; // a waiting q move: the new kernel's first run takes its q
      // the old setting's numbers go at once: placeholders until the new ones are final (during a
      // drag they are placeholders already; a q drag's rows name the latest q)
      if (this.current.entry && (!wasPending || wasRunOnly !== this.runOnly || this.runOnly)) {
        this.draw.numbers(this.numbers, Object.assign(this.view(), this.pendingFlags()));
      }
      // the kernel, its eigenpairs, the projections and gamma weights in tasks of a few ms (no
      // frame waits for the whole fit: a drag of sigma or c keeps painting), from the frame that
      // shows the new values on; a newer move replaces the job (a fit already cached is not
      // computed again: its job goes straight to the run)
      const { model, settings: s } = this;
      this.timer.current.newFit = !model.hasFit(s.sigma, s.c);
      if (runOnly) this.timer.current.newRun = !model.hasRun(s.sigma, s.c, s.n_components);
      this.fitJob = this.kernelSteps(s.sigma, s.c);
      this.pumpAfterPaint();
    }

    /** What the numbers box waits for: a new kernel (every row) or a new run (the rows of q). */
    pendingFlags() {
      return { pending: this.heavyPending && !this.runOnly, pendingRun: this.heavyPending && this.runOnly };
    }

    reset() {
      Object.assign(this.settings, this.initial);
      this.clicks.length = 0;
      this.syncControls();
      this.heavyMove("reset");
    }

    // ------------------------------------------------- hooks for the tests
    /** Resolves when every iteration of the current setting is computed. */
    whenIdle() {
      return new Promise((resolve) => {
        this.idleWaiters.push(resolve);
        this.settleIfDone();
      });
    }

    /** Set any of sigma, c, n_components, n_iter, width_rule; resolves when computed. */
    set(changes) {
      this.fitJob = null; // computed at once below
      this.heavyPending = false;
      this.movePending = false;
      const s = Object.assign(this.settings, changes);
      if (s.width_rule) s.c = this.model.ruleWidth(s.sigma);
      this.syncControls();
      this.timer.start("set");
      this.startRun(8);
      return this.whenIdle();
    }

    /** Start a pre-image at (x, y), as a click there does in the given mode ("new" or "marked"). */
    click(x, y, mode) {
      return Array.from(this.addClick([x, y], mode || "new").run.at(this.settings.n_iter));
    }

    /** What the page computed for the current setting, as plain arrays. */
    get state() {
      const { fitted, entry } = this.current, run = entry.run, t = this.settings.n_iter, N = window.kpcaNumerics;
      const Z = run.at(t), s = this.settings;
      return {
        sigma: s.sigma, c: s.c, n_components: entry.q, n_iter: t, width_rule: s.width_rule,
        eigenvalues: Array.from(fitted.fit.eigenvalues),
        alphas: Array.from(fitted.fit.alphas),
        n_fitted: fitted.fit.nComponents,
        lanczos: fitted.fit.lanczos,
        Z_kernel: Array.from(Z),
        Z_linear: Array.from(fitted.data.Zlinear),
        mse_noisy: fitted.data.mseNoisy,
        mse_linear: fitted.data.mseLinear,
        mse_kernel: N.meanSquaredDistance(Z, fitted.data.clean, this.model.nTest, this.model.d),
        baselines: this.baselineState(t),
        n_converged: run.convergedWithin(t),
        restarted: Array.from(run.restarts.keys()).filter((a) => run.restarts[a] > 0 || run.gaveUpAt[a] >= 0),
        iterations_computed: run.t,
        finished: run.finished,
        trajectory_points: this.model.track,
        clicks: this.clicks.map((click) => ({ start: Array.from(click.start), mode: click.mode, Z: Array.from(click.run.at(t)) })),
      };
    }
  }

  /** The baselines the page computed, as plain arrays (for the tests). */
  DenoisingLab.prototype.baselineState = function (t) {
    const { fitted, entry } = this.current, b = fitted.data.baselines, ms = fitted.meanShift, kt = entry.kwokTsang;
    return {
      kwok_tsang_neighbors: this.model.kwokTsangNeighbors,
      Z_kwok_tsang: kt && Array.from(kt.Z), mse_kwok_tsang: kt && kt.mse, kwok_tsang_too_far: kt && kt.tooFar,
      kwok_tsang_pulled_back: kt && kt.pulledBack, kwok_tsang_far: kt && kt.far,
      n_neighbors: b.k, linear_q: b.linearQ, mse: b.mse,
      Z_mean: Array.from(b.Z.mean), Z_nearest: Array.from(b.Z.nearest), Z_knn: Array.from(b.Z.knn),
      Z_linear: Array.from(b.Z.linear), Z_mean_shift: Array.from(ms.at(t)), mean_shift_iterations: Math.min(t, ms.t),
      mean_shift_converged: ms.convergedWithin(t),
    };
  };

  (window.kpcaLabKinds = window.kpcaLabKinds || {}).denoising = (root, payload) => new DenoisingLab(root, payload);
})();
