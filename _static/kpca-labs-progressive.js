/* Iterative labs that stay responsive: the sweeps of a solver computed in
 * slices of a few milliseconds, drawn once per animation frame as they come
 * (appendix A's sparse PCA lab and appendix B's robust PCA lab).
 *
 * A move of a control starts a new job: the first slice runs in the input
 * handler and is drawn at once, so the reader sees the page answer in the
 * next frame; the remaining slices run in tasks of about `budget` ms one
 * after another (a MessageChannel has no minimum delay, unlike setTimeout),
 * and between two of them the browser handles input and paints. A newer
 * move simply replaces the job. Part of window.kpcaLabCore.
 */
(function () {
  "use strict";

  /**
   * opts: start() -> job (the work of the current settings), step(job) ->
   * true while sweeps are left, draw(job, done), budget (ms per slice,
   * default 8), drawEvery (ms between two drawings of unfinished sweeps,
   * default 0: every frame; drawing costs time the sweeps could use).
   * Returns {move(control), whenIdle(), timings, job()}.
   */
  function progressive(opts) {
    const C = window.kpcaLabCore, budget = opts.budget || 8, drawEvery = opts.drawEvery || 0;
    const timings = [], timer = new C.MoveTimer(timings), waiters = [];
    const channel = new MessageChannel();
    let job = null, pending = false, pumping = false, drawRequested = false, lastDraw = 0;

    function slice() {
      const deadline = performance.now() + budget;
      while (pending && performance.now() < deadline) pending = opts.step(job);
    }
    function settle() {
      timer.mark("settledMs");
      while (waiters.length) waiters.shift()();
    }
    function requestDraw() {
      if (drawRequested || (pending && performance.now() - lastDraw < drawEvery)) return;
      drawRequested = true;
      requestAnimationFrame(() => {
        drawRequested = false;
        lastDraw = performance.now();
        opts.draw(job, !pending);
        if (!pending) settle();
      });
    }
    channel.port1.onmessage = () => {
      slice();
      requestDraw();
      if (pending) channel.port2.postMessage(null);
      else pumping = false;
    };

    function move(control) {
      timer.start(control || "set");
      job = opts.start();
      pending = true;
      slice();
      timer.mark("preparedMs");
      opts.draw(job, !pending);
      lastDraw = performance.now();
      timer.mark("firstDrawMs");
      if (!pending) settle();
      else if (!pumping) {
        pumping = true;
        channel.port2.postMessage(null);
      }
    }

    return {
      move, timings, timer,
      job: () => job,
      /** Resolves when every sweep of the current settings is computed and drawn. */
      whenIdle: () => new Promise((resolve) => {
        if (!pending && !drawRequested) resolve();
        else waiters.push(resolve);
      }),
    };
  }

  Object.assign((window.kpcaLabCore = window.kpcaLabCore || {}), { progressive });
})();
