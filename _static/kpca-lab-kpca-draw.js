/* Chapter 4's kernel PCA lab: its drawings (kpca-lab-kpca.js computes and
 * calls them). The plane with one component's value as a heat map under the
 * points, the points on two components, and the eigenvalue spectrum. Data
 * colours: the classes in matplotlib's tab10 (as the chapter's figures), the
 * map from blue (negative) through the page's background (zero) to red
 * (positive); everything else from kpcaLabCore.ink(), so that the lab reads
 * on the light and the dark theme.
 */
(function () {
  "use strict";
  const CLASS_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c"];
  const NEGATIVE = [59, 76, 192], POSITIVE = [180, 4, 38]; // coolwarm's ends

  function rgb(hex) {
    const h = hex.replace("#", "");
    const full = h.length === 3 ? h.split("").map((ch) => ch + ch).join("") : h;
    return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  }

  /** The largest absolute value, or 1 when all are 0. */
  function largestAbs(values) {
    let top = 0;
    for (const v of values) top = Math.max(top, Math.abs(v));
    return top || 1;
  }

  /** Axes limits holding the values, with a margin; equal when they all coincide. */
  function limits(values) {
    let low = Infinity, high = -Infinity;
    for (const v of values) { low = Math.min(low, v); high = Math.max(high, v); }
    if (!isFinite(low)) return [-1, 1];
    const margin = Math.max(high - low, 1e-12 * Math.max(1, Math.abs(high))) * 0.06;
    return [low - margin, high + margin];
  }

  /** Training points as filled discs, held-out points as rings, by class; outlined in the background. */
  function points(ctx, axes, X, y, count, heldOut, stride, offset) {
    const C = window.kpcaLabCore, background = C.ink().background;
    const r = count > 400 ? 2.6 : 3.2;
    for (let cls = 0; cls < CLASS_COLORS.length; cls++) {
      ctx.beginPath();
      for (let i = 0; i < count; i++) {
        if (y[i] !== cls) continue;
        const px = axes.x(X[i * stride + offset[0]]), py = axes.y(X[i * stride + offset[1]]);
        ctx.moveTo(px + r, py);
        ctx.arc(px, py, r, 0, 2 * Math.PI);
      }
      ctx.lineWidth = heldOut ? 3.2 : 1.2;
      ctx.strokeStyle = background;
      ctx.stroke();
      if (heldOut) {
        ctx.lineWidth = 1.4;
        ctx.strokeStyle = CLASS_COLORS[cls];
        ctx.stroke();
      } else {
        ctx.fillStyle = CLASS_COLORS[cls];
        ctx.fill();
      }
    }
  }

  /**
   * The plane: the value of component `component` (1-based) on the n_grid x
   * n_grid grid as a heat map, the points, and in drawing mode the keyboard's
   * cursor. view: {panel, extent, data, grid: {values, size, stride}, component,
   * cursor, drawing}.
   */
  function drawPlane(view) {
    const C = window.kpcaLabCore, ink = C.ink(), panel = view.panel;
    const ctx = panel.begin();
    const side = Math.min(panel.width - 44 - 20, panel.cssHeight - 64);
    const [x0, x1, y0, y1] = view.extent;
    const axes = new C.Axes(panel, { left: 44, top: 26, width: side, height: side }, { xlim: [x0, x1], ylim: [y0, y1] });
    const grid = view.grid;
    if (grid) {
      const { values, size, stride } = grid, k = view.component - 1;
      const limit = largestAbs(Array.from({ length: size * size }, (_, i) => values[i * stride + k]));
      const image = new ImageData(size, size), base = rgb(ink.background);
      for (let row = 0; row < size; row++) {
        for (let col = 0; col < size; col++) {
          // grid row 0 is the bottom (y0): the image's top row is the last grid row
          const v = values[((size - 1 - row) * size + col) * stride + k] / limit;
          const end = v < 0 ? NEGATIVE : POSITIVE, t = Math.min(1, Math.abs(v));
          const at = 4 * (row * size + col);
          for (let ch = 0; ch < 3; ch++) image.data[at + ch] = Math.round(base[ch] + (end[ch] - base[ch]) * t);
          image.data[at + 3] = 255;
        }
      }
      const bitmap = document.createElement("canvas");
      bitmap.width = size;
      bitmap.height = size;
      bitmap.getContext("2d").putImageData(image, 0, 0);
      // each grid value is the colour of its cell centre: the image spans half a cell beyond the grid
      const cell = side / (size - 1);
      axes.clip((c) => {
        c.imageSmoothingEnabled = true;
        c.drawImage(bitmap, axes.left - cell / 2, axes.top - cell / 2, side + cell, side + cell);
      });
      view.mapLimit = limit;
    }
    axes.decorate({
      title: grid ? "component " + view.component + " over the plane" : "the points",
      xlabel: "x₁", grid: false,
    });
    ctx.save();
    ctx.font = C.FONT;
    ctx.fillStyle = ink.strong;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.translate(10, axes.top + axes.height / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText("x₂", 0, 0);
    ctx.restore();
    const data = view.data;
    axes.clip((c) => {
      points(c, axes, data.X, data.y, data.n, false, 2, [0, 1]);
      points(c, axes, data.Xt, data.yt, data.m, true, 2, [0, 1]);
      if (view.drawing && view.cursor && view.focused) {
        const px = axes.x(view.cursor[0]), py = axes.y(view.cursor[1]);
        c.strokeStyle = ink.strong;
        c.lineWidth = 1.5;
        c.beginPath();
        c.moveTo(px - 9, py); c.lineTo(px - 3, py); c.moveTo(px + 3, py); c.lineTo(px + 9, py);
        c.moveTo(px, py - 9); c.lineTo(px, py - 3); c.moveTo(px, py + 3); c.lineTo(px, py + 9);
        c.stroke();
      }
    });
    if (grid) colourBar(ctx, axes, view.mapLimit, ink);
    return axes;
  }

  function colourBar(ctx, axes, limit, ink) {
    const left = axes.left + axes.width + 6, width = 8, top = axes.top, height = axes.height, base = rgb(ink.background);
    for (let p = 0; p < height; p++) {
      const v = 1 - (2 * p) / (height - 1), end = v < 0 ? NEGATIVE : POSITIVE, t = Math.abs(v);
      const c = [0, 1, 2].map((ch) => Math.round(base[ch] + (end[ch] - base[ch]) * t));
      ctx.fillStyle = "rgb(" + c.join(",") + ")";
      ctx.fillRect(left, top + p, width, 1.5);
    }
    ctx.strokeStyle = ink.frame;
    ctx.strokeRect(left + 0.5, top + 0.5, width - 1, height - 1);
    ctx.save();
    ctx.font = window.kpcaLabCore.FONT;
    ctx.fillStyle = ink.text;
    ctx.textAlign = "left";
    ctx.textBaseline = "bottom";
    ctx.textAlign = "right";
    ctx.fillText("±" + window.kpcaLabCore.formatNumber(limit, 2), left + width, top - 4);
    ctx.restore();
  }

  /** The training (discs) and held-out (rings) points on components pair = [i, j] (1-based). */
  function drawProjections(view) {
    const C = window.kpcaLabCore, panel = view.panel, fit = view.fit;
    panel.begin();
    const [i, j] = view.pair, q = fit.q;
    const xs = [], ys = [];
    for (const [Z, rows] of [[fit.Z, fit.n], [fit.Zt, fit.m]]) {
      for (let r = 0; r < rows; r++) { xs.push(Z[r * q + i - 1]); ys.push(Z[r * q + j - 1]); }
    }
    const axes = new C.Axes(panel, { left: 52, top: 26, width: panel.width - 66, height: panel.cssHeight - 70 },
      { xlim: limits(xs), ylim: limits(ys) });
    axes.decorate({
      title: "components " + i + " (→) and " + j + " (↑)", xlabel: "component " + i,
    });
    axes.clip((ctx) => {
      points(ctx, axes, fit.Z, view.data.y, fit.n, false, q, [i - 1, j - 1]);
      points(ctx, axes, fit.Zt, view.data.yt, fit.m, true, q, [i - 1, j - 1]);
    });
  }

  /** The shares mu_k / trace of the leading eigenvalues, the first q in colour. */
  function drawSpectrum(view) {
    const C = window.kpcaLabCore, ink = C.ink(), panel = view.panel, fit = view.fit;
    panel.begin();
    const count = view.maxComponents, shares = Array.from(fit.eigenvalues, (mu) => mu / fit.trace);
    const top = Math.max(1e-12, ...shares) * 1.12;
    const axes = new C.Axes(panel, { left: 52, top: 26, width: panel.width - 66, height: panel.cssHeight - 70 },
      { xlim: [0.4, count + 0.6], ylim: [0, top] });
    const ticks = Array.from({ length: count }, (_, k) => k + 1).filter((k) => count <= 12 || k % 2 === 1);
    axes.decorate({ title: "share of the variance", xlabel: "component k", xticks: ticks });
    axes.clip((ctx) => {
      const width = Math.max(3, (axes.width / count) * 0.6);
      shares.forEach((share, k) => {
        ctx.fillStyle = k < view.q ? "#1f77b4" : ink.faint;
        const x = axes.x(k + 1), y = axes.y(share);
        ctx.fillRect(x - width / 2, y, width, axes.y(0) - y);
      });
      if (view.component <= shares.length) {
        // the component on the map, ringed
        const x = axes.x(view.component), y = axes.y(shares[view.component - 1]);
        ctx.strokeStyle = ink.strong;
        ctx.lineWidth = 1.5;
        ctx.strokeRect(x - width / 2 - 2, y - 2, width + 4, axes.y(0) - y + 2);
      }
    });
  }

  window.kpcaKernelPCALabDraw = { CLASS_COLORS, drawPlane, drawProjections, drawSpectrum, limits };
})();
