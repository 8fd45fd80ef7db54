// The first part of the miner's init script, run in every frame before the page's own scripts.
// Counts the asynchronous work the miner's own input started: timers, animation frames and
// requests created while the page handles an input event, and the timers those create in turn (a
// few generations deep). A probe then waits exactly as long as the page's reaction takes (a
// 200 ms debounce, a fetched follow-up question) instead of guessing with a fixed quiet period,
// which was both too short for a debounced reveal and too long for a page that answers at once.
// Plain browser JavaScript (no imports): Playwright sends this text to the page as is.
(() => {
  if (window.__quarryMiner) return;
  // A timer longer than this is not a reaction to the input (a session keep-alive, a carousel).
  const maxDelayMs = 2_000;
  // A chain of timers deeper than this is a polling loop, not a reaction.
  const maxGeneration = 3;
  const pending = new Set();
  let inputWindow = false;
  let runningGeneration = 0;

  const nativeSetTimeout = window.setTimeout;
  const nativeClearTimeout = window.clearTimeout;
  const nativeRequestAnimationFrame = window.requestAnimationFrame;
  const nativeCancelAnimationFrame = window.cancelAnimationFrame;
  const nativeFetch = window.fetch;
  const nativeSend = XMLHttpRequest.prototype.send;

  /** The generation work created now belongs to: 0 is untracked (the page's own business). */
  const generationNow = () => (runningGeneration > 0 ? runningGeneration + 1 : inputWindow ? 1 : 0);
  const runAs = (generation, work) => {
    const outer = runningGeneration;
    runningGeneration = generation;
    try {
      return work();
    } finally {
      runningGeneration = outer;
    }
  };
  // Bot checks compare a function's source, name and length with the native's: the wrappers
  // answer as the natives do, through Function.prototype.toString too.
  const natives = new WeakMap();
  const nativeToString = Function.prototype.toString;
  const disguise = (wrapper, native) => {
    natives.set(wrapper, native);
    Object.defineProperty(wrapper, 'name', { value: native.name, configurable: true });
    Object.defineProperty(wrapper, 'length', { value: native.length, configurable: true });
    return wrapper;
  };
  Object.defineProperty(Function.prototype, 'toString', {
    value: disguise(function toString() {
      return nativeToString.call(natives.get(this) || this);
    }, nativeToString),
    writable: true,
    configurable: true,
  });

  // Every kind of input the miner causes opens a window that lasts until the next task: timers,
  // frames and requests created in it (by the handlers or their microtasks) are the reaction.
  const openInputWindow = () => {
    if (inputWindow) return;
    inputWindow = true;
    nativeSetTimeout.call(window, () => (inputWindow = false), 0);
  };
  for (const type of ['input', 'change', 'click', 'keydown', 'pointerdown', 'mousedown', 'focusin']) {
    window.addEventListener(type, openInputWindow, { capture: true });
  }

  const trackTimer = (native, nativeClear) => {
    const tokens = new Map();
    const schedule = disguise(function (handler, delay, ...args) {
      const generation = generationNow();
      if (typeof handler !== 'function' || generation === 0 || generation > maxGeneration || Number(delay) > maxDelayMs) {
        return native.call(this, handler, delay, ...args);
      }
      const token = {};
      pending.add(token);
      const id = native.call(this, function (...callArgs) {
        pending.delete(token);
        tokens.delete(id);
        return runAs(generation, () => handler.apply(this, callArgs));
      }, delay, ...args);
      tokens.set(id, token);
      return id;
    }, native);
    const clear = disguise(function (id) {
      pending.delete(tokens.get(id));
      tokens.delete(id);
      return nativeClear.call(this, id);
    }, nativeClear);
    return { schedule, clear };
  };
  const timers = trackTimer(nativeSetTimeout, nativeClearTimeout);
  window.setTimeout = timers.schedule;
  window.clearTimeout = timers.clear;
  if (nativeRequestAnimationFrame) {
    const frames = trackTimer((callback) => nativeRequestAnimationFrame.call(window, callback), nativeCancelAnimationFrame);
    window.requestAnimationFrame = disguise(function (callback) {
      return frames.schedule.call(this, callback, 0);
    }, nativeRequestAnimationFrame);
    window.cancelAnimationFrame = frames.clear;
  }
  if (nativeFetch) {
    window.fetch = disguise(function (...args) {
      const request = nativeFetch.apply(this, args);
      if (generationNow() > 0) {
        const token = {};
        pending.add(token);
        // The body arrives after the headers; the page renders once it has read it.
        request.then((response) => response.clone().arrayBuffer()).catch(() => {}).finally(() => pending.delete(token));
      }
      return request;
    }, nativeFetch);
  }
  XMLHttpRequest.prototype.send = disguise(function (...args) {
    if (generationNow() > 0) {
      const token = {};
      pending.add(token);
      this.addEventListener('loadend', () => pending.delete(token), { once: true });
    }
    return nativeSend.apply(this, args);
  }, nativeSend);

  // The miner's namespace in this frame: the snapshot and form actions join it (the next parts of
  // the init script). Not enumerable, so the page's own scans of window do not meet it.
  Object.defineProperty(window, '__quarryMiner', {
    enumerable: false,
    value: {
      /** The page's own setTimeout, before any wrapper: the miner's waits are not a reaction. */
      later: (callback, delayMs) => nativeSetTimeout.call(window, callback, delayMs),
      /**
       * Resolves once the reaction to the miner's last input is over: none of its work pending and
       * the DOM quiet for `quietMs`; at the latest after `maxMs`. With `reaction` false, only the
       * quiet counts (a page loading, where no input of ours started anything).
       */
      settle(quietMs, maxMs, reaction = true) {
        return new Promise((resolve) => {
          const started = performance.now();
          let lastChange = started;
          const observer = new MutationObserver(() => (lastChange = performance.now()));
          observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          // Wakes when the quiet period could end, or every 5 ms while the reaction's work runs:
          // a long wait (250 ms after load) costs a wake-up or two, not fifty.
          const check = () => {
            const now = performance.now();
            const working = reaction && pending.size > 0;
            if (now - started >= maxMs || (!working && now - lastChange >= quietMs)) {
              observer.disconnect();
              resolve(true);
              return;
            }
            const untilQuiet = working ? 5 : lastChange + quietMs - now;
            nativeSetTimeout.call(window, check, Math.max(1, Math.min(untilQuiet, started + maxMs - now)));
          };
          nativeSetTimeout.call(window, check, Math.min(5, quietMs));
        });
      },
    },
  });
})();
