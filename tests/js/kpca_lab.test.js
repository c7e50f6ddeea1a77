// Unit tests of chapter 4's kernel PCA lab's numerics (_static/kpca-lab-kpca-{model,score}.js) against
// identities and known answers. Run: node --test tests/js/  (tests/test_labs_numerics_kpca.py compares the
// same code with kpca_lib and scikit-learn).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const M = require(path.join(__dirname, "..", "..", "_static", "kpca-lab-kpca-model.js"));
const N = Object.assign({}, ...["linalg", "kernels"].map((name) =>
  require(path.join(__dirname, "..", "..", "_static", `kpca-labs-${name}.js`))));

function points(n, seed, spread) {
  const random = N.randomGenerator(seed);
  return Float64Array.from({ length: 2 * n }, () => (spread || 1) * random.normal());
}
function maxAbs(values) { return values.reduce((m, v) => Math.max(m, Math.abs(v)), 0); }
function centred(kernel, X, n) {
  const K = M.gram(kernel, X, n);
  N.centreTrainKernel(K, n);
  return K;
}

const KERNELS = [{ name: "gaussian", c: 0.7 }, { name: "gaussian", c: 20 }, { name: "polynomial", degree: 3 }];

test("the polynomial kernel is (x . y + 1)^p, by repeated squaring", () => {
  const X = Float64Array.of(1, 2, 3, 4);
  const K = M.gram({ name: "polynomial", degree: 2 }, X, 2);
  assert.deepEqual(Array.from(K), [36, 144, 144, 676]); // (1 + 5)^2, (1 + 11)^2, (1 + 25)^2
  for (const degree of [1, 2, 5, 6]) {
    const value = M.cross({ name: "polynomial", degree }, Float64Array.of(0.3, -1.7), 1, Float64Array.of(2.1, 0.4), 1)[0];
    const exact = Math.pow(0.3 * 2.1 - 1.7 * 0.4 + 1, degree);
    assert.ok(Math.abs(value - exact) <= 8 * Number.EPSILON * Math.abs(exact), `degree ${degree}`);
  }
  assert.throws(() => M.gram({ name: "polynomial", degree: 0 }, X, 2), RangeError);
  assert.throws(() => M.gram({ name: "gaussian", c: -1 }, X, 2), RangeError);
});

test("the fit solves K_c beta = mu beta, with unit-norm directions and the dense eigenvalues", () => {
  const n = 60, X = points(n, 3);
  for (const kernel of KERNELS) {
    const model = M.fit(X, n, kernel, 6), q = model.nComponents, Kc = centred(kernel, X, n);
    const dense = N.symmetricEigen(Float64Array.from(Kc), n).values;
    for (let k = 0; k < q; k++) {
      assert.ok(Math.abs(model.eigenvalues[k] - dense[k]) <= 1e-12 * dense[0], `${kernel.name}: mu_${k + 1}`);
      const alpha = Float64Array.from({ length: n }, (_, i) => model.alphas[i * q + k]);
      const Ka = N.matVec(Kc, n, alpha, new Float64Array(n));
      // K_c alpha = mu alpha, alpha' K_c alpha = 1 (unit norm in feature space), sum alpha = 0 (centred)
      const residual = maxAbs(Ka.map((v, i) => v - model.eigenvalues[k] * alpha[i]));
      assert.ok(residual <= 1e-10 * model.eigenvalues[0] * maxAbs(alpha), `${kernel.name}: residual ${residual}`);
      assert.ok(Math.abs(N.dot(alpha, Ka, n) - 1) <= 1e-10, `${kernel.name}: norm`);
      assert.ok(Math.abs(alpha.reduce((s, v) => s + v, 0)) <= 1e-10 * maxAbs(alpha) * n);
      // svd_flip's sign: the entry of largest absolute value is positive
      const top = alpha.reduce((best, v) => (Math.abs(v) > Math.abs(best) ? v : best), 0);
      assert.ok(top > 0);
    }
    // the trace of K_c is the sum of all its eigenvalues
    const total = dense.reduce((s, v) => s + v, 0);
    assert.ok(Math.abs(model.trace - total) <= 1e-12 * Math.abs(total) * n);
  }
});

test("projecting the training points gives the fit's Z = K_c alpha = mu alpha", () => {
  const n = 50, X = points(n, 5);
  for (const kernel of KERNELS) {
    const model = M.fit(X, n, kernel, 5), Z = M.project(model, X, n);
    assert.ok(maxAbs(Z.map((v, i) => v - model.Z[i])) <= 1e-10 * maxAbs(model.Z), kernel.name);
  }
});

test("the grid's separable Gaussian kernel projects as the points themselves", () => {
  const n = 40, X = points(n, 7), xs = Float64Array.of(-2, -0.5, 0, 1.5, 3), ys = Float64Array.of(-1, 0.25, 2, 2.5, 4);
  const G = new Float64Array(2 * 25);
  for (let row = 0; row < 5; row++) for (let col = 0; col < 5; col++) G.set([xs[col], ys[row]], 2 * (row * 5 + col));
  for (const kernel of KERNELS) {
    const model = M.fit(X, n, kernel, 4), a = M.projectGrid(model, xs, ys), b = M.project(model, G, 25);
    assert.ok(maxAbs(a.map((v, i) => v - b[i])) <= 1e-13 * maxAbs(b), kernel.name);
  }
});

test("components beyond the rank are dropped: a degree-1 kernel in the plane has two", () => {
  const n = 30, X = points(n, 11);
  const model = M.fit(X, n, { name: "polynomial", degree: 1 }, 10);
  assert.equal(model.nComponents, 2);
  // two points: centring leaves one dimension
  assert.equal(M.fit(Float64Array.of(0, 0, 1, 1), 2, { name: "gaussian", c: 1 }, 10).nComponents, 1);
});

test("logistic regression reaches the optimum: zero gradient of the penalised loss", () => {
  const n = 80, p = 3, random = N.randomGenerator(13);
  const A = Float64Array.from({ length: n * p }, () => random.normal());
  for (const K of [2, 3]) {
    const labels = Int32Array.from({ length: n }, (_, i) => (A[i * p] + 0.7 * random.normal() > 0 ? 1 : 0) + (K === 3 && A[i * p + 1] > 0.8 ? 1 : 0));
    const model = M.logisticFit(A, labels, n, p, K);
    assert.ok(model.iterations < 30, `K = ${K}: ${model.iterations} iterations`);
    // the gradient by central differences of the loss, recomputed from the decision values
    const loss = (theta) => {
      let total = 0;
      const blocks = K === 2 ? 1 : K;
      for (let i = 0; i < n; i++) {
        const s = Array.from({ length: blocks }, (_, k) => {
          let v = k * (p + 1) + p < theta.length ? theta[k * (p + 1) + p] : 0;
          for (let j = 0; j < p; j++) v += theta[k * (p + 1) + j] * A[i * p + j];
          return v;
        });
        if (K === 2) total += Math.log1p(Math.exp(labels[i] === 1 ? -s[0] : s[0]));
        else total += Math.log(s.reduce((t, v) => t + Math.exp(v), 0)) - s[labels[i]];
      }
      for (let k = 0; k < blocks; k++) for (let j = 0; j < p; j++) total += 0.5 * theta[k * (p + 1) + j] ** 2;
      return total;
    };
    for (let r = 0; r < model.theta.length; r++) {
      const up = Float64Array.from(model.theta), down = Float64Array.from(model.theta);
      up[r] += 1e-5;
      down[r] -= 1e-5;
      assert.ok(Math.abs((loss(up) - loss(down)) / 2e-5) <= 1e-6, `K = ${K}, parameter ${r}`);
    }
  }
});

test("the held-out score: 1 on separable classes, null with one class, labels kept as given", () => {
  const n = 40, Z = new Float64Array(n), y = new Int32Array(n);
  for (let i = 0; i < n; i++) { y[i] = i % 2 === 0 ? 2 : 5; Z[i] = (y[i] === 2 ? -1 : 1) * (1 + i / n); }
  const score = M.heldOutAccuracy(Z, y, n, Z, y, n, 1, 1);
  assert.equal(score.accuracy, 1);
  assert.deepEqual(score.classes, [2, 5]);
  assert.equal(M.heldOutAccuracy(Z, new Int32Array(n), n, Z, y, n, 1, 1), null);
  // a constant column is not scaled (StandardScaler), and does not break the fit
  const two = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) { two[2 * i] = 3; two[2 * i + 1] = Z[i]; }
  assert.equal(M.heldOutAccuracy(two, y, n, two, y, n, 2, 2).accuracy, 1);
});
