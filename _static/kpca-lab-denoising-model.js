/* Chapter 5's de-noising lab, its computing (no drawing): the toy of Mika et
 * al. rebuilt from the data kpca_lib.explorers.labs.denoising_lab sends, and
 * kernel PCA de-noising of its test points, with caches so that each control
 * answers at the speed it can:
 * - per sigma: the data and the baselines that need no kernel: the training
 *   mean, the nearest training point, the kNN average and linear PCA, k and
 *   q chosen on the validation pairs as kpca_lib.explorers.denoising_baselines
 *   (computed in slices in the tasks after the first drawing of a new sigma: a
 *   sigma move shows the kernel PCA pre-images first);
 * - per (sigma, c): the kernel PCA fit (12 components), the projections
 *   Y of the test points (a new kernel and its eigenpairs) and the mean-shift
 *   run (every gamma_i = 1/n), iterated after the kernel PCA run;
 * - per (sigma, c, q): the fixed-point run, keeping every iterate z_t, so
 *   that the iterations slider only redraws, and the Kwok–Tsang pre-images
 *   of the same projections (payload.kwok_tsang_neighbors neighbours), from
 *   K alpha (kept per (sigma, c)), as kpca_lib.preimage.kwok_tsang.
 *   They are computed first in the tasks that follow the first drawing.
 */
(function () {
  "use strict";
  const RULE_DIGITS = 12; // 2 d sigma^2 rounded: c = 0.04 as the text writes, not 0.04000000000000001
  const KWOK_TSANG_ROWS = 48; // test points per slice of the Kwok–Tsang pre-images
  const K_ALPHA_ROWS = 64; // training points per slice of K alpha
  // points per slice of the work a new sigma or c starts (each slice about as dear as a
  // fixed-point iteration or less): the projections of the test points and their gamma
  // weights (a row of the kernel with the 1,100 training points each), the kNN averages of
  // the baselines (a sort of 1,100 distances each); whole, they held one task for 50-650 ms
  const PROJECT_ROWS = 64;
  const GAMMA_ROWS = 64;
  const KNN_ROWS = 24;

  /** Run a generator to its end; its return value. */
  function finish(steps) {
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /** fn(from, to) over the m rows in slices of `rows`, yielding after each (a generator). */
  function* inSlices(m, rows, fn) {
    for (let from = 0; from < m; from += rows) {
      fn(from, Math.min(m, from + rows));
      yield from;
    }
  }

  function remember(map, key, value, size) {
    map.set(key, value);
    if (map.size > size) map.delete(map.keys().next().value); // the oldest
    return value;
  }

  class DenoisingModel {
    constructor(payload) {
      const d = (this.d = payload.n_features);
      this.payload = payload;
      this.k = payload.centres.length / d;
      this.nTrain = this.k * payload.n_train_per_cluster;
      this.nTest = this.k * payload.n_test_per_cluster;
      this.centres = Float64Array.from(payload.centres);
      this.noiseTrain = Float64Array.from(payload.noise_train);
      this.noiseTest = Float64Array.from(payload.noise_test);
      this.maxIter = payload.max_iter;
      this.maxComponents = payload.max_components;
      this.kwokTsangNeighbors = payload.kwok_tsang_neighbors;
      this.track = payload.trajectory_points;
      this.marked = this.track[0];
      this.toys = new Map();
      this.fits = new Map();
      this.runs = new Map();
    }

    /** The width rule c = 2 d sigma^2. */
    ruleWidth(sigma) {
      return Number((2 * this.d * sigma * sigma).toPrecision(RULE_DIGITS));
    }

    /** denoising_toy for one sigma: centre plus sigma times the unit noise, as kpca_lib computes it. */
    toy(sigma) {
      if (this.toys.has(sigma)) return this.toys.get(sigma);
      const N = window.kpcaNumerics, { d, centres, nTrain, nTest } = this;
      const build = (noise, perCluster, count) => {
        const X = new Float64Array(count * d), clean = new Float64Array(count * d);
        for (let i = 0; i < count; i++) {
          const cluster = Math.floor(i / perCluster);
          for (let j = 0; j < d; j++) {
            clean[i * d + j] = centres[cluster * d + j];
            X[i * d + j] = centres[cluster * d + j] + sigma * noise[i * d + j];
          }
        }
        return { X, clean };
      };
      const train = build(this.noiseTrain, this.payload.n_train_per_cluster, nTrain);
      const test = build(this.noiseTest, this.payload.n_test_per_cluster, nTest);
      return remember(this.toys, sigma, {
        sigma, Xtrain: train.X, Xtest: test.X, clean: test.clean, baselines: null,
        Zlinear: null, linearComponents: null, mseLinear: null,
        mseNoisy: N.meanSquaredDistance(test.X, test.clean, nTest, d),
      }, 8);
    }

    /** The toy's baselines without a kernel (toy.baselines, toy.Zlinear, ...), once. */
    toyBaselines(toy) {
      while (!toy.baselines) this.toyBaselinesSlice(toy);
      return toy;
    }

    /** The next slice of the toy's baselines (toyBaselines in tasks); the baselines are set after the last. */
    toyBaselinesSlice(toy) {
      const job = toy.baselinesJob
        || (toy.baselinesJob = this.baselinesSteps(toy.sigma, toy.Xtrain, { X: toy.Xtest, clean: toy.clean }));
      const next = job.next();
      if (!next.done) return;
      const N = window.kpcaNumerics, baselines = next.value;
      toy.baselinesJob = null;
      toy.Zlinear = baselines.Z.linear;
      toy.linearComponents = baselines.linearQ;
      toy.mseLinear = N.meanSquaredDistance(baselines.Z.linear, toy.clean, this.nTest, this.d);
      toy.baselines = baselines;
    }

    /**
     * The baselines without a kernel. k (of payload.knn_k_values, simplest
     * first) and q (0 .. d) are chosen on two noisy copies of the validation
     * points, centres plus sigma times payload.validation_noise, by the
     * one-standard-error rule: no clean data.
     */
    baselines(sigma, Xtrain, test) {
      return finish(this.baselinesSteps(sigma, Xtrain, test));
    }

    /** baselines() as a generator: the kNN averages in slices of KNN_ROWS points (rows are independent). */
    *baselinesSteps(sigma, Xtrain, test) {
      const N = window.kpcaNumerics, { d, nTrain, nTest, centres } = this, payload = this.payload;
      const m = this.k * payload.validation_per_cluster, noise = payload.validation_noise;
      const copy = (offset) => Float64Array.from({ length: m * d }, (_, i) =>
        centres[Math.floor(i / d / payload.validation_per_cluster) * d + (i % d)] + sigma * noise[offset + i]);
      const first = copy(0), second = copy(m * d);
      const ks = payload.knn_k_values, pca = N.pcaFit(Xtrain, nTrain, d);
      // the kNN averages of the rows of A for every k of ks, as knnAverages computes them, a slice at a time
      const knnAverages = function* (A, count, kValues) {
        const out = kValues.map(() => new Float64Array(count * d));
        yield* inSlices(count, KNN_ROWS, (from, to) => {
          N.knnAverages(Xtrain, nTrain, d, A.subarray(from * d, to * d), to - from, kValues)
            .forEach((Z, slot) => out[slot].set(Z, from * d));
        });
        return out;
      };
      const knnErrors = (yield* knnAverages(first, m, ks)).map((Z) => N.rowErrors(Z, second, m, d));
      const k = ks[N.oneStandardErrorChoice(knnErrors)];
      const qs = Array.from({ length: d + 1 }, (_, q) => q);
      const linearQ = N.oneStandardErrorChoice(qs.map((q) => N.rowErrors(N.pcaReconstruct(pca, first, m, q), second, m, d)));
      const [knn, nearest] = yield* knnAverages(test.X, nTest, [k, 1]);
      const mean = N.pcaReconstruct(pca, test.X, nTest, 0); // q = 0: the training mean
      const Z = { mean, nearest, knn, linear: N.pcaReconstruct(pca, test.X, nTest, linearQ) };
      const mse = {};
      for (const name in Z) mse[name] = N.meanSquaredDistance(Z[name], test.clean, nTest, d);
      return { k, linearQ, Z, mse };
    }

    hasFit(sigma, c) { return this.fits.has(sigma + "|" + c); }

    /** Kernel PCA of the training points and the projections of the test points. */
    fit(sigma, c) {
      return finish(this.fitSteps(sigma, c));
    }

    /**
     * fit() as a generator that yields between slices of a few ms (kernelPCAFitSteps, then the
     * projections of the test points PROJECT_ROWS at a time: a row of Y needs only its own
     * row of the test kernel); returns the same.
     */
    *fitSteps(sigma, c) {
      const key = sigma + "|" + c;
      if (this.fits.has(key)) return this.fits.get(key);
      const N = window.kpcaNumerics, data = this.toy(sigma), { d, nTest } = this;
      const fit = yield* N.kernelPCAFitSteps(data.Xtrain, this.nTrain, d, c, this.maxComponents);
      yield "fitted";
      const q = fit.nComponents, Y = new Float64Array(nTest * q);
      yield* inSlices(nTest, PROJECT_ROWS, (from, to) => {
        Y.set(N.kernelPCAProject(fit, data.Xtest.subarray(from * d, to * d), to - from), from * q);
      });
      const meanShift = N.meanShiftRun(data.Xtrain, this.nTrain, d, nTest, c, data.Xtest, {
        tol: this.payload.tol, maxRestarts: this.payload.max_restarts,
      });
      return remember(this.fits, key, { key, sigma, c, data, fit, Y, meanShift }, 8);
    }

    /** q as the fit allows it: no more components than eigenvalues above round-off. */
    components(fitted, q) { return Math.min(q, fitted.fit.nComponents); }

    hasRun(sigma, c, q) {
      const key = sigma + "|" + c;
      return this.fits.has(key) && this.runs.has(key + "|" + this.components(this.fits.get(key), q));
    }

    /** The fixed-point run of the test points with q components (not iterated yet when new). */
    run(fitted, q) {
      return finish(this.runSteps(fitted, q));
    }

    /** run() as a generator: the gamma weights GAMMA_ROWS points at a time (rows are independent). */
    *runSteps(fitted, q) {
      const key = fitted.key + "|" + q;
      if (this.runs.has(key)) return this.runs.get(key);
      const N = window.kpcaNumerics, data = fitted.data, { nTrain: n, nTest } = this, qFit = fitted.fit.nComponents;
      const gamma = new Float64Array(nTest * n);
      yield* inSlices(nTest, GAMMA_ROWS, (from, to) => {
        gamma.set(N.gammaWeights(fitted.fit, fitted.Y.subarray(from * qFit, to * qFit), to - from, q), from * n);
      });
      const run = new N.FixedPointRun(data.Xtrain, n, this.d, gamma, nTest, fitted.c, data.Xtest, {
        tol: this.payload.tol, maxRestarts: this.payload.max_restarts, track: this.track,
      });
      return remember(this.runs, key, { key, q, run, kwokTsang: null, kwokTsangPart: null }, 12);
    }

    /** Whether every iteration the lab can show is computed. */
    runDone(run) { return run.t >= this.maxIter || run.finished; }

    /**
     * One step of what is left: the baselines (a new sigma) in slices of KNN_ROWS points, then
     * K alpha (a new fit) and the Kwok–Tsang pre-images (a new run) in slices
     * of about 1 ms (20 ms per fit and 8 ms per q in all), then the kernel PCA
     * run, then the mean-shift run, an iteration a step; false when all are done.
     */
    stepPending(fitted, entry) {
      const run = entry.run;
      if (!fitted.data.baselines) this.toyBaselinesSlice(fitted.data);
      else if (!fitted.KAlphas) this.kernelAlphasSlice(fitted);
      else if (!entry.kwokTsang) this.kwokTsangSlice(fitted, entry);
      else if (!this.runDone(run)) run.step();
      else if (!this.runDone(fitted.meanShift)) fitted.meanShift.step();
      else return false;
      return true;
    }

    /** The next K_ALPHA_ROWS columns of K alpha (kernelAlphas); all of them in fitted.KAlphas once done. */
    kernelAlphasSlice(fitted) {
      const N = window.kpcaNumerics, n = this.nTrain;
      const part = fitted.KAlphasPart || (fitted.KAlphasPart = { out: null, done: 0 });
      const to = Math.min(n, part.done + K_ALPHA_ROWS);
      part.out = N.kernelAlphas(fitted.fit, part.done, to, part.out);
      part.done = to;
      if (to === n) {
        fitted.KAlphas = part.out;
        fitted.KAlphasPart = null;
      }
    }

    /**
     * The Kwok–Tsang pre-images of the run's next KWOK_TSANG_ROWS test points
     * (about 1 ms; all 363 at once took 8 ms, a task long enough to delay the
     * frame after a q move's first drawing); once every point is done, all of
     * them with their MSE in entry.kwokTsang. A point's pre-image needs only
     * its own row of gamma, K gamma and Y, so the slices give the numbers of
     * one call for all the points.
     */
    kwokTsangSlice(fitted, entry) {
      const N = window.kpcaNumerics, data = fitted.data, { nTrain: n, nTest, d } = this, fit = fitted.fit;
      while (!fitted.KAlphas) this.kernelAlphasSlice(fitted);
      const part = entry.kwokTsangPart || (entry.kwokTsangPart = { Z: new Float64Array(nTest * d), done: 0, tooFar: 0, pulledBack: 0, far: 0 });
      const from = part.done, to = Math.min(nTest, from + KWOK_TSANG_ROWS), rows = to - from;
      const Y = fitted.Y.subarray(from * fit.nComponents, to * fit.nComponents);
      const KGamma = N.kernelTimesWeights(fit, fitted.KAlphas, Y, rows, entry.q);
      const { Z, tooFar, pulledBack, far } = N.kwokTsang(data.Xtrain, n, d, entry.run.gamma.subarray(from * n, to * n), rows, fitted.c,
        this.kwokTsangNeighbors, KGamma);
      part.Z.set(Z, from * d);
      part.tooFar += tooFar;
      part.pulledBack += pulledBack;
      part.far += far;
      part.done = to;
      if (to === nTest) {
        entry.kwokTsang = { Z: part.Z, tooFar: part.tooFar, pulledBack: part.pulledBack, far: part.far, mse: N.meanSquaredDistance(part.Z, data.clean, nTest, d) };
        entry.kwokTsangPart = null;
      }
    }

    /**
     * The pre-image started at a clicked point, iterated to the end: of the
     * clicked point itself (mode "new"), or of the marked test point (mode "marked").
     */
    clickRun(fitted, entry, click) {
      const N = window.kpcaNumerics, n = this.nTrain;
      let gamma;
      if (click.mode === "marked") {
        gamma = entry.run.gamma.slice(this.marked * n, (this.marked + 1) * n);
      } else {
        gamma = N.gammaWeights(fitted.fit, N.kernelPCAProject(fitted.fit, click.start, 1), 1, entry.q);
      }
      const run = new N.FixedPointRun(fitted.data.Xtrain, n, this.d, gamma, 1, fitted.c, click.start, {
        tol: this.payload.tol, maxRestarts: this.payload.max_restarts, track: [0],
      });
      return run.runTo(this.maxIter);
    }
  }

  (window.kpcaDenoising = window.kpcaDenoising || {}).Model = DenoisingModel;
})();
