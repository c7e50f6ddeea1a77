/* Iterative labs that stay responsive: the sweeps of a solver computed in
 * slices of a few milliseconds, drawn once per animation frame as they come
 * (appendix A's sparse PCA lab and appendix B's robust PCA lab).
 *
 * A move of a control starts a new job in a task after the frame that
 * paints the control's new value (moves that come meanwhile merged into it),
 * drawn at the next animation frame; the slices run in tasks of up to
 * `budget` ms one after another (a MessageChannel has no minimum delay, unlike setTimeout),
 * each ending before the next frame is due (FrameClock), and between two of
 * them the browser handles input and paints. A newer
 * move simply replaces the job. Part of window.kpcaLabCore.
 */
(function () {
  "use strict";

  const FRAME_MARGIN_MS = 2; // a slice of work ends this long before the next frame is due
  const LATE_SLICE_MS = 4; // the least slice after a wait for a frame: slow frames must not stop the work
  const PAUSE_MS = 50; // a longer gap between two frames seen is a pause of the work, not an interval
  const FALLBACK_MS = 100; // where frames do not come (a covered window), afterFrame goes on after this

  /**
   * The page's frames, as background work sees them, so that no slice of work
   * delays a frame: note(time) from each requestAnimationFrame callback;
   * deadline(budget) is when a slice starting now should end: after budget
   * ms, but FRAME_MARGIN_MS before the next frame is due (the last frame plus
   * the median of the recent intervals), or null when less than a millisecond
   * is left or the frame is late (then wait: afterFrame(fn) calls fn once the
   * next frame has begun). Right after such a wait a slice gets at least
   * LATE_SLICE_MS (within the budget), so that work goes on where frames take
   * longer than the interval allows (a slow machine). run(deadline, step)
   * calls step() once, then again while the deadline has not passed: a step
   * is not cut, so the last one can end past the deadline by up to a step
   * (chapter 5's iteration: about 4 ms). Stopping early at the cost of the
   * dearest recent step (tried) made a q move's second frame about 2 ms later
   * in bench_lab_latency.py, not earlier. Slices of a fixed 8 ms, run back to
   * back, held the frame after a move's first drawing up to a slice too long.
   */
  class FrameClock {
    constructor() {
      this.last = null;
      this.intervals = [];
      this.waited = false;
    }
    note(time) {
      const gap = time - this.last; // (callbacks of one frame share its time)
      if (this.last !== null && gap > 4 && gap < PAUSE_MS) {
        this.intervals.push(gap);
        if (this.intervals.length > 9) this.intervals.shift();
      }
      if (this.last === null || time > this.last) this.last = time;
    }
    interval() {
      if (!this.intervals.length) return 1000 / 60;
      const sorted = this.intervals.slice().sort((a, b) => a - b);
      return Math.min(Math.max(sorted[sorted.length >> 1], 1000 / 144), 1000 / 30);
    }
    deadline(budget) {
      const now = performance.now(), waited = this.waited;
      this.waited = false;
      if (typeof document === "object" && document.hidden) return now + budget; // no frame to keep
      if (this.last === null) return now + Math.min(budget, LATE_SLICE_MS);
      const due = this.last + this.interval() - FRAME_MARGIN_MS;
      if (waited) return now + Math.min(budget, Math.max(LATE_SLICE_MS, due - now));
      return due - now >= 1 ? Math.min(now + budget, due) : null;
    }
    afterFrame(fn) {
      let done = false;
      const go = (time) => {
        if (done) return;
        done = true;
        if (time !== undefined) this.note(time);
        this.waited = true;
        fn();
      };
      requestAnimationFrame(go);
      setTimeout(() => go(), FALLBACK_MS);
    }
    /** step() at least once (the work goes on), then while it returns true and the deadline has not passed. */
    run(deadline, step) {
      let pending;
      do pending = step(); while (pending && performance.now() < deadline);
      return pending;
    }
  }

  /**
   * opts: start() -> job (the work of the current settings), step(job) ->
   * true while sweeps are left, draw(job, done), pending() (optional: the
   * numbers shown are the old setting's from now on, e.g. dimmed; the next
   * draw() clears it), budget (ms per slice, default 8), drawEvery (ms
   * between two drawings of unfinished sweeps, default 0: every frame;
   * drawing costs time the sweeps could use).
   * Returns {move(control), whenIdle(), timings, job()}.
   *
   * No move computes in its input event: move() notes the move (its timer
   * record), calls pending() and asks for a task after the frame that paints
   * the control's new value; that task starts the job of the settings as they
   * are then (moves that came meanwhile, a drag's, merged into it) and runs
   * its first slice up to the frame clock's deadline; its first drawing comes
   * at the next animation frame (every merged move's firstDrawMs). A newer
   * move replaces the job. (In the input handler, the first slice of 8 ms and
   * a drawing made the frame of each input of a drag miss its time: appendix
   * B's lab drew frames 66-117 ms apart.)
   */
  function progressive(opts) {
    const C = window.kpcaLabCore, budget = opts.budget || 8, drawEvery = opts.drawEvery || 0;
    const timings = [], timer = new C.MoveTimer(timings), waiters = [];
    const channel = new MessageChannel();
    const clock = new FrameClock();
    let job = null, pending = false, pumping = false, drawRequested = false, lastDraw = 0;
    let startOwed = false; // a move waits for its job to start (in the next task)
    let firstDrawOwed = false; // a new job waits for its first drawing (at the next frame)
    const waitingMoves = []; // the timer records of the moves the next first drawing answers

    function slice(deadline) {
      if (pending) pending = clock.run(deadline, () => opts.step(job));
    }
    function settle() {
      timer.mark("settledMs");
      while (waiters.length) waiters.shift()();
    }
    function requestDraw() {
      if (drawRequested || (pending && !firstDrawOwed && performance.now() - lastDraw < drawEvery)) return;
      drawRequested = true;
      requestAnimationFrame((time) => {
        clock.note(time);
        drawRequested = false;
        if (startOwed) return; // a newer move's job has not started: nothing of it to draw yet
        lastDraw = performance.now();
        opts.draw(job, !pending);
        if (firstDrawOwed) {
          firstDrawOwed = false;
          const now = performance.now();
          for (const record of waitingMoves) if (!("firstDrawMs" in record)) record.firstDrawMs = now - record.start;
          waitingMoves.length = 0;
        }
        if (!pending && !startOwed) settle();
      });
    }
    channel.port1.onmessage = () => {
      const deadline = clock.deadline(budget);
      if (deadline === null) return clock.afterFrame(() => channel.port2.postMessage(null));
      if (startOwed) {
        // the job of the settings as they are now (the last of the moves merged)
        startOwed = false;
        job = opts.start();
        pending = true;
        firstDrawOwed = true;
        timer.mark("preparedMs");
        if (performance.now() < deadline) slice(deadline); // (a new problem's SVDs may take the slice)
      } else {
        slice(deadline);
      }
      requestDraw();
      if (pending) channel.port2.postMessage(null);
      else pumping = false;
    };

    function move(control) {
      waitingMoves.push(timer.start(control || "set"));
      pending = true; // (whenIdle waits for the new job)
      if (job && opts.pending) opts.pending();
      if (startOwed) return; // merged: the task on its way starts the job of the last setting
      startOwed = true;
      // the job starts in a task after the frame that paints the control's new value
      if (pumping) return; // (the running tasks take it)
      pumping = true;
      clock.afterFrame(() => channel.port2.postMessage(null));
    }

    return {
      move, timings, timer,
      job: () => job,
      /** Resolves when every sweep of the current settings is computed and drawn. */
      whenIdle: () => new Promise((resolve) => {
        if (!pending && !drawRequested && !startOwed) resolve();
        else waiters.push(resolve);
      }),
    };
  }

  Object.assign((window.kpcaLabCore = window.kpcaLabCore || {}), { progressive, FrameClock });
})();
