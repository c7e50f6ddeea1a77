/* Chapter 5's de-noising lab: kernel PCA pre-images of the toy of Mika et al.,
 * computed in the page (kpca_lib.explorers.labs.denoising_lab writes the data).
 *
 * What is cached, so that each control answers at the speed it can:
 * - per (sigma, c): the data, the kernel PCA fit (12 components), the
 *   projections beta of the test points and the linear PCA de-noising;
 * - per (sigma, c, q): the fixed-point run with every iterate z_t, so that
 *   the iterations slider only redraws. A new run is computed progressively,
 *   a few iterations per animation frame, and drawn as it goes.
 */
(function () {
  "use strict";
  const RULE_DIGITS = 12; // 2 d sigma^2 rounded: c = 0.04, as the text writes, not 0.04000000000000001

  function mount(root, payload) {
    const N = window.kpcaNumerics, C = window.kpcaLabCore;
    const d = payload.n_features;
    const k = payload.centres.length / d;
    const nTrain = k * payload.n_train_per_cluster, nTest = k * payload.n_test_per_cluster;
    const centres = C.matrix(payload.centres);
    const noiseTrain = C.matrix(payload.noise_train), noiseTest = C.matrix(payload.noise_test);
    const sigmas = payload.sigmas, maxIter = payload.max_iter, maxComponents = payload.max_components;
    const track = payload.trajectory_points, marked = track[0];
    const [cMin, cMax] = payload.c_range;
    const initial = Object.assign({}, payload.settings);
    const settings = Object.assign({}, initial);
    const timings = [];
    const timer = new C.MoveTimer(timings);

    // ------------------------------------------------------------ computing
    const toys = new Map(), fits = new Map(), runs = new Map();

    /** denoising_toy for one sigma: centre plus sigma times the unit noise, as kpca_lib. */
    function toy(sigma) {
      if (toys.has(sigma)) return toys.get(sigma);
      const build = (noise, perCluster, count) => {
        const X = new Float64Array(count * d), clean = new Float64Array(count * d);
        for (let i = 0; i < count; i++) {
          const cluster = Math.floor(i / perCluster);
          for (let j = 0; j < d; j++) {
            clean[i * d + j] = centres[cluster * d + j];
            X[i * d + j] = centres[cluster * d + j] + sigma * noise[i * d + j];
          }
        }
        return { X, clean };
      };
      const train = build(noiseTrain, payload.n_train_per_cluster, nTrain);
      const test = build(noiseTest, payload.n_test_per_cluster, nTest);
      // linear PCA keeps min(q, d - 1) components: all d would return the noisy points
      const pca = N.pcaFit(train.X, nTrain, d);
      const linearComponents = Math.max(Math.min(maxComponents, d - 1), 1);
      const Zlinear = N.pcaReconstruct(pca, test.X, nTest, linearComponents);
      const value = {
        sigma, Xtrain: train.X, Xtest: test.X, clean: test.clean, Zlinear, linearComponents,
        mseNoisy: N.meanSquaredDistance(test.X, test.clean, nTest, d),
        mseLinear: N.meanSquaredDistance(Zlinear, test.clean, nTest, d),
      };
      toys.set(sigma, value);
      return value;
    }

    function remember(map, key, value, size) {
      map.set(key, value);
      if (map.size > size) map.delete(map.keys().next().value);
      return value;
    }

    function fitFor(sigma, c) {
      const key = sigma + "|" + c;
      if (fits.has(key)) return fits.get(key);
      const data = toy(sigma);
      const fit = N.kernelPCAFit(data.Xtrain, nTrain, d, c, maxComponents);
      const beta = N.kernelPCAProject(fit, data.Xtest, nTest);
      return remember(fits, key, { key, sigma, c, data, fit, beta }, 8);
    }

    function runFor(fitted, q) {
      const key = fitted.key + "|" + q;
      if (runs.has(key)) return runs.get(key);
      const gamma = N.gammaWeights(fitted.fit, fitted.beta, nTest, q);
      const run = new N.FixedPointRun(fitted.data.Xtrain, nTrain, d, gamma, nTest, fitted.c, fitted.data.Xtest, {
        tol: payload.tol, maxRestarts: payload.max_restarts, track,
      });
      return remember(runs, key, { key, q, run }, 12);
    }

    const current = { fitted: null, entry: null };
    function usableComponents(fitted) { return Math.min(settings.n_components, fitted.fit.nComponents); }

    function prepare() {
      current.fitted = fitFor(settings.sigma, settings.c);
      current.entry = runFor(current.fitted, usableComponents(current.fitted));
      refreshClicks();
    }

    function runDone(run) { return run.t >= maxIter || run.finished; }

    // clicks on the plane: up to three extra pre-images, each its own small run
    const clicks = [];
    function clickRun(click) {
      const fitted = current.fitted, q = usableComponents(fitted), fit = fitted.fit;
      let gamma;
      if (click.mode === "marked") {
        gamma = current.entry.run.gamma.slice(marked * nTrain, (marked + 1) * nTrain);
      } else {
        const beta = N.kernelPCAProject(fit, click.start, 1);
        gamma = N.gammaWeights(fit, beta, 1, q);
      }
      const run = new N.FixedPointRun(fitted.data.Xtrain, nTrain, d, gamma, 1, fitted.c, click.start, {
        tol: payload.tol, maxRestarts: payload.max_restarts, track: [0],
      });
      return run.runTo(maxIter);
    }
    function refreshClicks() {
      for (const click of clicks) {
        if (click.key !== current.entry.key) {
          click.run = clickRun(click);
          click.key = current.entry.key;
        }
      }
    }

    // ---------------------------------------------------------------- layout
    const el = C.el;
    const controls = el("div", { class: "kpca-lab-controls" });
    const main = el("div", { class: "kpca-lab-main" });
    const side = el("div", { class: "kpca-lab-side" });
    const body = el("div", { class: "kpca-lab-body" }, main, side);
    root.append(controls, body);

    const sigmaSlider = C.slider({
      label: "noise σ", min: 0, max: sigmas.length - 1, value: sigmas.indexOf(settings.sigma),
      format: (position) => String(sigmas[position]),
      onInput: (position) => {
        settings.sigma = sigmas[position];
        if (settings.width_rule) setRuleWidth();
        heavyMove("sigma");
      },
    });
    const logMin = Math.log10(cMin), logMax = Math.log10(cMax);
    const cSlider = C.slider({
      label: "kernel width c", min: logMin.toFixed(2), max: logMax.toFixed(2), step: 0.01,
      value: Math.log10(settings.c).toFixed(2),
      format: () => C.formatNumber(settings.c, 3),
      onInput: (position) => {
        // three significant digits: the value shown is the value used
        settings.c = Number(Math.pow(10, position).toPrecision(3));
        heavyMove("c");
      },
    });
    const rule = C.checkbox({
      label: "c = 2dσ² (the width rule, d = 2)", checked: settings.width_rule,
      onChange: (checked) => {
        settings.width_rule = checked;
        cSlider.input.disabled = checked;
        if (checked) {
          setRuleWidth();
          heavyMove("rule");
        }
      },
    });
    cSlider.input.disabled = settings.width_rule;
    const qSlider = C.slider({
      label: "components q", min: 1, max: maxComponents, value: settings.n_components,
      format: (position) => String(position),
      onInput: (position) => { settings.n_components = position; componentsMove(); },
    });
    const iterationSlider = C.slider({
      label: "iterations", min: 0, max: maxIter, value: settings.n_iter,
      format: (position) => String(position),
      onInput: (position) => { settings.n_iter = position; iterationsMove(); },
    });
    const mode = el("select", { class: "kpca-lab-select", "aria-label": "what a click on the plane does" },
      el("option", { value: "new", text: "a click de-noises a new point there" }),
      el("option", { value: "marked", text: "a click restarts the ★ point's pre-image there" }));
    const clearClicks = C.button("clear clicks", () => { clicks.length = 0; draw(); });
    const reset = C.button("reset to the chapter's setting", () => resetSettings());
    controls.append(sigmaSlider.row, cSlider.row, rule.row, qSlider.row, iterationSlider.row,
      el("div", { class: "kpca-lab-buttons" }, reset, mode, clearClicks));

    function setRuleWidth() {
      settings.c = Number((2 * d * settings.sigma * settings.sigma).toPrecision(RULE_DIGITS));
      cSlider.set(Math.log10(settings.c).toFixed(2));
    }

    function syncControls() {
      sigmaSlider.set(sigmas.indexOf(settings.sigma));
      cSlider.set(Math.log10(settings.c).toFixed(2));
      cSlider.input.disabled = settings.width_rule;
      rule.input.checked = settings.width_rule;
      qSlider.set(settings.n_components);
      iterationSlider.set(settings.n_iter);
    }

    const plane = new C.Panel(main, {
      label: "the plane: training points, noisy test points, true centres, linear and kernel PCA pre-images",
      height: (width) => width, draw: () => draw(),
    });
    main.append(C.legend([
      { label: "training points", swatch: "disc", color: C.COLORS.train },
      { label: "noisy test points", swatch: "disc", color: C.COLORS.noisy },
      { label: "true centres", swatch: "cross", color: C.COLORS.centre },
      { label: "linear PCA pre-images", swatch: "disc", color: C.COLORS.linear },
      { label: "kernel PCA pre-images", swatch: "disc", color: C.COLORS.kernel },
      { label: "trajectories z₀ … zₜ from noisy starts (○ start, ★ the marked point)", swatch: "line", color: C.COLORS.trajectories[0] },
      { label: "your clicks (+ start)", swatch: "line", color: C.COLORS.click },
    ]));
    const numbers = el("div", { class: "kpca-lab-numbers", "aria-live": "polite" });
    side.append(numbers);
    const rhoPanel = new C.Panel(side, { label: "rho of z_t along the trajectories", height: () => 190, draw: () => draw() });
    const stepPanel = new C.Panel(side, { label: "step sizes along the trajectories", height: () => 190, draw: () => draw() });

    plane.canvas.addEventListener("pointerdown", (event) => {
      const [px, py] = plane.pointer(event);
      const axes = planeAxes();
      if (!axes.contains(px, py)) return;
      const start = Float64Array.from(axes.invert(px, py));
      if (clicks.length >= 3) clicks.shift();
      const click = { start, mode: mode.value, key: null };
      clicks.push(click);
      timer.start("click");
      refreshClicks();
      draw();
      timer.mark("firstDrawMs");
    });

    // -------------------------------------------------------------- drawing
    const LIMIT = 1.8;
    function planeAxes() {
      const size = plane.width;
      return new C.Axes(plane, { left: 30, top: 8, width: size - 38, height: plane.cssHeight - 34 },
        { xlim: [-LIMIT, LIMIT], ylim: [-LIMIT, LIMIT] });
    }

    let background = null;
    function drawBackground(axes) {
      const key = [current.fitted.sigma, plane.width, plane.cssHeight, plane.ratio].join("|");
      if (background && background.key === key) return background.canvas;
      // the points that do not move are drawn once per sigma and size
      const canvas = document.createElement("canvas");
      canvas.width = plane.canvas.width;
      canvas.height = plane.canvas.height;
      const ctx = canvas.getContext("2d");
      ctx.setTransform(plane.ratio, 0, 0, plane.ratio, 0, 0);
      const data = current.fitted.data;
      const pixels = (X, count) => {
        const xs = new Float64Array(count), ys = new Float64Array(count);
        for (let i = 0; i < count; i++) { xs[i] = axes.x(X[i * d]); ys[i] = axes.y(X[i * d + 1]); }
        return [xs, ys];
      };
      ctx.save();
      ctx.beginPath();
      ctx.rect(axes.left, axes.top, axes.width, axes.height);
      ctx.clip();
      C.discs(ctx, ...pixels(data.Xtrain, nTrain), nTrain, 1.4, C.COLORS.train);
      C.discs(ctx, ...pixels(data.Xtest, nTest), nTest, 2.1, C.COLORS.noisy);
      for (let j = 0; j < k; j++) C.cross(ctx, axes.x(centres[j * d]), axes.y(centres[j * d + 1]), 5, C.COLORS.centre, 2);
      ctx.restore();
      background = { key, canvas };
      return canvas;
    }

    function polyline(ctx, axes, points, color, width) {
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.beginPath();
      points.forEach(([x, y], i) => (i ? ctx.lineTo(axes.x(x), axes.y(y)) : ctx.moveTo(axes.x(x), axes.y(y))));
      ctx.stroke();
    }

    /** Iterates z_0 .. z_t of point a of a run, as [x, y] pairs. */
    function trajectory(run, a, t) {
      const points = [];
      for (let s = 0; s <= Math.min(t, run.t); s++) points.push([run.history[s][a * d], run.history[s][a * d + 1]]);
      return points;
    }

    function drawPlane() {
      const axes = planeAxes();
      const ctx = plane.begin();
      axes.decorate({ xticks: [-1, 0, 1], yticks: [-1, 0, 1] });
      ctx.drawImage(drawBackground(axes), 0, 0, plane.width, plane.cssHeight);
      const t = settings.n_iter, run = current.entry.run, Z = run.at(t), data = current.fitted.data;
      axes.clip((ctx) => {
        const xs = new Float64Array(nTest), ys = new Float64Array(nTest);
        for (let i = 0; i < nTest; i++) { xs[i] = axes.x(data.Zlinear[i * d]); ys[i] = axes.y(data.Zlinear[i * d + 1]); }
        C.discs(ctx, xs, ys, nTest, 2.3, C.COLORS.linear);
        for (let i = 0; i < nTest; i++) { xs[i] = axes.x(Z[i * d]); ys[i] = axes.y(Z[i * d + 1]); }
        C.discs(ctx, xs, ys, nTest, 2.3, C.COLORS.kernel);
        track.forEach((a, j) => {
          const color = C.COLORS.trajectories[j % C.COLORS.trajectories.length];
          const points = trajectory(run, a, t);
          polyline(ctx, axes, points, color, 1.8);
          const [x0, y0] = points[0], [x1, y1] = points[points.length - 1];
          ctx.strokeStyle = color;
          ctx.lineWidth = 2;
          ctx.beginPath();
          ctx.arc(axes.x(x0), axes.y(y0), 5, 0, 2 * Math.PI);
          ctx.stroke();
          ctx.fillStyle = color;
          ctx.beginPath();
          ctx.arc(axes.x(x1), axes.y(y1), 3.5, 0, 2 * Math.PI);
          ctx.fill();
          if (a === marked) {
            ctx.font = "18px system-ui, sans-serif";
            ctx.textAlign = "center";
            ctx.textBaseline = "middle";
            ctx.fillStyle = color;
            ctx.fillText("★", axes.x(x0) + 12, axes.y(y0) - 10);
          }
        });
        for (const click of clicks) {
          const points = trajectory(click.run, 0, t);
          polyline(ctx, axes, points, C.COLORS.click, 1.8);
          const [x0, y0] = points[0], [x1, y1] = points[points.length - 1];
          ctx.strokeStyle = C.COLORS.click;
          ctx.lineWidth = 2.2;
          ctx.beginPath();
          ctx.moveTo(axes.x(x0) - 6, axes.y(y0)); ctx.lineTo(axes.x(x0) + 6, axes.y(y0));
          ctx.moveTo(axes.x(x0), axes.y(y0) - 6); ctx.lineTo(axes.x(x0), axes.y(y0) + 6);
          ctx.stroke();
          ctx.fillStyle = C.COLORS.click;
          ctx.beginPath();
          ctx.arc(axes.x(x1), axes.y(y1), 3.5, 0, 2 * Math.PI);
          ctx.fill();
        }
      });
    }

    /** The curves of the side panels: one per tracked point, then one per click. */
    function curves(valueAt, pad) {
      const run = current.entry.run, list = [];
      const add = (color, someRun, j, a) => {
        const values = valueAt(someRun, j, a);
        // once every point has stopped, every later iterate is the last one
        while (pad && someRun.finished && values.length <= maxIter) values.push(values[values.length - 1]);
        list.push({ color, values });
      };
      track.forEach((a, j) => add(C.COLORS.trajectories[j % C.COLORS.trajectories.length], run, j, a));
      for (const click of clicks) add(C.COLORS.click, click.run, 0, 0);
      return list;
    }

    function drawSeries(panel, series, opts) {
      const ctx = panel.begin();
      let low = Infinity, high = -Infinity;
      for (const s of series) for (const v of s.values) if (v !== null && (!opts.ylog || v > 0)) { low = Math.min(low, v); high = Math.max(high, v); }
      let ylim = opts.ylim;
      if (!ylim) {
        if (!(high > low)) { low -= 1e-3; high += 1e-3; }
        const pad = 0.08 * (high - low);
        ylim = [low - pad, high + pad];
      }
      const axes = new C.Axes(panel, { left: 52, top: 26, width: panel.width - 68, height: panel.cssHeight - 68 },
        { xlim: [0, maxIter], ylim, ylog: opts.ylog });
      axes.decorate({ title: opts.title, xlabel: "iteration t", yformat: (v) => C.formatNumber(v, 3) });
      axes.clip((ctx) => {
        if (opts.hline !== undefined) {
          ctx.setLineDash([5, 4]);
          ctx.strokeStyle = "#555";
          ctx.lineWidth = 1.2;
          ctx.beginPath();
          ctx.moveTo(axes.left, axes.y(opts.hline)); ctx.lineTo(axes.left + axes.width, axes.y(opts.hline));
          ctx.stroke();
          ctx.setLineDash([]);
          if (opts.hlineLabel) {
            ctx.font = C.FONT;
            ctx.fillStyle = "#333";
            ctx.textAlign = "right";
            ctx.textBaseline = "bottom";
            ctx.fillText(opts.hlineLabel, axes.left + axes.width - 4, axes.y(opts.hline) - 2);
          }
        }
        const tx = axes.x(settings.n_iter);
        ctx.strokeStyle = "#999";
        ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(tx, axes.top); ctx.lineTo(tx, axes.top + axes.height); ctx.stroke();
        for (const s of series) {
          ctx.strokeStyle = s.color;
          ctx.lineWidth = 1.8;
          ctx.beginPath();
          let pen = false;
          s.values.forEach((v, t) => {
            if (v === null || (opts.ylog && !(v > 0))) { pen = false; return; }
            const y = axes.y(opts.ylog ? Math.max(v, ylim[0]) : v);
            if (pen) ctx.lineTo(axes.x(t), y); else ctx.moveTo(axes.x(t), y);
            pen = true;
          });
          ctx.stroke();
        }
      });
    }

    function drawRho() {
      const series = curves((run, j) => run.rhoTracked.map((values) => values[j]), true);
      drawSeries(rhoPanel, series, { title: "objective ρ(zₜ) = Σᵢ γᵢ k(zₜ, xᵢ)" });
    }

    function drawSteps() {
      // a point that has stopped makes no more steps: nothing is drawn after it stops
      const series = curves((run, j, a) => {
        const values = [];
        for (let t = 0; t < run.steps.length; t++) {
          const stopped = (run.convergedAt[a] >= 0 && t >= run.convergedAt[a]) || (run.gaveUpAt[a] >= 0 && t >= run.gaveUpAt[a]);
          values.push(stopped ? null : run.steps[t][a]);
        }
        return values;
      }, false);
      drawSeries(stepPanel, series, {
        title: "step size ‖zₜ₊₁ − zₜ‖", ylog: true, ylim: [1e-8, 10],
        hline: current.entry.run.stepTol, hlineLabel: "stop below",
      });
    }

    function drawNumbers() {
      const run = current.entry.run, t = settings.n_iter, data = current.fitted.data, fit = current.fitted.fit;
      const Z = run.at(t);
      const mseKernel = N.meanSquaredDistance(Z, data.clean, nTest, d);
      const converged = run.convergedWithin(t);
      const lost = run.restarts.reduce((s, r) => s + (r > 0 ? 1 : 0), 0);
      const q = usableComponents(current.fitted);
      const computing = run.t < t && !run.finished;
      const f4 = (v) => v.toFixed(4);
      const mu = Array.from(fit.eigenvalues.slice(0, q), (v) => C.formatNumber(v, 4)).join(", ");
      const row = (label, value, cls) => el("tr", cls ? { class: cls } : {}, el("td", { text: label }), el("td", { text: value }));
      const lines = [
        el("table", { class: "kpca-lab-table" },
          el("caption", { text: "MSE to the true centres (" + nTest + " test points)" }),
          el("tbody", {},
            row("noisy points", f4(data.mseNoisy)),
            row("linear PCA (" + data.linearComponents + " component)", f4(data.mseLinear)),
            row("kernel PCA (q = " + q + ")", f4(mseKernel), "kpca-lab-kernel"))),
        el("div", { text: "converged: " + converged + " of " + nTest + " (" + (converged / nTest).toFixed(3) + ") within " + t + " iterations" }),
      ];
      if (lost) lines.push(el("div", { text: lost + " restarted after a vanishing denominator" }));
      if (q < settings.n_components) lines.push(el("div", { text: "only " + fit.nComponents + " components above round-off at this c" }));
      const subscript = (k) => String(k).replace(/[0-9]/g, (digit) => "₀₁₂₃₄₅₆₇₈₉"[digit]);
      lines.push(el("div", { class: "kpca-lab-small", text: "eigenvalues μ₁ … μ" + subscript(q) + " of the centred kernel: " + mu }));
      lines.push(el("div", { class: "kpca-lab-small kpca-lab-status", text: computing
        ? "computing: iteration " + run.t + " of " + t + " …"
        : "eigenpairs: " + fit.lanczos.steps + " Lanczos steps; iterates kept up to t = " + run.t }));
      numbers.replaceChildren(...lines);
    }

    function draw() {
      if (!current.entry) return;
      drawPlane();
      drawRho();
      drawSteps();
      drawNumbers();
    }

    // ------------------------------------------------------------- moves
    let pumping = false;
    const idleWaiters = [];
    let heavyPending = false;

    function settleIfDone() {
      if (heavyPending || pumping) return;
      timer.mark("settledMs");
      while (idleWaiters.length) idleWaiters.shift()();
    }

    // The iterations of a new run are computed in tasks of about 8 ms, one after
    // another (a MessageChannel, which has no minimum delay, unlike setTimeout):
    // between two tasks the browser handles input and paints, so the page
    // never freezes, and the drawing follows at most once per animation frame.
    const channel = new MessageChannel();
    channel.port1.onmessage = work;
    let drawRequested = false;
    function requestDraw() {
      if (drawRequested) return;
      drawRequested = true;
      requestAnimationFrame(() => {
        drawRequested = false;
        draw();
        const run = current.entry.run;
        if (run.t >= settings.n_iter || run.finished) timer.mark("shownMs");
      });
    }
    function work() {
      const run = current.entry.run;
      const deadline = performance.now() + 8;
      while (!runDone(run) && performance.now() < deadline) run.step();
      requestDraw(); // the side panels follow the iterations beyond the slider's too
      if (runDone(run)) {
        pumping = false;
        settleIfDone();
      } else {
        channel.port2.postMessage(null);
      }
    }
    function pump() {
      if (pumping) return;
      pumping = true;
      channel.port2.postMessage(null);
    }

    /** Compute what the current setting needs for about budget ms, draw, then go on in tasks. */
    function startRun(budget) {
      const start = performance.now();
      if (timer.current) {
        // whether this move needs a new kernel and eigenpairs, or a new run, or neither (cached)
        const fitKey = settings.sigma + "|" + settings.c;
        timer.current.newFit = !fits.has(fitKey);
        timer.current.newRun = !fits.has(fitKey) || !runs.has(fitKey + "|" + usableComponents(fits.get(fitKey)));
      }
      prepare();
      const run = current.entry.run;
      while (run.t < settings.n_iter && !run.finished && performance.now() - start < budget) run.step();
      draw();
      timer.mark("firstDrawMs");
      if (run.t >= settings.n_iter || run.finished) timer.mark("shownMs");
      if (runDone(run)) settleIfDone(); else pump();
    }

    function iterationsMove() {
      timer.start("iterations");
      draw();
      timer.mark("firstDrawMs");
      const run = current.entry.run;
      if (run.t >= settings.n_iter || run.finished) timer.mark("shownMs");
      if (runDone(run)) settleIfDone(); else pump();
    }

    function componentsMove() {
      timer.start("q");
      // the gamma weights (a few ms) and the iterations that fit in one frame
      startRun(8);
    }

    /** sigma or c: a new kernel and eigenpairs, after the labels have been painted. */
    function heavyMove(control) {
      timer.start(control);
      heavyPending = true;
      numbers.querySelector(".kpca-lab-status")?.replaceChildren("computing the kernel and its eigenpairs …");
      requestAnimationFrame(() => setTimeout(() => {
        heavyPending = false;
        startRun(8);
      }, 0));
    }

    function resetSettings() {
      Object.assign(settings, initial);
      clicks.length = 0;
      syncControls();
      heavyMove("reset");
    }

    /** Resolves when every iteration of the current setting is computed. */
    function whenIdle() {
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
        settleIfDone();
      });
    }

    // the first fit waits until the page has loaded and painted
    heavyPending = true;
    setTimeout(() => {
      heavyPending = false;
      timer.start("load");
      startRun(8);
    }, 0);

    return {
      timings,
      whenIdle,
      /** Set any of sigma, c, n_components, n_iter, width_rule (for tests); resolves when computed. */
      set(changes) {
        Object.assign(settings, changes);
        if (settings.width_rule) settings.c = Number((2 * d * settings.sigma * settings.sigma).toPrecision(RULE_DIGITS));
        syncControls();
        timer.start("set");
        startRun(8);
        return whenIdle();
      },
      /** Click on the plane at data coordinates (x, y), in the given mode ("new" or "marked"). */
      click(x, y, clickMode) {
        if (clicks.length >= 3) clicks.shift();
        clicks.push({ start: Float64Array.of(x, y), mode: clickMode || "new", key: null });
        refreshClicks();
        draw();
        return clicks[clicks.length - 1].run;
      },
      get state() {
        const fitted = current.fitted, run = current.entry.run, t = settings.n_iter;
        const Z = run.at(t);
        return {
          sigma: settings.sigma, c: settings.c, n_components: usableComponents(fitted), n_iter: t,
          width_rule: settings.width_rule,
          eigenvalues: Array.from(fitted.fit.eigenvalues),
          alphas: Array.from(fitted.fit.alphas),
          n_fitted: fitted.fit.nComponents,
          lanczos: fitted.fit.lanczos,
          Z_kernel: Array.from(Z),
          Z_linear: Array.from(fitted.data.Zlinear),
          mse_noisy: fitted.data.mseNoisy,
          mse_linear: fitted.data.mseLinear,
          mse_kernel: N.meanSquaredDistance(Z, fitted.data.clean, nTest, d),
          n_converged: run.convergedWithin(t),
          restarted: Array.from(run.restarts.keys()).filter((a) => run.restarts[a] > 0 || run.gaveUpAt[a] >= 0),
          iterations_computed: run.t,
          finished: run.finished,
          trajectory_points: track,
          clicks: clicks.map((click) => ({ start: Array.from(click.start), mode: click.mode, Z: Array.from(click.run.at(t)) })),
        };
      },
    };
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {}).denoising = mount;
})();
