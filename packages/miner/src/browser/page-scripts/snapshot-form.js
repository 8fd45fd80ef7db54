// Part of the miner's init script (after pending-work.js): `__quarryMiner.snapshot()` returns the
// form controls of this frame a candidate would fill, in document order, walking open shadow
// roots. Plain browser JavaScript (no imports): Playwright sends this text to the page as is.

/** Text as a person reads it: whitespace runs as one space. (Also the form actions'.) */
window.__quarryMiner.clean = (text) => (text || '').replace(/\s+/g, ' ').trim();
/** Laid out and not hidden, as Playwright's `:visible` means it. (Also the form actions'.) */
window.__quarryMiner.visible = (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';

window.__quarryMiner.snapshot = ({ withText = true } = {}) => {
  const controlSelector = 'input, select, textarea, [contenteditable="true"], [role="radio"], [role="checkbox"], [role="combobox"], [role="switch"], [role="slider"], button[aria-haspopup="listbox"]';
  const skippedTypes = new Set(['hidden', 'submit', 'button', 'reset', 'image', 'search', 'password']);
  const headingSelector = 'h1, h2, h3, h4, h5, h6, [role="heading"]';
  // The rules shared with the HTML extractor (generic-form-rules.ts), installed by page-snapshot.ts.
  const { clean, visible, rules } = window.__quarryMiner;
  const strip = (text) => clean(text).replace(/^[*✱]\s*/, '').replace(/\s*(\*|✱|\(required\)|\(optional\))\s*$/i, '').replace(/\s*\*\s*$/, '').trim();
  const marked = (text) => rules.requiredMarker.test(clean(text));
  const fields = [];
  let order = 0;

  const hidden = (node) => {
    const style = getComputedStyle(node);
    return style.display === 'none' || style.visibility === 'hidden' || node.getAttribute('aria-hidden') === 'true';
  };
  // A hidden ancestor (a collapsed section, a later wizard step) hides every control in it.
  const ancestorsVisible = (element) => {
    for (let node = element.parentElement || (element.getRootNode() && element.getRootNode().host); node && node.nodeType === 1; node = node.parentElement || (node.getRootNode() && node.getRootNode().host)) {
      if (hidden(node)) return false;
    }
    return true;
  };
  // File inputs and styled radios are themselves often hidden behind a button or label: still questions.
  const hiddenOnPurpose = (element) => element.type === 'file' || element.type === 'radio' || element.type === 'checkbox';

  const typeOf = (element) => (element.getAttribute('type') || (element.tagName === 'INPUT' ? 'text' : element.tagName.toLowerCase())).toLowerCase();
  const checkable = (element) => ['radio', 'checkbox'].includes(typeOf(element)) || ['radio', 'checkbox'].includes(element.getAttribute('role') || '');
  const isControl = (element) => !(element.matches('input') && skippedTypes.has(typeOf(element))) && !element.disabled;
  // The number box behind a slider, a custom dropdown's zero-size value box: part of a widget, not
  // a question (the same rules as html-form-structure.ts, plus the layout only a browser sees).
  const sliderBeside = (element) => element.parentElement && [...element.parentElement.children].find((other) => other !== element && other.matches('[role="slider"], input[type="range"]'));
  const widgetInternal = (element) => {
    if (typeOf(element) === 'file' || checkable(element) || element.matches('[role="slider"]')) return false;
    if (!element.matches('input, select, textarea')) return false;
    if (element.getAttribute('aria-hidden') === 'true') return true;
    if (element.readOnly && element.getAttribute('tabindex') === '-1') return true;
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0 && getComputedStyle(element).display !== 'none') return true;
    return element.matches('input') && Boolean(sliderBeside(element));
  };
  const controlsIn = (scope) => [...(scope.matches(controlSelector) ? [scope] : []), ...scope.querySelectorAll(controlSelector)].filter((element) => isControl(element) && !widgetInternal(element));
  const legendText = (fieldset) => clean((fieldset.querySelector(':scope > legend') || {}).textContent || '');

  // A fieldset whose legend titles several questions (an address block), not one question's group.
  const sectionCache = new Map();
  const datePart = /^(.*?)[_-](day|month|year)$/i;
  const isSectionFieldset = (fieldset) => {
    if (sectionCache.has(fieldset)) return sectionCache.get(fieldset);
    const controls = controlsIn(fieldset);
    const checkables = controls.filter(checkable);
    const radioNames = new Set(checkables.filter((control) => typeOf(control) === 'radio').map((control) => control.getAttribute('name') || undefined));
    const dateParts = new Set(controls.map((control) => (datePart.exec(control.getAttribute('name') || '') || [])[1]));
    const oneQuestion = controls.length <= 1
      || (checkables.length === controls.length && (checkables.every((control) => typeOf(control) !== 'radio') || radioNames.size <= 1))
      || (dateParts.size === 1 && !dateParts.has(undefined));
    const section = legendText(fieldset).length > 0 && !oneQuestion;
    sectionCache.set(fieldset, section);
    return section;
  };
  const sectionFieldsetOf = (element) => {
    for (let fieldset = element.parentElement && element.parentElement.closest('fieldset'); fieldset; fieldset = fieldset.parentElement && fieldset.parentElement.closest('fieldset')) {
      if (isSectionFieldset(fieldset)) return fieldset;
    }
    return null;
  };
  // The form's own title: a heading just before it (or its wrapper); one further up belongs to the job description.
  const formTitle = (form) => {
    for (let node = form, depth = 0; node && depth < 3 && node !== document.body; node = node.parentElement, depth += 1) {
      let previous = node.previousElementSibling;
      while (previous && !clean(previous.textContent) && !previous.querySelector(controlSelector)) previous = previous.previousElementSibling;
      if (!previous) continue;
      return previous.matches(headingSelector) ? strip(previous.textContent) : '';
    }
    return strip(form.getAttribute('aria-label') || '');
  };
  const firstH1 = document.querySelector('h1');
  const pageTitle = firstH1 ? strip(firstH1.textContent) : '';
  // The last heading seen in each scope: a section fieldset, a form, or the page outside forms.
  const headingIn = new Map();
  const scopeOf = (node) => sectionFieldsetOf(node) || node.closest('form') || null;
  const sectionOf = (element) => {
    const fieldset = sectionFieldsetOf(element);
    if (fieldset) return headingIn.has(fieldset) ? headingIn.get(fieldset) : strip(legendText(fieldset));
    const form = element.closest('form');
    if (form) return headingIn.has(form) ? headingIn.get(form) : formTitle(form) || pageTitle;
    return headingIn.has(null) ? headingIn.get(null) : pageTitle;
  };

  const textWithoutControls = (element) => {
    if (!element) return '';
    const copy = element.cloneNode(true);
    copy.querySelectorAll('input, select, textarea, option, button, script, style, svg, [aria-live]').forEach((node) => node.remove());
    return copy.textContent || '';
  };
  const byId = (root, id) => (root.getElementById ? root.getElementById(id) : root.querySelector(`[id="${CSS.escape(id)}"]`));

  // A styled radio or checkbox without a label: its option text sits beside it in the wrapper
  // that holds only this control (`<div><input type=radio><span>Yes</span></div>`).
  const optionText = (element) => {
    if (element.type !== 'radio' && element.type !== 'checkbox') return '';
    const wrapper = element.parentElement;
    if (!wrapper || wrapper.querySelectorAll('input, select, textarea').length !== 1) return '';
    return textWithoutControls(wrapper);
  };
  // An empty role=radio/checkbox drawn beside a native one (the look of a styled radio) is the
  // same option, not another question.
  const drawnTwin = (element) =>
    !element.matches('input') && !clean(element.textContent) && Boolean(element.parentElement && element.parentElement.querySelector(':scope > input[type="radio"], :scope > input[type="checkbox"]'));

  // The text just before a control or group without a label of its own: the nearest earlier
  // sibling with words (a label at the same level preferred), at most four levels up, that is not a
  // heading, another question's label or another question's controls (html-form-structure.ts).
  const textBefore = (start, isMember) => {
    let node = start;
    for (let depth = 0; depth < 4; depth += 1) {
      let nearest = null;
      for (let previous = node.previousElementSibling; previous; previous = previous.previousElementSibling) {
        if (previous.matches(headingSelector)) break;
        const target = previous.matches('label[for]') ? previous.getRootNode().querySelector(`[id="${CSS.escape(previous.htmlFor)}"]`) : null;
        const controls = controlsIn(previous);
        if (controls.length > 0) {
          if (controls.every(isMember)) continue;
          break;
        }
        if (target && isMember(target)) continue;
        if (target && target.matches(controlSelector) && isControl(target) && !widgetInternal(target)) break;
        if (!clean(textWithoutControls(previous))) continue;
        if (previous.matches('label')) return previous;
        if (!nearest) nearest = previous;
      }
      if (nearest) return nearest;
      node = node.parentElement;
      if (!node || node.matches('form, body') || (node.matches('fieldset') && node.querySelector(':scope > legend'))) return null;
    }
    return null;
  };

  const accessibleName = (element, root) => {
    const raw = [];
    const labelledBy = element.getAttribute('aria-labelledby');
    if (labelledBy) raw.push(labelledBy.split(/\s+/).map((id) => (byId(root, id) || {}).textContent || '').join(' '));
    raw.push(element.getAttribute('aria-label') || '');
    // Custom radios and checkboxes (div role=radio) are named by their own content.
    if (element.tagName !== 'INPUT' && /^(radio|checkbox|switch)$/.test(element.getAttribute('role') || '')) raw.push(element.textContent || '');
    if (element.id) {
      const label = root.querySelector(`label[for="${CSS.escape(element.id)}"]`);
      if (label) raw.push(textWithoutControls(label));
    }
    const wrapping = element.closest('label');
    if (wrapping) raw.push(textWithoutControls(wrapping));
    // A placeholder that only prompts ("Select an option…") names nothing.
    const placeholder = element.getAttribute('placeholder') || '';
    raw.push(element.getAttribute('title') || '', rules.placeholderOptionText.test(clean(placeholder)) ? '' : placeholder, optionText(element));
    if (!raw.some((candidate) => clean(candidate).length > 0)) {
      const before = textBefore(element, (other) => other === element);
      if (before) raw.push(textWithoutControls(before));
    }
    const text = raw.find((candidate) => clean(candidate).length > 0) || element.getAttribute('name') || '';
    return { text: strip(text), asterisk: marked(text), optional: rules.optionalMarker.test(text), requiredWord: false };
  };

  // A group's question: the legend or aria name of its own group (not of a section fieldset around
  // several questions), else the text before the group. Null when neither says anything.
  const groupName = (element, root, isMember) => {
    let group = element.closest('fieldset, [role="radiogroup"], [role="group"]');
    if (group && group.matches('fieldset') && isSectionFieldset(group)) group = element.closest('[role="radiogroup"], [role="group"]');
    const requiredGroup = Boolean(group && group.getAttribute('aria-required') === 'true');
    if (group) {
      const labelledBy = group.getAttribute('aria-labelledby');
      const candidates = [group.matches('fieldset') ? legendText(group) : '', labelledBy ? (byId(root, labelledBy) || {}).textContent || '' : '', group.getAttribute('aria-label') || ''];
      const raw = candidates.find((candidate) => clean(candidate).length > 0);
      if (raw) return { text: strip(raw), asterisk: marked(raw), requiredGroup };
    }
    const before = textBefore(element, isMember);
    if (!before) return null;
    // A question label pointing at a hidden box (JazzHR): that box carries the answer.
    const target = before.matches('label[for]') ? root.querySelector(`input[type="hidden"][id="${CSS.escape(before.htmlFor)}"]`) : null;
    const raw = textWithoutControls(before);
    return { text: strip(raw), asterisk: marked(raw), requiredGroup, answerName: target ? target.getAttribute('name') || '' : '' };
  };

  // Checkboxes with names of their own that answer one question: the widest wrapper holding only
  // them, when it is named and no box is required on its own (then each box is its own consent).
  const checkboxList = (box, root) => {
    let list = null;
    for (let node = box.parentElement; node && !node.matches('form, body'); node = node.parentElement) {
      if (node.matches('fieldset') && isSectionFieldset(node)) break;
      if (controlsIn(node).some((control) => typeOf(control) !== 'checkbox' && !(control.matches('[role="checkbox"]') && drawnTwin(control)))) break;
      list = node;
    }
    if (!list) return null;
    const boxes = [...list.querySelectorAll('input[type="checkbox"]')].filter(isControl);
    const names = new Set(boxes.map((element) => element.getAttribute('name') || undefined));
    if (boxes.length < 2 || boxes.some((element) => element.required) || (names.size === 1 && !names.has(undefined))) return null;
    const named = groupName(boxes[0], root, (element) => boxes.includes(element));
    return named && named.text ? { ...named, boxes } : null;
  };

  const hasOwnLabel = (element, root) =>
    Boolean(element.getAttribute('aria-labelledby') || element.getAttribute('aria-label') || (element.id && root.querySelector(`label[for="${CSS.escape(element.id)}"]`)) || element.closest('label'));
  const isBlockPart = (element) => element.matches('select') || (element.matches('input') && ['text', 'email', 'tel', 'number', 'url'].includes(typeOf(element)));
  // A part of a required compound field: in a section fieldset whose legend is marked required, or
  // (without a label of its own) beside a required labelled box of the same block.
  const requiredPart = (element, root, fieldset) => {
    if (fieldset && marked(legendText(fieldset))) return true;
    if (!isBlockPart(element) || hasOwnLabel(element, root)) return false;
    for (let node = element.parentElement, depth = 0; node && depth < 4 && !node.matches('form, body, fieldset'); node = node.parentElement, depth += 1) {
      const owner = [...node.querySelectorAll('label[for]')].find((label) => {
        const target = node.querySelector(`[id="${CSS.escape(label.htmlFor)}"]`);
        return target && target !== element && isBlockPart(target);
      });
      if (!owner) continue;
      const target = node.querySelector(`[id="${CSS.escape(owner.htmlFor)}"]`);
      return marked(textWithoutControls(owner)) || target.required || target.getAttribute('aria-required') === 'true';
    }
    return false;
  };
  const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 80) || 'field';

  // A container with an "Add another" button holds one instance of a repeatable group.
  const addAnother = /^\s*(\+\s*)?add (another|more|one more)\b|^\s*\+\s*add\b/i;
  const repeatGroupOf = (element) => {
    for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
      const button = [...node.querySelectorAll(':scope > button, :scope > a, :scope > div > button')].find((candidate) => addAnother.test(candidate.textContent || ''));
      if (button) {
        const heading = node.querySelector('h1, h2, h3, h4, h5, h6, legend');
        return clean(heading ? heading.textContent : node.getAttribute('aria-label') || 'Entries');
      }
    }
    return '';
  };
  // Parts of one question (a date as month + year): a fieldset whose controls are all named
  // <prefix>_day|month|year.
  const fragmentOf = (element) => {
    const fieldset = element.closest('fieldset');
    if (!fieldset) return '';
    const parts = [...fieldset.querySelectorAll('input, select')].map((control) => control.getAttribute('name') || '');
    const match = /^(.*?)[_-](day|month|year)$/i;
    const prefixes = new Set(parts.map((name) => (match.exec(name) || [])[1]));
    if (parts.length < 2 || prefixes.size !== 1 || prefixes.has(undefined)) return '';
    const legend = fieldset.querySelector(':scope > legend');
    return legend ? strip(legend.textContent) : [...prefixes][0];
  };

  const listed = new Map();
  const record = (element, root, frameUrl) => {
    const tag = element.tagName.toLowerCase();
    const role = element.getAttribute('role') || '';
    const type = typeOf(element);
    if (tag === 'input' && skippedTypes.has(type)) return;
    if (element.disabled) return;
    if (!ancestorsVisible(element) || (hidden(element) && !hiddenOnPurpose(element))) return;
    if (/honeypot|leave (this )?(empty|blank)/i.test(`${element.id} ${element.getAttribute('aria-label') || ''}`)) return;
    if (widgetInternal(element)) return;
    const name = accessibleName(element, root);
    const fieldset = sectionFieldsetOf(element);
    const partRequired = requiredPart(element, root, fieldset);
    const ownName = element.getAttribute('name') || '';
    const container = element.closest('[role="radiogroup"], [role="group"], fieldset') || element.parentElement;
    const isMember = (other) => other === element || (checkable(other) && (ownName ? other.getAttribute('name') === ownName : Boolean(container && container.contains(other))));
    let list = type === 'checkbox' ? listed.get(element) : undefined;
    if (type === 'checkbox' && list === undefined) {
      list = checkboxList(element, root);
      if (list) for (const box of list.boxes) listed.set(box, list);
    }
    const group = list || (type === 'radio' || type === 'checkbox' || role === 'radio' || role === 'checkbox' ? groupName(element, root, isMember) : null);
    const listboxId = element.getAttribute('aria-controls') || element.getAttribute('aria-owns');
    const slider = role === 'slider' ? sliderBeside(element) || [...(element.parentElement ? element.parentElement.children : [])].find((other) => other !== element && other.matches('input')) : null;
    fields.push({
      order: order++,
      frameUrl,
      tag,
      type,
      role,
      id: element.id || '',
      name: ownName || (slider && slider.getAttribute('name')) || '',
      autocomplete: element.getAttribute('autocomplete') || '',
      label: name.text,
      groupLabel: group ? group.text : '',
      groupKey: list ? list.answerName || slug(list.text) : group ? (ownName || `group:${group.text}`) : '',
      section: sectionOf(element),
      required: element.required || element.getAttribute('aria-required') === 'true' || name.asterisk || name.requiredWord || partRequired
        || Boolean(group && (group.asterisk || group.requiredGroup)),
      optional: name.optional,
      multiple: Boolean(element.multiple),
      accept: element.getAttribute('accept') || '',
      value: tag === 'select' ? element.value : type === 'radio' || type === 'checkbox' ? String(element.checked) : '',
      options: tag === 'select'
        ? [...element.options].filter((option) => option.getAttribute('value') !== '' && !rules.placeholderOptionText.test(clean(option.textContent))).map((option) => clean(option.textContent))
        : [],
      listboxId: listboxId || '',
      combobox: role === 'combobox' || element.getAttribute('aria-haspopup') === 'listbox',
      selector: element.id ? `#${CSS.escape(element.id)}` : element.getAttribute('name') ? `${tag}[name="${element.getAttribute('name')}"]` : '',
      repeatGroup: repeatGroupOf(element),
      fragment: fragmentOf(element),
      fragmentRequired: Boolean(element.closest('fieldset') && /\*\s*$/.test(clean((element.closest('fieldset').querySelector(':scope > legend') || {}).textContent))),
    });
  };

  // Legal and consent text shown with the form: kept as TextLiteral with its HTML, in order.
  const literalSelector = '.consent, .legal, .disclaimer, [class*="consent"], [class*="legal"], [class*="disclaimer"], [data-legal]';
  const legalText = /privacy|consent|gdpr|terms|data protection|agree|eeo|equal opportunity/i;
  const literalBlocks = [];
  const recordLiteral = (block, frameUrl) => {
    if (!block.closest('form') || block.querySelector(controlSelector) || literalBlocks.some((known) => known.contains(block))) return;
    if (!ancestorsVisible(block) || hidden(block) || !legalText.test(block.textContent || '')) return;
    literalBlocks.push(block);
    fields.push({
      order: order++, frameUrl, tag: 'literal', type: 'literal', role: '', id: block.id || '', name: '', autocomplete: '',
      label: clean(block.textContent), groupLabel: '', groupKey: '', section: sectionOf(block), required: false, optional: false, multiple: false,
      accept: '', value: block.innerHTML.trim(), options: [], listboxId: '', combobox: false, selector: '', repeatGroup: '', fragment: '', fragmentRequired: false,
    });
  };

  const walk = (root, frameUrl) => {
    const nodes = root.querySelectorAll(`${headingSelector}, ${controlSelector}, *`);
    for (const node of nodes) {
      if (node.matches(headingSelector)) {
        const text = strip(node.textContent);
        if (text) headingIn.set(scopeOf(node), text);
      } else if (node.matches(literalSelector)) {
        recordLiteral(node, frameUrl);
      } else if (node.matches(controlSelector)) {
        // A role=radio inside a native label/input pair is the same question twice.
        if (!(node.matches('[role="radio"], [role="checkbox"]') && (node.querySelector('input') || drawnTwin(node)))) record(node, root, frameUrl);
      }
      if (node.shadowRoot) walk(node.shadowRoot, frameUrl);
    }
  };
  walk(document, location.href);
  // A password box is a login wall when little else is around it (decided by the caller).
  const passwords = [...document.querySelectorAll('input[type="password"]')];
  return {
    fields,
    // innerText lays the page out: only the first read of a page needs it (closed posting, bot wall).
    text: withText ? clean(document.body ? document.body.innerText : '').slice(0, 5000) : '',
    passwords: passwords.length,
    visiblePasswords: passwords.filter(visible).length,
  };
};
