// Kernel PCA de-noising by the labs' numerics, for tests/test_labs_numerics.py:
// reads {X_train, X_test, d, c, n_fit, q, n_iter, kt_neighbors} as JSON on stdin, writes the
// eigenvalues, alphas, pre-images and convergence counts, and the Kwok-Tsang pre-images
// computed as the lab computes them (K gamma from K alpha), as JSON on stdout.
"use strict";
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "kernels", "preimage", "kwok-tsang"].map((name) =>
  require(path.join(__dirname, "..", "..", "_static", `kpca-labs-${name}.js`))));

const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const d = input.d, X = Float64Array.from(input.X_train), A = Float64Array.from(input.X_test);
const n = X.length / d, m = A.length / d;
const fit = N.kernelPCAFit(X, n, d, input.c, input.n_fit);
const Y = N.kernelPCAProject(fit, A, m);
const gamma = N.gammaWeights(fit, Y, m, input.q);
const run = new N.FixedPointRun(X, n, d, gamma, m, input.c, A);
const KGamma = N.kernelTimesWeights(fit, N.kernelAlphas(fit), Y, m, input.q);
const kwokTsang = N.kwokTsang(X, n, d, gamma, m, input.c, input.kt_neighbors, KGamma);
run.runTo(input.n_iter);
process.stdout.write(JSON.stringify({
  eigenvalues: Array.from(fit.eigenvalues),
  alphas: Array.from(fit.alphas),
  n_components: fit.nComponents,
  lanczos: fit.lanczos,
  Z: Array.from(run.at(input.n_iter)),
  n_converged: run.convergedWithin(input.n_iter),
  kwok_tsang: Array.from(kwokTsang.Z),
  restarted: Array.from(run.restarts).map((r, a) => r > 0 || run.gaveUpAt[a] >= 0),
}));
