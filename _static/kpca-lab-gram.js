/* Chapter 3's Gram-spectrum lab: the Gaussian Gram matrix of the chapter's
 * points, all its eigenvalues, and the kernel against the squared distance
 * over the data's squared distances, for any width c, computed in the page
 * (kpca_lib.explorers.labs.gram_spectrum_lab writes the data; the library's
 * counterparts are kpca_lib.explorers.gram_spectrum, squared_distance_scales
 * and draw_gram_spectrum, the precomputed explorer's drawing).
 */
(function () {
  "use strict";

  // matplotlib's viridis at nine stops, interpolated linearly
  const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];
  function colormap() {
    const stops = VIRIDIS.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
    const table = new Uint8ClampedArray(256 * 3);
    for (let v = 0; v < 256; v++) {
      const position = (v / 255) * (stops.length - 1);
      const i = Math.min(Math.floor(position), stops.length - 2), f = position - i;
      for (let k = 0; k < 3; k++) table[v * 3 + k] = Math.round(stops[i][k] * (1 - f) + stops[i + 1][k] * f);
    }
    return table;
  }

  /** The median of the values, as numpy's: the mean of the two middle ones for an even count. */
  function median(values) {
    const sorted = Float64Array.from(values).sort(), middle = sorted.length >> 1;
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  /** The squared distances of all pairs i < j, and the two scales of squared_distance_scales. */
  function squaredDistances(X, n, d) {
    const pairs = new Float64Array((n * (n - 1)) / 2), nearest = new Float64Array(n).fill(Infinity);
    let p = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let r = 0;
        for (let k = 0; k < d; k++) { const t = X[i * d + k] - X[j * d + k]; r += t * t; }
        pairs[p++] = r;
        if (r < nearest[i]) nearest[i] = r;
        if (r < nearest[j]) nearest[j] = r;
      }
    }
    return { pairs, nearest: median(nearest), median: median(pairs) };
  }

  function mount(root, payload) {
    const N = window.kpcaNumerics, C = window.kpcaLabCore, el = C.el;
    const d = payload.n_features;
    const X = C.matrix(payload.X), n = X.length / d;
    const settings = Object.assign({}, payload.settings);
    const table = colormap();
    const distances = squaredDistances(X, n, d);
    let smallest = Infinity, largest = 0; // of the positive squared distances
    for (const r of distances.pairs) { if (r > 0) smallest = Math.min(smallest, r); largest = Math.max(largest, r); }
    let result = null;

    function compute() {
      const K = N.gaussianGram(X, n, d, settings.c);
      const eigenvalues = N.symmetricEigenvalues(K, n);
      result = { c: settings.c, K, eigenvalues };
    }

    const controls = el("div", { class: "kpca-lab-controls" });
    const left = el("div", { class: "kpca-lab-main" });
    const right = el("div", { class: "kpca-lab-side" });
    root.append(controls, el("div", { class: "kpca-lab-body" }, left, right));
    const cSlider = C.widthSlider(settings, payload.c_range, () => lab.move("c"));
    const reset = C.button("reset to the chapter's setting", () => lab.reset());
    controls.append(cSlider.row, el("div", { class: "kpca-lab-buttons" }, reset));

    const matrixPanel = new C.Panel(left, {
      label: "the Gram matrix K as an image", height: (width) => Math.min(width - 70, 406) + 34, draw: () => draw(),
    });
    const numbers = C.numbersBox(right);
    const spectrumPanel = new C.Panel(right, {
      label: "the eigenvalues of K on a log scale, those below the round-off level on its grey band", height: (width) => Math.min(300, Math.max(220, width * 0.7)), draw: () => draw(),
    });
    const profilePanel = new C.Panel(right, {
      label: "the kernel against the squared distance, over the histogram of the data's squared distances",
      height: (width) => Math.min(260, Math.max(200, width * 0.62)), draw: () => draw(),
    });
    right.append(C.legend([
      { label: "kernel e^(−r/c); the dot at r = c", swatch: "line", color: "#1f77b4" },
      { label: "the data's squared distances", swatch: "line", ink: "faint" },
      { label: "median to the nearest neighbour", swatch: "line", color: "#ff7f0e" },
      { label: "median over all pairs", swatch: "line", color: "#d62728" },
    ]));

    function drawMatrix() {
      const ctx = matrixPanel.begin();
      const { K } = result;
      let low = 0, high = 1;
      for (let i = 0; i < n * n; i++) { low = Math.min(low, K[i]); high = Math.max(high, K[i]); }
      const image = new ImageData(n, n);
      for (let i = 0; i < n * n; i++) {
        const v = Math.round((255 * (K[i] - low)) / (high - low));
        image.data[4 * i] = table[3 * v];
        image.data[4 * i + 1] = table[3 * v + 1];
        image.data[4 * i + 2] = table[3 * v + 2];
        image.data[4 * i + 3] = 255;
      }
      const bitmap = document.createElement("canvas");
      bitmap.width = n;
      bitmap.height = n;
      bitmap.getContext("2d").putImageData(image, 0, 0);
      const size = Math.min(matrixPanel.width - 70, matrixPanel.cssHeight - 34);
      const left = 8, top = 26;
      ctx.imageSmoothingEnabled = false; // one square per entry, not a blur
      ctx.drawImage(bitmap, left, top, size, size);
      ctx.fillStyle = C.ink().strong;
      ctx.textBaseline = "bottom";
      C.fitTitle(ctx, "Gram matrix K (" + n + " × " + n + ")", left, top - 6, matrixPanel.width - left - 2);
      // colour bar
      const barLeft = left + size + 12, barWidth = 14;
      for (let p = 0; p < size; p++) {
        const v = Math.round(255 * (1 - p / (size - 1)));
        ctx.fillStyle = "rgb(" + table[3 * v] + "," + table[3 * v + 1] + "," + table[3 * v + 2] + ")";
        ctx.fillRect(barLeft, top + p, barWidth, 1.5);
      }
      ctx.font = C.FONT;
      ctx.fillStyle = C.ink().text;
      ctx.textBaseline = "middle";
      ctx.fillText(C.formatNumber(high, 3), barLeft + barWidth + 4, top + 6);
      ctx.fillText(C.formatNumber(low, 3), barLeft + barWidth + 4, top + size - 6);
    }

    function drawSpectrum() {
      const panel = spectrumPanel;
      panel.begin();
      const { eigenvalues } = result;
      let largest = 1;
      for (const v of eigenvalues) largest = Math.max(largest, Math.abs(v));
      // below the round-off level (kpca_lib.plotting.roundoff_level: n eps max(1, max |eigenvalue|))
      // an eigenvalue's size and sign are noise: such values are drawn on the floor, in a grey band
      const floor = n * 2.220446049250313e-16 * largest;
      const axes = new C.Axes(panel, { left: 52, top: 26, width: panel.width - 70, height: panel.cssHeight - 70 },
        { xlim: [0, n + 1], ylim: [floor / 1000, 2 * largest], ylog: true });
      const ctx = panel.ctx;
      ctx.fillStyle = C.ink().grid;
      ctx.fillRect(axes.left, axes.y(floor), axes.width, axes.y(floor / 1000) - axes.y(floor));
      axes.decorate({ title: "its eigenvalues, largest first", xlabel: "eigenvalue number j" });
      ctx.font = C.FONT;
      ctx.fillStyle = C.ink().text;
      ctx.textAlign = "left";
      ctx.textBaseline = "bottom";
      ctx.fillText("round-off level", axes.left + 6, axes.top + axes.height - 3);
      axes.clip((ctx) => {
        ctx.strokeStyle = "#1f77b4";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        eigenvalues.forEach((v, k) => {
          const x = axes.x(k + 1), y = axes.y(Math.max(v, floor));
          if (k) ctx.lineTo(x, y); else ctx.moveTo(x, y);
        });
        ctx.stroke();
        const xs = new Float64Array(n), ys = new Float64Array(n);
        eigenvalues.forEach((v, k) => { xs[k] = axes.x(k + 1); ys[k] = axes.y(Math.max(v, floor)); });
        C.discs(ctx, xs, ys, n, n > 150 ? 1.5 : 2.5, "#1f77b4");
      });
    }

    function drawProfile() {
      const panel = profilePanel, c = settings.c;
      panel.begin();
      // the range of the library's plot_kernel_profile, the same for every c that fits in it
      // (and around c alone when every pair coincides: no distances to show)
      const [shortest, longest] = largest > 0 ? [smallest, largest] : [c, c];
      const low = Math.min(shortest / 10, c / 3), high = Math.max(longest * 100, 3 * c);
      const bins = 40, counts = new Float64Array(bins), span = Math.log(high / low);
      for (const r of distances.pairs) {
        if (r > 0) counts[Math.min(bins - 1, Math.floor((Math.log(r / low) / span) * bins))]++;
      }
      const tallest = Math.max(1, ...counts);
      const edge = (i) => low * Math.exp((span * i) / bins);
      const axes = new C.Axes(panel, { left: 40, top: 26, width: panel.width - 52, height: panel.cssHeight - 70 },
        { xlim: [low, high], ylim: [0, 1.05], xlog: true });
      axes.decorate({ title: "the kernel value against r", xlabel: "squared distance r = ‖x − y‖²", yticks: [0, 0.5, 1] });
      axes.clip((ctx) => {
        ctx.fillStyle = C.ink().faint;
        for (let i = 0; i < bins; i++) {
          if (!counts[i]) continue;
          const x0 = axes.x(edge(i)), x1 = axes.x(edge(i + 1)), y = axes.y(counts[i] / tallest);
          ctx.fillRect(x0, y, x1 - x0, axes.y(0) - y);
        }
        for (const [value, color, dash] of [[distances.nearest, "#ff7f0e", [5, 4]], [distances.median, "#d62728", [2, 3]]]) {
          ctx.strokeStyle = color;
          ctx.lineWidth = 1.5;
          ctx.setLineDash(dash);
          ctx.beginPath(); ctx.moveTo(axes.x(value), axes.top); ctx.lineTo(axes.x(value), axes.top + axes.height); ctx.stroke();
        }
        ctx.setLineDash([]);
        ctx.strokeStyle = "#1f77b4";
        ctx.lineWidth = 2;
        ctx.beginPath();
        for (let i = 0; i <= 200; i++) {
          const r = low * Math.exp((span * i) / 200), x = axes.x(r), y = axes.y(Math.exp(-r / c));
          if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y);
        }
        ctx.stroke();
        // at r = c the kernel has fallen to 1/e: that is what the width means
        C.discs(ctx, [axes.x(c)], [axes.y(Math.exp(-1))], 1, 4, "#1f77b4");
        ctx.font = C.FONT;
        ctx.fillStyle = C.ink().text;
        ctx.textAlign = "right";
        ctx.textBaseline = "middle";
        ctx.fillText("r = c ", axes.x(c) - 4, axes.y(Math.exp(-1)));
      });
    }

    function drawNumbers() {
      const { eigenvalues } = result;
      let sum = 0, above = 0;
      for (const v of eigenvalues) { sum += v; if (v > 0.01) above++; }
      numbers.replaceChildren(
        el("div", { text: "c = " + C.formatNumber(settings.c, 3) + ": largest eigenvalue " + eigenvalues[0].toFixed(3) }),
        el("div", { text: "eigenvalues above 0.01: " + above + " of " + n }),
        el("div", { text: "their sum, tr K = n: " + sum.toFixed(3) }),
        el("div", { text: "c = " + C.formatNumber(settings.c / distances.median, 2) + " × the median squared distance (" + C.formatNumber(distances.median, 3) + ")" }),
      );
    }

    function draw() {
      if (!result) return;
      drawMatrix();
      drawSpectrum();
      drawProfile();
      drawNumbers();
    }

    const lab = C.instantLab({
      settings,
      initial: Object.assign({}, payload.settings),
      update: () => { compute(); draw(); },
      redraw: draw,
      sync: () => cSlider.sync(),
      state: () => ({
        c: result.c, n, K: Array.from(result.K), eigenvalues: Array.from(result.eigenvalues),
        scales: [distances.nearest, distances.median],
      }),
    });
    lab.move("load");
    return lab;
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {})["gram-spectrum"] = mount;
})();
