/* The labs' Kwok–Tsang pre-image (Kwok & Tsang, 2004), computed in the page.
 *
 * As kpca_lib.preimage.kwok_tsang, step for step, for points in the plane
 * (d = 2, the de-noising lab's toy): (1) the feature-space distances of the
 * projection Psi = sum_i gamma_i phi(x_i) to the training images,
 * ||Psi||^2 + 1 - 2 (K gamma)_i; (2) the n nearest training points in
 * feature space and their input distances d_i^2 = -c log(1 - d~_i^2 / 2);
 * (3) the least-squares point with those distances, in the span of the
 * centred neighbours, by the SVD X H = U Lambda V^T of the 2 x n matrix of
 * centred neighbours. In the plane that SVD is a symmetric 2 x 2
 * eigenproblem, solved in closed form: U is the rotation that diagonalises
 * (X H)(X H)^T, and each row of U^T X H = Lambda V^T gives a singular value
 * as its norm (not as the root of an eigenvalue, which would lose half the
 * digits of a small one), so that the library's rank cut (singular values
 * at most 1e-10 of the largest dropped) falls where numpy's SVD puts it;
 * (4) a least-squares point farther from the neighbours' mean than both the
 * farthest neighbour and sqrt(mean d^2 - mean d0^2) is pulled back to the
 * larger of the two by Tikhonov damping of its weakest direction, as the
 * library does.
 *
 * Matrices are Float64Arrays in row-major order with their sizes passed
 * beside them. Uses kpca-labs-linalg.js and kpca-labs-kernels.js. The book
 * loads the numerics files as plain scripts, which fill window.kpcaNumerics;
 * node's test runner loads them as CommonJS modules.
 */
(function (root, factory) {
  "use strict";
  const inNode = typeof module === "object" && module.exports;
  const shared = inNode ? null : (root.kpcaNumerics = root.kpcaNumerics || {});
  // the book links _static files in an order of its own: the other numerics
  // files' functions are looked up when first called, not when loaded
  const others = () =>
    inNode ? Object.assign({}, require("./kpca-labs-linalg.js"), require("./kpca-labs-kernels.js")) : shared;
  const api = factory(others);
  if (inNode) module.exports = api;
  else Object.assign(shared, api);
})(typeof self !== "undefined" ? self : this, function (numerics) {
  "use strict";
  let dot, fastExp, gaussianGram, checkWidth;
  function link() {
    if (!dot) ({ dot, fastExp, gaussianGram, checkWidth } = numerics());
  }
  const RANK_TOL = 1e-10; // kpca_lib.preimage.kwok_tsang's cut, relative to the largest singular value
  const RADIUS_SLACK = 1e-8; // kpca_lib.preimage.RADIUS_SLACK: round-off leaves a point on the sphere where it is
  const NEWTON_STEPS = 100;

  /**
   * kpca_lib.preimage._within_radius for one point: into z, the minimiser of ||Lambda z - b|| on the
   * ball of the radius, z_r = lambda_r b_r / (lambda_r^2 + mu), mu by Newton's method on
   * 1 / ||z(mu)|| - 1 / radius from mu = 0 (it rises to the root without overshooting).
   */
  function withinRadius(lambdas, b, radius, z) {
    let mu = 0;
    const at = (r) => (lambdas[r] > 0 ? (lambdas[r] * b[r]) / (lambdas[r] ** 2 + mu) : 0);
    for (let step = 0; step < NEWTON_STEPS; step++) {
      let norm2 = 0, slope = 0;
      for (let r = 0; r < 2; r++) {
        if (!(lambdas[r] > 0)) continue;
        const zr = at(r);
        norm2 += zr * zr;
        slope += (zr * zr) / (lambdas[r] ** 2 + mu);
      }
      slope /= norm2 ** 1.5;
      const change = (1 / Math.sqrt(norm2) - 1 / radius) / slope;
      mu -= change;
      if (Math.abs(change) <= 1e-15 * mu) break;
    }
    z[0] = at(0);
    z[1] = at(1);
  }

  /** The largest squared distance between two of the k centred neighbours (mx, my). */
  function diameter2(mx, my, k) {
    let largest = 0;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) largest = Math.max(largest, (mx[i] - mx[j]) ** 2 + (my[i] - my[j]) ** 2);
    }
    return largest;
  }

  /** K gamma (m x n) for the n x n matrix K and the m x n weights gamma (rows: points). */
  function kernelTimesGamma(K, n, gamma, m) {
    link();
    const out = new Float64Array(m * n);
    for (let a = 0; a < m; a++) {
      const g = gamma.subarray(a * n, (a + 1) * n);
      for (let i = 0; i < n; i++) out[a * n + i] = dot(K.subarray(i * n, (i + 1) * n), g, n);
    }
    return out;
  }

  /**
   * K alpha^k for every fitted component k, and K 1, of a kernelPCAFit, row
   * by row of the uncentred Gram matrix (not kept: it is n x n): (q + 1) x n,
   * rows K alpha^1 .. K alpha^q, K 1. With them K gamma costs q + 1
   * multiply-adds per entry, not n. With from and to, only the columns
   * from .. to - 1 are computed, into out (as returned by a first call), so
   * that a page can spread the n rows of K over several tasks.
   */
  function kernelAlphas(fit, from, to, out) {
    link();
    const { X, n, d, c, alphasT, nComponents: q } = fit, invC = 1 / c;
    const first = from === undefined ? 0 : from, last = to === undefined ? n : to;
    if (!(Number.isInteger(first) && Number.isInteger(last) && first >= 0 && first <= last && last <= n)) {
      throw new RangeError("kernelAlphas: from and to must be integers with 0 <= from <= to <= " + n);
    }
    out = out || new Float64Array((q + 1) * n);
    const row = new Float64Array(n);
    for (let i = first; i < last; i++) {
      let total = 0;
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let l = 0; l < d; l++) s += (X[i * d + l] - X[j * d + l]) ** 2;
        row[j] = i === j ? 1 : fastExp(-s * invC); // as gaussianGram
        total += row[j];
      }
      for (let k = 0; k < q; k++) out[k * n + i] = dot(row, alphasT.subarray(k * n, (k + 1) * n), n);
      out[q * n + i] = total;
    }
    return out;
  }

  /**
   * K gamma for the weights of gammaWeights(fit, Y, m, q), from kernelAlphas:
   * gamma = sum_{k<q} y_k alpha^k + corr 1 gives K gamma = sum_k y_k K alpha^k + corr K 1.
   */
  function kernelTimesWeights(fit, KAlphas, Y, m, q) {
    const { n, alphasT, nComponents: qFit } = fit;
    const sums = new Float64Array(q); // sum_j alpha_j^k
    for (let k = 0; k < q; k++) for (let j = 0; j < n; j++) sums[k] += alphasT[k * n + j];
    const out = new Float64Array(m * n), ones = KAlphas.subarray(qFit * n, (qFit + 1) * n);
    for (let a = 0; a < m; a++) {
      const y = Y.subarray(a * qFit, a * qFit + q), row = out.subarray(a * n, (a + 1) * n);
      let total = 0;
      for (let k = 0; k < q; k++) total += y[k] * sums[k];
      const correction = (1 - total) / n;
      for (let i = 0; i < n; i++) row[i] = correction * ones[i];
      for (let k = 0; k < q; k++) {
        const yk = y[k], column = KAlphas.subarray(k * n, (k + 1) * n);
        for (let i = 0; i < n; i++) row[i] += yk * column[i];
      }
    }
    return out;
  }

  /** Indices of the count smallest values (ties to the lower index), in increasing order of value. */
  function smallest(values, count, into) {
    let size = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (size === count && !(v < values[into[size - 1]])) continue;
      let at = size < count ? size++ : size - 1;
      while (at > 0 && values[into[at - 1]] > v) { into[at] = into[at - 1]; at--; }
      into[at] = i;
    }
    return into;
  }

  /**
   * Kwok–Tsang pre-images of m projections, as kpca_lib.preimage.kwok_tsang
   * (d = 2 only). gamma: m x n weights (gammaWeights); nNeighbors: 1 .. n;
   * KGamma: K gamma (m x n) when the caller has it (the lab, from
   * kernelAlphas), else computed from the Gram matrix of X. Returns
   * { Z (m x 2), tooFar, pulledBack, far }: tooFar counts the points with a
   * neighbour at feature distance d~^2 >= 2, whose input distance is then
   * that of k = 1e-300; pulledBack those whose least-squares point was
   * farther from the neighbours' mean than max(R, rho) and was damped back
   * to it (step 4 of kpca_lib.preimage.kwok_tsang); far those left farther
   * from the neighbours' mean than any two neighbours are from each other
   * (the library warns of all three).
   */
  function kwokTsang(X, n, d, gamma, m, c, nNeighbors, KGamma) {
    link();
    checkWidth(c);
    if (d !== 2) throw new RangeError("kwokTsang: points in the plane only (d = 2), got d = " + d);
    if (!(Number.isInteger(nNeighbors) && nNeighbors >= 1 && nNeighbors <= n)) {
      throw new RangeError("nNeighbors must be an integer from 1 to " + n + ", got " + nNeighbors);
    }
    const Kg = KGamma || kernelTimesGamma(gaussianGram(X, n, d, c), n, gamma, m);
    const k = nNeighbors, Z = new Float64Array(m * 2), feature = new Float64Array(n);
    const index = new Int32Array(k), d2 = new Float64Array(k), mx = new Float64Array(k), my = new Float64Array(k);
    let tooFar = 0, pulledBack = 0, beyond = 0;
    for (let a = 0; a < m; a++) {
      // 1. feature-space distances of Psi to every phi(x_i)
      const row = Kg.subarray(a * n, (a + 1) * n), norm2 = dot(row, gamma.subarray(a * n, (a + 1) * n), n);
      for (let i = 0; i < n; i++) feature[i] = norm2 + 1 - 2 * row[i];
      // 2. the nearest k, their input-space distances, and their mean
      smallest(feature, k, index);
      let far = false, xbar = 0, ybar = 0;
      for (let j = 0; j < k; j++) {
        const f = Math.max(feature[index[j]], 0); // a squared norm: negative only by round-off
        if (f >= 2) far = true;
        d2[j] = -c * Math.log(Math.max(1 - f / 2, 1e-300));
        xbar += X[2 * index[j]];
        ybar += X[2 * index[j] + 1];
      }
      if (far) tooFar++;
      xbar /= k;
      ybar /= k;
      // 3. the SVD of the centred neighbours (columns x_i - xbar): U diagonalises S = (X H)(X H)^T
      let sxx = 0, sxy = 0, syy = 0;
      for (let j = 0; j < k; j++) {
        mx[j] = X[2 * index[j]] - xbar;
        my[j] = X[2 * index[j] + 1] - ybar;
        sxx += mx[j] * mx[j];
        sxy += mx[j] * my[j];
        syy += my[j] * my[j];
      }
      const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy);
      let u = [Math.cos(theta), Math.sin(theta)], v = [-Math.sin(theta), Math.cos(theta)];
      // the singular values, the norms of the rows of U^T X H = Lambda V^T
      let l1 = 0, l2 = 0;
      for (let j = 0; j < k; j++) {
        l1 += (u[0] * mx[j] + u[1] * my[j]) ** 2;
        l2 += (v[0] * mx[j] + v[1] * my[j]) ** 2;
      }
      l1 = Math.sqrt(l1);
      l2 = Math.sqrt(l2);
      if (l2 > l1) [u, v, l1, l2] = [v, u, l2, l1]; // largest first, as numpy's SVD
      const lambdas = [l1, l2], directions = [u, v], tol = RANK_TOL * l1;
      // the residual d^2 - d0^2, with d0_j^2 = ||Lambda V^T e_j||^2 the neighbours' squared coordinates
      const residual = new Float64Array(k);
      for (let j = 0; j < k; j++) {
        const p = u[0] * mx[j] + u[1] * my[j], r = v[0] * mx[j] + v[1] * my[j];
        residual[j] = d2[j] - (p * p + r * r);
      }
      // the least-squares coordinates z_r = b_r / lambda_r, b = -1/2 V^T (d^2 - d0^2)
      const b = [0, 0], z = [0, 0];
      let d2Mean = 0, d02Mean = 0, d02Max = 0;
      for (let j = 0; j < k; j++) {
        const d02 = d2[j] - residual[j];
        d2Mean += d2[j] / k;
        d02Mean += d02 / k;
        if (d02 > d02Max) d02Max = d02;
      }
      for (let r = 0; r < 2; r++) {
        const L = lambdas[r], e = directions[r];
        if (!(L > tol)) { lambdas[r] = 0; continue; } // a direction the neighbours do not span gets no coordinate
        let s = 0; // (V^T (d^2 - d0^2))_r, V^T e_j = U^T (x_j - xbar) / Lambda
        for (let j = 0; j < k; j++) s += ((e[0] * mx[j] + e[1] * my[j]) / L) * residual[j];
        b[r] = -0.5 * s;
        z[r] = b[r] / L;
      }
      // 4. no farther from the neighbours' mean than the farthest neighbour (R) or than the distances
      // put it (rho = sqrt(mean d^2 - mean d0^2)), whichever is larger: else the weakest direction is damped
      const farthest = Math.sqrt(d02Max), radius = Math.max(farthest, Math.sqrt(Math.max(d2Mean - d02Mean, 0)));
      if (Math.hypot(z[0], z[1]) > (1 + RADIUS_SLACK) * radius) {
        withinRadius(lambdas, b, radius, z);
        pulledBack++;
      }
      const distance = Math.hypot(z[0], z[1]);
      if (distance > (1 + RADIUS_SLACK) * farthest && distance ** 2 > (1 + RADIUS_SLACK) ** 2 * diameter2(mx, my, k)) beyond++;
      let zx = xbar, zy = ybar;
      for (let r = 0; r < 2; r++) {
        zx += directions[r][0] * z[r];
        zy += directions[r][1] * z[r];
      }
      Z[2 * a] = zx;
      Z[2 * a + 1] = zy;
    }
    return { Z, tooFar, pulledBack, far: beyond };
  }

  return { kwokTsang, kernelAlphas, kernelTimesWeights, kernelTimesGamma };
});
