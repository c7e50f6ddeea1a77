/* Appendix B's robust PCA lab: principal component pursuit on a 60 x 60
 * low-rank plus sparse matrix, for any lambda sqrt(n), rank and corrupted
 * fraction, computed in the page (kpca-lab-robust-model.js, with the SVD of
 * kpca-labs-svd.js; kpca_lib.explorers.robust_pca_lab writes the draws).
 * Panels: the singular values of M, L0 and the L found; the entries of L
 * against those of L0; the support of S against the truth. The sweeps run in
 * slices of a few ms and are drawn as they come (kpca-labs-progressive.js).
 */
(function () {
  "use strict";

  // data colours, readable on the light and the dark background
  const COLOURS = { M: "#d9822b", L0: "#2ca02c", L: "#3b82c4", missed: "#e0403a", alarm: "#3b82c4" };

  function mount(root, payload) {
    const C = window.kpcaLabCore, R = window.kpcaRobust, el = C.el, n = payload.n;
    const draws = new R.Draws(payload);
    const initial = Object.assign({}, payload.settings), settings = Object.assign({}, initial);
    let problem = null, problemKey = "", shown = null;

    // ------------------------------------------------------------ controls
    const logPosition = (value) => Math.log10(value).toFixed(2);
    const [low, high] = payload.lam_factor_range;
    const lamSlider = C.slider({
      label: "λ·√n", min: logPosition(low), max: logPosition(high), step: 0.01, value: logPosition(settings.lam_factor),
      format: () => C.formatNumber(settings.lam_factor, 3),
      onInput: (position) => { settings.lam_factor = Number(Math.pow(10, position).toPrecision(3)); runner.move("lambda"); },
    });
    const rankSlider = C.slider({
      label: "rank of L₀", min: 1, max: payload.max_rank, value: settings.rank, format: (p) => String(p),
      onInput: (position) => { settings.rank = position; runner.move("rank"); },
    });
    const corruptionSlider = C.slider({
      label: "corrupted fraction", min: 0, max: Math.round(100 * payload.max_corruption), value: Math.round(100 * settings.corruption),
      format: (p) => (p / 100).toFixed(2),
      onInput: (position) => { settings.corruption = position / 100; runner.move("corruption"); },
    });
    const reset = C.button("reset to the appendix's setting", () => set(initial, "reset"));
    const controls = el("div", { class: "kpca-lab-controls" }, lamSlider.row, rankSlider.row, corruptionSlider.row,
      el("div", { class: "kpca-lab-buttons" }, reset));
    const main = el("div", { class: "kpca-lab-main" }), side = el("div", { class: "kpca-lab-side" });
    root.append(controls, el("div", { class: "kpca-lab-body" }, main, side));
    const redraw = () => { if (shown) draw(); };
    const entries = new C.Panel(main, {
      label: "every entry of the L found against the same entry of L0", height: (w) => Math.min(w, 480), draw: redraw,
    });
    const numbers = C.numbersBox(side);
    const spectrum = new C.Panel(side, { label: "the singular values of M, of L0 and of the L found, on a log scale", height: () => 220, draw: redraw });
    side.append(C.legend([
      { label: "M", swatch: "disc", color: COLOURS.M },
      { label: "L₀", swatch: "ring", color: COLOURS.L0 },
      { label: "L found", swatch: "cross", color: COLOURS.L },
    ]));
    const support = new C.Panel(side, {
      label: "the support of S: which entries S marks as corrupted, against the truth", height: (w) => Math.min(w, 300) + 30, draw: redraw,
    });
    const supportLegend = el("div");
    side.append(supportLegend);

    // ------------------------------------------------------------ drawing
    function drawEntries() {
      const { L } = shown.result, L0 = problem.L0, ink = C.ink();
      entries.begin();
      let largest = 0;
      for (const v of L0) largest = Math.max(largest, Math.abs(v));
      const limit = Number((1.25 * largest).toPrecision(2)), side = Math.min(entries.width - 72, entries.cssHeight - 64);
      const axes = new C.Axes(entries, { left: 52, top: 26, width: side, height: side }, { xlim: [-limit, limit], ylim: [-limit, limit] });
      axes.decorate({ title: "L found (up) against L₀", xlabel: "entry of L₀" });
      axes.clip((ctx) => {
        ctx.strokeStyle = ink.muted;
        ctx.beginPath(); ctx.moveTo(axes.x(-limit), axes.y(-limit)); ctx.lineTo(axes.x(limit), axes.y(limit)); ctx.stroke();
        const xs = new Float64Array(n * n), ys = new Float64Array(n * n);
        for (let t = 0; t < n * n; t++) {
          xs[t] = axes.x(L0[t]);
          ys[t] = axes.y(Math.max(-limit, Math.min(limit, L[t]))); // beyond the frame: drawn at its edge
        }
        ctx.globalAlpha = 0.6;
        C.discs(ctx, xs, ys, n * n, 1.6, COLOURS.L);
        ctx.globalAlpha = 1;
      });
    }

    function drawSpectrum() {
      const { sigmaM, sigmaL } = shown.result, sigmaL0 = problem.sigmaL0;
      spectrum.begin();
      const top = Math.max(sigmaM[0], sigmaL.length ? sigmaL[0] : 0, sigmaL0[0]);
      const floor = top * 1e-4;
      const axes = new C.Axes(spectrum, { left: 48, top: 26, width: spectrum.width - 60, height: spectrum.cssHeight - 66 },
        { xlim: [0, n + 1], ylim: [floor, top * 2], ylog: true });
      axes.decorate({ title: "singular values σᵢ", xlabel: "index i" });
      axes.clip((ctx) => {
        const at = (values) => [values.map((_, i) => axes.x(i + 1)), values.map((v) => axes.y(Math.max(v, floor)))];
        const [mx, my] = at(Array.from(sigmaM));
        C.discs(ctx, mx, my, mx.length, 2.2, COLOURS.M);
        ctx.strokeStyle = COLOURS.L0;
        ctx.lineWidth = 1.5;
        Array.from(sigmaL0).forEach((v, i) => { ctx.beginPath(); ctx.arc(axes.x(i + 1), axes.y(v), 4.5, 0, 2 * Math.PI); ctx.stroke(); });
        Array.from(sigmaL).forEach((v, i) => C.cross(ctx, axes.x(i + 1), axes.y(Math.max(v, floor)), 3.5, COLOURS.L, 1.5));
      });
    }

    const bitmap = document.createElement("canvas");
    bitmap.width = n;
    bitmap.height = n;
    /** [r, g, b] of any CSS colour (painted on the bitmap's first pixel and read back). */
    function toRgb(colour) {
      const context = bitmap.getContext("2d", { willReadFrequently: true });
      context.fillStyle = colour;
      context.fillRect(0, 0, 1, 1);
      return Array.from(context.getImageData(0, 0, 1, 1).data.slice(0, 3));
    }

    function supportColours() {
      const ink = C.ink();
      return [ink.grid, ink.strong, COLOURS.missed, COLOURS.alarm];
    }

    function drawSupport() {
      const { comparison } = shown, ink = C.ink(), colours = supportColours();
      const ctx = support.begin(), size = Math.min(support.width, 300), left = 0, top = 24;
      ctx.fillStyle = ink.text;
      ctx.textBaseline = "bottom";
      C.fitTitle(ctx, "support of S (|Sᵢⱼ| > ½) against the truth", left, top - 6, support.width - left - 2);
      // one pixel per entry, scaled up without smoothing: a square per entry
      const image = new ImageData(n, n), rgb = colours.map(toRgb);
      comparison.support.forEach((k, t) => { image.data.set(rgb[k], 4 * t); image.data[4 * t + 3] = 255; });
      bitmap.getContext("2d").putImageData(image, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(bitmap, left, top, size, size);
      ctx.strokeStyle = ink.frame;
      ctx.strokeRect(left, top, size, size);
      const labels = ["clean", "corrupted, found", "corrupted, missed", "clean, flagged"];
      supportLegend.replaceChildren(C.legend(labels.map((label, k) => ({ label, swatch: "disc", color: colours[k] }))));
    }

    function drawNumbers() {
      const { split, comparison, done } = shown, last = split.nIter - 1;
      // the tolerance beside the residuals: "not converged" next to 6.0e-7 reads as a bug unless
      // the reader sees that both must reach it
      const residuals = last >= 0 ? "residuals " + split.primal[last].toExponential(1) + " (primal), " + split.dual[last].toExponential(1) + " (dual); converged when both ≤ " + split.tol.toExponential(0) : "";
      const status = done ? (split.converged ? "converged in " + split.nIter + " sweeps" : "stopped at " + split.nIter + " sweeps, not converged")
        : "sweep " + split.nIter + " …";
      numbers.setAttribute("aria-busy", String(!done)); // read out once, when the sweeps end
      numbers.classList.remove("kpca-lab-pending");
      numbers.replaceChildren(
        el("div", { text: "λ = " + C.formatNumber(settings.lam_factor, 3) + "/√" + n + ": " + status }),
        el("div", { class: "kpca-lab-small", text: residuals }),
        el("div", { class: "kpca-lab-kernel", text: "relative error of L: " + comparison.relativeError.toExponential(1) }),
        el("div", { text: "rank of L: " + split.rank + " (L₀: " + problem.rank + ")" }),
        el("div", { text: "corrupted entries found: " + comparison.found + " of " + problem.nCorrupted + "; false alarms: " + comparison.falseAlarms }),
      );
    }

    function draw() {
      drawEntries();
      drawSpectrum();
      drawSupport();
      drawNumbers();
    }

    // ----------------------------------------------------------- computing
    function start() {
      const k = Math.round(settings.corruption * n * n), key = settings.rank + ":" + k;
      if (key !== problemKey) {
        problem = draws.matrix(settings.rank, k);
        problemKey = key;
      }
      return new R.Split(problem.M, n, settings.lam_factor / Math.sqrt(n),
        { tol: payload.tol, maxIter: payload.max_iter, rho: payload.rho, sigmaM: problem.sigmaM });
    }

    const runner = C.progressive({
      start, step: (split) => split.step(), drawEvery: 50, // 20 drawings a second while the sweeps run
      // a move: the numbers shown are the old setting's until the new one's first drawing (dimmed)
      pending: () => { numbers.classList.add("kpca-lab-pending"); numbers.setAttribute("aria-busy", "true"); },
      draw: (split, done) => {
        const result = split.result();
        shown = { split, result, done, comparison: R.compare(problem, result, payload.flag) };
        draw();
      },
    });

    function set(changes, control) {
      Object.assign(settings, changes);
      lamSlider.set(logPosition(settings.lam_factor));
      rankSlider.set(settings.rank);
      corruptionSlider.set(Math.round(100 * settings.corruption));
      runner.move(control || "set");
      return runner.whenIdle();
    }
    C.onThemeChange(redraw);
    runner.move("load");
    return {
      timings: runner.timings, set, reset: () => set(initial, "reset"), whenIdle: runner.whenIdle,
      get state() {
        const split = runner.job(), result = split.result(), comparison = R.compare(problem, result, payload.flag);
        return {
          lam_factor: settings.lam_factor, lam: split.lam, rank: problem.rank, n_corrupted: problem.nCorrupted,
          M: Array.from(problem.M), L: Array.from(result.L), S: Array.from(result.S),
          sigma_M: Array.from(result.sigmaM), sigma_L: Array.from(result.sigmaL), sigma_L0: Array.from(problem.sigmaL0),
          n_iter: split.nIter, converged: split.converged, rank_L: split.rank,
          relative_error: comparison.relativeError, found: comparison.found, false_alarms: comparison.falseAlarms,
          primal: split.primal[split.nIter - 1], dual: split.dual[split.nIter - 1],
        };
      },
    };
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {})["robust-pca"] = mount;
})();
