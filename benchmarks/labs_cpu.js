// CPU milliseconds of the de-noising lab's computing under node, for
// benchmarks/bench_labs.py: reads {X_train, X_test, first, second, k_values,
// settings: [[c, q], ...], repeats} as JSON on stdin; for each setting, the
// kernel fit, the fixed-point run, the baselines without a kernel (a sigma
// move: k and q chosen on the validation pairs first, second), 50
// mean-shift iterations (a sigma or c move), K alpha (a sigma or c move) and
// K gamma with the Kwok-Tsang pre-images (10 neighbours: a q move), the best over the repeats of
// the process's CPU time (process.cpuUsage: not the time spent waiting for
// the processor, which other programs on a busy machine take).
"use strict";
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "kernels", "preimage", "kwok-tsang"].map((name) =>
  require(path.join(__dirname, "..", "_static", `kpca-labs-${name}.js`))));

const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const X = Float64Array.from(input.X_train), A = Float64Array.from(input.X_test);
const n = X.length / 2, m = A.length / 2;
function cpuMs(work) {
  const start = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(start);
  return [(used.user + used.system) / 1000, value];
}
const first = Float64Array.from(input.first), second = Float64Array.from(input.second), mv = first.length / 2;
function baselines() {
  const ks = input.k_values, pca = N.pcaFit(X, n, 2);
  const k = ks[N.oneStandardErrorChoice(N.knnAverages(X, n, 2, first, mv, ks).map((Z) => N.rowErrors(Z, second, mv, 2)))];
  const q = N.oneStandardErrorChoice([0, 1, 2].map((q) => N.rowErrors(N.pcaReconstruct(pca, first, mv, q), second, mv, 2)));
  return [N.knnAverages(X, n, 2, A, m, [k, 1]), N.pcaReconstruct(pca, A, m, q)];
}
const rows = input.settings.map(([c, q]) => {
  let fitMs = Infinity, runMs = Infinity, baselinesMs = Infinity, meanShiftMs = Infinity, fit, run;
  let kAlphasMs = Infinity, kwokTsangMs = Infinity, KAlphas;
  for (let r = 0; r < input.repeats; r++) {
    let ms;
    [ms, fit] = cpuMs(() => {
      const model = N.kernelPCAFit(X, n, 2, c, 12);
      return { model, Y: N.kernelPCAProject(model, A, m) };
    });
    fitMs = Math.min(fitMs, ms);
    [ms, run] = cpuMs(() => {
      const gamma = N.gammaWeights(fit.model, fit.Y, m, q);
      return new N.FixedPointRun(X, n, 2, gamma, m, c, A).runTo(50);
    });
    runMs = Math.min(runMs, ms);
    baselinesMs = Math.min(baselinesMs, cpuMs(baselines)[0]);
    meanShiftMs = Math.min(meanShiftMs, cpuMs(() => N.meanShiftRun(X, n, 2, m, c, A).runTo(50))[0]);
    [ms, KAlphas] = cpuMs(() => N.kernelAlphas(fit.model));
    kAlphasMs = Math.min(kAlphasMs, ms);
    kwokTsangMs = Math.min(kwokTsangMs, cpuMs(() => N.kwokTsang(X, n, 2, run.gamma, m, c, 10,
      N.kernelTimesWeights(fit.model, KAlphas, fit.Y, m, q)))[0]);
  }
  return { fitMs, runMs, baselinesMs, meanShiftMs, kAlphasMs, kwokTsangMs, lanczosSteps: fit.model.lanczos.steps,
    iterations: run.t };
});
process.stdout.write(JSON.stringify(rows));
