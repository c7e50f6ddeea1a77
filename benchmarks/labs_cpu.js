// CPU milliseconds of the de-noising lab's computing under node, for
// benchmarks/bench_labs.py: reads {X_train, X_test, settings: [[c, q], ...],
// repeats} as JSON on stdin; for each setting, the best over the repeats of
// the process's CPU time (process.cpuUsage: not the time spent waiting for
// the processor, which other programs on a busy machine take).
"use strict";
const path = require("node:path");
const N = Object.assign({}, ...["linalg", "kernels", "preimage"].map((name) =>
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
const rows = input.settings.map(([c, q]) => {
  let fitMs = Infinity, runMs = Infinity, fit, run;
  for (let r = 0; r < input.repeats; r++) {
    let ms;
    [ms, fit] = cpuMs(() => {
      const model = N.kernelPCAFit(X, n, 2, c, 12);
      return { model, beta: N.kernelPCAProject(model, A, m) };
    });
    fitMs = Math.min(fitMs, ms);
    [ms, run] = cpuMs(() => {
      const gamma = N.gammaWeights(fit.model, fit.beta, m, q);
      return new N.FixedPointRun(X, n, 2, gamma, m, c, A).runTo(50);
    });
    runMs = Math.min(runMs, ms);
  }
  return { fitMs, runMs, lanczosSteps: fit.model.lanczos.steps, iterations: run.t };
});
process.stdout.write(JSON.stringify(rows));
