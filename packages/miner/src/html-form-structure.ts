import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { requiredMarker } from './generic-form-rules.ts';

/**
 * The structure of a server-rendered form the HTML extractor reads: which fieldsets are sections,
 * which controls are a widget's internals, the text before an unlabeled group, the parts of a
 * compound field. page-scripts/snapshot-form.js applies the same rules to the live DOM.
 */

export const controlSelector = 'input, select, textarea, [role="slider"], [role="radio"], [role="checkbox"]';
export const headingSelector = 'h1, h2, h3, h4, h5, h6, [role="heading"]';
const notControls = new Set(['hidden', 'submit', 'button', 'reset', 'image', 'search', 'password']);

export function textWithoutControls(element: Cheerio<AnyNode>): string {
  const copy = element.clone();
  copy.find('input, select, textarea, option, button, script, style, svg').remove();
  return copy.text();
}

export const cleanText = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').trim();

export function typeOf(control: Cheerio<Element>): string {
  const tag = control.prop('tagName')?.toLowerCase() ?? '';
  return (control.attr('type') ?? (tag === 'input' ? 'text' : tag)).toLowerCase();
}

const isCheckable = (control: Cheerio<Element>) =>
  ['radio', 'checkbox'].includes(typeOf(control)) || ['radio', 'checkbox'].includes(control.attr('role') ?? '');

/** A control a person fills: not hidden by type, not disabled. */
export function isControl(control: Cheerio<Element>): boolean {
  return !(control.is('input') && notControls.has(typeOf(control))) && !control.is('[disabled]');
}

function controlsIn($: CheerioAPI, scope: Cheerio<AnyNode>): Cheerio<Element> {
  const inside = scope.find(controlSelector).toArray();
  const itself = scope
    .filter(controlSelector)
    .toArray()
    .filter((node): node is Element => node.type === 'tag');
  return $([...itself, ...inside]).filter((_, element) => isControl($(element)) && !isWidgetInternal($, $(element)));
}

/**
 * A control that is part of a widget, not a question: the number box behind a slider, a custom
 * dropdown's zero-size value box, anything hidden from people (aria-hidden, inline display:none).
 * File inputs and radios are hidden behind styled buttons on purpose and stay questions.
 */
export function isWidgetInternal($: CheerioAPI, control: Cheerio<Element>): boolean {
  const type = typeOf(control);
  if (type === 'file' || isCheckable(control) || control.is('[role="slider"]')) return false;
  if (control.attr('aria-hidden') === 'true') return true;
  const style = (control.attr('style') ?? '').toLowerCase().replace(/\s+/g, '');
  if (/(^|;)(display:none|visibility:hidden)/.test(style)) return true;
  if (/(^|;)width:0(px)?(;|$)/.test(style) && /(^|;)height:0(px)?(;|$)/.test(style)) return true;
  if (control.is('[readonly]') && control.attr('tabindex') === '-1') return true;
  return control.is('input') && sliderBeside($, control).length > 0;
}

/** The slider a value box sits beside (same wrapper), if any. */
function sliderBeside($: CheerioAPI, control: Cheerio<Element>): Cheerio<Element> {
  return control.parent().children('[role="slider"], input[type="range"]').not(control).first();
}

/** The name a slider's answer is submitted under: its own, else its value box's. */
export function sliderName($: CheerioAPI, slider: Cheerio<Element>): string | undefined {
  return slider.attr('name') ?? slider.parent().children('input').not(slider).first().attr('name');
}

const legendOf = (fieldset: Cheerio<Element>) => cleanText(fieldset.children('legend').first().text());
const datePart = /^(.*?)[_-](day|month|year)$/i;

/**
 * A fieldset whose legend titles several questions (an address block, an EEO block), as opposed to
 * one question's group (a radio group, a list of checkboxes, a date split in parts), whose legend
 * is the question itself.
 */
export function isSectionFieldset($: CheerioAPI, fieldset: Cheerio<Element>, cache: Map<Element, boolean>): boolean {
  const node = fieldset.get(0);
  if (!node) return false;
  const known = cache.get(node);
  if (known !== undefined) return known;
  const controls = controlsIn($, fieldset)
    .toArray()
    .map((element) => $(element));
  const checkables = controls.filter(isCheckable);
  const radioNames = new Set(checkables.filter((control) => typeOf(control) === 'radio').map((control) => control.attr('name')));
  const dateParts = new Set(controls.map((control) => (datePart.exec(control.attr('name') ?? '') ?? [])[1]));
  const oneQuestion =
    controls.length <= 1 ||
    (checkables.length === controls.length && (checkables.every((control) => typeOf(control) !== 'radio') || radioNames.size <= 1)) ||
    (dateParts.size === 1 && !dateParts.has(undefined));
  const section = legendOf(fieldset).length > 0 && !oneQuestion;
  cache.set(node, section);
  return section;
}

export function sectionFieldsetOf($: CheerioAPI, node: Cheerio<AnyNode>, cache: Map<Element, boolean>): Cheerio<Element> | null {
  for (const fieldset of node.parents('fieldset').toArray()) if (isSectionFieldset($, $(fieldset), cache)) return $(fieldset);
  return null;
}

export const sectionLegend = legendOf;

/**
 * The form's own title: a heading just before it (or before the wrapper it sits in), else its
 * aria name. A heading further up belongs to the job description, not to the form.
 */
export function formTitle($: CheerioAPI, form: Cheerio<Element>): string {
  let node: Cheerio<AnyNode> = form;
  for (let depth = 0; depth < 3 && node.length > 0 && !node.is('body'); depth += 1, node = node.parent()) {
    let previous = node.prev();
    while (previous.length > 0 && cleanText(previous.text()) === '' && previous.find(controlSelector).length === 0)
      previous = previous.prev();
    if (previous.length === 0) continue;
    return previous.is(headingSelector) ? cleanText(previous.text()) : '';
  }
  return cleanText(form.attr('aria-label') ?? '');
}

/**
 * The text just before a control or a group that has no label of its own ("<p>Are you authorized
 * to work here? *</p>" above two radios): the nearest earlier sibling with words, at most four
 * levels up, that is neither a heading (a section), another question's label, nor holds another
 * question's controls. Null when there is none.
 */
export function textBefore($: CheerioAPI, start: Cheerio<Element>, isMember: (element: Element) => boolean): Cheerio<Element> | null {
  let node: Cheerio<AnyNode> = start;
  for (let depth = 0; depth < 4; depth += 1) {
    // The nearest words, unless a label further back at the same level names the block ("Resume", then a hint).
    let nearest: Cheerio<Element> | null = null;
    for (let previous = node.prev(); previous.length > 0; previous = previous.prev()) {
      if (previous.is(headingSelector)) break;
      const target = previous.is('label[for]') ? $(`[id="${previous.attr('for')}"]`).first() : null;
      const controls = controlsIn($, previous).toArray();
      if (controls.length > 0) {
        if (controls.every(isMember)) continue;
        break;
      }
      if (target?.length && target.get(0) && isMember(target.get(0) as Element)) continue;
      if (target?.length && isControl(target) && !isWidgetInternal($, target)) break;
      if (cleanText(textWithoutControls(previous)) === '') continue;
      if (previous.is('label')) return previous as Cheerio<Element>;
      nearest ??= previous as Cheerio<Element>;
    }
    if (nearest) return nearest;
    node = node.parent();
    if (node.length === 0 || node.is('form, body') || (node.is('fieldset') && node.children('legend').length > 0)) return null;
  }
  return null;
}

function hasOwnLabel($: CheerioAPI, control: Cheerio<Element>): boolean {
  const id = control.attr('id');
  return Boolean(
    control.attr('aria-labelledby') ||
    control.attr('aria-label') ||
    (id && $(`label[for="${id}"]`).length) ||
    control.closest('label').length,
  );
}

/**
 * Whether a control is a part of a required compound field: inside a section fieldset whose legend
 * is marked required, or (without a label of its own) beside a required labelled box of the same
 * block (an address line's town and postcode under "Address *").
 */
export function isRequiredPart($: CheerioAPI, control: Cheerio<Element>, section: Cheerio<Element> | null): boolean {
  if (section && requiredMarker.test(cleanText(section.children('legend').first().text()))) return true;
  if (!isBlockPart(control) || hasOwnLabel($, control)) return false;
  let node: Cheerio<AnyNode> = control.parent();
  for (let depth = 0; depth < 4 && node.length > 0 && !node.is('form, body, fieldset'); depth += 1, node = node.parent()) {
    const owner = node
      .find('label[for]')
      .toArray()
      .map((label) => $(label))
      .find((label) => {
        const target = node.find(`[id="${label.attr('for')}"]`).first();
        return target.length > 0 && target.get(0) !== control.get(0) && isBlockPart(target);
      });
    if (!owner) continue;
    const target = node.find(`[id="${owner.attr('for')}"]`).first();
    return requiredMarker.test(cleanText(textWithoutControls(owner))) || target.is('[required]') || target.attr('aria-required') === 'true';
  }
  return false;
}

/** A box of a compound field (street, town, postcode, a state select); not a file, a text area or a choice. */
function isBlockPart(control: Cheerio<Element>): boolean {
  return control.is('select') || (control.is('input') && ['text', 'email', 'tel', 'number', 'url'].includes(typeOf(control)));
}
