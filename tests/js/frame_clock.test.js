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
  const page = { now: 0, frames: [] };
  const context = {
    performance: { now: () => page.now },
    requestAnimationFrame: (callback) => page.frames.push(callback),
  };
  context.window = context;
  const file = path.join(__dirname, "..", "..", "_static", "kpca-labs-progressive.js");
  vm.runInNewContext(fs.readFileSync(file, "utf8"), context);
  return { FrameClock: context.kpcaLabCore.FrameClock, page };
}

test("a slice ends after its budget, or 2 ms before the next frame is due, whichever is first", () => {
  const { FrameClock, page } = load(), clock = new FrameClock();
  page.now = 5;
  assert.equal(clock.deadline(8), 13); // no frame seen yet: the budget alone
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
    slow.note(1000 + k * 100);
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
