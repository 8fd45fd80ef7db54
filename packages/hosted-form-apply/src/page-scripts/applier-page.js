/* global window, document, getComputedStyle, CSS */
// The applier's init script (after the miner's): what it reads of a page in one round trip per
// frame. Plain browser JavaScript (no imports): Playwright sends this text to the page as is.
window.__quarryApplier = (() => {
  const clean = (text) => (text || '').replace(/\s+/g, ' ').trim();
  const laidOut = (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';
  // A widget a person sees takes room: an empty container a vendor fills only at Submit (Lever's
  // invisible hCaptcha div) is laid out but is no challenge yet.
  const shown = (element) => {
    if (!laidOut(element)) return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };

  /** What a person sees: the visible text, error messages, invalid controls, a challenge to solve. */
  const read = ({ errorSelector, challengeSelector, botChecks }) => {
    const errors = [];
    const matched = [...document.querySelectorAll(errorSelector)].filter((element) => laidOut(element) && clean(element.innerText));
    // The innermost message: a wrapper marked `has-error` around a label and a box says less than the message inside it.
    for (const element of matched) {
      if (matched.some((other) => other !== element && element.contains(other))) continue;
      if (element.querySelector('input:not([type="hidden"]), select, textarea')) continue;
      errors.push(clean(element.innerText).slice(0, 300));
    }
    for (const control of document.querySelectorAll('input, select, textarea')) {
      if (control.type === 'hidden' || control.disabled || !laidOut(control) || control.validity.valid) continue;
      if (control.matches(':user-invalid') || control.getAttribute('aria-invalid') === 'true') errors.push(clean(control.validationMessage));
    }
    return {
      text: clean(document.body ? document.body.innerText : '').slice(0, 20000),
      errors: [...new Set(errors.filter(Boolean))],
      challenge: [...document.querySelectorAll(challengeSelector)].some(shown),
      botCheck: (botChecks || []).find((check) => [...document.querySelectorAll(check.selector)].some(shown))?.vendor ?? null,
    };
  };

  /** The first control the browser itself would refuse to send (a `required` box left empty, an email without @). */
  const firstInvalid = () => {
    for (const control of document.querySelectorAll('form input, form select, form textarea')) {
      const form = control.closest('form');
      if (control.type === 'hidden' || control.disabled || control.validity.valid || (form && form.noValidate)) continue;
      return { missing: control.validity.valueMissing, message: `${control.name || control.id || control.type}: ${control.validationMessage}` };
    }
    return null;
  };

  /**
   * The index, among the frame's buttons and links, of the "Add another" button of the container a
   * repeatable group's control sits in: the container the miner recognised the group by
   * (snapshot-form.js `repeatGroupOf`, whose wording this repeats). -1 when there is none.
   */
  const addAnotherIndex = (element) => {
    const addAnother = /^\s*(\+\s*)?add (another|more|one more)\b|^\s*\+\s*add\b/i;
    const all = [...document.querySelectorAll('button, a')];
    for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
      const button = [...node.querySelectorAll(':scope > button, :scope > a, :scope > div > button')].find((candidate) => addAnother.test(candidate.textContent || ''));
      if (button) return all.indexOf(button);
    }
    return -1;
  };

  /** A native select's options as a person reads them. */
  const selectOptions = (select) => [...select.options].map((option) => ({ value: option.value, label: clean(option.label || option.textContent) }));

  /**
   * What each shown field of a resumed draft holds (resumed-draft.ts), by question id: listed
   * files and chosen pills (counted by the recipe's marks), ticked boxes (by their position among
   * the field's boxes, with their label), boxes holding text (by their position among `typed`),
   * list buttons showing a choice (by their position among `lists`: their words are not the
   * marks' `noChoice`) and whether a radio is chosen.
   */
  const draftHeld = ({ scopes, marks, typed, lists }) =>
    scopes.flatMap(([id, selector]) => {
      const scope = [...document.querySelectorAll(selector)].find(laidOut);
      if (!scope) return [];
      const labelOf = (box) => clean(((box.id ? scope.querySelector(`label[for="${CSS.escape(box.id)}"]`) : null) || box.closest('label') || {}).textContent) || box.value;
      const boxes = [...scope.querySelectorAll('input[type="checkbox"]')];
      return [{
        id,
        files: scope.querySelectorAll(marks.file).length,
        chosen: scope.querySelectorAll(marks.chosen).length,
        ticked: boxes.flatMap((box, index) => (box.checked ? [{ index, label: labelOf(box) }] : [])),
        typed: [...scope.querySelectorAll(typed)].flatMap((box, index) => (box.value !== '' ? [index] : [])),
        listed: [...scope.querySelectorAll(lists)].flatMap((button, index) => (clean(button.textContent) !== marks.noChoice ? [index] : [])),
        radioChosen: [...scope.querySelectorAll('input[type="radio"], [role="radio"]')].some((radio) => radio.checked || radio.getAttribute('aria-checked') === 'true'),
      }];
    });

  return { read, firstInvalid, addAnotherIndex, selectOptions, draftHeld };
})();
