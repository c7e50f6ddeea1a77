// The de-noising baselines by the labs' numerics, for tests/test_labs_numerics.py: reads {X_train, X_test,
// first, second, d, c, n_iter, k_values} and optionally {gamma, kt_neighbors} (the weights of X_test's
// projections, n_test x n_train) as JSON on stdin, writes the held-out k and q and the de-noised points of
// the kNN average, the nearest training point, linear PCA, mean shift and (with gamma) Kwok-Tsang as JSON
// on stdout.
"use strict";
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "kernels", "preimage", "kwok-tsang"].map((name) =>
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
const kwokTsang = input.gamma
  ? N.kwokTsang(X, n, d, Float64Array.from(input.gamma), m, input.c, input.kt_neighbors) : null;
process.stdout.write(JSON.stringify({
  k, q, knn: Array.from(knn), nearest: Array.from(nearest),
  linear: Array.from(N.pcaReconstruct(pca, A, m, q)), mean: Array.from(N.pcaReconstruct(pca, A, m, 0)),
  mean_shift: Array.from(meanShift.at(input.n_iter)), mean_shift_converged: meanShift.convergedWithin(input.n_iter),
  ...(kwokTsang ? { kwok_tsang: Array.from(kwokTsang.Z), kwok_tsang_too_far: kwokTsang.tooFar,
      kwok_tsang_pulled_back: kwokTsang.pulledBack, kwok_tsang_far: kwokTsang.far } : {}),
}));
