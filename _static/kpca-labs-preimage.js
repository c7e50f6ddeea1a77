/* The labs' pre-images: the fixed-point iteration of Mika et al., computed in the page.
 *
 * As kpca_lib.preimage.gaussian_fixed_point, one step at a time, keeping
 * every iterate; and the baselines it is compared with (mean shift, the
 * k-nearest-neighbour average, the held-out rule that chooses k and q).
 *
 * Matrices are Float64Arrays in row-major order with their sizes passed
 * beside them. Uses kpca-labs-linalg.js and kpca-labs-kernels.js. The book loads the three numerics files as
 * plain scripts, which fill window.kpcaNumerics; node's test runner loads
 * them as CommonJS modules.
 */
(function (root, factory) {
  "use strict";
  const inNode = typeof module === "object" && module.exports;
  const shared = inNode ? null : (root.kpcaNumerics = root.kpcaNumerics || {});
  // the labs' numerics are three files sharing window.kpcaNumerics; the book
  // links _static files in an order of its own, so this one looks up the
  // others' functions when it is first called, not when it is loaded
  const others = () =>
    inNode ? Object.assign({}, require("./kpca-labs-linalg.js"), require("./kpca-labs-kernels.js")) : shared;
  const api = factory(others);
  if (inNode) module.exports = api;
  else Object.assign(shared, api);
})(typeof self !== "undefined" ? self : this, function (numerics) {
  "use strict";
  // from kpca-labs-linalg.js and kpca-labs-kernels.js, looked up on first use
  let fastExp, randomGenerator, checkWidth;
  function link() {
    if (!fastExp) ({ fastExp, randomGenerator, checkWidth } = numerics());
  }

  // -------------------------------------------------------------------------
  // The fixed-point iteration of Mika et al. for the Gaussian kernel
  // -------------------------------------------------------------------------

  /**
   * z <- sum_i w_i x_i / sum_i w_i, w_i = gamma_i exp(-||z - x_i||^2 / c), for
   * m points at once, one step at a time (so that the page can spread the
   * steps over several tasks), keeping every iterate.
   *
   * As kpca_lib.preimage.gaussian_fixed_point: a point stops when its step
   * is at most tol * s (s the root mean square distance of the x_i to their
   * mean); its denominator has vanished when |sum w_i| <= 1e-12 sum |w_i|,
   * tested first against the cheap bound sum |w_i| <= ||gamma||_1 and then,
   * for the suspects only, with the kernel values rescaled (largest 1) so
   * that a z far from the data does not underflow. A point whose denominator
   * vanished restarts from its start plus Gaussian noise of standard
   * deviation sqrt(c / 2), at most maxRestarts times, then gives up at its
   * start. The restart noise comes from this file's generator, not numpy's.
   *
   * options.track: indices of points whose objective rho(z_t) is recorded.
   */
  class FixedPointRun {
    constructor(X, n, d, gamma, m, c, Z0, options) {
      link();
      checkWidth(c);
      const opts = options || {};
      this.X = X; this.n = n; this.d = d; this.gamma = gamma; this.m = m; this.c = c;
      this.tol = opts.tol === undefined ? 1e-6 : opts.tol;
      this.maxRestarts = opts.maxRestarts === undefined ? 3 : opts.maxRestarts;
      this.random = randomGenerator(opts.seed === undefined ? 0 : opts.seed);
      this.track = Array.from(opts.track || []);
      this.start = Float64Array.from(Z0);
      this.Z = Float64Array.from(Z0);
      this.active = new Uint8Array(m).fill(1);
      this.nActive = m;
      this.convergedAt = new Int32Array(m).fill(-1); // the t whose z_t met the test
      this.gaveUpAt = new Int32Array(m).fill(-1);
      this.restarts = new Int32Array(m);
      this.history = [Float64Array.from(Z0)]; // z_t, t = 0, 1, ...
      this.steps = []; // steps[t][a] = ||z_{t+1} - z_t||
      this.rhoTracked = [this.trackedRho()];
      // root mean square distance of the training points to their mean
      const mean = new Float64Array(d);
      for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) mean[k] += X[i * d + k] / n;
      let s = 0;
      for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) s += (X[i * d + k] - mean[k]) ** 2;
      const scale = Math.sqrt(s / n);
      this.stepTol = this.tol * (scale > 0 ? scale : 1);
      this.gammaL1 = new Float64Array(m);
      for (let a = 0; a < m; a++) {
        let l1 = 0;
        for (let i = 0; i < n; i++) l1 += Math.abs(gamma[a * n + i]);
        this.gammaL1[a] = l1;
      }
      this.numerator = new Float64Array(d);
    }

    /** Iterations done so far. */
    get t() { return this.history.length - 1; }

    /** True once no point is active: every later iterate equals the last. */
    get finished() { return this.nActive === 0; }

    /** z_t of every point (the last iterate for t beyond it). */
    at(t) { return this.history[Math.min(t, this.t)]; }

    /** How many points met the convergence test within t iterations. */
    convergedWithin(t) {
      let count = 0;
      for (let a = 0; a < this.m; a++) if (this.convergedAt[a] >= 1 && this.convergedAt[a] <= t) count++;
      return count;
    }

    /** rho(z) = sum_i gamma_i k(z, x_i) for point a at position z. */
    rho(a, z) {
      const { X, n, d, c, gamma } = this;
      let s = 0;
      for (let i = 0; i < n; i++) {
        let q = 0;
        for (let k = 0; k < d; k++) q += (z[k] - X[i * d + k]) ** 2;
        s += gamma[a * n + i] * Math.exp(-q / c);
      }
      return s;
    }

    trackedRho() {
      const values = new Float64Array(this.track.length);
      this.track.forEach((a, j) => {
        values[j] = this.rho(a, this.Z.subarray(a * this.d, (a + 1) * this.d));
      });
      return values;
    }

    /** Numerator (into this.numerator) and denominator of point a; rescale: largest kernel value 1. */
    weightedSums(a, rescale) {
      const { X, n, d, c, gamma, Z } = this;
      const invC = 1 / c, row = a * n, num = this.numerator;
      let shift = 0, absolute = 0;
      if (rescale) {
        shift = -Infinity;
        for (let i = 0; i < n; i++) {
          let q = 0;
          for (let k = 0; k < d; k++) q += (Z[a * d + k] - X[i * d + k]) ** 2;
          shift = Math.max(shift, -q * invC);
        }
      }
      let den = 0;
      if (d === 2) {
        // the toy of the de-noising lab: unrolled, with the fast exp
        const zx = Z[2 * a], zy = Z[2 * a + 1];
        let nx = 0, ny = 0;
        for (let i = 0; i < n; i++) {
          const x0 = X[2 * i], x1 = X[2 * i + 1];
          const dx = zx - x0, dy = zy - x1;
          const w = gamma[row + i] * fastExp(-(dx * dx + dy * dy) * invC - shift);
          den += w;
          nx += w * x0;
          ny += w * x1;
          absolute += Math.abs(w);
        }
        num[0] = nx;
        num[1] = ny;
      } else {
        num.fill(0);
        for (let i = 0; i < n; i++) {
          let q = 0;
          for (let k = 0; k < d; k++) q += (Z[a * d + k] - X[i * d + k]) ** 2;
          const w = gamma[row + i] * fastExp(-q * invC - shift);
          den += w;
          absolute += Math.abs(w);
          for (let k = 0; k < d; k++) num[k] += w * X[i * d + k];
        }
      }
      return { den, absolute };
    }

    /** One iteration for every active point. */
    step() {
      const { m, d, Z, start } = this;
      const t = this.t;
      const stepSizes = new Float64Array(m);
      const cOver2 = Math.sqrt(this.c / 2);
      for (let a = 0; a < m; a++) {
        if (!this.active[a]) continue;
        let { den } = this.weightedSums(a, false);
        let vanished = false;
        if (Math.abs(den) <= 1e-12 * this.gammaL1[a]) {
          const rescaled = this.weightedSums(a, true);
          den = rescaled.den;
          vanished = Math.abs(den) <= 1e-12 * rescaled.absolute;
        }
        if (vanished) {
          if (this.restarts[a] < this.maxRestarts) {
            this.restarts[a]++;
            for (let k = 0; k < d; k++) Z[a * d + k] = start[a * d + k] + cOver2 * this.random.normal();
          } else {
            for (let k = 0; k < d; k++) Z[a * d + k] = start[a * d + k];
            this.active[a] = 0;
            this.nActive--;
            this.gaveUpAt[a] = t + 1;
          }
          continue;
        }
        let s = 0;
        for (let k = 0; k < d; k++) {
          const value = this.numerator[k] / den;
          s += (value - Z[a * d + k]) ** 2;
          Z[a * d + k] = value;
        }
        stepSizes[a] = Math.sqrt(s);
        if (stepSizes[a] <= this.stepTol) {
          this.active[a] = 0;
          this.nActive--;
          this.convergedAt[a] = t + 1;
        }
      }
      this.steps.push(stepSizes);
      this.history.push(Float64Array.from(Z));
      this.rhoTracked.push(this.trackedRho());
    }

    /** Iterate until t reaches maxT or every point has stopped. */
    runTo(maxT) {
      while (this.t < maxT && !this.finished) this.step();
      return this;
    }
  }

  // -------------------------------------------------------------------------
  // The baselines (kpca_lib.denoising_baselines): what a sceptic tries first
  // -------------------------------------------------------------------------

  /** Mean shift: the fixed-point run with every gamma_i = 1/n, the density term of rho alone. */
  function meanShiftRun(X, n, d, m, c, Z0, options) {
    return new FixedPointRun(X, n, d, new Float64Array(m * n).fill(1 / n), m, c, Z0, options);
  }

  /**
   * The mean of the k nearest training points (Euclidean, ties to the lower
   * index) of each of the m points A, for every k of ks at once: one
   * Float64Array (m x d) per k. k = 1 is the nearest training point, k = n
   * the training mean.
   */
  function knnAverages(X, n, d, A, m, ks) {
    const kMax = Math.max(...ks), out = ks.map(() => new Float64Array(m * d));
    const distances = new Float64Array(n), order = new Int32Array(n), sum = new Float64Array(d);
    for (let a = 0; a < m; a++) {
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += (A[a * d + j] - X[i * d + j]) ** 2;
        distances[i] = s;
      }
      // the kMax nearest: the native sort of the distances gives the kMax-th smallest, then only
      // the points up to it are ordered (by distance, then index)
      const limit = distances.slice().sort()[kMax - 1];
      let count = 0;
      for (let i = 0; i < n; i++) if (distances[i] <= limit) order[count++] = i;
      order.subarray(0, count).sort((i, l) => distances[i] - distances[l] || i - l);
      sum.fill(0);
      for (let r = 1; r <= kMax; r++) {
        for (let j = 0; j < d; j++) sum[j] += X[order[r - 1] * d + j];
        ks.forEach((k, slot) => {
          if (k === r) for (let j = 0; j < d; j++) out[slot][a * d + j] = sum[j] / k;
        });
      }
    }
    return out;
  }

  /** Squared distance of each of the m rows of A to the same row of B. */
  function rowErrors(A, B, m, d) {
    const e = new Float64Array(m);
    for (let a = 0; a < m; a++) for (let j = 0; j < d; j++) e[a] += (A[a * d + j] - B[a * d + j]) ** 2;
    return e;
  }

  /**
   * The paired one-standard-error rule of chapter 5, as
   * kpca_lib.denoising_baselines.one_standard_error_choice: errors[s] holds
   * setting s's error per validation point, settings simplest first; returns
   * the first s with mean(e_s - e_best) <= sd(e_s - e_best) / sqrt(m).
   */
  function oneStandardErrorChoice(errors) {
    const m = errors[0].length, means = errors.map((e) => e.reduce((s, v) => s + v, 0) / m);
    const best = means.indexOf(Math.min(...means));
    for (let s = 0; s < errors.length; s++) {
      let mean = 0, squares = 0;
      for (let a = 0; a < m; a++) mean += (errors[s][a] - errors[best][a]) / m;
      for (let a = 0; a < m; a++) squares += (errors[s][a] - errors[best][a] - mean) ** 2;
      if (mean <= Math.sqrt(squares / (m - 1)) / Math.sqrt(m)) return s;
    }
    return best;
  }

  return { FixedPointRun, meanShiftRun, knnAverages, rowErrors, oneStandardErrorChoice };
});
