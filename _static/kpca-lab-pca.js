/* Chapter 1's PCA lab: turn a unit vector w and watch the variance captured
 * w^T C w rise as the reconstruction error falls, the two always summing to
 * tr(C); computed in the page (kpca_lib.explorers.labs.pca_lab writes the data).
 */
(function () {
  "use strict";

  const RESIDUAL = "#e07070"; // a light red: readable on both themes, and fainter than the error curve

  function mount(root, payload) {
    const N = window.kpcaNumerics, C = window.kpcaLabCore, el = C.el;
    const X = C.matrix(payload.X), n = X.length / 2;
    const settings = Object.assign({}, payload.settings);

    // everything that does not depend on w
    const pca = N.pcaFit(X, n, 2);
    const [mx, my] = pca.mean, Cov = pca.covariance;
    const trace = Cov[0] + Cov[3];
    const centred = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) { centred[2 * i] = X[2 * i] - mx; centred[2 * i + 1] = X[2 * i + 1] - my; }
    const axesAngle = (k) => ((Math.atan2(pca.components[2 * k + 1], pca.components[2 * k]) * 180) / Math.PI + 360) % 180;

    /** Variance captured and reconstruction error of w at the angle, from the points themselves. */
    function measure(angle) {
      const radians = (angle * Math.PI) / 180, wx = Math.cos(radians), wy = Math.sin(radians);
      let variance = 0, error = 0;
      for (let i = 0; i < n; i++) {
        const x = centred[2 * i], y = centred[2 * i + 1];
        const p = x * wx + y * wy;
        variance += p * p;
        error += (x - p * wx) ** 2 + (y - p * wy) ** 2;
      }
      return { angle, w: [wx, wy], variance: variance / n, error: error / n };
    }
    /** w^T C w in closed form, for the curve over every angle. */
    function captured(angle) {
      const r = (angle * Math.PI) / 180, c = Math.cos(r), s = Math.sin(r);
      return Cov[0] * c * c + 2 * Cov[1] * c * s + Cov[3] * s * s;
    }

    const controls = el("div", { class: "kpca-lab-controls" });
    const left = el("div", { class: "kpca-lab-main" });
    const right = el("div", { class: "kpca-lab-side" });
    root.append(controls, el("div", { class: "kpca-lab-body" }, left, right));
    const angleSlider = C.slider({
      label: "angle of w", min: 0, max: 179.5, step: 0.5, value: settings.angle,
      format: () => settings.angle.toFixed(1) + "°",
      onInput: (position) => { settings.angle = position; lab.move("angle"); },
    });
    const snap = C.button("w = w₁ (the first principal axis)", () => {
      settings.angle = axesAngle(0);
      angleSlider.set(settings.angle);
      lab.move("snap");
    });
    const reset = C.button("reset to the chapter's setting", () => lab.reset());
    controls.append(angleSlider.row, el("div", { class: "kpca-lab-buttons" }, snap, reset));

    const plane = new C.Panel(left, {
      label: "the centred cloud, the direction w, the projections on it and the residuals; drag to turn w",
      height: (width) => Math.min(width, 480), draw: () => draw(),
    });
    left.append(C.legend([
      { label: "points xᵢ", swatch: "disc", ink: "muted" },
      { label: "projections on w", swatch: "disc", color: C.COLORS.axis },
      { label: "residuals", swatch: "line", color: RESIDUAL },
      { label: "√λₖ wₖ, the principal axes", swatch: "line", ink: "strong" },
    ]));
    const numbers = C.numbersBox(right);
    const curvePanel = new C.Panel(right, {
      label: "variance captured and reconstruction error over every angle",
      height: (width) => Math.min(300, Math.max(230, width * 0.72)), draw: () => draw(),
    });

    let half = 0;
    for (let i = 0; i < 2 * n; i++) half = Math.max(half, Math.abs(centred[i]));
    half *= 1.08;
    function planeAxes() {
      const width = plane.width - 40, height = plane.cssHeight - 32, size = Math.min(width, height);
      // equal scales on both axes, so that angles look right
      const hx = (half * width) / size, hy = (half * height) / size;
      return new C.Axes(plane, { left: 32, top: 8, width, height }, { xlim: [mx - hx, mx + hx], ylim: [my - hy, my + hy] });
    }

    function arrow(ctx, axes, x0, y0, x1, y1, color, width, label, side) {
      const [a, b, c, d] = [axes.x(x0), axes.y(y0), axes.x(x1), axes.y(y1)];
      const angle = Math.atan2(d - b, c - a), head = 9;
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = width;
      ctx.beginPath(); ctx.moveTo(a, b); ctx.lineTo(c, d); ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(c, d);
      ctx.lineTo(c - head * Math.cos(angle - 0.4), d - head * Math.sin(angle - 0.4));
      ctx.lineTo(c - head * Math.cos(angle + 0.4), d - head * Math.sin(angle + 0.4));
      ctx.closePath();
      ctx.fill();
      if (label) {
        // beyond the tip, or beside it (side = +1 or -1) so that labels of close arrows do not collide
        const along = side ? 0 : 22, across = side ? 14 * side : 0;
        const lx = c + along * Math.cos(angle) - across * Math.sin(angle);
        const ly = d + along * Math.sin(angle) + across * Math.cos(angle);
        ctx.font = C.TITLE_FONT;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        ctx.lineWidth = 4;
        ctx.strokeStyle = C.ink().background; // a halo: the label stays readable over the points
        ctx.strokeText(label, lx, ly);
        ctx.fillText(label, lx, ly);
      }
    }

    function drawPlane(m) {
      const axes = planeAxes();
      plane.begin();
      axes.decorate({});
      const [wx, wy] = m.w;
      axes.clip((ctx) => {
        const reach = 4 * half;
        ctx.strokeStyle = C.COLORS.axis;
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(axes.x(mx - reach * wx), axes.y(my - reach * wy));
        ctx.lineTo(axes.x(mx + reach * wx), axes.y(my + reach * wy));
        ctx.stroke();
        const xs = new Float64Array(n), ys = new Float64Array(n), px = new Float64Array(n), py = new Float64Array(n);
        ctx.strokeStyle = RESIDUAL;
        ctx.lineWidth = 1;
        ctx.beginPath();
        for (let i = 0; i < n; i++) {
          const p = centred[2 * i] * wx + centred[2 * i + 1] * wy;
          xs[i] = axes.x(X[2 * i]); ys[i] = axes.y(X[2 * i + 1]);
          px[i] = axes.x(mx + p * wx); py[i] = axes.y(my + p * wy);
          ctx.moveTo(xs[i], ys[i]); ctx.lineTo(px[i], py[i]);
        }
        ctx.stroke();
        C.discs(ctx, xs, ys, n, 2.6, C.ink().muted);
        C.discs(ctx, px, py, n, 2.2, C.COLORS.axis);
        for (let k = 0; k < 2; k++) {
          const length = Math.sqrt(Math.max(pca.eigenvalues[k], 0));
          arrow(ctx, axes, mx, my, mx + length * pca.components[2 * k], my + length * pca.components[2 * k + 1],
            C.ink().strong, 2.5, k ? "√λ₂ w₂" : "√λ₁ w₁");
        }
        arrow(ctx, axes, mx, my, mx + wx, my + wy, C.COLORS.axis, 3.5, "w", 1);
      });
    }

    function drawCurves(m) {
      const panel = curvePanel;
      panel.begin();
      const axes = new C.Axes(panel, { left: 48, top: 26, width: panel.width - 66, height: panel.cssHeight - 70 },
        { xlim: [0, 180], ylim: [0, trace * 1.15] }); // room for the tr(C) label above its line
      axes.decorate({ title: "over every angle of w", xlabel: "angle of w (degrees)", xticks: [0, 45, 90, 135, 180] });
      axes.clip((ctx) => {
        const curve = (value, color) => {
          ctx.strokeStyle = color;
          ctx.lineWidth = 2.2;
          ctx.beginPath();
          for (let a = 0; a <= 180; a += 1) {
            const y = axes.y(value(a));
            if (a) ctx.lineTo(axes.x(a), y); else ctx.moveTo(axes.x(a), y);
          }
          ctx.stroke();
        };
        ctx.setLineDash([5, 4]);
        ctx.strokeStyle = C.ink().text;
        ctx.lineWidth = 1.2;
        ctx.beginPath(); ctx.moveTo(axes.left, axes.y(trace)); ctx.lineTo(axes.left + axes.width, axes.y(trace)); ctx.stroke();
        ctx.setLineDash([]);
        curve(captured, C.COLORS.axis);
        curve((a) => trace - captured(a), "#d62728");
        const x = axes.x(m.angle);
        ctx.strokeStyle = C.ink().frame;
        ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(x, axes.top); ctx.lineTo(x, axes.top + axes.height); ctx.stroke();
        C.discs(ctx, [x], [axes.y(m.variance)], 1, 5, C.COLORS.axis);
        C.discs(ctx, [x], [axes.y(m.error)], 1, 5, "#d62728");
        ctx.font = C.FONT;
        ctx.fillStyle = C.ink().text;
        ctx.textAlign = "right";
        ctx.textBaseline = "bottom";
        ctx.fillText("tr(C)", axes.left + axes.width - 4, axes.y(trace) - 2);
      });
    }

    function drawNumbers(m) {
      const f = (v) => v.toFixed(3);
      const bar = el("div", { class: "kpca-lab-split", "aria-hidden": "true" },
        el("span", { class: "kpca-lab-split-variance" }), el("span", { class: "kpca-lab-split-error" }));
      bar.firstChild.style.width = (100 * m.variance) / trace + "%";
      bar.lastChild.style.width = (100 * m.error) / trace + "%";
      numbers.replaceChildren(
        el("table", { class: "kpca-lab-table" }, el("tbody", {},
          el("tr", { class: "kpca-lab-variance" }, el("td", { text: "variance captured wᵀCw" }), el("td", { text: f(m.variance) })),
          el("tr", { class: "kpca-lab-error" }, el("td", { text: "reconstruction error" }), el("td", { text: f(m.error) })),
          el("tr", {}, el("td", { text: "their sum" }), el("td", { text: f(m.variance + m.error) })),
          el("tr", {}, el("td", { text: "tr(C) = λ₁ + λ₂" }), el("td", { text: f(trace) })))),
        bar,
        el("div", { class: "kpca-lab-small", text: "λ₁ = " + f(pca.eigenvalues[0]) + " at " + axesAngle(0).toFixed(1) + "°, λ₂ = " + f(pca.eigenvalues[1]) + " at " + axesAngle(1).toFixed(1) + "°" }),
      );
    }

    let last = null;
    function draw() {
      last = measure(settings.angle);
      drawPlane(last);
      drawCurves(last);
      drawNumbers(last);
    }

    // drag on the plane to turn w about the mean
    let dragging = false;
    function turnTo(event) {
      const [px, py] = plane.pointer(event);
      const [x, y] = planeAxes().invert(px, py);
      if (Math.hypot(x - mx, y - my) < 1e-12) return;
      settings.angle = ((Math.atan2(y - my, x - mx) * 180) / Math.PI + 360) % 180;
      angleSlider.set(settings.angle);
      lab.move("drag");
    }
    // from the keyboard: the plane is a tab stop, and the arrow keys turn w (Shift: by 5°)
    plane.canvas.tabIndex = 0;
    plane.canvas.setAttribute("role", "application");
    plane.canvas.setAttribute("aria-roledescription", "plane");
    plane.canvas.setAttribute("aria-label", plane.canvas.getAttribute("aria-label") +
      "; with the keyboard, the arrow keys turn w");
    plane.canvas.addEventListener("keydown", (event) => {
      const turn = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[event.key];
      if (!turn) return;
      event.preventDefault(); // no page scroll
      settings.angle = (settings.angle + turn * (event.shiftKey ? 5 : 0.5) + 180) % 180;
      angleSlider.set(settings.angle);
      lab.move("key");
    });
    // on a touch screen a tap or a drag turns w and never scrolls the page (the page scrolls
    // from anywhere else; the plot stays in view on a phone: kpcaLabCore.keepPlotInView)
    plane.canvas.style.touchAction = "none";
    plane.canvas.addEventListener("pointerdown", (event) => {
      dragging = true;
      plane.canvas.setPointerCapture(event.pointerId);
      turnTo(event);
    });
    plane.canvas.addEventListener("pointermove", (event) => { if (dragging) turnTo(event); });
    for (const name of ["pointerup", "pointercancel"]) plane.canvas.addEventListener(name, () => { dragging = false; });

    const lab = C.instantLab({
      settings,
      initial: Object.assign({}, payload.settings),
      update: draw,
      redraw: draw,
      sync: () => angleSlider.set(settings.angle),
      state: () => ({
        angle: last.angle, w: last.w, variance: last.variance, error: last.error, trace,
        mean: Array.from(pca.mean), covariance: Array.from(Cov),
        eigenvalues: Array.from(pca.eigenvalues), components: Array.from(pca.components),
      }),
    });
    lab.move("load");
    return lab;
  }

  (window.kpcaLabKinds = window.kpcaLabKinds || {}).pca = mount;
})();
