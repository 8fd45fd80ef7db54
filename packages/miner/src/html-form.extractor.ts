import type { MiningErrorCode, Question } from '@quarry/contracts';
import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { categorize } from './question-categories.ts';

export type ExtractedForm = { ok: true; questions: Question[] } | { ok: false; errorCode: MiningErrorCode; detail: string };

const skippedInputTypes = new Set(['hidden', 'submit', 'button', 'reset', 'image', 'search']);
const closedPosting = /no longer (accepting|available|open)|(position|job|posting|vacancy) (has been |is )?(closed|filled|expired)|applications? (are |is )?closed/i;
const botWall = /\b(g-recaptcha|h-captcha|hcaptcha|cf-challenge|cf-turnstile|captcha)\b/i;

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\s*(\*|\(required\)|\(optional\))\s*$/i, '').replace(/\s*\*\s*$/, '').trim();
}

function textWithoutControls(element: Cheerio<AnyNode>): string {
  const copy = element.clone();
  copy.find('input, select, textarea, option, button, script, style').remove();
  return copy.text();
}

/** The accessible name of a control, by the same precedence a screen reader uses. */
function accessibleName($: CheerioAPI, control: Cheerio<Element>): { text: string; hasAsterisk: boolean } {
  const candidates: string[] = [];
  const labelledBy = control.attr('aria-labelledby');
  if (labelledBy) candidates.push(labelledBy.split(/\s+/).map((id) => $(`[id="${id}"]`).text()).join(' '));
  candidates.push(control.attr('aria-label') ?? '');
  const id = control.attr('id');
  if (id) candidates.push(textWithoutControls($(`label[for="${id}"]`).first()));
  const wrapping = control.closest('label');
  if (wrapping.length) candidates.push(textWithoutControls(wrapping));
  candidates.push(control.attr('placeholder') ?? '', control.attr('title') ?? '');
  const raw = candidates.find((candidate) => candidate.trim().length > 0) ?? control.attr('name') ?? '';
  return { text: clean(raw), hasAsterisk: /\*\s*$/.test(raw.trim()) };
}

/** A group's question: its fieldset legend, its role=group label, or the first control's label. */
function groupName($: CheerioAPI, controls: Cheerio<Element>): { text: string; hasAsterisk: boolean } {
  const first = controls.first();
  const group = first.closest('fieldset, [role="radiogroup"], [role="group"]');
  const legend = group.is('fieldset') ? group.children('legend').first().text() : '';
  const groupLabel = group.attr('aria-label') ?? (group.attr('aria-labelledby') ? $(`[id="${group.attr('aria-labelledby')}"]`).text() : '');
  const raw = [legend, groupLabel].find((text) => text.trim().length > 0);
  if (raw) return { text: clean(raw), hasAsterisk: /\*\s*$/.test(raw.trim()) };
  return { text: clean(first.attr('name') ?? ''), hasAsterisk: false };
}

function isRequired(control: Cheerio<Element>, hasAsterisk: boolean): boolean {
  return control.is('[required]') || control.attr('aria-required') === 'true' || hasAsterisk;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 80) || 'field';
}

function optionLabel($: CheerioAPI, control: Cheerio<Element>): string {
  const { text } = accessibleName($, control);
  return text || control.attr('value') || '';
}

/**
 * Extracts every question of the server-rendered form(s) of a page. Controls are read in document
 * order; the last heading above a control is its section label.
 */
export function extractHtmlForm(html: string, options: { defaultLabel: string }): ExtractedForm {
  const $ = load(html);
  const bodyText = $('body').text();
  if (botWall.test($.html('[class], iframe[src], script[src]').slice(0, 200_000)) && $('form input:not([type=hidden])').length === 0) {
    return { ok: false, errorCode: 'BotDetection', detail: 'captcha or bot wall instead of a form' };
  }
  if ($('input[type="password"]').length > 0) return { ok: false, errorCode: 'LoginRequired', detail: 'a password field: the form is behind a login' };
  const forms = $('form').filter((_, form) => $(form).find('input:not([type=hidden]), select, textarea').length > 0);
  if (forms.length === 0) {
    if (closedPosting.test(bodyText)) return { ok: false, errorCode: 'JobExpired', detail: 'the page says the posting is closed' };
    return { ok: false, errorCode: 'FormNotFound', detail: 'no form with fields on the page' };
  }

  const questions: Question[] = [];
  const seenGroups = new Set<string>();
  const usedIds = new Map<string, number>();
  const uniqueId = (base: string) => {
    const count = usedIds.get(base) ?? 0;
    usedIds.set(base, count + 1);
    return count === 0 ? base : `${base}_${count + 1}`;
  };
  let section = clean($('h1').first().text()) || options.defaultLabel;

  forms.find('h1, h2, h3, h4, h5, h6, input, select, textarea').each((_, node) => {
    const element = $(node);
    const tag = node.tagName.toLowerCase();
    if (/^h[1-6]$/.test(tag)) {
      section = clean(element.text()) || section;
      return;
    }
    const type = (element.attr('type') ?? (tag === 'input' ? 'text' : tag)).toLowerCase();
    if (skippedInputTypes.has(type) || element.is('[disabled]')) return;
    const name = element.attr('name');
    const form = element.closest('form');

    if (type === 'radio' || type === 'checkbox') {
      const groupKey = `${type}:${name ?? element.attr('id') ?? ''}`;
      const members = name ? form.find(`input[type="${type}"][name="${name}"]`) : element;
      if (type === 'checkbox' && members.length === 1) {
        const { text, hasAsterisk } = accessibleName($, element);
        const category = categorize({ label: text, name });
        questions.push({
          id: uniqueId(name ?? element.attr('id') ?? slug(text)),
          question: text,
          inputType: 'Boolean',
          label: section,
          mandatory: isRequired(element, hasAsterisk),
          ...(category ? { category } : {}),
        });
        return;
      }
      if (seenGroups.has(groupKey)) return;
      seenGroups.add(groupKey);
      const { text, hasAsterisk } = groupName($, members);
      const category = categorize({ label: text, name });
      questions.push({
        id: uniqueId(name ?? slug(text)),
        question: text,
        inputType: type === 'radio' ? 'SelectOne' : 'SelectMultiple',
        label: section,
        mandatory: members.toArray().some((member) => isRequired($(member), false)) || hasAsterisk,
        ...(category ? { category } : {}),
        options: members.toArray().map((member) => ({ answer: optionLabel($, $(member)), conditionalQuestions: [] })),
      });
      return;
    }

    const { text, hasAsterisk } = accessibleName($, element);
    const category = categorize({ label: text, name, autocomplete: element.attr('autocomplete'), type });
    const base = {
      id: uniqueId(name ?? element.attr('id') ?? slug(text)),
      question: text,
      label: section,
      mandatory: isRequired(element, hasAsterisk),
      ...(category ? { category } : {}),
    };
    if (tag === 'select') {
      const options = element
        .find('option')
        .toArray()
        .map((option) => ({ value: $(option).attr('value'), text: clean($(option).text()) }))
        // A placeholder ("Select…", "--") has an empty value: it is not an answer.
        .filter((option) => option.value !== '' && option.text.length > 0)
        .map((option) => ({ answer: option.text, conditionalQuestions: [] }));
      questions.push({ ...base, inputType: element.is('[multiple]') ? 'SelectMultiple' : 'SelectOne', options });
    } else if (tag === 'textarea') {
      questions.push({ ...base, inputType: 'TextArea' });
    } else if (type === 'file') {
      const accept = (element.attr('accept') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
      questions.push({ ...base, inputType: 'File', ...(accept.length > 0 ? { accept } : {}) });
    } else if (type === 'date' || type === 'datetime-local' || type === 'month') {
      questions.push({ ...base, inputType: 'Date' });
    } else {
      questions.push({ ...base, inputType: 'Text' });
    }
  });

  if (questions.length === 0) return { ok: false, errorCode: 'FormNotFound', detail: 'the form has no answerable fields' };
  return { ok: true, questions };
}
