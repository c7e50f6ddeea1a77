/* The labs' linear algebra: eigenpairs of symmetric matrices, computed in the page.
 *
 * All eigenpairs of small symmetric matrices by Householder tridiagonalisation
 * and the implicit QL method (EISPACK tred2/tql2, as in JAMA); the top
 * eigenpairs of a large one by Lanczos with full reorthogonalisation.
 *
 * Matrices are Float64Arrays in row-major order with their sizes passed
 * beside them. No dependency. The book loads the three numerics files as
 * plain scripts, which fill window.kpcaNumerics; node's test runner loads
 * them as CommonJS modules.
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

  /**
   * Householder reduction of the symmetric V (n x n, overwritten) to
   * tridiagonal form (tred2): d the diagonal, e the off-diagonal. With
   * accumulate, V becomes the orthogonal transformation (for eigenvectors);
   * without, the eigenvalues cost a sixth of the work.
   */
  function householderTridiagonal(V, n, d, e, accumulate) {
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
    if (!accumulate) {
      for (let j = 0; j < n; j++) d[j] = V[at(j, j)];
      for (let i = 1; i < n; i++) e[i - 1] = e[i];
      e[n - 1] = 0;
      return;
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
    householderTridiagonal(V, n, d, e, true);
    tridiagonalQL(d, e, n, V, n);
    // descending order
    const values = new Float64Array(n), vectors = new Float64Array(n * n);
    for (let k = 0; k < n; k++) {
      values[k] = d[n - 1 - k];
      for (let i = 0; i < n; i++) vectors[i * n + k] = V[i * n + n - 1 - k];
    }
    return { values, vectors };
  }

  /** The eigenvalues of the symmetric n x n matrix A (not modified), largest first. */
  function symmetricEigenvalues(A, n) {
    const V = Float64Array.from(A.subarray ? A.subarray(0, n * n) : A);
    const d = new Float64Array(n), e = new Float64Array(n);
    if (n > 1) {
      householderTridiagonal(V, n, d, e, false);
      tridiagonalQL(d, e, n, V, 0);
    } else {
      d[0] = A[0];
    }
    return d.reverse();
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
    return finish(lanczosTopEigenSteps(matvec, n, q, options));
  }

  /** Run a generator of work to its end; its return value. */
  function finish(steps) {
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /**
   * lanczosTopEigen as a generator that yields after each Lanczos step (a
   * product with A and its reorthogonalisation), so that a page can spread
   * the steps over several tasks; it returns what lanczosTopEigen returns,
   * the same numbers.
   */
  function* lanczosTopEigenSteps(matvec, n, q, options) {
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
      yield j;
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

  return {
    EPS, randomGenerator, dot, matVec, tridiagonalQL, symmetricEigen, symmetricEigenvalues, lanczosTopEigen,
    lanczosTopEigenSteps, finish,
  };
});
