/* Chapter 4's kernel PCA lab: its numerics, computed in the page.
 *
 * The same mathematics as kpca_lib, step for step, so that the tests can
 * compare the two: the Gaussian kernel exp(-||x - y||^2 / c) and the
 * polynomial kernel (x . y + 1)^p (kpca_lib.Gaussian, kpca_lib.Polynomial);
 * kpca_lib.KernelPCA's fit (the centred kernel, its leading eigenpairs by
 * Lanczos, signs as svd_flip, alpha = beta / sqrt(mu), components beyond
 * the numerical rank dropped) and projections (the test kernel centred by
 * the training means). The held-out score is in kpca-lab-kpca-score.js.
 *
 * Uses kpca-labs-linalg.js and kpca-labs-kernels.js (looked up on first use:
 * the book links _static files in an order of its own). In the page it
 * fills window.kpcaKernelPCALab; node's test runner loads it as a CommonJS
 * module.
 */
(function (root, factory) {
  "use strict";
  const inNode = typeof module === "object" && module.exports;
  const others = () => (inNode
    ? Object.assign({}, require("./kpca-labs-linalg.js"), require("./kpca-labs-kernels.js"))
    : root.kpcaNumerics);
  const api = factory(others);
  // the held-out score is in kpca-lab-kpca-score.js, which joins the same object
  if (inNode) module.exports = Object.assign(api, require("./kpca-lab-kpca-score.js"));
  else root.kpcaKernelPCALab = Object.assign(root.kpcaKernelPCALab || {}, api);
})(typeof self !== "undefined" ? self : this, function (numerics) {
  "use strict";
  let N = null;
  function link() {
    if (!N) N = numerics();
    return N;
  }

  // -------------------------------------------------------------------------
  // Kernels: {name: "gaussian", c} or {name: "polynomial", degree} (gamma 1, coef0 1)
  // -------------------------------------------------------------------------
  function checkKernel(kernel) {
    if (kernel && kernel.name === "gaussian") return N.checkWidth(kernel.c);
    if (kernel && kernel.name === "polynomial" && Number.isInteger(kernel.degree) && kernel.degree >= 1) return;
    throw new RangeError("kernel must be {name: 'gaussian', c > 0} or {name: 'polynomial', degree >= 1}");
  }

  /** (gamma a . x + coef0)^degree, as sklearn's polynomial_kernel with gamma = coef0 = 1. */
  function polynomialValue(A, a, X, i, d, degree) {
    let s = 0;
    for (let k = 0; k < d; k++) s += A[a * d + k] * X[i * d + k];
    return power(s + 1, degree);
  }

  /** base^degree by repeated squaring: within a few ulp of numpy's **, and 10x faster than Math.pow. */
  function power(base, degree) {
    let result = 1, square = base, e = degree;
    while (e > 0) {
      if (e & 1) result *= square;
      e >>= 1;
      if (e) square *= square;
    }
    return result;
  }

  /** The kernel between the m points A and the n points X (m x n, d = 2 columns). */
  function cross(kernel, A, m, X, n) {
    link();
    checkKernel(kernel);
    if (kernel.name === "gaussian") return N.gaussianCross(A, m, X, n, 2, kernel.c);
    const K = new Float64Array(m * n);
    for (let a = 0; a < m; a++) {
      for (let i = 0; i < n; i++) K[a * n + i] = polynomialValue(A, a, X, i, 2, kernel.degree);
    }
    return K;
  }

  function gram(kernel, X, n) {
    link();
    checkKernel(kernel);
    if (kernel.name === "gaussian") return N.gaussianGram(X, n, 2, kernel.c);
    const K = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) {
        const value = polynomialValue(X, i, X, j, 2, kernel.degree);
        K[i * n + j] = value;
        K[j * n + i] = value;
      }
    }
    return K;
  }

  // -------------------------------------------------------------------------
  // Kernel PCA (kpca_lib.KernelPCA(q, kernel).fit(X), q = min(qMax, n - 1, rank))
  // -------------------------------------------------------------------------
  /**
   * Fit on the n x 2 points X: the leading eigenvalues mu (descending), alphas
   * (n x q) and alphasT (q x n), the training projections Z = beta sqrt(mu)
   * (n x q, as fit_transform), the trace of the centred kernel (the total of
   * all n eigenvalues) and the Lanczos run's report.
   */
  function fit(X, n, kernel, qMax, options) {
    link();
    const K = gram(kernel, X, n);
    let scale = 0;
    for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(K[i]));
    const centring = N.centreTrainKernel(K, n);
    let trace = 0;
    for (let i = 0; i < n; i++) trace += K[i * n + i];
    const wanted = Math.min(qMax, n - 1);
    const eigen = N.lanczosTopEigen((v, y) => N.matVec(K, n, v, y), n, wanted,
      Object.assign({ tol: 1e-13, maxSteps: 400 }, options));
    const q = Math.min(wanted, N.numericalRank(eigen.values, n, scale));
    const eigenvalues = eigen.values.slice(0, q);
    const betas = new Float64Array(n * q);
    for (let i = 0; i < n; i++) for (let k = 0; k < q; k++) betas[i * q + k] = eigen.vectors[i * wanted + k];
    N.flipSigns(betas, n, q);
    const alphas = new Float64Array(n * q), alphasT = new Float64Array(q * n), Z = new Float64Array(n * q);
    for (let k = 0; k < q; k++) {
      const root = Math.sqrt(eigenvalues[k]);
      for (let i = 0; i < n; i++) {
        const b = betas[i * q + k];
        alphas[i * q + k] = b / root;
        alphasT[k * n + i] = b / root;
        Z[i * q + k] = (b / root) * eigenvalues[k];
      }
    }
    return {
      X, n, kernel, centring, eigenvalues, alphas, alphasT, Z, trace, nComponents: q,
      lanczos: { steps: eigen.steps, converged: eigen.converged, residual: eigen.residual },
    };
  }

  /** Projections (m x q) of the m points A on the fitted components (kpca_lib's transform). */
  function project(model, A, m) {
    link();
    const { X, n } = model;
    return projectRows(model, m, (a, row) => {
      const ax = A[2 * a], ay = A[2 * a + 1];
      if (model.kernel.name === "polynomial") {
        for (let i = 0; i < n; i++) row[i] = power(ax * X[2 * i] + ay * X[2 * i + 1] + 1, model.kernel.degree);
      } else {
        const fastExp = N.fastExp, invC = 1 / model.kernel.c;
        for (let i = 0; i < n; i++) {
          const dx = ax - X[2 * i], dy = ay - X[2 * i + 1];
          row[i] = fastExp(-(dx * dx + dy * dy) * invC);
        }
      }
    });
  }

  /**
   * Projections of the size x size grid of points (xs[col], ys[row]), row by
   * row (point row * size + col). The Gaussian kernel of a grid point is a
   * product, exp(-dx^2 / c) exp(-dy^2 / c): 2 size n exponentials, not size^2 n.
   */
  function projectGrid(model, xs, ys) {
    const size = xs.length, { X, n } = model;
    if (model.kernel.name === "polynomial") {
      const G = new Float64Array(2 * size * size);
      for (let r = 0; r < size; r++) {
        for (let col = 0; col < size; col++) { G[2 * (r * size + col)] = xs[col]; G[2 * (r * size + col) + 1] = ys[r]; }
      }
      return project(model, G, size * size);
    }
    link();
    const fastExp = N.fastExp, invC = 1 / model.kernel.c;
    const ex = new Float64Array(size * n), ey = new Float64Array(size * n);
    for (let g = 0; g < size; g++) {
      for (let i = 0; i < n; i++) {
        ex[g * n + i] = fastExp(-((xs[g] - X[2 * i]) ** 2) * invC);
        ey[g * n + i] = fastExp(-((ys[g] - X[2 * i + 1]) ** 2) * invC);
      }
    }
    return projectRows(model, size * size, (a, row) => {
      const x = ex.subarray((a % size) * n), y = ey.subarray(Math.floor(a / size) * n);
      for (let i = 0; i < n; i++) row[i] = x[i] * y[i];
    });
  }

  /**
   * Projections (m x q) of m points whose kernel rows fill(a, row) writes:
   * the test kernel centred by the training means, times the alphas, one row
   * at a time (no m x n matrix). With k the row and u the training column
   * means, u* their mean: k_c alpha = k alpha - u alpha - (mean(k) - u*) sum(alpha).
   */
  function projectRows(model, m, fill) {
    link();
    const { n, alphasT, nComponents: q, centring } = model, dot = N.dot;
    const { columnMeans, allMean } = centring;
    const meanTerm = new Float64Array(q), sums = new Float64Array(q);
    for (let k = 0; k < q; k++) {
      const alpha = alphasT.subarray(k * n, (k + 1) * n);
      meanTerm[k] = dot(columnMeans, alpha, n);
      for (let i = 0; i < n; i++) sums[k] += alpha[i];
    }
    const Y = new Float64Array(m * q), row = new Float64Array(n);
    for (let a = 0; a < m; a++) {
      fill(a, row);
      let total = 0;
      for (let i = 0; i < n; i++) total += row[i];
      const shift = total / n - allMean;
      // one plain loop per component over contiguous memory (alphasT is q x n): the row stays
      // in the cache, and V8 runs this loop about twice as fast as q running sums in one pass
      // (the same sums in the same order)
      for (let k = 0; k < q; k++) {
        let acc = 0;
        const base = k * n;
        for (let i = 0; i < n; i++) acc += row[i] * alphasT[base + i];
        Y[a * q + k] = acc - meanTerm[k] - shift * sums[k];
      }
    }
    return Y;
  }

  return {
    checkKernel, cross, gram, fit, project, projectGrid, link,
  };
});
