// Part of the miner's init script (after pending-work.js and snapshot-form.js): the few things the
// miner does to a form, done inside the page. Each is one round trip instead of Playwright's
// locator actions (a selector engine of ~340 KB injected into every context, then several
// protocol calls per action), which were most of the CPU a probe cost. The events are the ones
// Playwright's own selectOption dispatches; radios and buttons get the element's click(), which
// fires click, input and change as a user's click would.
// Plain browser JavaScript (no imports): Playwright sends this text to the page as is.
(() => {
  const miner = window.__quarryMiner;
  const clean = (text) => (text || '').replace(/\s+/g, ' ').trim();

  /** querySelectorAll through open shadow roots, like Playwright's CSS engine. */
  const queryAll = (selector) => {
    const found = [];
    const visit = (root) => {
      found.push(...root.querySelectorAll(selector));
      for (const element of root.querySelectorAll('*')) if (element.shadowRoot) visit(element.shadowRoot);
    };
    visit(document);
    return found;
  };
  const attempt = (action) => {
    try {
      return action();
    } catch {
      return false;
    }
  };
  const queryOne = (selector) => document.querySelector(selector) || queryAll(selector)[0] || null;

  const fire = (element, ...types) => {
    for (const type of types) element.dispatchEvent(new Event(type, { bubbles: true, composed: true }));
  };
  const selectOption = (select, matches) => {
    const option = [...select.options].find(matches);
    if (!option || select.disabled) return false;
    if (!option.selected || select.value !== option.value) {
      option.selected = true;
      fire(select, 'input', 'change');
    }
    return true;
  };
  const check = (element) => {
    if (!element || element.disabled) return false;
    if (!element.checked) element.click();
    return true;
  };
  // A framework that tracks a control's value (React) only sees a value set through the
  // prototype's setter.
  const setValue = (element, value) => {
    const prototype = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(prototype, 'value')?.set;
    if (setter) setter.call(element, value);
    else element.value = value;
  };

  /** Chooses one option of a select (by label) or of a native radio group (by position). */
  const choose = ({ kind, selector, name, optionIndex, optionLabel }) => {
    if (kind === 'select') {
      const select = queryOne(selector);
      return Boolean(select) && selectOption(select, (option) => clean(option.textContent) === optionLabel);
    }
    return check(queryAll(`input[type="radio"][name="${CSS.escape(name)}"]`)[optionIndex]);
  };

  miner.choose = (choice) => attempt(() => choose(choice));

  /**
   * One probe of a conditional question: choose, wait for the page's reaction, read the frame.
   * Returns null when the option cannot be chosen (gone, disabled).
   */
  miner.chooseAndRead = async (choice, quietMs, maxMs) => {
    // A selector the page cannot parse is an option that cannot be chosen.
    if (!attempt(() => choose(choice))) return null;
    await miner.settle(quietMs, maxMs);
    return miner.snapshot({ withText: false });
  };

  /** Puts a select back to the value it had; waits for the page only when asked (it revealed something). */
  miner.restoreSelect = async (selector, value, settle, quietMs, maxMs) => {
    const select = attempt(() => queryOne(selector));
    if (!select || !selectOption(select, (option) => option.value === value)) return false;
    if (settle) await miner.settle(quietMs, maxMs);
    return true;
  };

  /**
   * Fills one control with a synthetic answer, focusing and leaving it as a candidate would, so
   * that validation on blur sees it. Files are never set: several ATSs upload on choice.
   */
  miner.fill = ({ selector, kind, value }) => {
    const element = attempt(() => queryOne(selector));
    if (!element || element.disabled) return false;
    if (kind === 'select') return selectOption(element, (option) => clean(option.textContent) === value);
    if (kind === 'check') return check(element);
    element.focus();
    if (element.isContentEditable) {
      element.textContent = value;
      fire(element, 'input');
    } else {
      setValue(element, value);
      fire(element, 'input', 'change');
    }
    element.blur();
    return true;
  };

  const visible = (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';
  const findButton = (pattern, flags) => {
    const wanted = new RegExp(pattern, flags);
    return queryAll('button, input[type="button"], a[role="button"]')
      .find((element) => visible(element) && wanted.test(clean(element.tagName === 'INPUT' ? element.value : element.textContent)));
  };
  /** Whether a visible button's text matches `pattern` (a wizard's Next). */
  miner.hasButton = (pattern, flags) => Boolean(findButton(pattern, flags));
  /** Presses the first visible button whose text matches `pattern`; false when there is none. */
  miner.pressButton = (pattern, flags) => {
    const button = findButton(pattern, flags);
    if (!button) return false;
    button.scrollIntoView({ block: 'center' });
    button.click();
    return true;
  };
})();
