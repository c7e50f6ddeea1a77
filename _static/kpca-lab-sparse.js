/* Appendix A's sparse PCA lab: the loadings of SparsePCA on the planted
 * topics as a heat map (components x words), the reconstruction R^2 and the
 * non-zero loadings of each component, for any alpha and q, computed in the
 * page (kpca-lab-sparse-model.js; kpca_lib.explorers.sparse_pca_lab writes
 * the data). The sweeps run in slices of a few ms and are drawn as they come
 * (kpca-labs-progressive.js), so the page answers a move at once.
 */
(function () {
  "use strict";

  // diverging, with exact zero = the background: the sparsity pattern is what shows
  const ENDS = { light: { positive: [178, 24, 43], negative: [33, 102, 172] },
                 dark: { positive: [244, 140, 110], negative: [110, 175, 228] } };
  const V_MAX = 0.5; // |loading| at full colour (a topic's 8 equal loadings are 0.35)

  function rgb(hex) {
    const h = hex.length === 4 ? hex.replace(/#(.)(.)(.)/, "#$1$1$2$2$3$3") : hex;
    return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  }

  /** The colour of a loading: the background at 0, a tint from 15 % for any non-zero, full at |v| >= V_MAX. */
  function loadingColour(v, C) {
    if (v === 0) return C.ink().background;
    const end = (C.isDark() ? ENDS.dark : ENDS.light)[v > 0 ? "positive" : "negative"];
    const back = rgb(C.ink().background), f = 0.15 + 0.85 * Math.min(Math.abs(v) / V_MAX, 1);
    return "rgb(" + back.map((b, i) => Math.round(b + f * (end[i] - b))).join(",") + ")";
  }

  function mount(root, payload) {
    const C = window.kpcaLabCore, M = window.kpcaSparse, el = C.el;
    const n = payload.n_samples, d = payload.n_features, words = payload.words;
    const data = M.dataFromBits(payload.X_bits, n, d);
    const steps = payload.alpha_steps_per_unit, size = payload.topic_size, topics = payload.topics;
    const initial = Object.assign({}, payload.settings), settings = Object.assign({}, initial);
    let shown = null; // {fit, result} of the last drawing

    const controls = el("div", { class: "kpca-lab-controls" });
    const alphaSlider = C.slider({
      label: "penalty α", min: 0, max: Math.round(payload.alpha_max * steps), value: Math.round(settings.alpha * steps),
      format: () => C.formatNumber(settings.alpha, 3),
      onInput: (position) => { settings.alpha = position / steps; runner.move("alpha"); },
    });
    const qSlider = C.slider({
      label: "components q", min: 1, max: payload.max_components, value: settings.n_components,
      format: (position) => String(position),
      onInput: (position) => { settings.n_components = position; runner.move("q"); },
    });
    const reset = C.button("reset to the appendix's setting", () => set(initial, "reset"));
    controls.append(alphaSlider.row, qSlider.row, el("div", { class: "kpca-lab-buttons" }, reset));
    const main = el("div", { class: "kpca-lab-main" }), side = el("div", { class: "kpca-lab-side" });
    main.style.maxWidth = "none"; // the heat map takes the lab's full width, the rest goes below
    main.style.flexBasis = "100%";
    side.style.maxWidth = "560px";
    root.append(controls, el("div", { class: "kpca-lab-body" }, main, side));
    const redraw = () => { if (shown) draw(); };
    const wide = (width) => width >= 640;
    const heat = new C.Panel(main, {
      label: "the unit loadings as a heat map: one row per component, one column per word, grouped by topic",
      height: (width) => (wide(width) ? 124 + 30 * payload.max_components : 84 + 17 * d), draw: redraw,
    });
    const numbers = C.numbersBox(side);
    const bars = new C.Panel(side, {
      label: "the number of non-zero loadings of each component", height: () => 190, draw: redraw,
    });

    function drawHeat() {
      const ctx = heat.begin(), ink = C.ink(), { components } = shown.result, q = shown.fit.q;
      const isWide = wide(heat.width);
      // the map's box: words along x (wide) or along y (narrow), components along the other
      const box = isWide
        ? { left: 34, top: 48, width: heat.width - 44, height: 30 * payload.max_components }
        : { left: 84, top: 44, width: Math.min(heat.width - 150, 60 * q), height: 17 * d };
      const wordStep = (isWide ? box.width : box.height) / d, compStep = (isWide ? box.height : box.width) / q;
      const cell = (k, j) => (isWide
        ? [box.left + j * wordStep, box.top + k * compStep, wordStep, compStep]
        : [box.left + k * compStep, box.top + j * wordStep, compStep, wordStep]);
      for (let k = 0; k < q; k++) {
        for (let j = 0; j < d; j++) {
          const [x, y, w, h] = cell(k, j);
          ctx.fillStyle = loadingColour(components[k * d + j], C);
          ctx.fillRect(x, y, w + 0.5, h + 0.5);
        }
      }
      ctx.strokeStyle = ink.frame;
      ctx.lineWidth = 1;
      ctx.strokeRect(box.left, box.top, box.width, box.height);
      ctx.font = C.FONT;
      ctx.fillStyle = ink.text;
      ctx.textBaseline = "middle";
      // the blocks of the topics, then the filler words
      const groups = topics.map((t, g) => [t, g * size, size]).concat([["filler words", topics.length * size, d - topics.length * size]]);
      ctx.textAlign = "center";
      for (const [name, first, count] of groups) {
        const along = (first + count / 2) * wordStep;
        if (first > 0) {
          ctx.beginPath();
          if (isWide) { ctx.moveTo(box.left + first * wordStep, box.top - 22); ctx.lineTo(box.left + first * wordStep, box.top + box.height); }
          else { ctx.moveTo(box.left, box.top + first * wordStep); ctx.lineTo(box.left + box.width + 60, box.top + first * wordStep); }
          ctx.stroke();
        }
        ctx.font = C.TITLE_FONT;
        if (isWide) ctx.fillText(name, box.left + along, box.top - 12);
        else {
          ctx.save();
          ctx.translate(box.left + box.width + 20, box.top + along);
          ctx.rotate(Math.PI / 2);
          ctx.fillText(name, 0, 0);
          ctx.restore();
        }
      }
      ctx.font = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
      for (let j = 0; j < d; j++) {
        ctx.save();
        if (isWide) {
          ctx.translate(box.left + (j + 0.5) * wordStep, box.top + box.height + 4);
          ctx.rotate(-Math.PI / 2);
          ctx.textAlign = "right";
          ctx.fillText(words[j], 0, 0);
        } else {
          ctx.textAlign = "right";
          ctx.fillText(words[j], box.left - 6, box.top + (j + 0.5) * wordStep);
        }
        ctx.restore();
      }
      ctx.font = C.FONT;
      ctx.textAlign = "center";
      for (let k = 0; k < q; k++) {
        if (isWide) ctx.fillText(String(k + 1), box.left - 14, box.top + (k + 0.5) * compStep);
        else ctx.fillText(String(k + 1), box.left + (k + 0.5) * compStep, box.top - 12);
      }
      ctx.textAlign = "left";
      ctx.font = C.TITLE_FONT;
      ctx.fillText(isWide ? "component" : "comp.", isWide ? 4 : box.left, isWide ? 14 : 14);
      drawColourBar(ctx, isWide ? heat.width - 330 : 8, isWide ? 14 : heat.cssHeight - 16);
    }

    function drawColourBar(ctx, left, middle) {
      const ink = C.ink(), width = 120;
      for (let p = 0; p < width; p++) {
        ctx.fillStyle = loadingColour(((p - width / 2) / (width / 2)) * V_MAX, C);
        ctx.fillRect(left + 40 + p, middle - 6, 1.5, 12);
      }
      ctx.strokeStyle = ink.frame;
      ctx.strokeRect(left + 40, middle - 6, width, 12);
      ctx.font = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
      ctx.fillStyle = ink.text;
      ctx.textAlign = "right";
      ctx.fillText("−" + V_MAX, left + 36, middle);
      ctx.textAlign = "left";
      ctx.fillText("+" + V_MAX + " (0: exactly zero)", left + 44 + width, middle);
    }

    function drawBars() {
      const { nonzero } = shown.result, q = shown.fit.q, ink = C.ink();
      bars.begin();
      const axes = new C.Axes(bars, { left: 40, top: 26, width: bars.width - 52, height: bars.cssHeight - 66 },
        { xlim: [0.4, q + 0.6], ylim: [0, d] });
      const xticks = Array.from({ length: q }, (_, k) => k + 1);
      axes.decorate({ title: "non-zero loadings per component", xlabel: "component", xticks, yticks: [0, size, 4 * size, d] });
      axes.clip((ctx) => {
        ctx.fillStyle = ENDS[C.isDark() ? "dark" : "light"].positive.reduce((s, v, i) => s + (i ? "," : "") + v, "rgb(") + ")";
        const barWidth = Math.min(40, (axes.width / q) * 0.6);
        for (let k = 0; k < q; k++) ctx.fillRect(axes.x(k + 1) - barWidth / 2, axes.y(nonzero[k]), barWidth, axes.y(0) - axes.y(nonzero[k]));
        ctx.strokeStyle = ink.muted;
        ctx.setLineDash([4, 4]);
        ctx.beginPath(); ctx.moveTo(axes.left, axes.y(size)); ctx.lineTo(axes.left + axes.width, axes.y(size)); ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = ink.strong;
        ctx.font = C.FONT;
        ctx.textAlign = "center";
        for (let k = 0; k < q; k++) ctx.fillText(String(nonzero[k]), axes.x(k + 1), Math.max(axes.top + 8, axes.y(nonzero[k]) - 8));
      });
    }

    function drawNumbers(done) {
      const { fit, result } = shown, total = Array.from(result.nonzero).reduce((a, b) => a + b, 0);
      const status = done
        ? (fit.converged ? "converged in " + fit.nIter + " sweeps" : "stopped at " + fit.nIter + " sweeps, not converged")
        : "sweep " + fit.nIter + " …";
      numbers.setAttribute("aria-busy", String(!done)); // read out once, when the sweeps end
      numbers.classList.remove("kpca-lab-pending");
      numbers.replaceChildren(
        el("div", { text: "α = " + C.formatNumber(fit.alpha, 3) + ", q = " + fit.q + ": " + status }),
        el("div", { class: "kpca-lab-kernel", text: "reconstruction R² = " + result.r2.toFixed(3) }),
        el("div", { text: "PCA with q = " + fit.q + " (α = 0): R² = " + data.pcaR2(fit.q).toFixed(3) }),
        el("div", { text: "non-zero loadings: " + total + " of " + fit.q * d + " (" + Array.from(result.nonzero).join(", ") + ")" }),
        // two decimals always: "1588.1" beside "1597.44" read as two precisions
        el("div", { text: "objective f = " + fit.history[fit.history.length - 1].toFixed(2) }),
      );
    }

    function draw(done) {
      drawHeat();
      drawBars();
      drawNumbers(done === undefined ? shown.done : done);
    }

    const runner = C.progressive({
      start: () => new M.Fit(data, settings.alpha, settings.n_components, payload.max_iter, payload.tol),
      step: (fit) => fit.step(),
      draw: (fit, done) => { shown = { fit, result: fit.result(), done }; draw(done); },
      // a move: the numbers shown are the old setting's until the new one's first drawing (dimmed)
      pending: () => { numbers.classList.add("kpca-lab-pending"); numbers.setAttribute("aria-busy", "true"); },
    });

    function set(changes, control) {
      Object.assign(settings, changes);
      alphaSlider.set(Math.round(settings.alpha * steps));
      qSlider.set(settings.n_components);
      runner.move(control || "set");
      return runner.whenIdle();
    }
    C.onThemeChange(redraw);
    runner.move("load");
    return {
      timings: runner.timings, set, reset: () => set(initial, "reset"), whenIdle: runner.whenIdle,
      get state() {
        const fit = runner.job(), result = fit.result();
        return {
          alpha: fit.alpha, n_components: fit.q, n_iter: fit.nIter, converged: fit.converged,
          components: Array.from(result.components), n_nonzero: Array.from(result.nonzero), r2: result.r2,
          pca_r2: data.pcaR2(fit.q), objective: fit.history[fit.history.length - 1],
        };
      },
    };
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {})["sparse-pca"] = mount;
})();
