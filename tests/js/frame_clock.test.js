// Unit tests of kpcaLabCore.FrameClock (_static/kpca-labs-progressive.js): when a slice of a lab's
// background work must end so that it delays no frame. The file is a browser script; it runs here in
// a context with a fake clock and a fake requestAnimationFrame. Run: node --test tests/js/
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

function load() {
  const page = { now: 0, frames: [], timers: [], hidden: false };
  const context = {
    performance: { now: () => page.now },
    requestAnimationFrame: (callback) => page.frames.push(callback),
    setTimeout: (callback, ms) => page.timers.push([callback, ms]),
    document: { get hidden() { return page.hidden; } },
  };
  context.window = context;
  const file = path.join(__dirname, "..", "..", "_static", "kpca-labs-progressive.js");
  vm.runInNewContext(fs.readFileSync(file, "utf8"), context);
  return { FrameClock: context.kpcaLabCore.FrameClock, page };
}

test("a slice ends after its budget, or 2 ms before the next frame is due, whichever is first", () => {
  const { FrameClock, page } = load(), clock = new FrameClock();
  page.now = 5;
  assert.equal(clock.deadline(8), 9); // no frame seen yet: a short slice
  for (const time of [100, 100, 116.5, 133.5, 150]) clock.note(time); // one frame's callbacks share its time
  assert.equal(clock.interval(), 16.5); // the median of 16.5, 17, 16.5
  page.now = 152;
  assert.equal(clock.deadline(8), 160);
  page.now = 158;
  assert.equal(clock.deadline(8), 150 + 16.5 - 2); // the next frame, due at 166.5, goes first
  page.now = 163.6;
  assert.equal(clock.deadline(8), null); // under a millisecond left: wait for the frame
  page.now = 170;
  assert.equal(clock.deadline(8), null); // the frame is late: it goes first too
});

test("the interval follows the display (120 Hz) within 144 Hz and 30 Hz, and skipped frames do not move it", () => {
  const { FrameClock } = load(), fast = new FrameClock(), slow = new FrameClock(), skips = new FrameClock();
  for (let k = 0; k < 12; k++) {
    fast.note(1000 + k * 1000 / 120);
    slow.note(1000 + k * 40); // 25 Hz
    skips.note(1000 + k * 1000 / 60 + (k > 8 ? 1000 / 60 : 0)); // one frame dropped
  }
  assert.ok(Math.abs(fast.interval() - 1000 / 120) < 1e-9, String(fast.interval()));
  assert.equal(slow.interval(), 1000 / 30);
  assert.ok(Math.abs(skips.interval() - 1000 / 60) < 1e-9, String(skips.interval()));
});

test("afterFrame runs its callback in the next frame and notes that frame", () => {
  const { FrameClock, page } = load(), clock = new FrameClock();
  const calls = [];
  clock.afterFrame(() => calls.push(page.now));
  assert.deepEqual(calls, []);
  page.now = 16.7;
  page.frames.shift()(16);
  assert.deepEqual(calls, [16.7]);
  assert.equal(clock.last, 16);
});

test("after a wait for a frame that came late, the work goes on: a slice of 4 ms, not another wait", () => {
  // a slow machine: the frame's own work takes longer than the interval the clock expects
  const { FrameClock, page } = load(), clock = new FrameClock();
  for (const time of [0, 16.7, 33.4]) clock.note(time);
  page.now = 52;
  assert.equal(clock.deadline(8), null); // the next frame is late: it goes first
  clock.afterFrame(() => {});
  page.frames.shift()(55);
  page.now = 80; // the frame at 55 took 25 ms
  assert.equal(clock.deadline(8), 84);
  page.now = 84;
  assert.equal(clock.deadline(8), null); // the next slice waits for the next frame again
  assert.equal(clock.deadline(2), null);
  clock.afterFrame(() => {});
  page.frames.shift()(85);
  page.now = 110;
  assert.equal(clock.deadline(2), 112); // never more than the budget
});

test("a pause between two frames is no interval; a hidden page gets the whole budget", () => {
  const { FrameClock, page } = load(), clock = new FrameClock();
  for (const time of [0, 16.7, 33.4, 2000, 2016.7, 5000, 5016.7, 9000]) clock.note(time);
  assert.ok(Math.abs(clock.interval() - 16.7) < 1e-9, String(clock.interval()));
  page.now = 9020;
  assert.equal(clock.deadline(8), null); // the frame after 9000 is due
  page.hidden = true; // a hidden tab draws no frame, and its requestAnimationFrame waits
  assert.equal(clock.deadline(8), 9028);
});

test("afterFrame goes on after 100 ms where no frame comes (a covered window), once", () => {
  const { FrameClock, page } = load(), clock = new FrameClock();
  let calls = 0;
  clock.afterFrame(() => calls++);
  const [[fallback, ms]] = page.timers;
  assert.equal(ms, 100);
  fallback();
  page.frames.shift()(500); // the frame, when it comes at last, does not call fn again
  assert.equal(calls, 1);
});

test("run: one step at least, then steps until the deadline has passed", () => {
  const { FrameClock, page } = load(), clock = new FrameClock();
  const costs = [3, 1, 1, 1, 1, 1, 1, 1, 1, 1];
  let steps = 0;
  const step = () => { page.now += costs[steps++]; return steps < costs.length; };
  page.now = 0;
  assert.equal(clock.run(5.5, step), true);
  assert.equal(steps, 4); // to 3, 4, 5, 6: the last step ends past 5.5
  page.now = 100;
  assert.equal(clock.run(50, step), true); // a deadline already past: still one step
  assert.equal(steps, 5);
  assert.equal(clock.run(1000, step), false); // done: run stops
  assert.equal(steps, costs.length);
});
