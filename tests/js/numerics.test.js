// Unit tests of the labs' numerics (_static/kpca-labs-{linalg,kernels,preimage,kwok-tsang}.js) against known answers and
// identities. Run: node --test tests/js/  (tests/test_labs_numerics.py runs it
// under pytest, and compares the same code with kpca_lib).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "kernels", "preimage", "kwok-tsang"].map((name) =>
  require(path.join(__dirname, "..", "..", "_static", `kpca-labs-${name}.js`))));

const EPS = Math.pow(2, -52);

function randomMatrix(rows, cols, seed) {
  const random = N.randomGenerator(seed);
  return Float64Array.from({ length: rows * cols }, () => 2 * random.uniform() - 1);
}
function symmetric(n, seed) {
  const B = randomMatrix(n, n, seed), A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A[i * n + j] = B[i * n + j] + B[j * n + i];
  return A;
}
/** B B^T for a random n x r matrix B: PSD of rank r. */
function psd(n, r, seed) {
  const B = randomMatrix(n, r, seed), A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < r; k++) s += B[i * r + k] * B[j * r + k];
      A[i * n + j] = s;
    }
  }
  return A;
}
function maxAbs(values) { return values.reduce((m, v) => Math.max(m, Math.abs(v)), 0); }
function column(V, rows, cols, k) { return Float64Array.from({ length: rows }, (_, i) => V[i * cols + k]); }
/** max_k ||A v_k - lambda_k v_k|| for eigenvector columns of V (n x q). */
function residual(A, n, values, V, q) {
  let worst = 0;
  for (let k = 0; k < q; k++) {
    const v = column(V, n, q, k), Av = N.matVec(A, n, v, new Float64Array(n));
    let s = 0;
    for (let i = 0; i < n; i++) s += (Av[i] - values[k] * v[i]) ** 2;
    worst = Math.max(worst, Math.sqrt(s));
  }
  return worst;
}
function orthonormalityError(V, n, q) {
  let worst = 0;
  for (let a = 0; a < q; a++) {
    for (let b = 0; b < q; b++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += V[i * q + a] * V[i * q + b];
      worst = Math.max(worst, Math.abs(s - (a === b ? 1 : 0)));
    }
  }
  return worst;
}

test("fastExp is within 2 ulp of Math.exp and underflows like it", () => {
  const random = N.randomGenerator(1);
  for (let i = 0; i < 200000; i++) {
    const x = -740 * random.uniform() + (i % 2 ? 0 : 700 * random.uniform());
    const exact = Math.exp(x);
    if (exact < 2.3e-308) continue; // subnormal results go through Math.exp itself
    assert.ok(Math.abs(N.fastExp(x) - exact) <= 2 * EPS * exact, `x = ${x}`);
  }
  assert.equal(N.fastExp(0), 1);
  assert.equal(N.fastExp(-800), 0);
  assert.equal(N.fastExp(-740), Math.exp(-740));
  assert.equal(N.fastExp(800), Infinity);
  assert.ok(Number.isNaN(N.fastExp(NaN)));
});

test("symmetricEigen: known answers", () => {
  const { values, vectors } = N.symmetricEigen(Float64Array.of(2, 1, 1, 2), 2);
  assert.ok(Math.abs(values[0] - 3) < 1e-15 && Math.abs(values[1] - 1) < 1e-15);
  assert.ok(Math.abs(Math.abs(vectors[0]) - Math.SQRT1_2) < 1e-15);
  const diagonal = N.symmetricEigen(Float64Array.of(1, 0, 0, 0, 5, 0, 0, 0, -2), 3);
  assert.deepEqual(Array.from(diagonal.values), [5, 1, -2]);
  assert.deepEqual(Array.from(N.symmetricEigen(Float64Array.of(7), 1).values), [7]);
  // the 1-D Laplacian: eigenvalues 2 - 2 cos(k pi / (n + 1))
  const n = 40, L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    L[i * n + i] = 2;
    if (i + 1 < n) { L[i * n + i + 1] = -1; L[(i + 1) * n + i] = -1; }
  }
  const laplacian = N.symmetricEigen(L, n).values;
  for (let k = 1; k <= n; k++) {
    const expected = 2 - 2 * Math.cos((k * Math.PI) / (n + 1));
    assert.ok(Math.abs(laplacian[n - k] - expected) < 1e-13, `k = ${k}`);
  }
});

test("symmetricEigen: A V = V diag(values), V orthonormal, descending, trace kept", () => {
  for (const [n, seed] of [[2, 1], [5, 2], [30, 3], [80, 4]]) {
    const A = symmetric(n, seed);
    const { values, vectors } = N.symmetricEigen(A, n);
    const scale = maxAbs(values);
    assert.ok(residual(A, n, values, vectors, n) < 1e-13 * scale * n, `residual n = ${n}`);
    assert.ok(orthonormalityError(vectors, n, n) < 1e-13 * n, `orthonormal n = ${n}`);
    for (let k = 1; k < n; k++) assert.ok(values[k] <= values[k - 1]);
    let trace = 0, sum = 0;
    for (let i = 0; i < n; i++) { trace += A[i * n + i]; sum += values[i]; }
    assert.ok(Math.abs(trace - sum) < 1e-12 * scale * n);
  }
  // a repeated eigenvalue: the identity plus a rank-one term
  const n = 6, A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A[i * n + j] = (i === j ? 1 : 0) + 1;
  const values = N.symmetricEigen(A, n).values;
  assert.ok(Math.abs(values[0] - (n + 1)) < 1e-13);
  for (let k = 1; k < n; k++) assert.ok(Math.abs(values[k] - 1) < 1e-13);
});

test("symmetricEigenvalues: the eigenvalues of symmetricEigen, without the vectors", () => {
  for (const [n, seed] of [[1, 1], [2, 2], [9, 3], [70, 4]]) {
    const A = symmetric(n, seed);
    const full = N.symmetricEigen(A, n).values, values = N.symmetricEigenvalues(A, n);
    assert.ok(maxAbs(values.map((v, k) => v - full[k])) <= 1e-13 * Math.max(1, maxAbs(full)), `n = ${n}`);
  }
});

test("lanczosTopEigen agrees with the dense solver on the largest eigenpairs", () => {
  const n = 150, A = psd(n, 40, 7);
  const dense = N.symmetricEigen(A, n);
  for (const q of [1, 5, 12]) {
    const top = N.lanczosTopEigen((v, y) => N.matVec(A, n, v, y), n, q);
    assert.ok(top.converged, `q = ${q}`);
    for (let k = 0; k < q; k++) {
      assert.ok(Math.abs(top.values[k] - dense.values[k]) <= 1e-12 * dense.values[0], `value ${k}`);
    }
    assert.ok(residual(A, n, top.values, top.vectors, q) <= 1e-9 * dense.values[0]);
    assert.ok(orthonormalityError(top.vectors, n, q) < 1e-12);
  }
});

test("lanczosTopEigen finds a low-rank matrix's range (an invariant Krylov space)", () => {
  const n = 60, A = psd(n, 3, 11);
  const top = N.lanczosTopEigen((v, y) => N.matVec(A, n, v, y), n, 5);
  const dense = N.symmetricEigen(A, n).values;
  for (let k = 0; k < 3; k++) assert.ok(Math.abs(top.values[k] - dense[k]) <= 1e-12 * dense[0]);
  for (let k = 3; k < 5; k++) assert.ok(Math.abs(top.values[k]) <= 1e-12 * dense[0]);
  assert.ok(N.numericalRank(top.values, n) === 3);
  assert.throws(() => N.lanczosTopEigen((v, y) => N.matVec(A, n, v, y), n, n + 1), RangeError);
});

test("flipSigns makes each column's largest entry positive, the first one on a tie", () => {
  // column 0: -2 (row 1) before -2 (row 3) is the largest; column 1: -3 (row 0) before 3 (row 2)
  const V = Float64Array.of(1, -3, -2, 1, 0.5, 3, -2, 0.25);
  N.flipSigns(V, 4, 2);
  assert.deepEqual(Array.from(V), [-1, 3, 2, -1, -0.5, -3, 2, -0.25]);
  const W = Float64Array.of(0.5, 2, -1, -1);
  N.flipSigns(W, 2, 2); // nothing to flip in column 1, column 0 flips
  assert.deepEqual(Array.from(W), [-0.5, 2, 1, -1]);
});

test("kernel centring: rows and columns of K_c sum to zero; a test kernel of the training points is K_c", () => {
  const n = 25, d = 3, X = randomMatrix(n, d, 5);
  const K = N.gaussianGram(X, n, d, 0.7);
  assert.ok(Math.abs(K[1] - Math.exp(-((X[0] - X[3]) ** 2 + (X[1] - X[4]) ** 2 + (X[2] - X[5]) ** 2) / 0.7)) < 1e-15);
  const Kc = Float64Array.from(K);
  const centring = N.centreTrainKernel(Kc, n);
  for (let i = 0; i < n; i++) {
    let row = 0, col = 0;
    for (let j = 0; j < n; j++) { row += Kc[i * n + j]; col += Kc[j * n + i]; }
    assert.ok(Math.abs(row) < 1e-13 && Math.abs(col) < 1e-13);
  }
  const Kt = N.centreTestKernel(N.gaussianCross(X, n, X, n, d, 0.7), n, n, centring);
  assert.ok(maxAbs(Kt.map((v, i) => v - Kc[i])) < 1e-14);
  assert.throws(() => N.gaussianGram(X, n, d, 0), RangeError);
});

test("kernelPCAFit: unit-norm components (alpha^T K_c alpha = 1) and projections Y = mu alpha on the training points", () => {
  const n = 120, d = 2, X = randomMatrix(n, d, 9), q = 6;
  const fit = N.kernelPCAFit(X, n, d, 0.3, q);
  const Kc = N.gaussianGram(X, n, d, 0.3);
  N.centreTrainKernel(Kc, n);
  for (let k = 0; k < q; k++) {
    const alpha = column(fit.alphas, n, q, k);
    const Ka = N.matVec(Kc, n, alpha, new Float64Array(n));
    let norm = 0;
    for (let i = 0; i < n; i++) norm += alpha[i] * Ka[i];
    assert.ok(Math.abs(norm - 1) < 1e-10, `component ${k}`);
    // sign convention: the largest entry in absolute value is positive
    const largest = alpha.reduce((m, v) => (Math.abs(v) > Math.abs(m) ? v : m), 0);
    assert.ok(largest > 0);
  }
  const Y = N.kernelPCAProject(fit, X, n);
  for (let i = 0; i < n * q; i++) assert.ok(Math.abs(Y[i] - fit.alphas[i] * fit.eigenvalues[i % q]) < 1e-10);
});

test("gammaWeights: rows sum to one; the centring correction", () => {
  // kpca_lib's doctest: alphas [[1], [-1]], Y [[0.5]] give gamma [[1, 0]]
  const fit = { n: 2, alphasT: Float64Array.of(1, -1), nComponents: 1 };
  assert.deepEqual(Array.from(N.gammaWeights(fit, Float64Array.of(0.5), 1, 1)), [1, 0]);
  const n = 50, X = randomMatrix(n, 2, 3), model = N.kernelPCAFit(X, n, 2, 0.5, 4);
  const gamma = N.gammaWeights(model, N.kernelPCAProject(model, X, 5), 5, 3);
  for (let a = 0; a < 5; a++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += gamma[a * n + i];
    assert.ok(Math.abs(s - 1) < 1e-12);
  }
  assert.throws(() => N.gammaWeights(model, new Float64Array(4), 1, 5), RangeError);
});

test("FixedPointRun: kpca_lib's doctest, a weighted mean, and the history", () => {
  const run = new N.FixedPointRun(Float64Array.of(0, 1), 2, 1, Float64Array.of(0.5, 0.5), 1, 1, Float64Array.of(0.9));
  run.runTo(100);
  assert.ok(Math.abs(run.Z[0] - 0.5) < 1e-6 && run.convergedAt[0] > 0 && run.finished);
  assert.equal(run.history.length, run.t + 1);
  assert.equal(run.history[0][0], 0.9);
  assert.equal(run.at(1000), run.history[run.t]);
  // 2-D: all weight on one training point -> the pre-image is that point after one step
  const X = Float64Array.of(0, 0, 1, 2, -1, 0.5);
  const gamma = Float64Array.of(0, 1, 0, 1, 0, 0);
  const two = new N.FixedPointRun(X, 3, 2, gamma, 2, 0.5, Float64Array.of(0.3, 0.3, 5, 5), { track: [1] });
  two.step();
  assert.deepEqual(Array.from(two.Z), [1, 2, 0, 0]);
  two.runTo(10);
  assert.equal(two.convergedWithin(two.t), 2);
  assert.equal(two.rhoTracked.length, two.t + 1);
  assert.ok(Math.abs(two.rhoTracked[two.t][0] - 1) < 1e-15); // rho(x_1) = k(x_1, x_1) = 1
});

test("FixedPointRun: a vanishing denominator restarts, then gives up at the start", () => {
  // gamma = (1, -1) at z = 0 between x = -1 and x = 1: k(0, -1) - k(0, 1) = 0
  const run = new N.FixedPointRun(Float64Array.of(-1, 1), 2, 1, Float64Array.of(1, -1), 1, 1, Float64Array.of(0), { maxRestarts: 2 });
  run.step();
  assert.equal(run.restarts[0], 1);
  assert.notEqual(run.Z[0], 0); // moved to a perturbed start
  // a start far out in the plane: every kernel value underflows, the rescaled weights still move it
  const far = new N.FixedPointRun(Float64Array.of(0, 0, 1, 0), 2, 2, Float64Array.of(0.5, 0.5), 1, 0.1, Float64Array.of(300, 0));
  far.runTo(20);
  // the fixed point near x = (1, 0): z = 1 / (1 + exp(-(1 - z)^2 / c) exp(z^2 / c) ...), 0.99995
  assert.ok(Math.abs(far.Z[0] - 1) < 1e-4 && far.Z[1] === 0 && far.restarts[0] === 0 && far.convergedAt[0] > 0);
  // exact cancellation everywhere: gamma sums to zero on coincident points
  const lost = new N.FixedPointRun(Float64Array.of(0, 0), 2, 1, Float64Array.of(1, -1), 1, 1, Float64Array.of(0.25), { maxRestarts: 3 });
  lost.runTo(50);
  assert.equal(lost.restarts[0], 3);
  assert.ok(lost.gaveUpAt[0] > 0 && lost.finished && lost.Z[0] === 0.25 && lost.convergedAt[0] === -1);
});

test("pcaFit and pcaReconstruct: covariance by n, sign convention, exact reconstructions", () => {
  const X = Float64Array.of(0, 0, 1, 1, 2, 2); // kpca_lib.PCA's doctest
  const pca = N.pcaFit(X, 3, 2);
  assert.ok(Math.abs(pca.eigenvalues[0] - 4 / 3) < 1e-15 && Math.abs(pca.eigenvalues[1]) < 1e-15);
  assert.ok(Math.abs(pca.components[0] - Math.SQRT1_2) < 1e-15 && Math.abs(pca.components[1] - Math.SQRT1_2) < 1e-15);
  assert.ok(maxAbs(N.pcaReconstruct(pca, X, 3, 1).map((v, i) => v - X[i])) < 1e-15);
  const Y = randomMatrix(30, 3, 4), full = N.pcaFit(Y, 30, 3);
  assert.ok(maxAbs(N.pcaReconstruct(full, Y, 30, 3).map((v, i) => v - Y[i])) < 1e-14);
  for (let k = 0; k < 3; k++) {
    const row = Array.from(full.components.slice(3 * k, 3 * k + 3));
    const largest = row.reduce((m, v) => (Math.abs(v) > Math.abs(m) ? v : m), 0);
    assert.ok(largest > 0);
  }
  assert.equal(N.meanSquaredDistance(Float64Array.of(0, 1, 2, 0), new Float64Array(4), 2, 2), 2.5);
});

// ---------------------------------------------------------------- the baselines
test("knnAverages: k = 1 and k = 3 by brute force, k = n is the mean", () => {
  const n = 9, d = 3, m = 4, X = randomMatrix(n, d, 21), A = randomMatrix(m, d, 22);
  const [one, three, all] = N.knnAverages(X, n, d, A, m, [1, 3, n]);
  for (let a = 0; a < m; a++) {
    const distances = Array.from({ length: n }, (_, i) => {
      let s = 0;
      for (let j = 0; j < d; j++) s += (A[a * d + j] - X[i * d + j]) ** 2;
      return [s, i];
    }).sort((u, v) => u[0] - v[0]);
    for (let j = 0; j < d; j++) {
      assert.equal(one[a * d + j], X[distances[0][1] * d + j]);
      const mean3 = (X[distances[0][1] * d + j] + X[distances[1][1] * d + j] + X[distances[2][1] * d + j]) / 3;
      assert.ok(Math.abs(three[a * d + j] - mean3) < 1e-15);
      let mean = 0;
      for (let i = 0; i < n; i++) mean += X[i * d + j] / n;
      assert.ok(Math.abs(all[a * d + j] - mean) < 1e-15);
    }
  }
});

test("meanShiftRun converges to fixed points of the kernel-weighted mean", () => {
  const n = 30, d = 2, m = 5, c = 0.3, X = randomMatrix(n, d, 23), A = randomMatrix(m, d, 24);
  const run = N.meanShiftRun(X, n, d, m, c, A, { tol: 1e-12 }).runTo(2000);
  assert.ok(run.finished && run.convergedWithin(run.t) === m);
  const Z = run.at(run.t);
  for (let a = 0; a < m; a++) {
    let den = 0;
    const num = [0, 0];
    for (let i = 0; i < n; i++) {
      const w = Math.exp(-((Z[2 * a] - X[2 * i]) ** 2 + (Z[2 * a + 1] - X[2 * i + 1]) ** 2) / c);
      den += w; num[0] += w * X[2 * i]; num[1] += w * X[2 * i + 1];
    }
    assert.ok(Math.abs(num[0] / den - Z[2 * a]) < 1e-10 && Math.abs(num[1] / den - Z[2 * a + 1]) < 1e-10);
  }
});

test("oneStandardErrorChoice keeps the simplest setting within one standard error", () => {
  // setting 1 is the best; setting 0 exceeds it by 0.1 on average, with standard error 0.2 / sqrt(3)
  const errors = [[1.0, 1.3, 0.8], [0.9, 1.0, 0.9], [3.0, 3.0, 3.0]].map((e) => Float64Array.from(e));
  assert.equal(N.oneStandardErrorChoice(errors), 0);
  // setting 0 now exceeds it by 0.1 on every point: no spread, so it is out
  errors[0] = Float64Array.from([1.0, 1.1, 1.0]);
  assert.equal(N.oneStandardErrorChoice(errors), 1);
  assert.deepEqual(Array.from(N.rowErrors(Float64Array.from([0, 0, 1, 1]), Float64Array.from([3, 4, 1, 2]), 2, 2)), [25, 1]);
});

test("kwokTsang: kpca_lib's doctest, exact distances give the point back, one neighbour is that neighbour", () => {
  // Psi = phi(x_2): its feature distances are those of x_2, and the pre-image is x_2
  const X = Float64Array.of(0, 0, 1, 0, 0, 1);
  const { Z, tooFar } = N.kwokTsang(X, 3, 2, Float64Array.of(0, 1, 0), 1, 1, 3);
  assert.ok(Math.abs(Z[0] - 1) < 1e-12 && Math.abs(Z[1]) < 1e-12 && tooFar === 0);
  // Psi = phi(z) for z not a training point: d~^2 = 2 - 2 k(z, x_i) exactly, and the least squares
  // point of the exact distances is z itself (KGamma given: K gamma = k(z, x_i), ||Psi||^2 = 1)
  const n = 40, P = randomMatrix(n, 2, 11), z = [0.3, -0.2], c = 0.7;
  const kz = Float64Array.from({ length: n }, (_, i) => Math.exp(-((P[2 * i] - z[0]) ** 2 + (P[2 * i + 1] - z[1]) ** 2) / c));
  const gamma = new Float64Array(n); // gamma . K gamma must be 1: only its product with kz is used
  gamma[0] = 1 / kz[0];
  for (const k of [3, 10, 40]) {
    const back = N.kwokTsang(P, n, 2, gamma, 1, c, k, kz).Z;
    assert.ok(Math.abs(back[0] - z[0]) < 1e-9 && Math.abs(back[1] - z[1]) < 1e-9, k + ": " + back);
  }
  const nearest = N.kwokTsang(P, n, 2, gamma, 1, c, 1, kz).Z; // the one training point nearest to z
  const [x, y] = N.knnAverages(P, n, 2, Float64Array.from(z), 1, [1])[0];
  assert.deepEqual(Array.from(nearest), [x, y]);
  assert.throws(() => N.kwokTsang(P, n, 2, gamma, 1, c, 0), RangeError);
  assert.throws(() => N.kwokTsang(P, n, 2, gamma, 1, c, n + 1), RangeError);
  assert.throws(() => N.kwokTsang(P, 20, 4, gamma, 1, c, 3), RangeError);
});

test("kwokTsang: a least-squares point beyond max(R, rho) is pulled back to that radius, and counted", () => {
  // kpca_lib's test: Psi = phi(x_1) - phi(x_2), x_1 = 0 and x_2 = 10 on the x axis, c = 1. d~^2 = 1 to x_1 and
  // 5 >= 2 to x_2 (its d^2 is that of k = 1e-300): rho = sqrt(mean d^2 - 25) ~ 17.9 from the mean (5, 0),
  // beyond R = 5 and beyond the pair's diameter 10; the least-squares point is farther still
  const X = Float64Array.of(0, 0, 10, 0), d2 = [Math.log(2), -Math.log(1e-300)];
  const radius = Math.sqrt((d2[0] + d2[1]) / 2 - 25);
  const { Z, tooFar, pulledBack, far } = N.kwokTsang(X, 2, 2, Float64Array.of(1, -1), 1, 1, 2);
  assert.deepEqual([tooFar, pulledBack, far], [1, 1, 1]);
  assert.ok(Math.abs(Math.abs(Z[0] - 5) - radius) < 1e-8 * radius && Z[1] === 0, String(Z));
  // exact distances of a point inside (the doctest): nothing pulled back, nothing far
  const inside = N.kwokTsang(Float64Array.of(0, 0, 1, 0, 0, 1), 3, 2, Float64Array.of(0, 1, 0), 1, 1, 3);
  assert.deepEqual([inside.pulledBack, inside.far], [0, 0]);
});

test("kwokTsang: neighbours on a line leave the pre-image on the line (the rank cut)", () => {
  const n = 12, X = new Float64Array(2 * n), random = N.randomGenerator(5);
  for (let i = 0; i < n; i++) {
    const t = 2 * random.uniform() - 1;
    X[2 * i] = 0.1 + 3 * t;
    X[2 * i + 1] = -0.4 + 0.7 * t;
  }
  const gamma = Float64Array.from({ length: 3 * n }, () => random.uniform());
  const { Z } = N.kwokTsang(X, n, 2, gamma, 3, 0.9, 6);
  for (let a = 0; a < 3; a++) {
    // on the line (x - 0.1) / 3 = (y + 0.4) / 0.7
    assert.ok(Math.abs((Z[2 * a] - 0.1) * 0.7 - (Z[2 * a + 1] + 0.4) * 3) < 1e-12, String(Z));
  }
});

test("kernelTimesWeights from kernelAlphas is K gamma of gammaWeights", () => {
  const n = 60, X = randomMatrix(n, 2, 7), c = 0.3, model = N.kernelPCAFit(X, n, 2, c, 5);
  const A = randomMatrix(8, 2, 8), Y = N.kernelPCAProject(model, A, 8), KAlphas = N.kernelAlphas(model);
  for (const q of [1, 3, 5]) {
    const direct = N.kernelTimesGamma(N.gaussianGram(X, n, 2, c), n, N.gammaWeights(model, Y, 8, q), 8);
    const fast = N.kernelTimesWeights(model, KAlphas, Y, 8, q);
    assert.ok(maxAbs(direct.map((v, i) => v - fast[i])) < 1e-12 * maxAbs(direct), String(q));
  }
});

test("kernelAlphas over column ranges and kwokTsang over slices of points equal one call, bit for bit", () => {
  // chapter 5's lab spreads both over several tasks (kpca-lab-denoising-model.js)
  const n = 90, m = 25, X = randomMatrix(n, 2, 11), c = 0.4, model = N.kernelPCAFit(X, n, 2, c, 6);
  const whole = N.kernelAlphas(model);
  let pieces = null;
  for (const [from, to] of [[0, 7], [7, 7], [7, 64], [64, n]]) pieces = N.kernelAlphas(model, from, to, pieces);
  assert.deepEqual(Array.from(pieces), Array.from(whole));
  for (const [from, to] of [[-1, 3], [5, 4], [0, n + 1], [0.5, 3]]) {
    assert.throws(() => N.kernelAlphas(model, from, to), /from and to/);
  }
  const A = randomMatrix(m, 2, 12), Y = N.kernelPCAProject(model, A, m), q = 4, qFit = model.nComponents;
  const gamma = N.gammaWeights(model, Y, m, q);
  const one = N.kwokTsang(X, n, 2, gamma, m, c, 7, N.kernelTimesWeights(model, whole, Y, m, q));
  const Z = new Float64Array(2 * m);
  let tooFar = 0;
  for (let from = 0; from < m; from += 10) {
    const to = Math.min(m, from + 10), rows = to - from;
    const KGamma = N.kernelTimesWeights(model, whole, Y.subarray(from * qFit, to * qFit), rows, q);
    const part = N.kwokTsang(X, n, 2, gamma.subarray(from * n, to * n), rows, c, 7, KGamma);
    Z.set(part.Z, 2 * from);
    tooFar += part.tooFar;
  }
  assert.deepEqual(Array.from(Z), Array.from(one.Z));
  assert.equal(tooFar, one.tooFar);
});
