// Part of the miner's init script (after pending-work.js): `__quarryMiner.snapshot()` returns the
// form controls of this frame a candidate would fill, in document order, walking open shadow
// roots. Plain browser JavaScript (no imports): Playwright sends this text to the page as is.

/** Text as a person reads it: whitespace runs as one space. (Also the form actions'.) */
window.__quarryMiner.clean = (text) => (text || '').replace(/\s+/g, ' ').trim();
/** Laid out and not hidden, as Playwright's `:visible` means it. (Also the form actions'.) */
window.__quarryMiner.visible = (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';

window.__quarryMiner.snapshot = ({ withText = true } = {}) => {
  const controlSelector = 'input, select, textarea, [contenteditable="true"], [role="radio"], [role="checkbox"], [role="combobox"], [role="switch"], button[aria-haspopup="listbox"]';
  const skippedTypes = new Set(['hidden', 'submit', 'button', 'reset', 'image', 'search', 'password']);
  const headingSelector = 'h1, h2, h3, h4, h5, h6, legend, [role="heading"]';
  const { clean, visible } = window.__quarryMiner;
  const strip = (text) => clean(text).replace(/\s*(\*|✱|\(required\)|\(optional\))\s*$/i, '').replace(/\s*\*\s*$/, '').trim();
  const fields = [];
  let section = '';
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

  const nearbyText = (element) => {
    // A label-like element just before the control, inside the same wrapper.
    for (let node = element, depth = 0; node && depth < 3; node = node.parentElement, depth += 1) {
      let previous = node.previousElementSibling;
      while (previous && !clean(previous.textContent)) previous = previous.previousElementSibling;
      if (previous && !previous.matches(controlSelector) && !previous.querySelector(controlSelector)) return previous.textContent;
    }
    return '';
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
    raw.push(element.getAttribute('title') || '', element.getAttribute('placeholder') || '', optionText(element), nearbyText(element));
    const text = raw.find((candidate) => clean(candidate).length > 0) || element.getAttribute('name') || '';
    return { text: strip(text), asterisk: /(\*|✱)\s*$/.test(clean(text)), optional: /\(optional\)/i.test(text), requiredWord: /\(required\)/i.test(text) };
  };

  const groupName = (element, root) => {
    const group = element.closest('fieldset, [role="radiogroup"], [role="group"]');
    if (!group) return null;
    if (group.matches('fieldset')) {
      const legend = group.querySelector(':scope > legend');
      if (legend && clean(legend.textContent)) return { text: strip(legend.textContent), asterisk: /\*\s*$/.test(clean(legend.textContent)) };
    }
    const named = accessibleName(group, root);
    return named.text ? named : null;
  };

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

  const record = (element, root, frameUrl) => {
    const tag = element.tagName.toLowerCase();
    const role = element.getAttribute('role') || '';
    const type = (element.getAttribute('type') || (tag === 'input' ? 'text' : tag)).toLowerCase();
    if (tag === 'input' && skippedTypes.has(type)) return;
    if (element.disabled) return;
    if (!ancestorsVisible(element) || (hidden(element) && !hiddenOnPurpose(element))) return;
    if (/honeypot|leave (this )?(empty|blank)/i.test(`${element.id} ${element.getAttribute('aria-label') || ''}`)) return;
    const name = accessibleName(element, root);
    const group = type === 'radio' || type === 'checkbox' || role === 'radio' || role === 'checkbox' ? groupName(element, root) : null;
    const listboxId = element.getAttribute('aria-controls') || element.getAttribute('aria-owns');
    fields.push({
      order: order++,
      frameUrl,
      tag,
      type,
      role,
      id: element.id || '',
      name: element.getAttribute('name') || '',
      autocomplete: element.getAttribute('autocomplete') || '',
      label: name.text,
      groupLabel: group ? group.text : '',
      groupKey: group ? (element.getAttribute('name') || `group:${group.text}`) : '',
      section,
      required: element.required || element.getAttribute('aria-required') === 'true' || name.asterisk || name.requiredWord || Boolean(group && group.asterisk),
      optional: name.optional,
      multiple: Boolean(element.multiple),
      accept: element.getAttribute('accept') || '',
      value: tag === 'select' ? element.value : type === 'radio' || type === 'checkbox' ? String(element.checked) : '',
      options: tag === 'select'
        ? [...element.options].filter((option) => option.value !== '' && clean(option.textContent)).map((option) => clean(option.textContent))
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
      label: clean(block.textContent), groupLabel: '', groupKey: '', section, required: false, optional: false, multiple: false,
      accept: '', value: block.innerHTML.trim(), options: [], listboxId: '', combobox: false, selector: '', repeatGroup: '', fragment: '', fragmentRequired: false,
    });
  };

  const walk = (root, frameUrl) => {
    const nodes = root.querySelectorAll(`${headingSelector}, ${controlSelector}, *`);
    for (const node of nodes) {
      if (node.matches(headingSelector) && !node.matches('fieldset > legend')) {
        const text = strip(node.textContent);
        if (text) section = text;
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
