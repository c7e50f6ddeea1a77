/* Chapter 3's Gram-spectrum lab: the Gaussian Gram matrix of the chapter's
 * points and all its eigenvalues, for any width c, computed in the page
 * (kpca_lib.explorers.labs.gram_spectrum_lab writes the data; the library's
 * counterpart is kpca_lib.interactive.gram_spectrum).
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

  function mount(root, payload) {
    const N = window.kpcaNumerics, C = window.kpcaLabCore, el = C.el;
    const d = payload.n_features;
    const X = C.matrix(payload.X), n = X.length / d;
    const settings = Object.assign({}, payload.settings);
    const table = colormap();
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
    const numbers = el("div", { class: "kpca-lab-numbers", "aria-live": "polite" });
    right.append(numbers);
    const spectrumPanel = new C.Panel(right, {
      label: "the eigenvalues of K on a log scale", height: (width) => Math.min(300, Math.max(220, width * 0.7)), draw: () => draw(),
    });

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
      ctx.font = C.TITLE_FONT;
      ctx.fillStyle = "#111";
      ctx.textBaseline = "bottom";
      ctx.fillText("Gram matrix K (" + n + " × " + n + ")", left, top - 6);
      // colour bar
      const barLeft = left + size + 12, barWidth = 14;
      for (let p = 0; p < size; p++) {
        const v = Math.round(255 * (1 - p / (size - 1)));
        ctx.fillStyle = "rgb(" + table[3 * v] + "," + table[3 * v + 1] + "," + table[3 * v + 2] + ")";
        ctx.fillRect(barLeft, top + p, barWidth, 1.5);
      }
      ctx.font = C.FONT;
      ctx.fillStyle = "#333";
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
      // round-off makes some eigenvalues tiny or slightly negative: floor them for the log axis
      const floor = 1e-16 * largest;
      const axes = new C.Axes(panel, { left: 52, top: 26, width: panel.width - 70, height: panel.cssHeight - 70 },
        { xlim: [0, n + 1], ylim: [floor, 2 * largest], ylog: true });
      axes.decorate({ title: "its eigenvalues, largest first", xlabel: "k" });
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

    function drawNumbers() {
      const { eigenvalues } = result;
      let sum = 0, above = 0;
      for (const v of eigenvalues) { sum += v; if (v > 0.01) above++; }
      numbers.replaceChildren(
        el("div", { text: "c = " + C.formatNumber(settings.c, 3) + ": largest eigenvalue " + eigenvalues[0].toFixed(3) }),
        el("div", { text: "eigenvalues above 0.01: " + above + " of " + n }),
        el("div", { text: "their sum, tr K = n: " + sum.toFixed(3) }),
      );
    }

    function draw() {
      if (!result) return;
      drawMatrix();
      drawSpectrum();
      drawNumbers();
    }

    const lab = C.instantLab({
      settings,
      initial: Object.assign({}, payload.settings),
      update: () => { compute(); draw(); },
      sync: () => cSlider.sync(),
      state: () => ({ c: result.c, n, K: Array.from(result.K), eigenvalues: Array.from(result.eigenvalues) }),
    });
    lab.move("load");
    return lab;
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {})["gram-spectrum"] = mount;
})();
