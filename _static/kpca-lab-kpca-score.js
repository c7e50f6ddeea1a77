/* Chapter 4's kernel PCA lab: the held-out score, computed in the page.
 *
 * kpca_lib.explorers.held_out_accuracy: sklearn's StandardScaler on the
 * training projections, a logistic regression with C = 1 (binary for two
 * classes, multinomial for more, as sklearn's LogisticRegression) fitted by
 * Newton's method to its unique optimum, then its accuracy on the held-out
 * points. No dependency. In the page it joins window.kpcaKernelPCALab (with
 * kpca-lab-kpca-model.js); node's test runner loads it as a CommonJS module.
 */
(function (root, factory) {
  "use strict";
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.kpcaKernelPCALab = Object.assign(root.kpcaKernelPCALab || {}, api);
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  /** The first p of the `stride` columns of the rows x stride matrix Z. */
  function columns(Z, rows, stride, p) {
    const out = new Float64Array(rows * p);
    for (let i = 0; i < rows; i++) for (let k = 0; k < p; k++) out[i * p + k] = Z[i * stride + k];
    return out;
  }

  /** sklearn's StandardScaler fitted on A (n x p): mean, and the std (ddof 0; 1 where a column is constant). */
  function scaler(A, n, p) {
    const mean = new Float64Array(p), scale = new Float64Array(p);
    for (let i = 0; i < n; i++) for (let k = 0; k < p; k++) mean[k] += A[i * p + k];
    for (let k = 0; k < p; k++) mean[k] /= n;
    for (let k = 0; k < p; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += (A[i * p + k] - mean[k]) ** 2;
      const variance = s / n;
      // sklearn's _handle_zeros_in_scale: a (numerically) constant column is not scaled
      const constant = variance <= n * Math.pow(2, -52) * mean[k] * mean[k] || variance === 0;
      scale[k] = constant ? 1 : Math.sqrt(variance);
    }
    return (B, m) => {
      const out = new Float64Array(m * p);
      for (let i = 0; i < m; i++) for (let k = 0; k < p; k++) out[i * p + k] = (B[i * p + k] - mean[k]) / scale[k];
      return out;
    };
  }

  /** Solve H x = g for the symmetric positive definite size x size H (Cholesky; H is overwritten). */
  function choleskySolve(H, size, g) {
    for (let j = 0; j < size; j++) {
      let s = H[j * size + j];
      for (let k = 0; k < j; k++) s -= H[j * size + k] ** 2;
      const diagonal = Math.sqrt(Math.max(s, 1e-300));
      H[j * size + j] = diagonal;
      for (let i = j + 1; i < size; i++) {
        let t = H[i * size + j];
        for (let k = 0; k < j; k++) t -= H[i * size + k] * H[j * size + k];
        H[i * size + j] = t / diagonal;
      }
    }
    const x = Float64Array.from(g);
    for (let i = 0; i < size; i++) {
      for (let k = 0; k < i; k++) x[i] -= H[i * size + k] * x[k];
      x[i] /= H[i * size + i];
    }
    for (let i = size - 1; i >= 0; i--) {
      for (let k = i + 1; k < size; k++) x[i] -= H[k * size + i] * x[k];
      x[i] /= H[i * size + i];
    }
    return x;
  }

  /**
   * The decision values of each class (rows x K) for parameters theta: K - 1
   * of them for two classes (binary: one weight vector and intercept) and K
   * otherwise (multinomial, the last class's intercept held at 0: only
   * differences of intercepts matter, and they are unpenalised).
   */
  function scores(theta, A, rows, p, K) {
    const blocks = K === 2 ? 1 : K, S = new Float64Array(rows * blocks);
    for (let i = 0; i < rows; i++) {
      for (let k = 0; k < blocks; k++) {
        let s = k * (p + 1) + p < theta.length ? theta[k * (p + 1) + p] : 0;
        for (let j = 0; j < p; j++) s += theta[k * (p + 1) + j] * A[i * p + j];
        S[i * blocks + k] = s;
      }
    }
    return S;
  }

  /**
   * The penalised loss sum_i loss_i + ||W||^2 / 2 (C = 1), its gradient and
   * Hessian at theta. labels are class indices 0 .. K - 1.
   */
  function objective(theta, A, labels, n, p, K, wantHessian) {
    const blocks = K === 2 ? 1 : K, size = theta.length, width = p + 1;
    const S = scores(theta, A, n, p, K);
    let loss = 0;
    const g = new Float64Array(size), H = wantHessian ? new Float64Array(size * size) : null;
    const prob = new Float64Array(blocks), x = new Float64Array(width);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < p; j++) x[j] = A[i * p + j];
      x[p] = 1;
      if (K === 2) {
        const t = labels[i] === 1 ? 1 : -1, s = S[i];
        // log(1 + exp(-t s)), stably; prob[0] = P(class 1)
        const z = -t * s;
        loss += z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
        prob[0] = 1 / (1 + Math.exp(-s));
        const residual = prob[0] - (labels[i] === 1 ? 1 : 0);
        for (let a = 0; a < width; a++) g[a] += residual * x[a];
        if (H) {
          const w = prob[0] * (1 - prob[0]);
          for (let a = 0; a < width; a++) for (let b = 0; b < width; b++) H[a * size + b] += w * x[a] * x[b];
        }
        continue;
      }
      let top = -Infinity;
      for (let k = 0; k < K; k++) top = Math.max(top, S[i * K + k]);
      let total = 0;
      for (let k = 0; k < K; k++) { prob[k] = Math.exp(S[i * K + k] - top); total += prob[k]; }
      loss += top + Math.log(total) - S[i * K + labels[i]];
      for (let k = 0; k < K; k++) prob[k] /= total;
      for (let k = 0; k < K; k++) {
        const residual = prob[k] - (labels[i] === k ? 1 : 0);
        for (let a = 0; a < width; a++) { const r = k * width + a; if (r < size) g[r] += residual * x[a]; }
        if (!H) continue;
        for (let l = 0; l < K; l++) {
          const w = prob[k] * ((k === l ? 1 : 0) - prob[l]);
          for (let a = 0; a < width; a++) {
            const r = k * width + a;
            if (r >= size) continue;
            for (let b = 0; b < width; b++) {
              const c = l * width + b;
              if (c < size) H[r * size + c] += w * x[a] * x[b];
            }
          }
        }
      }
    }
    // the L2 penalty on the weights, not on the intercepts
    for (let k = 0; k < blocks; k++) {
      for (let j = 0; j < p; j++) {
        const r = k * width + j;
        loss += 0.5 * theta[r] * theta[r];
        g[r] += theta[r];
        if (H) H[r * size + r] += 1;
      }
    }
    return { loss, g, H };
  }

  /**
   * Logistic regression with C = 1 on the n x p matrix A and class indices
   * labels (K classes): Newton's method with a backtracking line search, to
   * the optimum (the gradient at round-off). Returns {theta, K, p, iterations}.
   */
  function logisticFit(A, labels, n, p, K) {
    const size = K === 2 ? p + 1 : K * (p + 1) - 1;
    let theta = new Float64Array(size), current = objective(theta, A, labels, n, p, K, true);
    let iterations = 0;
    for (; iterations < 100; iterations++) {
      let largest = 0;
      for (const v of current.g) largest = Math.max(largest, Math.abs(v));
      if (largest <= 1e-10) break; // on the sum over n points: tighter than sklearn's tol on the mean
      const step = choleskySolve(current.H, size, current.g);
      let decrease = 0;
      for (let r = 0; r < size; r++) decrease += step[r] * current.g[r];
      let t = 1, next = null, trial = null;
      for (let halving = 0; halving < 60; halving++, t /= 2) {
        trial = theta.map((v, r) => v - t * step[r]);
        next = objective(trial, A, labels, n, p, K, false);
        if (next.loss <= current.loss - 1e-4 * t * decrease) break;
      }
      if (!(next.loss < current.loss)) break; // no progress at round-off: the optimum
      theta = trial;
      current = objective(theta, A, labels, n, p, K, true);
    }
    return { theta, K, p, iterations };
  }

  /** The class index predicted for each of the rows of B (binary: class 1 where the score is > 0). */
  function logisticPredict(model, B, rows) {
    const { theta, K, p } = model, S = scores(theta, B, rows, p, K), out = new Int32Array(rows);
    for (let i = 0; i < rows; i++) {
      if (K === 2) { out[i] = S[i] > 0 ? 1 : 0; continue; }
      let best = 0;
      for (let k = 1; k < K; k++) if (S[i * K + k] > S[i * K + best]) best = k;
      out[i] = best;
    }
    return out;
  }

  /**
   * held_out_accuracy on the first q columns of the projections (Z: n x stride,
   * Zt: m x stride) with the classes y (training) and yt (held out). null
   * when the training points hold fewer than two classes.
   */
  function heldOutAccuracy(Z, y, n, Zt, yt, m, stride, q) {
    const classes = Array.from(new Set(Array.from(y))).sort((a, b) => a - b);
    if (classes.length < 2 || m === 0) return null;
    const index = new Map(classes.map((c, k) => [c, k]));
    const A = columns(Z, n, stride, q), B = columns(Zt, m, stride, q);
    const standardise = scaler(A, n, q);
    const labels = Int32Array.from(y, (c) => index.get(c));
    const model = logisticFit(standardise(A, n), labels, n, q, classes.length);
    const predicted = logisticPredict(model, standardise(B, m), m);
    let right = 0;
    for (let i = 0; i < m; i++) if (classes[predicted[i]] === yt[i]) right++;
    return { accuracy: right / m, iterations: model.iterations, classes };
  }

  return { columns, scaler, choleskySolve, logisticFit, logisticPredict, heldOutAccuracy };
});
