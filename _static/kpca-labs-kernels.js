/* The labs' kernel PCA and linear PCA, computed in the page.
 *
 * The same mathematics as kpca_lib, step for step, so that the tests can
 * compare the two: the Gaussian kernel k(x, y) = exp(-||x - y||^2 / c);
 * kernel centring as sklearn's KernelCenterer (the training column means
 * centre both the training and the test kernel); the top eigenpairs of the
 * centred kernel with signs as sklearn's svd_flip (the entry of largest
 * absolute value positive) and alpha = beta / sqrt(mu); the gamma
 * weights of the pre-image with the centring correction
 * (kpca_lib.preimage.gamma_weights); linear PCA as kpca_lib.PCA.
 *
 * Matrices are Float64Arrays in row-major order with their sizes passed
 * beside them. Uses kpca-labs-linalg.js. The book loads the three numerics files as
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
  const others = () => (inNode ? Object.assign({}, require("./kpca-labs-linalg.js")) : shared);
  const api = factory(others);
  if (inNode) module.exports = api;
  else Object.assign(shared, api);
})(typeof self !== "undefined" ? self : this, function (numerics) {
  "use strict";
  // from kpca-labs-linalg.js, looked up on first use
  let lanczosTopEigenSteps, finish, matVec, dot, symmetricEigen;
  function link() {
    if (!matVec) ({ lanczosTopEigenSteps, finish, matVec, dot, symmetricEigen } = numerics());
  }
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
    const steps = gaussianGramSteps(X, n, d, c);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  const GRAM_ROWS = 64; // rows of the Gram matrix between two yields of gaussianGramSteps

  /** gaussianGram as a generator that yields every GRAM_ROWS rows; returns K. */
  function* gaussianGramSteps(X, n, d, c) {
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
      if (i % GRAM_ROWS === GRAM_ROWS - 1) yield i;
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
    const steps = centreTrainKernelSteps(K, n);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /**
   * centreTrainKernel as a generator that yields every GRAM_ROWS rows of each
   * of its two passes (the means, then the centring; n^2 each, about 70 ms of
   * one task at n = 1,100 on a loaded machine); the same arithmetic in the
   * same order, so the same numbers.
   */
  function* centreTrainKernelSteps(K, n) {
    const columnMeans = new Float64Array(n);
    const rowMeans = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) {
        columnMeans[j] += K[i * n + j];
        s += K[i * n + j];
      }
      rowMeans[i] = s / n;
      if (i % GRAM_ROWS === GRAM_ROWS - 1) yield "means";
    }
    let all = 0;
    for (let j = 0; j < n; j++) {
      columnMeans[j] /= n;
      all += columnMeans[j];
    }
    all /= n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) K[i * n + j] = K[i * n + j] - columnMeans[j] - rowMeans[i] + all;
      if (i % GRAM_ROWS === GRAM_ROWS - 1) yield "centring";
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
  // kpca_lib's conventions: deterministic signs, the numerical rank
  // -------------------------------------------------------------------------
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
    link();
    return finish(kernelPCAFitSteps(X, n, d, c, q, options));
  }

  /**
   * kernelPCAFit as a generator that yields between slices of its work (rows
   * of the kernel, its centring, each Lanczos step), so that a page can fit
   * in tasks of a few milliseconds; returns the same fit, the same numbers.
   */
  function* kernelPCAFitSteps(X, n, d, c, q, options) {
    link();
    const K = yield* gaussianGramSteps(X, n, d, c);
    let scale = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i * n; j < (i + 1) * n; j++) scale = Math.max(scale, Math.abs(K[j]));
      if (i % GRAM_ROWS === GRAM_ROWS - 1) yield "scale";
    }
    const centring = yield* centreTrainKernelSteps(K, n);
    yield "centred";
    const eigen = yield* lanczosTopEigenSteps((v, y) => matVec(K, n, v, y), n, q, options);
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

  /** Projections Y (m x q) of the m points A on the fitted components. */
  function kernelPCAProject(fit, A, m) {
    link();
    const { X, n, d, c, alphasT, nComponents: q } = fit;
    const K = centreTestKernel(gaussianCross(A, m, X, n, d, c), m, n, fit.centring);
    const Y = new Float64Array(m * q);
    for (let a = 0; a < m; a++) {
      const row = K.subarray(a * n, (a + 1) * n);
      for (let k = 0; k < q; k++) Y[a * q + k] = dot(row, alphasT.subarray(k * n, (k + 1) * n), n);
    }
    return Y;
  }

  /**
   * gamma_i = sum_{k<q} y_k alpha_i^k + (1/n)(1 - sum_j sum_{k<q} y_k alpha_j^k),
   * one row per point (kpca_lib.preimage.gamma_weights), from a kernelPCAFit
   * and the projections Y (m x qFit) of the points; the first q
   * components are used.
   */
  function gammaWeights(fit, Y, m, q) {
    const { n, alphasT, nComponents: qFit } = fit;
    if (!(q >= 1 && q <= qFit)) throw new RangeError("q must be between 1 and " + qFit + ", got " + q);
    const gamma = new Float64Array(m * n);
    for (let a = 0; a < m; a++) {
      const row = gamma.subarray(a * n, (a + 1) * n);
      for (let k = 0; k < q; k++) {
        const b = Y[a * qFit + k], alpha = alphasT.subarray(k * n, (k + 1) * n);
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
  // Linear PCA (covariance route, C = X_c^T X_c / n)
  // -------------------------------------------------------------------------

  /**
   * Mean, covariance, eigenvalues (descending) and components (d x d, unit
   * rows, the entry of largest absolute value of each row positive, as
   * kpca_lib.PCA).
   */
  function pcaFit(X, n, d) {
    link();
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
    fastExp, checkWidth, flipSigns, numericalRank, gaussianGram, gaussianCross, centreTrainKernel, centreTrainKernelSteps,
    centreTestKernel, kernelPCAFit,
    kernelPCAFitSteps, gaussianGramSteps, kernelPCAProject, gammaWeights, pcaFit, pcaReconstruct, meanSquaredDistance,
  };
});
