/* Chapter 5's de-noising lab, its drawing: the plane, the rho(z_t) and step
 * panels and the numbers, from a view {model, fitted, entry, settings,
 * clicks} of kpca-lab-denoising.js (the computing is in
 * kpca-lab-denoising-model.js).
 */
(function () {
  "use strict";
  const LIMIT = 1.8; // the plane shows [-1.8, 1.8]^2, as the chapter's figures

  function core() { return window.kpcaLabCore; }
  function trajectoryColour(j) {
    const colours = core().COLORS.trajectories;
    return colours[j % colours.length];
  }

  function planeAxes(plane) {
    return new (core().Axes)(plane, { left: 30, top: 8, width: plane.width - 38, height: plane.cssHeight - 34 },
      { xlim: [-LIMIT, LIMIT], ylim: [-LIMIT, LIMIT] });
  }

  /** Pixel positions of the rows of the n x 2 matrix X. */
  function pixels(axes, X, count) {
    const xs = new Float64Array(count), ys = new Float64Array(count);
    for (let i = 0; i < count; i++) { xs[i] = axes.x(X[2 * i]); ys[i] = axes.y(X[2 * i + 1]); }
    return [xs, ys];
  }

  /** The points that do not move, drawn once per sigma and size (kept on the panel). */
  function background(plane, axes, view) {
    const C = core(), { model, fitted } = view;
    const key = [fitted.sigma, plane.width, plane.cssHeight, plane.ratio, C.isDark()].join("|");
    if (plane.background && plane.background.key === key) return plane.background.canvas;
    const canvas = document.createElement("canvas");
    canvas.width = plane.canvas.width;
    canvas.height = plane.canvas.height;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(plane.ratio, 0, 0, plane.ratio, 0, 0);
    ctx.beginPath();
    ctx.rect(axes.left, axes.top, axes.width, axes.height);
    ctx.clip();
    C.discs(ctx, ...pixels(axes, fitted.data.Xtrain, model.nTrain), model.nTrain, 1.4, C.COLORS.train);
    C.discs(ctx, ...pixels(axes, fitted.data.Xtest, model.nTest), model.nTest, 2.1, C.COLORS.noisy);
    for (let j = 0; j < model.k; j++) {
      C.cross(ctx, axes.x(model.centres[2 * j]), axes.y(model.centres[2 * j + 1]), 5, C.COLORS.centre, 2);
    }
    plane.background = { key, canvas };
    return canvas;
  }

  /** Iterates z_0 .. z_t of point a of a run, as [x, y] pixel pairs. */
  function trajectory(axes, run, a, t) {
    const points = [];
    for (let s = 0; s <= Math.min(t, run.t); s++) {
      points.push([axes.x(run.history[s][2 * a]), axes.y(run.history[s][2 * a + 1])]);
    }
    return points;
  }

  function polyline(ctx, points, colour, width) {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.beginPath();
    points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
  }

  function disc(ctx, [x, y], r, colour) {
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
  }

  /** Trajectories of the noisy starts (start: a ring, the marked one a star) and of the clicks (start: +). */
  function drawTrajectories(ctx, axes, view) {
    const { model, entry, settings, clicks } = view, t = settings.n_iter;
    model.track.forEach((a, j) => {
      const colour = trajectoryColour(j), points = trajectory(axes, entry.run, a, t);
      const [x0, y0] = points[0];
      polyline(ctx, points, colour, 1.8);
      ctx.strokeStyle = colour;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(x0, y0, 5, 0, 2 * Math.PI);
      ctx.stroke();
      disc(ctx, points[points.length - 1], 3.5, colour);
      if (a === model.marked) {
        ctx.font = "18px system-ui, sans-serif";
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        ctx.fillText("★", x0 + 12, y0 - 10);
      }
    });
    const colour = core().COLORS.click;
    for (const click of clicks) {
      const points = trajectory(axes, click.run, 0, t), [x0, y0] = points[0];
      polyline(ctx, points, colour, 1.8);
      ctx.lineWidth = 2.2;
      ctx.beginPath();
      ctx.moveTo(x0 - 6, y0); ctx.lineTo(x0 + 6, y0);
      ctx.moveTo(x0, y0 - 6); ctx.lineTo(x0, y0 + 6);
      ctx.stroke();
      disc(ctx, points[points.length - 1], 3.5, colour);
    }
  }

  function drawPlane(plane, view) {
    const C = core(), axes = planeAxes(plane), ctx = plane.begin();
    const { model, fitted, entry, settings } = view;
    axes.decorate({ xticks: [-1, 0, 1], yticks: [-1, 0, 1] });
    ctx.drawImage(background(plane, axes, view), 0, 0, plane.width, plane.cssHeight);
    axes.clip((ctx) => {
      if (fitted.data.Zlinear) C.discs(ctx, ...pixels(axes, fitted.data.Zlinear, model.nTest), model.nTest, 2.3, C.COLORS.linear);
      C.discs(ctx, ...pixels(axes, fitted.meanShift.at(settings.n_iter), model.nTest), model.nTest, 1.8, MEAN_SHIFT_COLOUR);
      // the Kwok–Tsang rings under the kernel PCA pre-images (the chapter's result stays in sight):
      // a ring is larger than a disc, so it still shows around the disc it shares a place with
      if (entry.kwokTsang) rings(ctx, ...pixels(axes, entry.kwokTsang.Z, model.nTest), model.nTest, 3.2, kwokTsangColour());
      C.discs(ctx, ...pixels(axes, entry.run.at(settings.n_iter), model.nTest), model.nTest, 2.3, C.COLORS.kernel);
      drawTrajectories(ctx, axes, view);
      if (view.cursor) drawCursor(ctx, axes, view.cursor);
    });
  }

  /** The keyboard's cursor on the plane: a ring with a cross hair, where Enter starts a pre-image. */
  function drawCursor(ctx, axes, [x, y]) {
    const px = axes.x(x), py = axes.y(y), ink = core().ink();
    for (const [colour, width] of [[ink.background, 4], [ink.strong, 1.8]]) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.beginPath();
      ctx.arc(px, py, 9, 0, 2 * Math.PI);
      ctx.moveTo(px - 15, py); ctx.lineTo(px - 4, py);
      ctx.moveTo(px + 4, py); ctx.lineTo(px + 15, py);
      ctx.moveTo(px, py - 15); ctx.lineTo(px, py - 4);
      ctx.moveTo(px, py + 4); ctx.lineTo(px, py + 15);
      ctx.stroke();
    }
  }

  /** Rings (stroked circles) of radius r at the points given in CSS pixels: the Kwok–Tsang pre-images. */
  function rings(ctx, xs, ys, count, r, stroke) {
    ctx.strokeStyle = stroke;
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    for (let i = 0; i < count; i++) {
      ctx.moveTo(xs[i] + r, ys[i]);
      ctx.arc(xs[i], ys[i], r, 0, 2 * Math.PI);
    }
    ctx.stroke();
  }

  /** The curves of a side panel: one per tracked point, then one per click. */
  function curves(view, valueAt, pad) {
    const { model, entry, clicks } = view, list = [];
    const add = (colour, run, j, a) => {
      const values = valueAt(run, j, a);
      // once every point has stopped, every later iterate is the last one
      while (pad && run.finished && values.length <= model.maxIter) values.push(values[values.length - 1]);
      list.push({ colour, values });
    };
    model.track.forEach((a, j) => add(trajectoryColour(j), entry.run, j, a));
    for (const click of clicks) add(core().COLORS.click, click.run, 0, 0);
    return list;
  }

  function dashedLine(ctx, axes, y, label) {
    ctx.setLineDash([5, 4]);
    ctx.strokeStyle = core().ink().muted;
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    ctx.moveTo(axes.left, axes.y(y)); ctx.lineTo(axes.left + axes.width, axes.y(y));
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.font = core().FONT;
    ctx.fillStyle = core().ink().text;
    ctx.textAlign = "right";
    ctx.textBaseline = "bottom";
    ctx.fillText(label, axes.left + axes.width - 4, axes.y(y) - 2);
  }

  /** Curves over the iterations 0 .. maxIter, a cursor at the iterations shown, an optional dashed level. */
  function drawSeries(panel, series, opts, view) {
    const C = core();
    panel.begin();
    let low = Infinity, high = -Infinity;
    for (const s of series) {
      for (const v of s.values) if (v !== null && (!opts.ylog || v > 0)) { low = Math.min(low, v); high = Math.max(high, v); }
    }
    let ylim = opts.ylim;
    if (!ylim) {
      if (!(high > low)) { low -= 1e-3; high += 1e-3; }
      ylim = [low - 0.08 * (high - low), high + 0.08 * (high - low)];
    }
    const axes = new C.Axes(panel, { left: 52, top: 26, width: panel.width - 68, height: panel.cssHeight - 68 },
      { xlim: [0, view.model.maxIter], ylim, ylog: opts.ylog });
    axes.decorate({ title: opts.title, xlabel: "iteration t" });
    axes.clip((ctx) => {
      if (opts.hline !== undefined) dashedLine(ctx, axes, opts.hline, opts.hlineLabel);
      const tx = axes.x(view.settings.n_iter);
      ctx.strokeStyle = C.ink().frame;
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(tx, axes.top); ctx.lineTo(tx, axes.top + axes.height); ctx.stroke();
      for (const s of series) {
        ctx.strokeStyle = s.colour;
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

  function drawRho(panel, view) {
    const series = curves(view, (run, j) => run.rhoTracked.map((values) => values[j]), true);
    drawSeries(panel, series, { title: "objective ρ(zₜ) = Σᵢ γᵢ k(zₜ, xᵢ)" }, view);
  }

  function drawSteps(panel, view) {
    // a point that has stopped makes no more steps: nothing is drawn after it stops
    const series = curves(view, (run, j, a) => run.steps.map((steps, t) => {
      const stopped = (run.convergedAt[a] >= 0 && t >= run.convergedAt[a]) || (run.gaveUpAt[a] >= 0 && t >= run.gaveUpAt[a]);
      return stopped ? null : steps[a];
    }), false);
    drawSeries(panel, series, {
      title: "step size ‖zₜ₊₁ − zₜ‖", ylog: true, ylim: [1e-8, 10],
      hline: view.entry.run.stepTol, hlineLabel: "stop below",
    }, view);
  }

  // Kwok–Tsang's dark green is too dark on the dark theme: a lighter green there
  const MEAN_SHIFT_COLOUR = "#e6a100", KWOK_TSANG_COLOUR = "#0b6e4f", KWOK_TSANG_DARK = "#3fbf8f";
  function kwokTsangColour() { return core().themed(KWOK_TSANG_COLOUR, KWOK_TSANG_DARK); }
  // four significant digits: the baselines' MSEs span 1e-4 (mean shift at low noise) to 0.6 (the mean)
  const f4v = (v) => (v >= 0.01 ? v.toFixed(4) : v.toPrecision(3));

  /**
   * The numbers beside the plane. A number is shown only once it is final for the setting
   * shown: a row not yet computed (view.pending: a new kernel on its way; view.pendingRun: a q
   * move's new run on its way, the rows of q; the iterations of a run; the baselines,
   * Kwok–Tsang and mean shift that follow) shows a dimmed placeholder,
   * never the old setting's value or a run's partial one (the noisy points' error at t = 0).
   */
  function drawNumbers(element, view) {
    const C = core(), N = window.kpcaNumerics, el = C.el;
    const { model, fitted, entry, settings } = view, run = entry.run, t = settings.n_iter, data = fitted.data;
    // pendingRun: a q move's new run on its way (the kernel kept): the rows of q wait, the rest stay
    const pending = !!view.pending, pendingRun = !pending && !!view.pendingRun, nTest = model.nTest;
    const q = pendingRun ? model.components(fitted, settings.n_components) : entry.q;
    const runDone = !pending && !pendingRun && (run.t >= t || run.finished), converged = run.convergedWithin(t);
    const b = pending ? null : data.baselines, meanShift = fitted.meanShift;
    const meanShiftDone = !pending && (meanShift.t >= t || meanShift.finished);
    const kt = pending || pendingRun ? null : entry.kwokTsang;
    const WAIT = null; // a value not computed yet for this setting
    const f4 = f4v;
    const baseline = (name) => (b ? f4(b.mse[name]) : WAIT), chosen = (key) => (b ? b[key] : "…");
    const subscript = (k) => String(k).replace(/[0-9]/g, (digit) => "₀₁₂₃₄₅₆₇₈₉"[digit]);
    const value = (text) => (text === WAIT
      ? el("td", { class: "kpca-lab-pending", text: "computing …" }) : el("td", { text }));
    const row = (label, text, cls) => el("tr", cls ? { class: cls } : {}, el("td", { text: label }), value(text));
    const lines = [
      el("table", { class: "kpca-lab-table" },
        el("caption", { text: "MSE to the true centres (" + nTest + " test points)" }),
        el("tbody", {},
          row("noisy points", pending ? WAIT : f4(data.mseNoisy)),
          row("training mean", baseline("mean")),
          row("nearest training point", baseline("nearest")),
          row("kNN average (held-out k = " + chosen("k") + ")", baseline("knn")),
          row("linear PCA (held-out q = " + chosen("linearQ") + ")", baseline("linear")),
          row("mean shift (γ = 1/n, same c, " + t + " it.)",
            meanShiftDone ? f4(N.meanSquaredDistance(meanShift.at(t), data.clean, nTest, model.d)) : WAIT),
          row("Kwok–Tsang (q = " + q + ", " + model.kwokTsangNeighbors + " neighbours)", kt ? f4(kt.mse) : WAIT),
          row("kernel PCA (q = " + q + ")",
            runDone ? f4(N.meanSquaredDistance(run.at(t), data.clean, nTest, model.d)) : WAIT, "kpca-lab-kernel"))),
      runDone
        ? el("div", { text: "converged: " + converged + " of " + nTest + " (" + (converged / nTest).toFixed(3) + ") within " + t + " iterations" })
        : el("div", { class: "kpca-lab-pending", text: "converged: computing …" }),
    ];
    if (kt && kt.tooFar) {
      lines.push(el("div", { text: "Kwok–Tsang: " + kt.tooFar + " projections too far from a neighbour's image (d̃² ≥ 2)" }));
    }
    if (kt && kt.pulledBack) {
      lines.push(el("div", { text: "Kwok–Tsang: " + kt.pulledBack + " pre-images pulled back towards their neighbours" }));
    }
    if (kt && kt.far) {
      lines.push(el("div", { text: "Kwok–Tsang: " + kt.far + " pre-images farther from their neighbours than these are from each other" }));
    }
    if (kt && b && kt.mse > b.mse.mean) {
      // a number that reads as a bug unless the lab says what the chapter shows: a method that
      // depends on the components alone can fail with few of them, where the fixed point does not
      lines.push(el("div", { text: "Kwok–Tsang is worse than the training mean here: it uses the " + q + " components alone, and with too few of them it can fail (the chapter's text says why); kernel PCA's fixed point is held by the density term" }));
    }
    const lost = run.restarts.reduce((s, r) => s + (r > 0 ? 1 : 0), 0);
    if (runDone && lost) lines.push(el("div", { text: lost + " restarted after a vanishing denominator" }));
    if (!pending) {
      if (q < settings.n_components) lines.push(el("div", { text: "only " + q + " components above round-off at this c" }));
      const mu = Array.from(fitted.fit.eigenvalues.slice(0, q), (v) => C.formatNumber(v, 4)).join(", ");
      lines.push(el("div", { class: "kpca-lab-small", text: "eigenvalues μ₁ … μ" + subscript(q) + " of the centred kernel: " + mu }));
    }
    lines.push(el("div", {
      class: "kpca-lab-small kpca-lab-status",
      text: pending ? "computing the kernel and its eigenpairs …"
        : pendingRun ? "computing the gamma weights of q = " + q + " …"
          : !runDone ? "computing: iteration " + run.t + " of " + t + " …"
            : "eigenpairs: " + fitted.fit.lanczos.steps + " Lanczos steps; iterates kept up to t = " + run.t,
    }));
    // the box is replaced only when what it shows changes (drawn every frame while the work goes
    // on: the same numbers would cost a layout each time)
    const shown = lines.map((line) => line.outerHTML).join("");
    if (element.kpcaShown === shown && element.childElementCount === lines.length) return;
    element.kpcaShown = shown;
    element.replaceChildren(...lines);
  }

  (window.kpcaDenoising = window.kpcaDenoising || {}).draw = {
    planeAxes, plane: drawPlane, rho: drawRho, steps: drawSteps, numbers: drawNumbers, meanShiftColour: MEAN_SHIFT_COLOUR,
    kwokTsangColour: KWOK_TSANG_COLOUR, kwokTsangDark: KWOK_TSANG_DARK, LIMIT,
  };
})();
