// The step of a Workday application the page shows, read in one go: its title
// (progressBarActiveStep) and, for every visible [data-automation-id="formField-<key>"], the key,
// the field's own label, whether that label marks it required (a trailing "*", or
// <abbr title="required">), and the widget: a file box, month / day / year boxes, a "Select One"
// list button, a type-to-add prompt, radios, one checkbox or a group of them, a text area or a
// text box. The options of lists and prompts exist only once opened: the caller reads them.
// An expression: evaluates to the JSON of { title, fields }.
(() => {
  const visible = (element) => element.getClientRects().length > 0;
  const text = (element) => (element ? element.textContent : '').replace(/[\s\u00a0]+/g, ' ').trim();
  const title = [...document.querySelectorAll('[data-automation-id="progressBarActiveStep"]')].find(visible);
  const fields = [...document.querySelectorAll('[data-automation-id^="formField-"]')].filter(visible).map((field) => {
    const key = field.getAttribute('data-automation-id').slice('formField-'.length);
    const labelOf = (input) => (input.id ? field.querySelector(`label[for="${CSS.escape(input.id)}"]`) : null) || input.closest('label');
    const radios = [...field.querySelectorAll('input[type="radio"]')];
    const boxes = [...field.querySelectorAll('input[type="checkbox"]')];
    const optionLabels = new Set([...radios, ...boxes].map(labelOf).filter(Boolean));
    const own = [...field.querySelectorAll('label')].find((label) => !optionLabels.has(label)) || (boxes.length === 1 ? labelOf(boxes[0]) : null);
    const shown = text(own);
    const required = /\*$/.test(shown) || Boolean(own && own.querySelector('abbr[title="required" i]'));
    const label = shown.replace(/\s*\*$/, '');
    const optionTexts = (inputs) => inputs.map((input) => text(labelOf(input)) || input.value);
    const file = field.querySelector('input[type="file"]');
    const dateParts = [...field.querySelectorAll('[data-automation-id^="dateSection"][data-automation-id$="-input"]')]
      .map((box) => box.getAttribute('data-automation-id').replace(/^dateSection|-input$/g, ''));
    const listButton = [...field.querySelectorAll('button')].find((button) => button.getAttribute('aria-haspopup') === 'listbox' || /^select one$/i.test(text(button)));
    let kind = 'text';
    let options = [];
    if (file) kind = 'file';
    else if (dateParts.length > 0) kind = 'date';
    else if (listButton) kind = 'list';
    else if (field.querySelector('input[role="combobox"]')) kind = 'prompt';
    else if (radios.length > 0) {
      options = optionTexts(radios);
      kind = options.length === 2 && /^yes$/i.test(options[0]) && /^no$/i.test(options[1]) ? 'yesNo' : 'radio';
    } else if (boxes.length > 1) {
      kind = 'checkboxes';
      options = optionTexts(boxes);
    } else if (boxes.length === 1) kind = 'checkbox';
    else if (field.querySelector('textarea')) kind = 'textarea';
    return { key, label, required, kind, options, dateParts, accept: file ? file.getAttribute('accept') || '' : '' };
  });
  return JSON.stringify({ title: text(title), fields });
})()
