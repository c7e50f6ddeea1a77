// Unit tests of the labs' SVD (_static/kpca-labs-svd.js) against known answers and identities.
// Run: node --test tests/js/  (tests/test_labs_numerics.py runs it under pytest).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "svd"].map((name) =>
  require(path.join(__dirname, "..", "..", "_static", `kpca-labs-${name}.js`))));

const EPS = Math.pow(2, -52);

function randomMatrix(rows, cols, seed) {
  const random = N.randomGenerator(seed);
  return Float64Array.from({ length: rows * cols }, () => 2 * random.uniform() - 1);
}
/** Q (n x n, row-major) orthogonal: the eigenvectors of a random symmetric matrix. */
function orthogonal(n, seed) {
  const B = randomMatrix(n, n, seed), A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A[i * n + j] = B[i * n + j] + B[j * n + i];
  return N.symmetricEigen(A, n).vectors;
}
/** P diag(sigma) Q^T for orthogonal P (m x m) and Q (n x n): singular values sigma, known. */
function withSingularValues(sigma, m, n, seed) {
  const P = orthogonal(m, seed), Q = orthogonal(n, seed + 1), A = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let t = 0;
      for (let k = 0; k < n; k++) t += P[i * m + k] * sigma[k] * Q[j * n + k];
      A[i * n + j] = t;
    }
  }
  return A;
}
function frobenius(A) { return Math.sqrt(A.reduce((s, v) => s + v * v, 0)); }
/** ||A - U diag(s) V^T||_F for the column-major U, V of svd(). */
function reconstructionError(A, m, n, { values, U, V }) {
  let sum = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let t = 0;
      for (let k = 0; k < n; k++) t += U[k * m + i] * values[k] * V[k * n + j];
      sum += (A[i * n + j] - t) ** 2;
    }
  }
  return Math.sqrt(sum);
}
/** max |X^T X - I| for the column-major X (rows x cols). */
function orthonormalityError(X, rows, cols) {
  let worst = 0;
  for (let a = 0; a < cols; a++) {
    for (let b = 0; b < cols; b++) {
      let t = 0;
      for (let i = 0; i < rows; i++) t += X[a * rows + i] * X[b * rows + i];
      worst = Math.max(worst, Math.abs(t - (a === b ? 1 : 0)));
    }
  }
  return worst;
}

test("svd: known answers (diagonal, 2 x 2, a rank-one matrix, zeros)", () => {
  const diagonal = N.svd(Float64Array.of(1, 0, 0, 0, -5, 0, 0, 0, 3), 3, 3);
  assert.deepEqual(Array.from(diagonal.values), [5, 3, 1]);
  // [[3, 0], [4, 5]] has singular values 3 sqrt(5) and sqrt(5)
  const two = N.svd(Float64Array.of(3, 0, 4, 5), 2, 2).values;
  assert.ok(Math.abs(two[0] - 3 * Math.sqrt(5)) < 4 * EPS * 7 && Math.abs(two[1] - Math.sqrt(5)) < 4 * EPS * 7);
  // u v^T with |u| = 3, |v| = 2: one singular value 6, the others exactly or nearly 0
  const u = [1, 2, 2], v = [0, Math.SQRT2, Math.SQRT2], R = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) R[i * 3 + j] = u[i] * v[j];
  const rankOne = N.svd(R, 3, 3);
  assert.ok(Math.abs(rankOne.values[0] - 6) < 1e-14 * 6);
  assert.ok(rankOne.values[1] < 1e-14 * 6 && rankOne.values[2] < 1e-14 * 6);
  assert.ok(reconstructionError(R, 3, 3, rankOne) < 1e-14 * 6);
  assert.deepEqual(Array.from(N.svd(new Float64Array(16), 4, 4).values), [0, 0, 0, 0]);
  assert.deepEqual(Array.from(N.svd(Float64Array.of(-2), 1, 1).values), [2]);
  assert.throws(() => N.svd(new Float64Array(6), 2, 3), RangeError);
});

test("svd: planted singular values come back, to round-off relative to the largest", () => {
  for (const [m, n, seed] of [[6, 6, 1], [60, 60, 2], [40, 25, 3], [90, 60, 4]]) {
    // a wide range (1 to 1e-12) and a repeated value
    const sigma = Array.from({ length: n }, (_, k) => (k === 1 ? 1 : Math.pow(10, (-12 * k) / (n - 1))));
    const A = withSingularValues(sigma, m, n, seed);
    const result = N.svd(A, m, n);
    const expected = sigma.slice().sort((a, b) => b - a);
    for (let k = 0; k < n; k++) {
      assert.ok(Math.abs(result.values[k] - expected[k]) <= 50 * n * EPS, `m = ${m}, n = ${n}, k = ${k}`);
    }
    for (let k = 1; k < n; k++) assert.ok(result.values[k] <= result.values[k - 1]);
  }
});

test("svd: A = U diag(s) V^T with orthonormal U and V, for random and low-rank matrices", () => {
  for (const [m, n, seed, rank] of [[2, 2, 1, 2], [7, 5, 2, 5], [60, 60, 3, 60], [60, 60, 4, 5], [80, 30, 5, 1]]) {
    const B = randomMatrix(m, rank, seed), C = randomMatrix(n, rank, seed + 100), A = new Float64Array(m * n);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let t = 0;
        for (let k = 0; k < rank; k++) t += B[i * rank + k] * C[j * rank + k];
        A[i * n + j] = t;
      }
    }
    const result = N.svd(A, m, n), norm = frobenius(A);
    assert.ok(reconstructionError(A, m, n, result) <= 20 * n * EPS * norm, `reconstruction ${m} x ${n}`);
    assert.ok(orthonormalityError(result.U, m, n) <= 20 * n * EPS, `U ${m} x ${n}`);
    assert.ok(orthonormalityError(result.V, n, n) <= 20 * n * EPS, `V ${m} x ${n}`);
    // sum of squares of the singular values = ||A||_F^2; a rank-r matrix has n - r negligible ones
    const squares = result.values.reduce((s, v) => s + v * v, 0);
    assert.ok(Math.abs(squares - norm * norm) <= 20 * n * EPS * norm * norm);
    for (let k = rank; k < n; k++) assert.ok(result.values[k] <= 20 * n * EPS * result.values[0]);
  }
});

test("svd: the squared singular values are the eigenvalues of A^T A", () => {
  const m = 30, n = 12, A = randomMatrix(m, n, 9), G = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      let t = 0;
      for (let i = 0; i < m; i++) t += A[i * n + a] * A[i * n + b];
      G[a * n + b] = t;
    }
  }
  const eigenvalues = N.symmetricEigenvalues(G, n), values = N.svd(A, m, n).values;
  for (let k = 0; k < n; k++) assert.ok(Math.abs(values[k] ** 2 - eigenvalues[k]) <= 1e-13 * eigenvalues[0]);
});

test("svd with vectors 'right': the same values and V, bit for bit, and no U", () => {
  for (const [m, n, seed] of [[5, 5, 1], [60, 60, 2], [45, 30, 3]]) {
    const A = randomMatrix(m, n, seed), full = N.svd(A, m, n), right = N.svd(A, m, n, { vectors: "right" });
    assert.equal(right.U, null);
    assert.deepEqual(Array.from(right.values), Array.from(full.values));
    assert.deepEqual(Array.from(right.V), Array.from(full.V));
    // A V = U diag(s): what the robust PCA lab uses instead of U
    for (let k = 0; k < n; k++) {
      for (let i = 0; i < m; i++) {
        let t = 0;
        for (let j = 0; j < n; j++) t += A[i * n + j] * right.V[k * n + j];
        assert.ok(Math.abs(t - full.U[k * m + i] * full.values[k]) <= 20 * n * EPS * full.values[0]);
      }
    }
  }
});
