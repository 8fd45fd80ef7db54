import type { MiningErrorCode, Question } from '@quarry/contracts';
import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { isPlaceholderOption, optionalMarker, requiredMarker } from './generic-form-rules.ts';
import {
  cleanText,
  controlSelector,
  formTitle,
  headingSelector,
  isControl,
  isRequiredPart,
  isSectionFieldset,
  isWidgetInternal,
  sectionFieldsetOf,
  sectionLegend,
  sliderName,
  textBefore,
  textWithoutControls,
  typeOf,
} from './html-form-structure.ts';
import { categorize } from './question-categories.ts';

export type ExtractedForm = { ok: true; questions: Question[] } | { ok: false; errorCode: MiningErrorCode; detail: string };

const closedPosting =
  /no longer (accepting|available|open)|(position|job|posting|vacancy) (has been |is )?(closed|filled|expired)|applications? (are |is )?closed/i;
const botWall = /\b(g-recaptcha|h-captcha|hcaptcha|cf-challenge|cf-turnstile|captcha)\b/i;

function clean(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/^\s*[*✱]\s*/, '')
    .replace(/\s*(\*|✱|\(required\)|\(optional\))\s*$/i, '')
    .replace(/\s*\*\s*$/, '')
    .trim();
}

type Name = { text: string; hasAsterisk: boolean; optional?: boolean };
const named = (raw: string): Name => ({
  text: clean(raw),
  hasAsterisk: requiredMarker.test(raw.replace(/\s+/g, ' ').trim()),
  optional: optionalMarker.test(raw),
});

/** The accessible name of a control, by the same precedence a screen reader uses, then the text before it. */
function accessibleName($: CheerioAPI, control: Cheerio<Element>): Name {
  const candidates: string[] = [];
  const labelledBy = control.attr('aria-labelledby');
  if (labelledBy)
    candidates.push(
      labelledBy
        .split(/\s+/)
        .map((id) => $(`[id="${id}"]`).text())
        .join(' '),
    );
  candidates.push(control.attr('aria-label') ?? '');
  const id = control.attr('id');
  if (id) candidates.push(textWithoutControls($(`label[for="${id}"]`).first()));
  const wrapping = control.closest('label');
  if (wrapping.length) candidates.push(textWithoutControls(wrapping));
  // A placeholder that only prompts ("Select an option…") names nothing.
  const placeholder = control.attr('placeholder') ?? '';
  candidates.push(isPlaceholderOption(undefined, placeholder) ? '' : placeholder, control.attr('title') ?? '');
  const raw = candidates.find((candidate) => candidate.trim().length > 0);
  if (raw) return named(raw);
  const before = textBefore($, control, (element) => element === control.get(0));
  return before ? named(textWithoutControls(before)) : { text: control.attr('name') ?? '', hasAsterisk: false };
}

type GroupName = Name & { requiredGroup: boolean; answerName?: string | undefined };

/**
 * A group's question: the legend or aria name of its own group (not of a section fieldset around
 * several questions), else the text before the group, else the field name.
 */
function groupName($: CheerioAPI, controls: Cheerio<Element>, sections: Map<Element, boolean>): GroupName {
  const first = controls.first();
  const members = new Set(controls.toArray());
  let group = first.closest('fieldset, [role="radiogroup"], [role="group"]') as Cheerio<Element>;
  if (group.is('fieldset') && isSectionFieldset($, group, sections))
    group = first.closest('[role="radiogroup"], [role="group"]') as Cheerio<Element>;
  const requiredGroup = group.attr('aria-required') === 'true';
  const legend = group.is('fieldset') ? group.children('legend').first().text() : '';
  const labelledBy = group.attr('aria-labelledby');
  const groupLabel = group.attr('aria-label') ?? (labelledBy ? $(`[id="${labelledBy}"]`).text() : '');
  const raw = [legend, groupLabel].find((text) => text.trim().length > 0);
  if (raw) return { ...named(raw), requiredGroup };
  const before = textBefore($, first, (element) => members.has(element));
  if (before) {
    // A question label pointing at a hidden box (JazzHR): that box carries the answer.
    const target = before.is('label[for]') ? $(`input[type="hidden"][id="${before.attr('for')}"]`).first() : null;
    return { ...named(textWithoutControls(before)), requiredGroup, answerName: target?.attr('name') };
  }
  return { text: clean(first.attr('name') ?? ''), hasAsterisk: false, requiredGroup };
}

/**
 * Checkboxes with names of their own that together answer one question ("Which days can you
 * work? *" above Weekdays and Weekends): the widest wrapper holding only them, when the wrapper
 * is named and no box is required on its own (then each box is its own consent question).
 */
function checkboxList($: CheerioAPI, box: Cheerio<Element>, sections: Map<Element, boolean>): Cheerio<Element> | null {
  let list: Cheerio<Element> | null = null;
  for (let node = box.parent(); node.length > 0 && !node.is('form, body'); node = node.parent()) {
    if (node.is('fieldset') && isSectionFieldset($, node, sections)) break;
    const controls = node.find(controlSelector).filter((_, element) => isControl($(element)) && !isWidgetInternal($, $(element)));
    if (controls.toArray().some((element) => typeOf($(element)) !== 'checkbox')) break;
    list = node;
  }
  if (!list) return null;
  const boxes = list.find('input[type="checkbox"]').filter((_, element) => isControl($(element)));
  const names = new Set(boxes.toArray().map((element) => $(element).attr('name')));
  // Boxes that all share one name are already one question.
  if (boxes.length < 2 || boxes.is('[required]') || (names.size === 1 && !names.has(undefined))) return null;
  return groupName($, boxes, sections).text ? boxes : null;
}

function isRequired(control: Cheerio<Element>, hasAsterisk: boolean): boolean {
  return control.is('[required]') || control.attr('aria-required') === 'true' || hasAsterisk;
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 80) || 'field'
  );
}

function optionLabel($: CheerioAPI, control: Cheerio<Element>): string {
  const id = control.attr('id');
  const own = [
    control.attr('aria-label') ?? '',
    id ? textWithoutControls($(`label[for="${id}"]`).first()) : '',
    control.closest('label').length ? textWithoutControls(control.closest('label')) : '',
  ];
  // A styled option without a label: its text sits beside it in a wrapper holding only this control.
  const wrapper = control.parent();
  if (wrapper.find('input, select, textarea').length === 1) own.push(textWithoutControls(wrapper));
  return clean(own.find((text) => text.trim().length > 0) ?? '') || control.attr('value') || '';
}

/**
 * Extracts every question of the server-rendered form(s) of a page. Controls are read in document
 * order. A question's label is its section: the heading above it in its form or section fieldset,
 * the legend of a fieldset titling several questions, else the heading just above the form.
 */
export function extractHtmlForm(html: string, options: { defaultLabel: string }): ExtractedForm {
  const $ = load(html);
  const bodyText = $('body').text();
  if (botWall.test($.html('[class], iframe[src], script[src]').slice(0, 200_000)) && $('form input:not([type=hidden])').length === 0) {
    return { ok: false, errorCode: 'BotDetection', detail: 'captcha or bot wall instead of a form' };
  }
  if ($('input[type="password"]').length > 0)
    return { ok: false, errorCode: 'LoginRequired', detail: 'a password field: the form is behind a login' };
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
  const formNodes = new Set(forms.toArray());
  const sections = new Map<Element, boolean>();
  // The last heading seen in each scope: a section fieldset, a form, or the page outside forms.
  const headingIn = new Map<Element | null, string>();
  const pageTitle = clean($('h1').first().text()) || options.defaultLabel;
  const scopeOf = (node: Cheerio<Element>): Element | null =>
    sectionFieldsetOf($, node, sections)?.get(0) ?? (node.closest('form').get(0) as Element | undefined) ?? null;
  /** The section a control belongs to: a heading in its scope, its section's legend, the form's title. */
  const sectionOf = (control: Cheerio<Element>, fieldset: Cheerio<Element> | null): string => {
    if (fieldset) return headingIn.get(fieldset.get(0) ?? null) ?? clean(sectionLegend(fieldset));
    const form = control.closest('form') as Cheerio<Element>;
    return headingIn.get(form.get(0) ?? null) ?? (clean(formTitle($, form)) || pageTitle);
  };
  const listsDone = new Set<Element>();

  $(`${headingSelector}, ${controlSelector}`).each((_, node) => {
    const element = $(node);
    const tag = node.tagName.toLowerCase();
    if (element.is(headingSelector)) {
      const text = clean(element.text());
      if (text) headingIn.set(scopeOf(element), text);
      return;
    }
    const form = element.closest('form');
    if (!form.get(0) || !formNodes.has(form.get(0) as Element) || !isControl(element) || isWidgetInternal($, element)) return;
    if (element.is('[role="radio"], [role="checkbox"]') && !element.is('input')) return;
    const fieldset = sectionFieldsetOf($, element, sections);
    const section = sectionOf(element, fieldset);
    const type = typeOf(element);
    const name = element.is('[role="slider"]') ? sliderName($, element) : element.attr('name');
    const partRequired = isRequiredPart($, element, fieldset);

    if (type === 'checkbox' && listsDone.has(node)) return;
    const list = type === 'checkbox' ? checkboxList($, element, sections) : null;
    if (list) {
      list.toArray().forEach((box) => listsDone.add(box));
      const group = groupName($, list, sections);
      const category = categorize({ label: group.text });
      questions.push({
        id: uniqueId(group.answerName ?? slug(group.text)),
        question: group.text,
        inputType: 'SelectMultiple',
        label: section,
        mandatory: group.hasAsterisk || group.requiredGroup || partRequired,
        ...(category ? { category } : {}),
        options: list.toArray().map((member) => ({ answer: optionLabel($, $(member)), conditionalQuestions: [] })),
      });
      return;
    }

    if (type === 'radio' || type === 'checkbox') {
      const groupKey = `${type}:${name ?? element.attr('id') ?? ''}`;
      const members = name ? form.find(`input[type="${type}"][name="${name}"]`).filter((_, member) => isControl($(member))) : element;
      if (type === 'checkbox' && members.length === 1) {
        const { text, hasAsterisk } = accessibleName($, element);
        // A lone box under a marked question ("I confirm … *" above a YES box) is required too.
        const group = groupName($, element, sections);
        const category = categorize({ label: text, name });
        questions.push({
          id: uniqueId(name ?? element.attr('id') ?? slug(text)),
          question: text,
          inputType: 'Boolean',
          label: section,
          mandatory: isRequired(element, hasAsterisk) || group.hasAsterisk || group.requiredGroup,
          ...(category ? { category } : {}),
        });
        return;
      }
      if (seenGroups.has(groupKey)) return;
      seenGroups.add(groupKey);
      const group = groupName($, members, sections);
      const category = categorize({ label: group.text, name });
      questions.push({
        id: uniqueId(name ?? slug(group.text)),
        question: group.text,
        inputType: type === 'radio' ? 'SelectOne' : 'SelectMultiple',
        label: section,
        mandatory:
          members.toArray().some((member) => isRequired($(member), false)) || group.hasAsterisk || group.requiredGroup || partRequired,
        ...(category ? { category } : {}),
        options: members.toArray().map((member) => ({ answer: optionLabel($, $(member)), conditionalQuestions: [] })),
      });
      return;
    }

    const { text, hasAsterisk, optional } = accessibleName($, element);
    const category = categorize({ label: text, name, autocomplete: element.attr('autocomplete'), type });
    const base = {
      id: uniqueId(name ?? element.attr('id') ?? slug(text)),
      question: text,
      label: section,
      mandatory: isRequired(element, hasAsterisk) || (partRequired && !optional),
      ...(category ? { category } : {}),
    };
    if (tag === 'select') {
      const choices = element
        .find('option')
        .toArray()
        .map((option) => ({ value: $(option).attr('value'), text: cleanText($(option).text()) }))
        .filter((option) => !isPlaceholderOption(option.value, option.text))
        .map((option) => ({ answer: option.text, conditionalQuestions: [] }));
      questions.push({ ...base, inputType: element.is('[multiple]') ? 'SelectMultiple' : 'SelectOne', options: choices });
    } else if (tag === 'textarea') {
      questions.push({ ...base, inputType: 'TextArea' });
    } else if (type === 'file') {
      const accept = (element.attr('accept') ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
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
