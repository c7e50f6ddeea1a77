/* Appendix A's sparse PCA, computed in the page: kpca_lib.SparsePCA's
 * alternating block coordinate descent on
 *
 *     f(Y, D) = 1/2 ||X_c - Y D^T||_F^2 + alpha ||D||_1,   ||y_k|| <= 1,
 *
 * with the same start (Y = the first q left singular vectors of X_c,
 * D = X_c^T Y), the same sweeps (the columns of D by soft thresholding, then
 * the columns of Y by least squares and the unit ball), the same stopping
 * rule (a sweep lowers f by at most tol f, or max_iter sweeps), the same
 * re-seeding of a dead component at the end of each sweep (an all-zero
 * column d_k: y_k <- the longest column R_j / ||R_j|| of the residual
 * R = X_c - Y D^T when ||R_j|| > alpha, and d_k <- S_alpha(R^T y_k)) and the same
 * signs (the largest entry of each unit loading positive, the first one on
 * a tie). Matrices are row-major Float64Arrays. Loaded as a plain script
 * (window.kpcaSparse) or as a CommonJS module (node).
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory(require("./kpca-labs-svd.js"));
  else root.kpcaSparse = factory(null);
})(typeof self !== "undefined" ? self : this, function (svdModule) {
  "use strict";

  const numerics = () => svdModule || window.kpcaNumerics;

  // residual column norms this close (relative) count as equal, as kpca_lib's _TIE_RTOL
  const TIE_RTOL = 1e-10;

  /** S_t(x) = x - clip(x, -t, t), as kpca_lib.soft_threshold (no -0.0). */
  function softThreshold(x, t) {
    return x - Math.min(Math.max(x, -t), t);
  }

  /** The data, centred, and its SVD (for the start and PCA's R^2), computed once. */
  class Data {
    constructor(X, n, d) {
      this.n = n;
      this.d = d;
      this.mean = new Float64Array(d);
      for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) this.mean[j] += X[i * d + j];
      for (let j = 0; j < d; j++) this.mean[j] /= n;
      this.Xc = new Float64Array(n * d);
      let total = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          const v = X[i * d + j] - this.mean[j];
          this.Xc[i * d + j] = v;
          total += v * v;
        }
      }
      this.total = total; // ||X_c||_F^2
      // the start of every fit: left singular vectors (n >= d here; else use the transpose)
      this.svd = numerics().svd(this.Xc, n, d);
    }

    /** PCA's R^2 with q components: the share of ||X_c||^2 in the first q singular values. */
    pcaR2(q) {
      let kept = 0, all = 0;
      this.svd.values.forEach((s, k) => { all += s * s; if (k < q) kept += s * s; });
      return kept / all;
    }
  }

  /** One fit of SparsePCA(n_components=q, alpha), sweep by sweep: step() until it returns false. */
  class Fit {
    constructor(data, alpha, q, maxIter, tol) {
      Object.assign(this, { data, alpha, q, maxIter, tol });
      const n = data.n, U = data.svd.U;
      this.Y = new Float64Array(n * q);
      for (let i = 0; i < n; i++) for (let k = 0; k < q; k++) this.Y[i * q + k] = U[k * n + i];
      this.D = this.codesTimesData(); // D = X_c^T Y
      this.history = [this.objective()];
      this.nIter = 0;
      this.converged = false;
      this.finished = false;
    }

    /** X_c^T Y (d x q). */
    codesTimesData() {
      const { n, d, Xc } = this.data, q = this.q, Y = this.Y, out = new Float64Array(d * q);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          const x = Xc[i * d + j];
          if (x === 0) continue;
          for (let k = 0; k < q; k++) out[j * q + k] += x * Y[i * q + k];
        }
      }
      return out;
    }

    objective() {
      const { n, d, Xc } = this.data, q = this.q, Y = this.Y, D = this.D;
      let fit = 0, penalty = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          let r = Xc[i * d + j];
          for (let k = 0; k < q; k++) r -= Y[i * q + k] * D[j * q + k];
          fit += r * r;
        }
      }
      for (let t = 0; t < D.length; t++) penalty += Math.abs(D[t]);
      return 0.5 * fit + this.alpha * penalty;
    }

    /** Gram matrix of the columns of the rows x q matrix Z (q x q). */
    gram(Z, rows) {
      const q = this.q, G = new Float64Array(q * q);
      for (let i = 0; i < rows; i++) {
        for (let a = 0; a < q; a++) for (let b = 0; b < q; b++) G[a * q + b] += Z[i * q + a] * Z[i * q + b];
      }
      return G;
    }

    /** The columns of D, each an exact minimisation: d_k <- S_alpha(B_k - D A_k + A_kk d_k) / A_kk. */
    updateLoadings() {
      const { d } = this.data, q = this.q, D = this.D, A = this.gram(this.Y, this.data.n);
      const B = this.codesTimesData(), column = new Float64Array(d);
      for (let k = 0; k < q; k++) {
        const akk = A[k * q + k];
        if (akk === 0) {
          for (let j = 0; j < d; j++) D[j * q + k] = 0; // y_k = 0: the penalty alone sets d_k to 0
          continue;
        }
        for (let j = 0; j < d; j++) {
          let v = B[j * q + k] + akk * D[j * q + k];
          for (let l = 0; l < q; l++) v -= D[j * q + l] * A[l * q + k];
          column[j] = v;
        }
        for (let j = 0; j < d; j++) D[j * q + k] = softThreshold(column[j], this.alpha) / akk;
      }
    }

    /** The columns of Y: y_k <- P_ball((E_k - Y F_k + F_kk y_k) / F_kk), E = X_c D, F = D^T D. */
    updateCodes() {
      const { n, d, Xc } = this.data, q = this.q, Y = this.Y, D = this.D;
      const F = this.gram(D, d), E = new Float64Array(n * q), column = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          const x = Xc[i * d + j];
          for (let k = 0; k < q; k++) E[i * q + k] += x * D[j * q + k];
        }
      }
      for (let k = 0; k < q; k++) {
        const fkk = F[k * q + k];
        if (fkk === 0) continue; // d_k = 0: y_k does not enter the fit, keep it
        let norm = 0;
        for (let i = 0; i < n; i++) {
          let v = E[i * q + k] + fkk * Y[i * q + k];
          for (let l = 0; l < q; l++) v -= Y[i * q + l] * F[l * q + k];
          column[i] = v / fkk;
          norm += column[i] * column[i];
        }
        const scale = Math.max(Math.sqrt(norm), 1);
        for (let i = 0; i < n; i++) Y[i * q + k] = column[i] / scale;
      }
    }

    /**
     * Each all-zero column d_k re-seeded from the residual R = X_c - Y D^T, as
     * kpca_lib's _reseed_dead_components: y_k <- R_j / ||R_j|| for the longest
     * column (the first of those equal to within TIE_RTOL) when ||R_j|| > alpha (and round-off), then
     * d_k <- S_alpha(R^T y_k), the exact minimiser, which lowers f.
     */
    reseedDeadComponents() {
      const { n, d, Xc, total } = this.data, q = this.q, Y = this.Y, D = this.D;
      const dead = [];
      for (let k = 0; k < q; k++) {
        let any = false;
        for (let j = 0; j < d && !any; j++) any = D[j * q + k] !== 0;
        if (!any) dead.push(k);
      }
      if (dead.length === 0) return;
      const R = new Float64Array(n * d);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          let r = Xc[i * d + j];
          for (let k = 0; k < q; k++) r -= Y[i * q + k] * D[j * q + k];
          R[i * d + j] = r;
        }
      }
      const roundOff = 10 * Math.max(n, d) * Number.EPSILON * Math.sqrt(total);
      for (const k of dead) {
        const norms = new Float64Array(d);
        for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) norms[j] += R[i * d + j] * R[i * d + j];
        let largest = 0;
        for (let j = 0; j < d; j++) {
          norms[j] = Math.sqrt(norms[j]);
          largest = Math.max(largest, norms[j]);
        }
        // the first of the longest columns, ties within round-off included (TIE_RTOL)
        let best = 0;
        while (norms[best] < largest * (1 - TIE_RTOL)) best++;
        // longer than alpha only by round-off: the loading would be round-off (kpca_lib's rule)
        if (norms[best] <= Math.max(this.alpha * (1 + TIE_RTOL), roundOff)) break;
        for (let i = 0; i < n; i++) Y[i * q + k] = R[i * d + best] / norms[best];
        for (let j = 0; j < d; j++) {
          let v = 0;
          for (let i = 0; i < n; i++) v += R[i * d + j] * Y[i * q + k];
          D[j * q + k] = softThreshold(v, this.alpha);
        }
        for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) R[i * d + j] -= Y[i * q + k] * D[j * q + k];
      }
    }

    /** One sweep; false once the fit has stopped. */
    step() {
      if (this.finished) return false;
      this.updateLoadings();
      this.updateCodes();
      this.reseedDeadComponents();
      this.nIter += 1;
      const h = this.history;
      h.push(this.objective());
      if (h[h.length - 2] - h[h.length - 1] <= this.tol * Math.abs(h[h.length - 2])) this.converged = true;
      this.finished = this.converged || this.nIter >= this.maxIter;
      return !this.finished;
    }

    /** The unit loadings as rows (q x d), signs fixed; the non-zeros per row; the reconstruction R^2. */
    result() {
      const { d, n, Xc, total } = this.data, q = this.q, D = this.D;
      const components = new Float64Array(q * d), nonzero = new Int32Array(q);
      for (let k = 0; k < q; k++) {
        let norm = 0;
        for (let j = 0; j < d; j++) norm += D[j * q + k] * D[j * q + k];
        norm = Math.sqrt(norm) || 1;
        let largest = 0;
        for (let j = 0; j < d; j++) {
          const v = D[j * q + k] / norm;
          components[k * d + j] = v;
          if (Math.abs(v) > Math.abs(largest)) largest = v; // the first largest, as argmax
          if (v !== 0) nonzero[k]++;
        }
        if (largest < 0) for (let j = 0; j < d; j++) components[k * d + j] = -components[k * d + j] || 0;
      }
      return { components, nonzero, r2: reconstructionR2(components, q, d, Xc, n, total) };
    }
  }

  /**
   * 1 - ||X_c - P(X_c)||^2 / ||X_c||^2, P the orthogonal projection onto the
   * span of the rows of components (an orthonormal basis by Gram-Schmidt,
   * twice; zero or dependent rows dropped, as lstsq's minimum-norm fit).
   */
  function reconstructionR2(components, q, d, Xc, n, total) {
    const basis = [];
    for (let k = 0; k < q; k++) {
      const v = Float64Array.from(components.subarray(k * d, (k + 1) * d));
      for (let pass = 0; pass < 2; pass++) {
        for (const b of basis) {
          let t = 0;
          for (let j = 0; j < d; j++) t += v[j] * b[j];
          for (let j = 0; j < d; j++) v[j] -= t * b[j];
        }
      }
      let norm = 0;
      for (let j = 0; j < d; j++) norm += v[j] * v[j];
      norm = Math.sqrt(norm);
      if (norm > 1e-10) basis.push(v.map((x) => x / norm));
    }
    // ||P x||^2 = sum over the basis of (b . x)^2, row by row
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const row = Xc.subarray(i * d, (i + 1) * d);
      for (const b of basis) {
        let t = 0;
        for (let j = 0; j < d; j++) t += row[j] * b[j];
        kept += t * t;
      }
    }
    return kept / total;
  }

  /** X from the payload's string of "0" and "1", row by row. */
  function dataFromBits(bits, n, d) {
    const X = new Float64Array(n * d);
    for (let t = 0; t < n * d; t++) X[t] = bits.charCodeAt(t) === 49 ? 1 : 0;
    return new Data(X, n, d);
  }

  return { Data, Fit, softThreshold, reconstructionR2, dataFromBits };
});
