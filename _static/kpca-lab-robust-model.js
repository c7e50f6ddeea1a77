/* Appendix B's robust PCA, computed in the page: principal component pursuit
 *
 *     minimise ||L||_* + lam ||S||_1  subject to  L + S = M
 *
 * by the inexact augmented Lagrange multiplier method exactly as
 * kpca_lib.robust_pca runs it on a 60 x 60 matrix (svd_method "full"): M
 * scaled by max |M_ij|; Y_0 = M / max(||M||_2, 1 / lam), mu_0 = 1.25 / ||M||_2,
 * mu at most 1e7 mu_0; each sweep
 *
 *     L <- D_{1/mu}(M - S + Y / mu)      (a full SVD, kpca-labs-svd.js)
 *
 * (with G = M - S + Y / mu = U diag(sigma) V^T, D_tau(G) is computed as
 * G V_r diag(1 - tau / sigma_k) V_r^T over the r singular values above tau:
 * U is not needed, and each term is within round-off of ||G||)
 *     S <- S_{lam/mu}(M - L + Y / mu)
 *     Y <- Y + mu (M - L - S)
 *
 * then mu / rho when the dual residual mu ||S - S_prev||_F / ||M||_F exceeds
 * ten times the primal one ||M - L - S||_F / ||M||_F (residual balancing),
 * else mu rho; it stops when both are at most tol, or after max_iter sweeps.
 * Matrices are row-major Float64Arrays. Loaded as a plain script
 * (window.kpcaRobust) or as a CommonJS module (node).
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory(require("./kpca-labs-svd.js"));
  else root.kpcaRobust = factory(null);
})(typeof self !== "undefined" ? self : this, function (svdModule) {
  "use strict";

  const numerics = () => svdModule || window.kpcaNumerics;
  const BALANCE = 10; // kpca_lib.robust_pca's _BALANCE

  function frobenius(X) {
    let s = 0;
    for (let t = 0; t < X.length; t++) s += X[t] * X[t];
    return Math.sqrt(s);
  }

  /**
   * The lab's test matrices from the draws of robust_pca_draws: factors A, B
   * (n x maxRank, row-major), positions and signs. matrix(rank, k) is
   * L0 = A[:, :rank] B[:, :rank]^T plus the signs at the first k positions.
   */
  class Draws {
    constructor(payload) {
      this.n = payload.n;
      this.maxRank = payload.max_rank;
      this.A = Float64Array.from(payload.A);
      this.B = Float64Array.from(payload.B);
      this.positions = Int32Array.from(payload.positions);
      this.signs = Float64Array.from(payload.signs);
      this.lowRank = new Map(); // rank -> {L0, sigma}
    }

    low(rank) {
      if (!this.lowRank.has(rank)) {
        const { n, maxRank: R, A, B } = this, L0 = new Float64Array(n * n);
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            let t = 0;
            for (let k = 0; k < rank; k++) t += A[i * R + k] * B[j * R + k];
            L0[i * n + j] = t;
          }
        }
        const sigma = numerics().svd(L0, n, n, { vectors: "right" }).values.slice(0, rank);
        this.lowRank.set(rank, { L0, sigma });
      }
      return this.lowRank.get(rank);
    }

    matrix(rank, nCorrupted) {
      const { n } = this, { L0, sigma } = this.low(rank), S0 = new Float64Array(n * n);
      for (let t = 0; t < nCorrupted; t++) S0[this.positions[t]] = this.signs[t];
      const M = new Float64Array(n * n);
      for (let t = 0; t < n * n; t++) M[t] = L0[t] + S0[t];
      // M's singular values, computed once for every lambda (the panel and ||M||_2)
      const sigmaM = numerics().svd(M, n, n, { vectors: "right" }).values;
      return { n, rank, nCorrupted, L0, S0, M, sigmaL0: sigma, sigmaM };
    }
  }

  /**
   * One run of the inexact ALM on the n x n matrix M: step() until it returns
   * false. options: tol, maxIter, rho, and sigmaM (M's singular values, if known).
   */
  class Split {
    constructor(M, n, lam, options) {
      Object.assign(this, { n, lam, tol: options.tol, maxIter: options.maxIter, rho: options.rho });
      let scale = 0;
      for (let t = 0; t < M.length; t++) scale = Math.max(scale, Math.abs(M[t]));
      if (scale === 0) throw new RangeError("M is all zeros: there is nothing to split.");
      this.scale = scale;
      this.M = M.map((v) => v / scale);
      this.normM = frobenius(this.M);
      this.sigmaM = options.sigmaM ? options.sigmaM.map((v) => v / scale)
        : numerics().svd(this.M, n, n, { vectors: "right" }).values; // of the scaled M
      const normTwo = this.sigmaM[0];
      this.Y = this.M.map((v) => v / Math.max(normTwo, 1 / lam));
      this.mu = 1.25 / normTwo;
      this.muMax = this.mu * 1e7;
      this.S = new Float64Array(n * n);
      this.L = new Float64Array(n * n);
      this.shrunk = new Float64Array(0); // the non-zero singular values of L (scaled)
      this.rank = 0;
      this.nuclear = 0;
      this.primal = [];
      this.dual = [];
      this.nIter = 0;
      this.converged = false;
      this.finished = false;
    }

    /** One sweep; false once the run has stopped. */
    step() {
      if (this.finished) return false;
      const { n, M, Y, lam } = this, mu = this.mu, size = n * n;
      const G = new Float64Array(size);
      for (let t = 0; t < size; t++) G[t] = M[t] - this.S[t] + Y[t] / mu;
      // singular value thresholding D_{1/mu}(G)
      const tau = 1 / mu, { values, V } = numerics().svd(G, n, n, { vectors: "right" });
      let rank = 0;
      while (rank < n && values[rank] > tau) rank++;
      const L = new Float64Array(size), shrunk = new Float64Array(rank), Gv = new Float64Array(n);
      for (let k = 0; k < rank; k++) {
        shrunk[k] = values[k] - tau;
        // (sigma_k - tau) u_k = (1 - tau / sigma_k) G v_k
        const v = k * n, c = 1 - tau / values[k];
        for (let i = 0; i < n; i++) {
          let t = 0;
          for (let j = 0; j < n; j++) t += G[i * n + j] * V[v + j];
          Gv[i] = c * t;
        }
        for (let i = 0; i < n; i++) {
          const a = Gv[i];
          if (a === 0) continue;
          for (let j = 0; j < n; j++) L[i * n + j] += a * V[v + j];
        }
      }
      const previous = this.S, S = new Float64Array(size), t2 = lam / mu;
      let primal = 0, dual = 0;
      for (let t = 0; t < size; t++) {
        const x = M[t] - L[t] + Y[t] / mu;
        S[t] = x - Math.min(Math.max(x, -t2), t2);
        const z = M[t] - L[t] - S[t];
        Y[t] += mu * z;
        primal += z * z;
        const change = S[t] - previous[t];
        dual += change * change;
      }
      primal = Math.sqrt(primal) / this.normM;
      dual = (mu * Math.sqrt(dual)) / this.normM;
      Object.assign(this, { L, S, shrunk, rank });
      this.nuclear = shrunk.reduce((a, b) => a + b, 0);
      this.primal.push(primal);
      this.dual.push(dual);
      this.mu = dual > BALANCE * primal ? mu / this.rho : Math.min(mu * this.rho, this.muMax);
      this.nIter += 1;
      this.converged = primal <= this.tol && dual <= this.tol;
      this.finished = this.converged || this.nIter >= this.maxIter;
      return !this.finished;
    }

    /** L, S and the singular values of L in the scale of the M given. */
    result() {
      const s = this.scale;
      return { L: this.L.map((v) => v * s), S: this.S.map((v) => v * s), sigmaL: this.shrunk.map((v) => v * s),
               sigmaM: this.sigmaM.map((v) => v * s) };
    }
  }

  /**
   * How the split compares with the truth: the relative error of L, and
   * each entry's class (0 clean, 1 corrupted and found, 2 corrupted and
   * missed, 3 clean but flagged), an entry being flagged when |S_ij| > flag.
   */
  function compare(problem, result, flag) {
    const { L0, S0 } = problem, size = L0.length, support = new Uint8Array(size);
    let error = 0, norm = 0;
    const counts = [0, 0, 0, 0];
    for (let t = 0; t < size; t++) {
      error += (result.L[t] - L0[t]) ** 2;
      norm += L0[t] * L0[t];
      const corrupted = S0[t] !== 0, flagged = Math.abs(result.S[t]) > flag;
      support[t] = corrupted ? (flagged ? 1 : 2) : (flagged ? 3 : 0);
      counts[support[t]]++;
    }
    return { relativeError: Math.sqrt(error / norm), support, found: counts[1], missed: counts[2], falseAlarms: counts[3] };
  }

  return { Draws, Split, compare, frobenius };
});
