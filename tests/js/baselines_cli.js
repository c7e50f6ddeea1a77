// The de-noising baselines by the labs' numerics, for tests/test_labs_numerics.py: reads {X_train, X_test,
// first, second, d, c, n_iter, k_values} as JSON on stdin, writes the held-out k and q and the de-noised
// points of the kNN average, the nearest training point, linear PCA and mean shift as JSON on stdout.
"use strict";
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "kernels", "preimage"].map((name) =>
  require(path.join(__dirname, "..", "..", "_static", `kpca-labs-${name}.js`))));

const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const d = input.d, X = Float64Array.from(input.X_train), A = Float64Array.from(input.X_test);
const first = Float64Array.from(input.first), second = Float64Array.from(input.second);
const n = X.length / d, m = A.length / d, mv = first.length / d, ks = input.k_values;
const pca = N.pcaFit(X, n, d);
const k = ks[N.oneStandardErrorChoice(N.knnAverages(X, n, d, first, mv, ks).map((Z) => N.rowErrors(Z, second, mv, d)))];
const qs = Array.from({ length: d + 1 }, (_, q) => q);
const q = N.oneStandardErrorChoice(qs.map((q) => N.rowErrors(N.pcaReconstruct(pca, first, mv, q), second, mv, d)));
const [knn, nearest] = N.knnAverages(X, n, d, A, m, [k, 1]);
const meanShift = N.meanShiftRun(X, n, d, m, input.c, A).runTo(input.n_iter);
process.stdout.write(JSON.stringify({
  k, q, knn: Array.from(knn), nearest: Array.from(nearest),
  linear: Array.from(N.pcaReconstruct(pca, A, m, q)), mean: Array.from(N.pcaReconstruct(pca, A, m, 0)),
  mean_shift: Array.from(meanShift.at(input.n_iter)), mean_shift_converged: meanShift.convergedWithin(input.n_iter),
}));
