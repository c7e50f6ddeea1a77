// The appendices' labs' computing under node, for tests/test_labs_appendices.py: reads
// {kind: "sparse-pca" | "robust-pca", payload, settings: [...]} as JSON on stdin and writes
// what the page would compute for each setting.
"use strict";
const path = require("node:path");
const staticDir = path.join(__dirname, "..", "..", "_static");
const Sparse = require(path.join(staticDir, "kpca-lab-sparse-model.js"));
const Robust = require(path.join(staticDir, "kpca-lab-robust-model.js"));

const request = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const { payload } = request;
const out = [];
if (request.kind === "sparse-pca") {
  const data = Sparse.dataFromBits(payload.X_bits, payload.n_samples, payload.n_features);
  for (const { alpha, n_components: q } of request.settings) {
    const fit = new Sparse.Fit(data, alpha, q, payload.max_iter, payload.tol);
    while (fit.step());
    const result = fit.result();
    out.push({ n_iter: fit.nIter, components: Array.from(result.components), r2: result.r2,
               n_nonzero: Array.from(result.nonzero) });
  }
} else {
  const draws = new Robust.Draws(payload), n = payload.n;
  for (const { lam_factor: lamFactor, rank, corruption } of request.settings) {
    const problem = draws.matrix(rank, Math.round(corruption * n * n));
    const split = new Robust.Split(problem.M, n, lamFactor / Math.sqrt(n),
      { tol: payload.tol, maxIter: payload.max_iter, rho: payload.rho, sigmaM: problem.sigmaM });
    while (split.step());
    const result = split.result();
    out.push({ n_iter: split.nIter, converged: split.converged, rank: split.rank, M: Array.from(problem.M),
               L: Array.from(result.L), S: Array.from(result.S) });
  }
}
process.stdout.write(JSON.stringify(out));
