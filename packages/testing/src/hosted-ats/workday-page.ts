// The page of the Workday double's application: its style and its script, which the double
// (workday.double.ts) serves with the steps' markup.

export const workdayStyle = `<style>[hidden]{display:none!important}.field{margin:6px 0}[role=listbox]{border:1px solid #999;background:#fff}[role=option]{padding:2px}[data-automation-id=DELETE_charm]{display:inline-block;width:1em;cursor:pointer}[data-automation-id=DELETE_charm]::before{content:"\\00d7"}</style>`;

/**
 * The application's own behaviour, as the research measured Workday's: a box's value counts only
 * once focus leaves it (form.html's kept-on-focus-out; a value set without focus-out "shows
 * filled but Save and Continue reports 'required'"); lists open from a "Select One" button into
 * a list at the end of the page, headed by "Select One", which takes a choice back (modelled:
 * the captures show the button's "Select One" before a choice, not the list's first row); skills are typed, listed on Enter and kept as pills with a
 * remove charm (form.html's `selectedItem` > `DELETE_charm`); a chosen file uploads at once and is
 * listed under its box with a Delete button, each further file beside the ones before
 * (upload.html's `file-upload-item`). "Save and Continue" saves the step's kept values to the
 * tenant (`/wday/cxs/…`) with the session, which the tenant checks; the tenant's refusals show
 * under the field (`errorMessage`). Submit on Review moves to Candidate Home
 * (`…/jobTasks/completed/application`).
 *
 * Modelled, not measured: an account the tenant asks for an e-mailed code gets, instead of a
 * session, a page asking for that code (a one-time-code box) in place of the wall. Right after the sign-in the page reads the account's draft of this
 * job's application and shows it again — boxes and lists as saved, pills chosen, files listed
 * with their Delete buttons — from the step the tenant names (the first, unless the double is
 * told otherwise), and those values count as kept (a save without touching them keeps them). Delete and a pill's charm act on the page only: the step's
 * next save keeps what is left. Endpoint paths past `/wday/cxs/{tenant}/{site}` and the bodies
 * were not measured either.
 */
export const workdayFlowScript = (cxs: string, successPath: string) => `
const kept = {};
let session = null, current = 0;
const job = location.pathname.replace(/\\/apply\\/applyManually$/, '');
const sections = [...document.querySelectorAll('section[data-step]')];
const keyOf = (element) => element.dataset.key;
const post = (path, body) => fetch('${cxs}' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessionToken: session, job, ...body }) });
document.addEventListener('focusout', (event) => {
  const element = event.target;
  if (element.matches?.('input[data-key]:not([type=checkbox]):not([type=radio]):not([type=file]), textarea[data-key]')) kept[keyOf(element)] = element.value;
});
document.addEventListener('change', (event) => {
  const element = event.target;
  if (element.matches('input[type=radio][data-key]')) kept[keyOf(element)] = element.value === 'true';
  if (element.matches('input[type=checkbox][data-key]:not([value])')) kept[keyOf(element)] = element.checked;
  if (element.matches('input[type=checkbox][data-key][value]')) kept[keyOf(element)] = [...document.querySelectorAll('input[type=checkbox][data-key="' + keyOf(element) + '"]:checked')].map((box) => box.value);
});
const popup = document.getElementById('popup');
document.addEventListener('click', (event) => {
  const button = event.target.closest('button[aria-haspopup=listbox]');
  if (button) {
    popup.innerHTML = '';
    // "Select One" heads the list: choosing it takes the answer back (kept as none, saved as none).
    for (const option of ['Select One', ...JSON.parse(button.dataset.options)]) {
      const item = document.createElement('div'); item.setAttribute('role', 'option'); item.textContent = option;
      item.addEventListener('click', () => {
        if (option === 'Select One') delete kept[keyOf(button)];
        else kept[keyOf(button)] = option;
        button.textContent = option; popup.hidden = true;
      });
      popup.append(item);
    }
    const box = button.getBoundingClientRect();
    popup.style.cssText = 'position:absolute;left:' + box.left + 'px;top:' + (box.bottom + window.scrollY) + 'px';
    popup.hidden = false;
    return;
  }
  if (!event.target.closest('#popup')) popup.hidden = true;
});
const drawPill = (input, option) => {
  const key = input.dataset.prompt, list = input.parentElement.querySelector('[role=listbox]');
  const pill = document.createElement('div'); pill.dataset.automationId = 'selectedItem'; pill.textContent = option;
  const charm = document.createElement('span'); charm.dataset.automationId = 'DELETE_charm'; charm.setAttribute('aria-label', 'remove');
  charm.addEventListener('click', () => { kept[key] = (kept[key] ?? []).filter((chosen) => chosen !== option); pill.remove(); });
  pill.append(charm);
  input.parentElement.insertBefore(pill, list);
};
for (const input of document.querySelectorAll('input[data-prompt]')) {
  const list = input.parentElement.querySelector('[role=listbox]'), key = input.dataset.prompt;
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    list.innerHTML = '';
    for (const option of JSON.parse(input.dataset.options).filter((option) => option.toLowerCase().includes(input.value.toLowerCase()))) {
      const item = document.createElement('div'); item.setAttribute('role', 'option'); item.dataset.automationId = 'promptOption'; item.textContent = option;
      item.addEventListener('click', () => {
        kept[key] = [...(kept[key] ?? []), option];
        drawPill(input, option);
        list.hidden = true; input.value = ''; input.setAttribute('aria-expanded', 'false');
      });
      list.append(item);
    }
    list.hidden = false; input.setAttribute('aria-expanded', 'true');
  });
}
const drawFile = (input, attachment) => {
  const key = keyOf(input), items = input.closest('[data-automation-id^=formField-]').querySelector('[data-automation-id=file-upload-items]');
  const item = document.createElement('div'); item.dataset.automationId = 'file-upload-item';
  const name = document.createElement('span'); name.textContent = attachment.name;
  const remove = document.createElement('button'); remove.type = 'button'; remove.textContent = 'Delete';
  remove.addEventListener('click', () => { kept[key] = (kept[key] ?? []).filter((file) => file.id !== attachment.id); item.remove(); });
  item.append(name, ' ', remove);
  items.append(item);
};
for (const input of document.querySelectorAll('input[type=file][data-key]')) {
  input.addEventListener('change', async () => {
    const file = input.files[0], field = input.closest('[data-automation-id^=formField-]');
    field.querySelector('.errors').innerHTML = '';
    const body = new FormData(); body.append('sessionToken', session); body.append('file', file, file.name);
    const answer = await fetch('${cxs}/attachments', { method: 'POST', body });
    const reply = await answer.json();
    if (!answer.ok) { field.querySelector('.errors').innerHTML = '<p data-automation-id="errorMessage"></p>'; field.querySelector('[data-automation-id=errorMessage]').textContent = reply.errorMessage; return; }
    const attachment = { id: reply.id, name: file.name };
    kept[keyOf(input)] = [...(kept[keyOf(input)] ?? []), attachment];
    drawFile(input, attachment);
    input.value = '';
  });
}
// The draft as saved: every value kept again, and drawn as the widget shows it.
const resume = (values) => {
  for (const [key, value] of Object.entries(values)) {
    kept[key] = value;
    for (const box of document.querySelectorAll('[data-key="' + key + '"]')) {
      if (box.type === 'radio') box.checked = box.value === String(value);
      else if (box.type === 'checkbox') box.checked = box.hasAttribute('value') ? value.includes(box.value) : value === true;
      else if (box.type === 'file') value.forEach((attachment) => drawFile(box, attachment));
      else if (box.tagName === 'BUTTON') box.textContent = value;
      else box.value = value;
    }
    const prompt = document.querySelector('input[data-prompt="' + key + '"]');
    if (prompt) value.forEach((option) => drawPill(prompt, option));
  }
};
const show = (index) => {
  current = index;
  sections.forEach((section, at) => (section.hidden = at !== index));
  document.getElementById('review').hidden = index !== sections.length;
  document.getElementById('next').hidden = index >= sections.length;
  document.getElementById('submit').hidden = index !== sections.length;
};
document.getElementById('next').addEventListener('click', async () => {
  const section = sections[current];
  // The tenant's refusals of the last save go; an upload's own error stays until another file is chosen.
  section.querySelectorAll('[data-saved-error]').forEach((error) => error.remove());
  const keys = [...section.querySelectorAll('[data-automation-id^=formField-]')].map((field) => field.dataset.automationId.slice('formField-'.length));
  const values = {};
  for (const [key, value] of Object.entries(kept)) if (keys.some((field) => key === field || key.startsWith(field) && /^(Month|Day|Year)$/.test(key.slice(field.length)))) values[key] = value;
  const answer = await post('/jobapplication/' + section.dataset.step, { values });
  const reply = await answer.json();
  if (answer.ok) return show(current + 1);
  for (const error of reply.errors ?? []) {
    const box = section.querySelector('[data-automation-id="formField-' + error.field + '"] .errors') ?? section.querySelector('.errors');
    const message = document.createElement('p'); message.dataset.automationId = 'errorMessage'; message.dataset.savedError = ''; message.textContent = error.message; box.append(message);
  }
});
document.getElementById('submit').addEventListener('click', async () => {
  const answer = await post('/jobapplication/submit', {});
  if (answer.ok) location.assign('${successPath}');
});
document.querySelector('[data-automation-id=signInLink]').addEventListener('click', () => {
  document.querySelector('[data-automation-id=createAccountPage]').hidden = true;
  document.querySelector('[data-automation-id=signInContent]').hidden = false;
});
document.querySelector('[data-automation-id=signInSubmitButton]').addEventListener('click', async () => {
  const wall = document.querySelector('[data-automation-id=signInContent]');
  wall.querySelector('[data-automation-id=errorMessage]')?.remove();
  const answer = await fetch('${cxs}/signin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: wall.querySelector('[data-automation-id=email]').value, password: wall.querySelector('[data-automation-id=password]').value }) });
  const reply = await answer.json();
  if (!answer.ok) { const error = document.createElement('p'); error.dataset.automationId = 'errorMessage'; error.setAttribute('role', 'alert'); error.textContent = reply.errorMessage; wall.append(error); return; }
  if (reply.verification === 'emailCode') {
    // The wall gives way to a page that asks for the code the tenant e-mailed to the account.
    document.getElementById('account').innerHTML = '<div data-automation-id="verifyEmailPage"><h2>Verify Your Email</h2><p>We sent a verification code to your email address. Enter it to continue.</p>' +
      '<label>Verification Code* <input type="text" data-automation-id="verificationCode" autocomplete="one-time-code" inputmode="numeric"></label><button type="button" data-automation-id="verifyButton">Verify</button></div>';
    return;
  }
  session = reply.sessionToken;
  // The wall stays until the draft is drawn: what the steps show is there when they show.
  const draft = await (await post('/jobapplication/draft', {})).json();
  resume(draft.values ?? {});
  document.getElementById('account').remove();
  document.getElementById('flow').hidden = false;
  show(draft.step ?? 0);
});`;
