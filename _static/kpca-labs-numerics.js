/* Numerics of the book's labs: kernel PCA, pre-images and PCA, computed in the page.
 *
 * The same mathematics as kpca_lib (Python), step for step, so that the
 * browser test can compare the two: the Gaussian kernel k(x, y) =
 * exp(-||x - y||^2 / c); kernel centring as sklearn's KernelCenterer (the
 * training column means centre both the training and the test kernel); the
 * top eigenpairs by Lanczos with full reorthogonalisation, and all eigenpairs
 * of small symmetric matrices by Householder tridiagonalisation and the
 * implicit QL method (EISPACK tred2/tql2, as in JAMA); eigenvector signs as
 * sklearn's svd_flip (the entry of largest absolute value positive);
 * alpha = beta / sqrt(mu); the gamma weights with the centring correction;
 * and the fixed-point iteration of Mika et al. (kpca_lib.preimage).
 *
 * Matrices are Float64Arrays in row-major order with their sizes passed
 * beside them. No dependency. Loaded by the book as a plain script
 * (window.kpcaNumerics) and by node's test runner as a CommonJS module.
 */
(function (root, factory) {
  "use strict";
  const api = factory();
  if (typeof module === "object" && module.exports) {
    module.exports = api;
  } else {
    root.kpcaNumerics = api;
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const EPS = Math.pow(2, -52);

  // -------------------------------------------------------------------------
  // exp: Math.exp costs 80 % of a fixed-point step (0.4 M calls); this one is
  // twice as fast and within 2 ulp of it (tests/js check), far below the
  // 1e-6 at which the pre-images are compared with kpca_lib.
  // exp(x) = 2^(k/64) exp(r), |r| <= ln 2 / 128, exp(r) by 6 Taylor terms.
  // -------------------------------------------------------------------------
  const TWO_TO_J_64 = new Float64Array(64);
  for (let j = 0; j < 64; j++) TWO_TO_J_64[j] = Math.pow(2, j / 64);
  const TWO_TO_K = new Float64Array(2100); // 2^(k - 1075), normal numbers and beyond
  for (let k = 0; k < 2100; k++) TWO_TO_K[k] = Math.pow(2, k - 1075);
  const INV_LN2_64 = 64 / Math.LN2;
  const LN2_64_HI = 6.93147180369123816490e-1 / 64; // ln 2 split in two (fdlibm)
  const LN2_64_LO = 1.90821492927058770002e-10 / 64;
  const ROUND = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer

  function fastExp(x) {
    if (!(x > -708 && x < 709)) return Math.exp(x); // subnormal, overflow, NaN
    const k = (x * INV_LN2_64 + ROUND) - ROUND;
    const r = (x - k * LN2_64_HI) - k * LN2_64_LO;
    const ki = k | 0;
    const p = 1 + r * (1 + r * (0.5 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (1 / 720))))));
    return p * TWO_TO_J_64[ki & 63] * TWO_TO_K[(ki >> 6) + 1075];
  }

  // -------------------------------------------------------------------------
  // A seeded generator (mulberry32) for start vectors and restarts
  // -------------------------------------------------------------------------
  function randomGenerator(seed) {
    let state = seed >>> 0;
    function uniform() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    function normal() {
      // Box-Muller; 1 - u keeps the logarithm finite
      const u = 1 - uniform();
      const v = uniform();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
    return { uniform, normal };
  }

  // -------------------------------------------------------------------------
  // Kernels and centring
  // -------------------------------------------------------------------------
  function checkWidth(c) {
    if (!(typeof c === "number" && c > 0 && isFinite(c))) {
      throw new RangeError("c must be a finite number > 0, got " + c);
    }
  }

  /** Squared distance between row a of A and row i of X (d columns each). */
  function squaredDistance(A, a, X, i, d) {
    let s = 0;
    for (let k = 0; k < d; k++) {
      const diff = A[a * d + k] - X[i * d + k];
      s += diff * diff;
    }
    return s;
  }

  /** Gram matrix K[i, j] = exp(-||x_i - x_j||^2 / c) of the n x d matrix X. */
  function gaussianGram(X, n, d, c) {
    checkWidth(c);
    const K = new Float64Array(n * n);
    const invC = 1 / c;
    for (let i = 0; i < n; i++) {
      K[i * n + i] = 1;
      for (let j = i + 1; j < n; j++) {
        const value = fastExp(-squaredDistance(X, i, X, j, d) * invC);
        K[i * n + j] = value;
        K[j * n + i] = value;
      }
    }
    return K;
  }

  /** Kernel between the m x d points A and the n x d points X (m x n). */
  function gaussianCross(A, m, X, n, d, c) {
    checkWidth(c);
    const K = new Float64Array(m * n);
    const invC = 1 / c;
    for (let a = 0; a < m; a++) {
      for (let i = 0; i < n; i++) K[a * n + i] = fastExp(-squaredDistance(A, a, X, i, d) * invC);
    }
    return K;
  }

  /**
   * Centre the n x n training kernel in place, as KernelCenterer().fit(K).transform(K).
   * Returns the column means and their mean, which also centre test kernels.
   */
  function centreTrainKernel(K, n) {
    const columnMeans = new Float64Array(n);
    const rowMeans = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) {
        columnMeans[j] += K[i * n + j];
        s += K[i * n + j];
      }
      rowMeans[i] = s / n;
    }
    let all = 0;
    for (let j = 0; j < n; j++) {
      columnMeans[j] /= n;
      all += columnMeans[j];
    }
    all /= n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) K[i * n + j] = K[i * n + j] - columnMeans[j] - rowMeans[i] + all;
    }
    return { columnMeans, allMean: all };
  }

  /** Centre the m x n test kernel in place by the training means (KernelCenterer.transform). */
  function centreTestKernel(K, m, n, centring) {
    const { columnMeans, allMean } = centring;
    for (let a = 0; a < m; a++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += K[a * n + j];
      const rowMean = s / n;
      for (let j = 0; j < n; j++) K[a * n + j] = K[a * n + j] - columnMeans[j] - rowMean + allMean;
    }
    return K;
  }

  // -------------------------------------------------------------------------
  // Small dense linear algebra
  // -------------------------------------------------------------------------
  function dot(x, y, n) {
    let s0 = 0, s1 = 0;
    let i = 0;
    for (; i + 1 < n; i += 2) {
      s0 += x[i] * y[i];
      s1 += x[i + 1] * y[i + 1];
    }
    if (i < n) s0 += x[i] * y[i];
    return s0 + s1;
  }

  /** y = A v for the n x n matrix A (two rows at a time: 1.6x faster in V8). */
  function matVec(A, n, v, y) {
    let i = 0;
    for (; i + 1 < n; i += 2) {
      const o = i * n, p = o + n;
      let s0 = 0, s1 = 0, t0 = 0, t1 = 0;
      let j = 0;
      for (; j + 1 < n; j += 2) {
        const a = v[j], b = v[j + 1];
        s0 += A[o + j] * a;
        s1 += A[o + j + 1] * b;
        t0 += A[p + j] * a;
        t1 += A[p + j + 1] * b;
      }
      if (j < n) {
        s0 += A[o + j] * v[j];
        t0 += A[p + j] * v[j];
      }
      y[i] = s0 + s1;
      y[i + 1] = t0 + t1;
    }
    if (i < n) {
      const o = i * n;
      let s = 0;
      for (let j = 0; j < n; j++) s += A[o + j] * v[j];
      y[i] = s;
    }
    return y;
  }

  /**
   * Implicit QL on a symmetric tridiagonal matrix (EISPACK tql2, as in JAMA).
   *
   * diag (length n) is overwritten by the eigenvalues in ascending order;
   * off[i] is the entry between i and i + 1 (off[n - 1] ignored) and is
   * destroyed. The rotations are applied to the `rows` rows of the row-major
   * rows x n matrix V: start from the identity for the eigenvectors (as
   * columns), or from one row of it to get only that row of them.
   */
  function tridiagonalQL(diag, off, n, V, rows) {
    const d = diag, e = off;
    e[n - 1] = 0;
    let f = 0, tst1 = 0;
    for (let l = 0; l < n; l++) {
      tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
      let m = l;
      while (m < n - 1 && Math.abs(e[m]) > EPS * tst1) m++;
      if (m > l) {
        let iterations = 0;
        do {
          if (++iterations > 60) throw new Error("tridiagonalQL: no convergence after 60 iterations");
          let g = d[l];
          let p = (d[l + 1] - g) / (2 * e[l]);
          let r = Math.hypot(p, 1);
          if (p < 0) r = -r;
          d[l] = e[l] / (p + r);
          d[l + 1] = e[l] * (p + r);
          const dl1 = d[l + 1];
          let h = g - d[l];
          for (let i = l + 2; i < n; i++) d[i] -= h;
          f += h;
          p = d[m];
          let c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
          const el1 = e[l + 1];
          for (let i = m - 1; i >= l; i--) {
            c3 = c2;
            c2 = c;
            s2 = s;
            g = c * e[i];
            h = c * p;
            r = Math.hypot(p, e[i]);
            e[i + 1] = s * r;
            s = e[i] / r;
            c = p / r;
            p = c * d[i] - s * g;
            d[i + 1] = h + s * (c * g + s * d[i]);
            for (let k = 0; k < rows; k++) {
              const o = k * n;
              h = V[o + i + 1];
              V[o + i + 1] = s * V[o + i] + c * h;
              V[o + i] = c * V[o + i] - s * h;
            }
          }
          p = (-s * s2 * c3 * el1 * e[l]) / dl1;
          e[l] = s * p;
          d[l] = c * p;
        } while (Math.abs(e[l]) > EPS * tst1);
      }
      d[l] += f;
      e[l] = 0;
    }
    // selection sort, ascending, columns of V alongside
    for (let i = 0; i < n - 1; i++) {
      let k = i, p = d[i];
      for (let j = i + 1; j < n; j++) if (d[j] < p) { k = j; p = d[j]; }
      if (k !== i) {
        d[k] = d[i];
        d[i] = p;
        for (let r = 0; r < rows; r++) {
          const o = r * n, t = V[o + i];
          V[o + i] = V[o + k];
          V[o + k] = t;
        }
      }
    }
  }

  /** Householder reduction of the symmetric V (n x n, overwritten) to tridiagonal form (tred2). */
  function householderTridiagonal(V, n, d, e) {
    const at = (i, j) => i * n + j;
    for (let j = 0; j < n; j++) d[j] = V[at(n - 1, j)];
    for (let i = n - 1; i > 0; i--) {
      let scale = 0, h = 0;
      for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
      if (scale === 0) {
        e[i] = d[i - 1];
        for (let j = 0; j < i; j++) {
          d[j] = V[at(i - 1, j)];
          V[at(i, j)] = 0;
          V[at(j, i)] = 0;
        }
      } else {
        for (let k = 0; k < i; k++) {
          d[k] /= scale;
          h += d[k] * d[k];
        }
        let f = d[i - 1];
        let g = Math.sqrt(h);
        if (f > 0) g = -g;
        e[i] = scale * g;
        h -= f * g;
        d[i - 1] = f - g;
        for (let j = 0; j < i; j++) e[j] = 0;
        for (let j = 0; j < i; j++) {
          f = d[j];
          V[at(j, i)] = f;
          g = e[j] + V[at(j, j)] * f;
          for (let k = j + 1; k <= i - 1; k++) {
            g += V[at(k, j)] * d[k];
            e[k] += V[at(k, j)] * f;
          }
          e[j] = g;
        }
        f = 0;
        for (let j = 0; j < i; j++) {
          e[j] /= h;
          f += e[j] * d[j];
        }
        const hh = f / (h + h);
        for (let j = 0; j < i; j++) e[j] -= hh * d[j];
        for (let j = 0; j < i; j++) {
          f = d[j];
          g = e[j];
          for (let k = j; k <= i - 1; k++) V[at(k, j)] -= f * e[k] + g * d[k];
          d[j] = V[at(i - 1, j)];
          V[at(i, j)] = 0;
        }
      }
      d[i] = h;
    }
    // accumulate the transformations
    for (let i = 0; i < n - 1; i++) {
      V[at(n - 1, i)] = V[at(i, i)];
      V[at(i, i)] = 1;
      const h = d[i + 1];
      if (h !== 0) {
        for (let k = 0; k <= i; k++) d[k] = V[at(k, i + 1)] / h;
        for (let j = 0; j <= i; j++) {
          let g = 0;
          for (let k = 0; k <= i; k++) g += V[at(k, i + 1)] * V[at(k, j)];
          for (let k = 0; k <= i; k++) V[at(k, j)] -= g * d[k];
        }
      }
      for (let k = 0; k <= i; k++) V[at(k, i + 1)] = 0;
    }
    for (let j = 0; j < n; j++) {
      d[j] = V[at(n - 1, j)];
      V[at(n - 1, j)] = 0;
    }
    V[at(n - 1, n - 1)] = 1;
    // tred2 leaves e[i] between i - 1 and i; tridiagonalQL wants it between i and i + 1
    for (let i = 1; i < n; i++) e[i - 1] = e[i];
    e[n - 1] = 0;
  }

  /**
   * All eigenpairs of the symmetric n x n matrix A (not modified), largest first.
   * Returns {values, vectors}: vectors is n x n row-major with the unit
   * eigenvectors as columns. Signs are not fixed (see flipSigns).
   */
  function symmetricEigen(A, n) {
    const V = Float64Array.from(A.subarray ? A.subarray(0, n * n) : A);
    const d = new Float64Array(n), e = new Float64Array(n);
    if (n === 1) return { values: Float64Array.of(A[0]), vectors: Float64Array.of(1) };
    householderTridiagonal(V, n, d, e);
    tridiagonalQL(d, e, n, V, n);
    // descending order
    const values = new Float64Array(n), vectors = new Float64Array(n * n);
    for (let k = 0; k < n; k++) {
      values[k] = d[n - 1 - k];
      for (let i = 0; i < n; i++) vectors[i * n + k] = V[i * n + n - 1 - k];
    }
    return { values, vectors };
  }

  /**
   * Make the entry of largest absolute value of each column of the rows x cols
   * matrix V positive (sklearn.utils.extmath.svd_flip, u_based_decision=True;
   * the first such entry on a tie, as numpy's argmax).
   */
  function flipSigns(V, rows, cols) {
    for (let k = 0; k < cols; k++) {
      let best = -1, at = 0;
      for (let i = 0; i < rows; i++) {
        const a = Math.abs(V[i * cols + k]);
        if (a > best) { best = a; at = i; }
      }
      if (V[at * cols + k] < 0) for (let i = 0; i < rows; i++) V[i * cols + k] = -V[i * cols + k];
    }
    return V;
  }

  /**
   * The q largest eigenpairs of a symmetric n x n operator by Lanczos with full
   * reorthogonalisation.
   *
   * matvec(v, y) writes A v into y. The Ritz pairs are checked every few
   * steps; the run stops when each of the q largest has a residual
   * ||A y - theta y|| <= tol * max|theta|, or after maxSteps products.
   * Returns {values (descending), vectors (n x q row-major), steps,
   * converged, residual (largest relative residual of the q pairs)}.
   */
  function lanczosTopEigen(matvec, n, q, options) {
    const opts = options || {};
    const tol = opts.tol === undefined ? 1e-11 : opts.tol;
    const maxSteps = Math.min(n, opts.maxSteps || 300);
    if (!(q >= 1 && q <= n)) throw new RangeError("q must be between 1 and n = " + n + ", got " + q);
    const random = randomGenerator(opts.seed === undefined ? 12345 : opts.seed);
    const basis = new Float64Array(maxSteps * n);
    const alpha = new Float64Array(maxSteps), beta = new Float64Array(maxSteps);
    const w = new Float64Array(n);

    function orthogonaliseAgainst(vector, count) {
      // classical Gram-Schmidt twice ("twice is enough")
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < count; i++) {
          const vi = basis.subarray(i * n, (i + 1) * n);
          const h = dot(vector, vi, n);
          for (let k = 0; k < n; k++) vector[k] -= h * vi[k];
        }
      }
    }
    function randomUnitVector(into, count) {
      // uniform(-1, 1), never the constant vector (null space of a centred kernel)
      for (let k = 0; k < n; k++) into[k] = 2 * random.uniform() - 1;
      orthogonaliseAgainst(into, count);
      const norm = Math.sqrt(dot(into, into, n));
      for (let k = 0; k < n; k++) into[k] /= norm;
    }

    function ritzValues(steps, wantVectors) {
      const d = alpha.slice(0, steps), e = new Float64Array(steps);
      for (let i = 0; i + 1 < steps; i++) e[i] = beta[i];
      const rows = wantVectors ? steps : 1;
      const S = new Float64Array(rows * steps);
      if (wantVectors) for (let i = 0; i < steps; i++) S[i * steps + i] = 1;
      else S[steps - 1] = 1; // only the last row of the eigenvectors: the residuals
      tridiagonalQL(d, e, steps, S, rows);
      return { d, S };
    }

    randomUnitVector(basis.subarray(0, n), 0);
    let steps = 0, converged = false, residual = Infinity;
    for (let j = 0; j < maxSteps; j++) {
      const vj = basis.subarray(j * n, (j + 1) * n);
      matvec(vj, w);
      alpha[j] = dot(w, vj, n);
      orthogonaliseAgainst(w, j + 1);
      const b = Math.sqrt(dot(w, w, n));
      steps = j + 1;
      const exhausted = steps === maxSteps;
      // an invariant subspace: the Krylov space holds no more of A's range
      const invariant = b <= 1e-13 * Math.max(Math.abs(alpha[0]), 1e-300) * Math.sqrt(n);
      beta[j] = invariant ? 0 : b;
      if (steps >= q && (steps % 3 === 0 || exhausted || invariant)) {
        const { d, S } = ritzValues(steps, false);
        const scale = Math.max(Math.abs(d[0]), Math.abs(d[steps - 1]));
        residual = 0;
        for (let k = 0; k < q; k++) {
          residual = Math.max(residual, Math.abs(beta[j] * S[steps - 1 - k]) / scale);
        }
        if (residual <= tol) { converged = true; break; }
      }
      if (exhausted) break;
      const next = basis.subarray((j + 1) * n, (j + 2) * n);
      if (invariant) randomUnitVector(next, j + 1);
      else for (let k = 0; k < n; k++) next[k] = w[k] / b;
    }

    const { d, S } = ritzValues(steps, true);
    const values = new Float64Array(q), vectors = new Float64Array(n * q);
    for (let k = 0; k < q; k++) {
      const column = steps - 1 - k; // ascending order from tridiagonalQL
      values[k] = d[column];
      for (let i = 0; i < steps; i++) {
        const s = S[i * steps + column];
        if (s === 0) continue;
        const vi = i * n;
        for (let r = 0; r < n; r++) vectors[r * q + k] += s * basis[vi + r];
      }
    }
    return { values, vectors, steps, converged, residual };
  }

  /** Eigenvalues above size * eps * scale: not round-off of a zero (kpca_lib._linalg.numerical_rank). */
  function numericalRank(values, size, scale) {
    if (values.length === 0 || values[0] <= 0) return 0;
    const threshold = size * EPS * (scale === undefined ? values[0] : scale);
    let rank = 0;
    for (let k = 0; k < values.length; k++) if (values[k] > threshold) rank++;
    return rank;
  }

  // -------------------------------------------------------------------------
  // Kernel PCA with the Gaussian kernel
  // -------------------------------------------------------------------------

  /**
   * Fit kernel PCA: centred kernel, its q largest eigenpairs (mu_k, beta_k),
   * signs fixed, alpha_k = beta_k / sqrt(mu_k). Components beyond the
   * numerical rank are dropped (nComponents tells how many are left).
   */
  function kernelPCAFit(X, n, d, c, q, options) {
    const K = gaussianGram(X, n, d, c);
    let scale = 0;
    for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(K[i]));
    const centring = centreTrainKernel(K, n);
    const eigen = lanczosTopEigen((v, y) => matVec(K, n, v, y), n, q, options);
    const rank = numericalRank(eigen.values, n, scale);
    const kept = Math.min(q, rank);
    const alphas = new Float64Array(n * kept), eigenvalues = eigen.values.slice(0, kept);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < kept; k++) alphas[i * kept + k] = eigen.vectors[i * q + k];
    }
    flipSigns(alphas, n, kept);
    // alphas (n x q) as kpca_lib's alphas_, and transposed (q x n) for the
    // contiguous inner loops of the projections and the gamma weights
    const alphasT = new Float64Array(kept * n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < kept; k++) {
        alphas[i * kept + k] /= Math.sqrt(eigenvalues[k]);
        alphasT[k * n + i] = alphas[i * kept + k];
      }
    }
    return {
      X, n, d, c, centring, eigenvalues, alphas, alphasT, nComponents: kept, rank,
      lanczos: { steps: eigen.steps, converged: eigen.converged, residual: eigen.residual },
    };
  }

  /** Projections beta (m x q) of the m points A on the fitted components. */
  function kernelPCAProject(fit, A, m) {
    const { X, n, d, c, alphasT, nComponents: q } = fit;
    const K = centreTestKernel(gaussianCross(A, m, X, n, d, c), m, n, fit.centring);
    const beta = new Float64Array(m * q);
    for (let a = 0; a < m; a++) {
      const row = K.subarray(a * n, (a + 1) * n);
      for (let k = 0; k < q; k++) beta[a * q + k] = dot(row, alphasT.subarray(k * n, (k + 1) * n), n);
    }
    return beta;
  }

  /**
   * gamma_i = sum_{k<q} beta_k alpha_i^k + (1/n)(1 - sum_j sum_{k<q} beta_k alpha_j^k),
   * one row per point (kpca_lib.preimage.gamma_weights), from a kernelPCAFit
   * and the projections beta (m x qFit) of the points; the first q
   * components are used.
   */
  function gammaWeights(fit, beta, m, q) {
    const { n, alphasT, nComponents: qFit } = fit;
    if (!(q >= 1 && q <= qFit)) throw new RangeError("q must be between 1 and " + qFit + ", got " + q);
    const gamma = new Float64Array(m * n);
    for (let a = 0; a < m; a++) {
      const row = gamma.subarray(a * n, (a + 1) * n);
      for (let k = 0; k < q; k++) {
        const b = beta[a * qFit + k], alpha = alphasT.subarray(k * n, (k + 1) * n);
        for (let i = 0; i < n; i++) row[i] += b * alpha[i];
      }
      let total = 0;
      for (let i = 0; i < n; i++) total += row[i];
      const correction = (1 - total) / n;
      for (let i = 0; i < n; i++) row[i] += correction;
    }
    return gamma;
  }

  // -------------------------------------------------------------------------
  // The fixed-point iteration of Mika et al. for the Gaussian kernel
  // -------------------------------------------------------------------------

  /**
   * z <- sum_i w_i x_i / sum_i w_i, w_i = gamma_i exp(-||z - x_i||^2 / c), for
   * m points at once, one step at a time (so that the page can spread the
   * steps over animation frames), keeping every iterate.
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
  // Linear PCA (covariance route, C = X_c^T X_c / n)
  // -------------------------------------------------------------------------

  /**
   * Mean, covariance, eigenvalues (descending) and components (d x d, unit
   * rows, the entry of largest absolute value of each row positive, as
   * kpca_lib.PCA).
   */
  function pcaFit(X, n, d) {
    const mean = new Float64Array(d);
    for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) mean[k] += X[i * d + k];
    for (let k = 0; k < d; k++) mean[k] /= n;
    const C = new Float64Array(d * d);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) {
        const xj = X[i * d + j] - mean[j];
        for (let k = 0; k < d; k++) C[j * d + k] += xj * (X[i * d + k] - mean[k]);
      }
    }
    for (let j = 0; j < d * d; j++) C[j] /= n;
    const eigen = symmetricEigen(C, d);
    flipSigns(eigen.vectors, d, d);
    const components = new Float64Array(d * d); // rows: the transpose of the eigenvector matrix
    for (let k = 0; k < d; k++) for (let j = 0; j < d; j++) components[k * d + j] = eigen.vectors[j * d + k];
    return { mean, covariance: C, eigenvalues: eigen.values, components, d };
  }

  /** Project the m points A on the first q components and map back (m x d). */
  function pcaReconstruct(pca, A, m, q) {
    const { mean, components, d } = pca;
    const out = new Float64Array(m * d);
    const p = new Float64Array(q);
    for (let a = 0; a < m; a++) {
      for (let k = 0; k < q; k++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += (A[a * d + j] - mean[j]) * components[k * d + j];
        p[k] = s;
      }
      for (let j = 0; j < d; j++) {
        let s = 0;
        for (let k = 0; k < q; k++) s += p[k] * components[k * d + j];
        out[a * d + j] = s + mean[j];
      }
    }
    return out;
  }

  /** mean_a ||A_a - B_a||^2 over m points of dimension d. */
  function meanSquaredDistance(A, B, m, d) {
    let s = 0;
    for (let i = 0; i < m * d; i++) s += (A[i] - B[i]) ** 2;
    return s / m;
  }

  return {
    fastExp,
    randomGenerator,
    gaussianGram,
    gaussianCross,
    centreTrainKernel,
    centreTestKernel,
    matVec,
    tridiagonalQL,
    symmetricEigen,
    flipSigns,
    lanczosTopEigen,
    numericalRank,
    kernelPCAFit,
    kernelPCAProject,
    gammaWeights,
    FixedPointRun,
    pcaFit,
    pcaReconstruct,
    meanSquaredDistance,
  };
});
