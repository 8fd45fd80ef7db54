// Part of the miner's init script (after pending-work.js and snapshot-form.js): the few things the
// miner does to a form, done inside the page. Each is one round trip instead of Playwright's
// locator actions (a selector engine of ~340 KB injected into every context, then several
// protocol calls per action), which were most of the CPU a probe cost. The events are the ones
// Playwright's own selectOption dispatches; radios and buttons get the element's click(), which
// fires click, input and change as a user's click would.
// Plain browser JavaScript (no imports): Playwright sends this text to the page as is.
(() => {
  const miner = window.__quarryMiner;
  const { clean, visible } = miner;

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

  // A user's click as the page's listeners see it: pointer and mouse events at the element's
  // centre, focus in between (menus such as react-select open on mousedown, Radix on pointerdown).
  const click = (element) => {
    const box = element.getBoundingClientRect();
    const at = { bubbles: true, cancelable: true, composed: true, view: window, button: 0, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 };
    element.dispatchEvent(new PointerEvent('pointerdown', { ...at, buttons: 1, pointerType: 'mouse', isPrimary: true }));
    element.dispatchEvent(new MouseEvent('mousedown', { ...at, buttons: 1 }));
    element.focus();
    element.dispatchEvent(new PointerEvent('pointerup', { ...at, pointerType: 'mouse', isPrimary: true }));
    element.dispatchEvent(new MouseEvent('mouseup', at));
    element.dispatchEvent(new MouseEvent('click', at));
  };
  const press = (element, key, keyCode) => {
    for (const type of ['keydown', 'keyup']) {
      element.dispatchEvent(new KeyboardEvent(type, { key, code: key, keyCode, which: keyCode, bubbles: true, cancelable: true, composed: true }));
    }
  };
  const waitUntil = async (ready, maxMs) => {
    const started = performance.now();
    while (!ready() && performance.now() - started < maxMs) await new Promise((resolve) => miner.later(resolve, 20));
  };

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

  /**
   * Options of a custom combobox exist only while its list is open: open it (a click, or
   * ArrowDown when a click does not), read the options of the listbox it controls (or the last
   * visible one), close it again with Escape. A control that says it is open (aria-expanded) gets
   * up to 700 ms to render its options; one that says nothing and shows none once the page has
   * reacted opened nothing (a typeahead waiting for input), and is left at once.
   */
  miner.readComboboxOptions = async ({ selector, listboxId }) => {
    const control = attempt(() => queryOne(selector));
    if (!control) return [];
    const expanded = () => control.getAttribute('aria-expanded');
    const listbox = () => (listboxId ? queryAll(`[id="${CSS.escape(listboxId)}"]`)[0] : queryAll('[role="listbox"]').filter(visible).pop());
    const options = () => {
      const box = listbox();
      return box ? [...box.querySelectorAll('[role="option"]')] : [];
    };
    try {
      click(control);
      // Some menus open on the keyboard only (react-select with openMenuOnClick={false}).
      if (expanded() === 'false' && !listboxId) press(control, 'ArrowDown', 40);
      const state = expanded();
      if (state === 'false' && !listboxId) return [];
      if (state === 'true') {
        await waitUntil(() => options().some(visible), 700);
      } else {
        await miner.settle(30, 700);
      }
      return [...new Set(options().map((option) => clean(option.textContent)).filter(Boolean))];
    } finally {
      // Whatever opened, or failed to, is closed again before the next control.
      press(document.activeElement || control, 'Escape', 27);
    }
  };
})();
