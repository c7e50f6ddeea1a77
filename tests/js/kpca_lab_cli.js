// Chapter 4's kernel PCA lab's numerics (_static/kpca-lab-kpca-model.js) on data read from stdin, for
// tests/test_labs_numerics_kpca.py. Input JSON: X, y, X_test, y_test (flat), kernel, q_max, q, grid (flat);
// optional logistic: {A, labels, n, p, K, B, rows}. Output JSON: what the lab computes.
"use strict";
const path = require("node:path");
const M = require(path.join(__dirname, "..", "..", "_static", "kpca-lab-kpca-model.js"));

const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const out = {};
if (input.X) {
  const X = Float64Array.from(input.X), n = X.length / 2;
  const Xt = Float64Array.from(input.X_test), m = Xt.length / 2;
  const start = process.hrtime.bigint();
  const model = M.fit(X, n, input.kernel, input.q_max);
  const Zt = M.project(model, Xt, m);
  const G = Float64Array.from(input.grid || []);
  const grid = G.length ? M.project(model, G, G.length / 2) : [];
  const q = model.nComponents;
  const score = M.heldOutAccuracy(model.Z, input.y, n, Zt, input.y_test, m, q, Math.min(input.q, q));
  Object.assign(out, {
    eigenvalues: Array.from(model.eigenvalues), n_components: q, trace: model.trace,
    Z: Array.from(model.Z), Z_test: Array.from(Zt), grid: Array.from(grid), lanczos: model.lanczos,
    accuracy: score && score.accuracy, iterations: score && score.iterations,
    ms: Number(process.hrtime.bigint() - start) / 1e6,
  });
}
if (input.logistic) {
  const L = input.logistic;
  const fitted = M.logisticFit(Float64Array.from(L.A), Int32Array.from(L.labels), L.n, L.p, L.K);
  Object.assign(out, {
    theta: Array.from(fitted.theta), logistic_iterations: fitted.iterations,
    predicted: Array.from(M.logisticPredict(fitted, Float64Array.from(L.B), L.rows)),
  });
}
process.stdout.write(JSON.stringify(out));
