/* The labs' drawing: canvases at the device pixel ratio, axes with ticks
 * (linear or log10), colours and markers. Part of window.kpcaLabCore, with
 * kpca-labs-core.js.
 */
(function () {
  "use strict";

  /** Format a number with `digits` significant digits, without trailing zeros. */
  function formatNumber(value, digits) {
    if (!isFinite(value)) return String(value);
    return String(Number(value.toPrecision(digits === undefined ? 3 : digits)));
  }

  // ------------------------------------------------------------- theme
  // The book's light/dark theme (pydata-sphinx-theme sets data-theme on <html>).
  // Canvas colours that are not data colours come from ink(): a lab never
  // hard-codes black, white or grey, and redraws when the theme changes.
  const INK = {
    light: { background: "#fff", text: "#333", strong: "#111", grid: "#e6e6e6", frame: "#888",
             muted: "#7a7a7a", faint: "#c9c9c9" },
    dark: { background: "#1b1f24", text: "#c9d1d9", strong: "#f0f3f6", grid: "#30363d", frame: "#8b949e",
            muted: "#9da5ae", faint: "#484f58" },
  };

  /** Is the book shown in its dark theme? */
  function isDark() {
    return document.documentElement.dataset.theme === "dark";
  }

  /** The non-data colours of the current theme: background, text, strong, grid, frame, muted, faint. */
  function ink() {
    return isDark() ? INK.dark : INK.light;
  }

  /** Call fn() whenever the reader switches the book between light and dark. */
  function onThemeChange(fn) {
    if (typeof MutationObserver === "undefined") return;
    new MutationObserver(() => fn()).observe(document.documentElement,
      { attributes: true, attributeFilter: ["data-theme"] });
  }

  // ------------------------------------------------------------- canvas
  /**
   * A canvas that fills its container's width, drawn at the device pixel
   * ratio so that it stays sharp on high-DPI screens. height(width) gives
   * its CSS height. draw(panel) is called after every resize.
   */
  const panels = []; // every Panel of the page, for panelsIn()

  class Panel {
    constructor(parent, opts) {
      panels.push(this);
      this.height = opts.height;
      this.draw = opts.draw || (() => {});
      this.canvas = document.createElement("canvas");
      this.canvas.setAttribute("role", "img");
      this.canvas.setAttribute("aria-label", opts.label);
      this.canvas.style.width = "100%";
      parent.append(this.canvas);
      this.ctx = this.canvas.getContext("2d");
      this.width = 0;
      this.cssHeight = 0;
      this.resize();
      if (typeof ResizeObserver !== "undefined") {
        let lastWidth = this.width;
        new ResizeObserver(() => {
          const width = Math.round(this.canvas.parentNode.clientWidth);
          if (width > 0 && width !== lastWidth) {
            lastWidth = width;
            this.resize();
            this.draw(this);
          }
        }).observe(parent);
      }
    }

    resize() {
      const ratio = window.devicePixelRatio || 1;
      const parentWidth = this.canvas.parentNode ? this.canvas.parentNode.clientWidth : 0;
      this.width = Math.max(200, Math.round(parentWidth || 400));
      this.cssHeight = Math.round(this.height(this.width));
      this.canvas.style.height = this.cssHeight + "px";
      this.canvas.width = Math.round(this.width * ratio);
      this.canvas.height = Math.round(this.cssHeight * ratio);
      this.ratio = ratio;
    }

    /** Clear to the theme's background and set CSS-pixel coordinates; returns the context. */
    begin() {
      const ctx = this.ctx;
      ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
      ctx.fillStyle = ink().background;
      ctx.fillRect(0, 0, this.width, this.cssHeight);
      return ctx;
    }

    /** Pointer position in CSS pixels of the canvas. */
    pointer(event) {
      const box = this.canvas.getBoundingClientRect();
      return [event.clientX - box.left, event.clientY - box.top];
    }
  }

  /** The Panels whose canvas is inside the element (a lab's root). */
  function panelsIn(element) {
    return panels.filter((panel) => element.contains(panel.canvas));
  }

  // --------------------------------------------------------------- axes
  function niceTicks(low, high, count) {
    const span = high - low;
    if (!(span > 0)) return [low];
    const raw = span / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((f) => f * power).find((s) => s >= raw) || 10 * power;
    const ticks = [];
    for (let v = Math.ceil(low / step - 1e-9) * step; v <= high + step * 1e-9; v += step) {
      ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return ticks;
  }

  /** 10 to an integer power, with superscript digits: 10⁻⁵. */
  function powerOfTen(power) {
    if (power === 0) return "1";
    if (power === 1) return "10";
    return "10" + String(power).replace(/[-0-9]/g, (ch) => "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"["-0123456789".indexOf(ch)]);
  }

  /** At most `count` powers of ten inside lim = [low, high], evenly spaced in the exponent. */
  function powersOfTen(lim, count) {
    const ticks = [];
    const a = Math.ceil(Math.log10(lim[0])), b = Math.floor(Math.log10(lim[1]));
    const every = Math.max(1, Math.ceil((b - a + 1) / count));
    for (let p = a; p <= b; p += every) ticks.push(Math.pow(10, p));
    return ticks;
  }

  const FONT = '13px system-ui, -apple-system, "Segoe UI", sans-serif';
  const TITLE_FONT = '600 14px system-ui, -apple-system, "Segoe UI", sans-serif';
  const TITLE_FONT_AT = (px) => "600 " + px + 'px system-ui, -apple-system, "Segoe UI", sans-serif';

  /**
   * A panel's title, left-aligned at (x, y), within maxWidth CSS pixels: at
   * the title font, or a smaller one (down to 11 px) where a narrow panel has
   * no room for it; never cut at the canvas's edge (at the least size, the
   * text is fitted by fillText's own maxWidth).
   */
  function fitTitle(ctx, text, x, y, maxWidth) {
    let size = 14;
    ctx.font = TITLE_FONT_AT(size);
    while (size > 11 && ctx.measureText(text).width > maxWidth) ctx.font = TITLE_FONT_AT(--size);
    ctx.textAlign = "left";
    ctx.fillText(text, x, y, Math.max(1, maxWidth));
  }

  /**
   * A rectangle of a panel with data coordinates: x(v), y(v) map to CSS
   * pixels; xlog and ylog draw the x and y axes on a log10 scale.
   */
  class Axes {
    constructor(panel, box, opts) {
      this.panel = panel;
      this.left = box.left;
      this.top = box.top;
      this.width = box.width;
      this.height = box.height;
      this.xlim = opts.xlim;
      this.ylim = opts.ylim;
      this.xlog = !!opts.xlog;
      this.ylog = !!opts.ylog;
    }

    x(v) {
      const [a, b] = this.xlog ? [Math.log10(this.xlim[0]), Math.log10(this.xlim[1])] : this.xlim;
      return this.left + (((this.xlog ? Math.log10(v) : v) - a) / (b - a)) * this.width;
    }

    y(v) {
      const [a, b] = this.ylog ? [Math.log10(this.ylim[0]), Math.log10(this.ylim[1])] : this.ylim;
      const w = this.ylog ? Math.log10(v) : v;
      return this.top + this.height - ((w - a) / (b - a)) * this.height;
    }

    /** Data coordinates of a CSS-pixel position. */
    invert(px, py) {
      const [a, b] = this.xlog ? [Math.log10(this.xlim[0]), Math.log10(this.xlim[1])] : this.xlim;
      const along = a + ((px - this.left) / this.width) * (b - a);
      const x = this.xlog ? Math.pow(10, along) : along;
      const y = this.ylim[1] - ((py - this.top) / this.height) * (this.ylim[1] - this.ylim[0]);
      return [x, y];
    }

    contains(px, py) {
      return px >= this.left && px <= this.left + this.width && py >= this.top && py <= this.top + this.height;
    }

    clip(draw) {
      const ctx = this.panel.ctx;
      ctx.save();
      ctx.beginPath();
      ctx.rect(this.left, this.top, this.width, this.height);
      ctx.clip();
      draw(ctx);
      ctx.restore();
    }

    /** Frame, grid, tick labels and titles. */
    decorate(opts) {
      const o = opts || {};
      const ctx = this.panel.ctx;
      ctx.save();
      ctx.font = FONT;
      ctx.fillStyle = ink().text;
      ctx.strokeStyle = ink().grid;
      ctx.lineWidth = 1;
      let xticks = o.xticks;
      if (!xticks && this.xlog) xticks = powersOfTen(this.xlim, Math.max(2, Math.floor(this.width / 55)));
      if (!xticks) xticks = niceTicks(this.xlim[0], this.xlim[1], Math.max(2, Math.floor(this.width / 70)));
      let yticks = o.yticks;
      if (!yticks && this.ylog) yticks = powersOfTen(this.ylim, Math.max(2, Math.floor(this.height / 28)));
      if (!yticks) yticks = niceTicks(this.ylim[0], this.ylim[1], Math.max(2, Math.floor(this.height / 35)));
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      for (const v of xticks) {
        const px = Math.round(this.x(v)) + 0.5;
        if (o.grid !== false) {
          ctx.beginPath(); ctx.moveTo(px, this.top); ctx.lineTo(px, this.top + this.height); ctx.stroke();
        }
        const label = this.xlog ? powerOfTen(Math.round(Math.log10(v))) : (o.xformat ? o.xformat(v) : formatNumber(v, 3));
        if (o.xtickLabels !== false) ctx.fillText(label, px, this.top + this.height + 4);
      }
      ctx.textAlign = "right";
      ctx.textBaseline = "middle";
      for (const v of yticks) {
        const py = Math.round(this.y(v)) + 0.5;
        if (o.grid !== false) {
          ctx.beginPath(); ctx.moveTo(this.left, py); ctx.lineTo(this.left + this.width, py); ctx.stroke();
        }
        const label = this.ylog ? powerOfTen(Math.round(Math.log10(v))) : (o.yformat ? o.yformat(v) : formatNumber(v, 3));
        if (o.ytickLabels !== false) ctx.fillText(label, this.left - 5, py);
      }
      ctx.strokeStyle = ink().frame;
      ctx.strokeRect(this.left + 0.5, this.top + 0.5, this.width - 1, this.height - 1);
      ctx.fillStyle = ink().strong;
      if (o.title) {
        ctx.textBaseline = "bottom";
        fitTitle(ctx, o.title, this.left, this.top - 6, this.panel.width - this.left - 2);
        ctx.font = FONT;
      }
      if (o.xlabel) {
        ctx.textAlign = "center";
        ctx.textBaseline = "top";
        ctx.fillText(o.xlabel, this.left + this.width / 2, this.top + this.height + 22);
      }
      ctx.restore();
    }
  }

  // ------------------------------------------------------------ drawing
  /** A data colour with a lighter twin for the dark theme (tab10's dark hues fade on a dark page). */
  function themed(light, dark) {
    return isDark() ? dark : light;
  }

  // Data colours. The greys and black of the light theme (training points, noisy
  // points, centres, clicks, residuals) are the theme's inks, read at each drawing.
  const COLORS = {
    get train() { return ink().faint; },
    get noisy() { return ink().muted; },
    get centre() { return ink().strong; },
    get click() { return ink().strong; },
    get residual() { return ink().muted; },
    linear: "#1f77b4", kernel: "#d62728", axis: "#1f77b4", second: "#ff7f0e",
    get trajectories() {
      return isDark()
        ? ["#ff7f0e", "#2ca02c", "#b294d4", "#c49c94", "#17becf", "#f7b6d2", "#dbdb8d"]
        : ["#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#e377c2", "#bcbd22"];
    },
  };

  /** Filled discs of radius r at the points (xs[i], ys[i]) given in CSS pixels. */
  function discs(ctx, xs, ys, count, r, fill) {
    ctx.fillStyle = fill;
    ctx.beginPath();
    for (let i = 0; i < count; i++) {
      ctx.moveTo(xs[i] + r, ys[i]);
      ctx.arc(xs[i], ys[i], r, 0, 2 * Math.PI);
    }
    ctx.fill();
  }

  function cross(ctx, x, y, size, stroke, width) {
    ctx.strokeStyle = stroke;
    ctx.lineWidth = width || 2;
    ctx.beginPath();
    ctx.moveTo(x - size, y - size); ctx.lineTo(x + size, y + size);
    ctx.moveTo(x - size, y + size); ctx.lineTo(x + size, y - size);
    ctx.stroke();
  }

  Object.assign((window.kpcaLabCore = window.kpcaLabCore || {}), {
    formatNumber, Panel, Axes, niceTicks, COLORS, FONT, TITLE_FONT, fitTitle, discs, cross, ink, isDark,
    onThemeChange, themed, panelsIn,
  });
})();
