/* The labs' singular value decomposition, computed in the page.
 *
 * The Golub–Kahan–Reinsch SVD of a dense m x n matrix (m >= n): Householder
 * reduction to bidiagonal form, then implicit shifted QR on the bidiagonal
 * with the rotations accumulated into U and V (LINPACK dsvdc, as in JAMA's
 * SingularValueDecomposition). Backward stable: U diag(s) V^T equals A to a
 * few units of round-off times ||A||, and U, V are orthonormal to round-off,
 * whatever the condition of A (appendix B's robust PCA lab thresholds the
 * singular values of a 60 x 60 matrix in every sweep).
 *
 * Storage: the input is row-major (A[i * n + j]); inside, and in the result,
 * the matrices are stored by columns, so that the rotations run over
 * contiguous memory: column k of U is U[k * m .. k * m + m). Same loading
 * scheme as kpca-labs-linalg.js (window.kpcaNumerics, or CommonJS in node).
 */
(function (root, factory) {
  "use strict";
  const inNode = typeof module === "object" && module.exports;
  const shared = inNode ? null : (root.kpcaNumerics = root.kpcaNumerics || {});
  const api = factory();
  if (inNode) module.exports = api;
  else Object.assign(shared, api);
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const EPS = Math.pow(2, -52);
  const TINY = Math.pow(2, -966);

  /** sqrt(a^2 + b^2) without overflow or underflow (Math.hypot is slow in V8). */
  function hypot(a, b) {
    a = Math.abs(a);
    b = Math.abs(b);
    if (a < b) { const t = a; a = b; b = t; }
    if (a === 0) return 0;
    const r = b / a;
    return a * Math.sqrt(1 + r * r);
  }

  /** Rotate columns j and k of the column-major matrix X (rows rows): (x_j, x_k) <- (c x_j + s x_k, -s x_j + c x_k). */
  function rotate(X, rows, j, k, c, s) {
    const a = j * rows, b = k * rows;
    for (let i = 0; i < rows; i++) {
      const t = c * X[a + i] + s * X[b + i];
      X[b + i] = -s * X[a + i] + c * X[b + i];
      X[a + i] = t;
    }
  }

  /** Householder bidiagonalisation (in place on the column-major A); fills s, e, U and V. */
  function bidiagonalise(A, m, n, s, e, U, V) {
    const work = new Float64Array(m);
    const nct = Math.min(m - 1, n), nrt = Math.max(0, Math.min(n - 2, m));
    for (let k = 0; k < Math.max(nct, nrt); k++) {
      const ck = k * m;
      if (k < nct) {
        // the k-th column's reflection; the k-th diagonal entry in s[k]
        let norm = 0;
        for (let i = k; i < m; i++) norm = hypot(norm, A[ck + i]);
        if (norm !== 0) {
          if (A[ck + k] < 0) norm = -norm;
          for (let i = k; i < m; i++) A[ck + i] /= norm;
          A[ck + k] += 1;
        }
        s[k] = -norm;
      }
      for (let j = k + 1; j < n; j++) {
        const cj = j * m;
        if (k < nct && s[k] !== 0) {
          let t = 0;
          for (let i = k; i < m; i++) t += A[ck + i] * A[cj + i];
          t = -t / A[ck + k];
          for (let i = k; i < m; i++) A[cj + i] += t * A[ck + i];
        }
        e[j] = A[cj + k]; // the k-th row, for the row reflection
      }
      if (U && k < nct) for (let i = k; i < m; i++) U[ck + i] = A[ck + i];
      if (k < nrt) {
        let norm = 0;
        for (let i = k + 1; i < n; i++) norm = hypot(norm, e[i]);
        if (norm !== 0) {
          if (e[k + 1] < 0) norm = -norm;
          for (let i = k + 1; i < n; i++) e[i] /= norm;
          e[k + 1] += 1;
        }
        e[k] = -norm;
        if (k + 1 < m && e[k] !== 0) {
          work.fill(0, k + 1);
          for (let j = k + 1; j < n; j++) {
            const cj = j * m, ej = e[j];
            for (let i = k + 1; i < m; i++) work[i] += ej * A[cj + i];
          }
          for (let j = k + 1; j < n; j++) {
            const cj = j * m, t = -e[j] / e[k + 1];
            for (let i = k + 1; i < m; i++) A[cj + i] += t * work[i];
          }
        }
        for (let i = k + 1; i < n; i++) V[k * n + i] = e[i];
      }
    }
    // the bidiagonal matrix of order p
    const p = Math.min(n, m + 1);
    if (nct < n) s[nct] = A[nct * m + nct];
    if (m < p) s[p - 1] = 0;
    if (nrt + 1 < p) e[nrt] = A[(p - 1) * m + nrt];
    e[p - 1] = 0;
    if (U) generateU(m, n, nct, s, U);
    // V from its reflections, last first
    for (let k = n - 1; k >= 0; k--) {
      const ck = k * n;
      if (k < nrt && e[k] !== 0) {
        for (let j = k + 1; j < n; j++) {
          const cj = j * n;
          let t = 0;
          for (let i = k + 1; i < n; i++) t += V[ck + i] * V[cj + i];
          t = -t / V[ck + k + 1];
          for (let i = k + 1; i < n; i++) V[cj + i] += t * V[ck + i];
        }
      }
      V.fill(0, ck, ck + n);
      V[ck + k] = 1;
    }
    return p;
  }

  /** U from the reflections of the columns, stored in it by bidiagonalise, last first. */
  function generateU(m, n, nct, s, U) {
    for (let j = nct; j < n; j++) {
      U.fill(0, j * m, j * m + m);
      U[j * m + j] = 1;
    }
    for (let k = nct - 1; k >= 0; k--) {
      const ck = k * m;
      if (s[k] !== 0) {
        for (let j = k + 1; j < n; j++) {
          const cj = j * m;
          let t = 0;
          for (let i = k; i < m; i++) t += U[ck + i] * U[cj + i];
          t = -t / U[ck + k];
          for (let i = k; i < m; i++) U[cj + i] += t * U[ck + i];
        }
        for (let i = k; i < m; i++) U[ck + i] = -U[ck + i];
        U[ck + k] += 1;
        for (let i = 0; i < k; i++) U[ck + i] = 0;
      } else {
        U.fill(0, ck, ck + m);
        U[ck + k] = 1;
      }
    }
  }

  /** One implicit shifted QR step on the bidiagonal block k .. p - 1 (Golub and Kahan's zero chasing). */
  function qrStep(s, e, k, p, U, V, m, n) {
    const scale = Math.max(Math.abs(s[p - 1]), Math.abs(s[p - 2]), Math.abs(e[p - 2]), Math.abs(s[k]), Math.abs(e[k]));
    const sp = s[p - 1] / scale, spm1 = s[p - 2] / scale, epm1 = e[p - 2] / scale;
    const sk = s[k] / scale, ek = e[k] / scale;
    const b = ((spm1 + sp) * (spm1 - sp) + epm1 * epm1) / 2, c = (sp * epm1) * (sp * epm1);
    let shift = 0;
    if (b !== 0 || c !== 0) {
      shift = Math.sqrt(b * b + c);
      if (b < 0) shift = -shift;
      shift = c / (b + shift);
    }
    let f = (sk + sp) * (sk - sp) + shift, g = sk * ek;
    for (let j = k; j < p - 1; j++) {
      let t = hypot(f, g), cs = f / t, sn = g / t;
      if (j !== k) e[j - 1] = t;
      f = cs * s[j] + sn * e[j];
      e[j] = cs * e[j] - sn * s[j];
      g = sn * s[j + 1];
      s[j + 1] = cs * s[j + 1];
      rotate(V, n, j, j + 1, cs, sn);
      t = hypot(f, g);
      cs = f / t;
      sn = g / t;
      s[j] = t;
      f = cs * e[j] + sn * s[j + 1];
      s[j + 1] = -sn * e[j] + cs * s[j + 1];
      g = sn * e[j + 1];
      e[j + 1] = cs * e[j + 1];
      if (U && j < m - 1) rotate(U, m, j, j + 1, cs, sn);
    }
    e[p - 2] = f;
  }

  /**
   * The thin SVD A = U diag(values) V^T of the row-major m x n matrix A
   * (m >= n; A is not modified). Returns {values (n, descending, >= 0),
   * U (m x n, column-major: column k at U[k * m]), V (n x n, column-major),
   * sweeps (the QR steps taken)}. With options.vectors = "right", U is not
   * computed (null), which saves about a third of the work: A V gives the
   * columns U diag(values) when they are needed.
   */
  function svd(A, m, n, options) {
    if (!(m >= n && n >= 1)) throw new RangeError("svd needs m >= n >= 1, got m = " + m + ", n = " + n);
    const work = new Float64Array(m * n);
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) work[j * m + i] = A[i * n + j];
    const s = new Float64Array(Math.min(m + 1, n)), e = new Float64Array(n);
    const wantU = !(options && options.vectors === "right");
    const U = wantU ? new Float64Array(m * n) : null, V = new Float64Array(n * n);
    let p = bidiagonalise(work, m, n, s, e, U, V);
    const last = p - 1;
    let sweeps = 0, stuck = 0;
    while (p > 0) {
      // is e[k] negligible (a split), or s[ks] (a zero to chase out)?
      let k;
      for (k = p - 2; k >= 0; k--) {
        if (Math.abs(e[k]) <= TINY + EPS * (Math.abs(s[k]) + Math.abs(s[k + 1]))) {
          e[k] = 0;
          break;
        }
      }
      let kase;
      if (k === p - 2) {
        kase = 4;
      } else {
        let ks;
        for (ks = p - 1; ks > k; ks--) {
          const t = (ks !== p ? Math.abs(e[ks]) : 0) + (ks !== k + 1 ? Math.abs(e[ks - 1]) : 0);
          if (Math.abs(s[ks]) <= TINY + EPS * t) {
            s[ks] = 0;
            break;
          }
        }
        if (ks === k) kase = 3;
        else if (ks === p - 1) kase = 1;
        else { kase = 2; k = ks; }
      }
      k++;
      if (kase === 1) {
        // deflate a negligible s[p - 1]
        let f = e[p - 2];
        e[p - 2] = 0;
        for (let j = p - 2; j >= k; j--) {
          const t = hypot(s[j], f), cs = s[j] / t, sn = f / t;
          s[j] = t;
          if (j !== k) { f = -sn * e[j - 1]; e[j - 1] = cs * e[j - 1]; }
          rotate(V, n, j, p - 1, cs, sn);
        }
      } else if (kase === 2) {
        // split at a negligible s[k - 1]
        let f = e[k - 1];
        e[k - 1] = 0;
        for (let j = k; j < p; j++) {
          const t = hypot(s[j], f), cs = s[j] / t, sn = f / t;
          s[j] = t;
          f = -sn * e[j];
          e[j] = cs * e[j];
          if (U) rotate(U, m, j, k - 1, cs, sn);
        }
      } else if (kase === 3) {
        if (++stuck > 75 * n) throw new Error("svd: no convergence");
        qrStep(s, e, k, p, U, V, m, n);
        sweeps++;
      } else {
        // converged: make s[k] positive, then move it to its place (descending)
        if (s[k] <= 0) {
          s[k] = s[k] < 0 ? -s[k] : 0;
          for (let i = 0; i <= last; i++) V[k * n + i] = -V[k * n + i];
        }
        while (k < last && s[k] < s[k + 1]) {
          const t = s[k]; s[k] = s[k + 1]; s[k + 1] = t;
          swapColumns(V, n, k);
          if (U) swapColumns(U, m, k);
          k++;
        }
        p--;
      }
    }
    return { values: s.slice(0, n), U, V, sweeps };
  }

  function swapColumns(X, rows, k) {
    const a = k * rows, b = a + rows;
    for (let i = 0; i < rows; i++) {
      const t = X[a + i]; X[a + i] = X[b + i]; X[b + i] = t;
    }
  }

  /** The singular values only (the same algorithm; the vectors are cheap at the labs' sizes). */
  function singularValues(A, m, n) {
    return svd(A, m, n).values;
  }

  return { svd, singularValues };
});
