import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { cleanText } from './question-builder.ts';

const skippedTags = new Set(['input', 'select', 'textarea', 'option', 'button', 'script', 'style', 'svg', 'template', 'sup']);
const skippedClasses = ['sr-only', 'required', 'asterisk'];

function hasClass(node: Element, classes: readonly string[]): boolean {
  const list = (node.attribs.class ?? '').split(/\s+/);
  return classes.some((name) => list.includes(name));
}

function collectText(nodes: readonly AnyNode[], skipClasses: readonly string[], out: string[]): void {
  for (const node of nodes) {
    if (node.type === 'text') out.push((node as unknown as { data: string }).data);
    else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const element = node as Element;
      if (skippedTags.has(element.name) || hasClass(element, skipClasses)) continue;
      collectText(element.children, skipClasses, out);
    }
  }
}

/**
 * An element's own words: controls, option lists, icons, scripts, screen-reader text and asterisk
 * markers left out (plus elements with `skipClasses`). A tree walk, not clone-and-remove: labels are
 * read for every control of every form mined, and cloning dominated the profile.
 */
export function visibleLabel(element: Cheerio<AnyNode>, skipClasses: readonly string[] = []): string {
  const out: string[] = [];
  collectText(element.toArray(), [...skippedClasses, ...skipClasses], out);
  return cleanText(out.join(''))
    .replace(/\s*[*✱]\s*$/, '')
    .trim();
}

const notAnswerable = new Set(['hidden', 'submit', 'button', 'reset', 'image']);

/** A control a person answers: not hidden, not disabled, not a button. */
export function isAnswerable(control: Cheerio<AnyNode>): boolean {
  return (
    control.is('input, select, textarea') && !notAnswerable.has((control.attr('type') ?? '').toLowerCase()) && !control.is('[disabled]')
  );
}

export function answerableControls($: CheerioAPI, scope: Cheerio<AnyNode>): Cheerio<Element> {
  return scope.find('input, select, textarea').filter((_, element) => isAnswerable($(element)));
}

/** A native select's answers: the placeholder ("Select…", "-- No answer --") has an empty or sentinel value. */
export function selectAnswers($: CheerioAPI, select: Cheerio<Element>, placeholderValues: readonly string[] = ['']): string[] {
  return select
    .find('option')
    .toArray()
    .filter((option) => !placeholderValues.includes($(option).attr('value') ?? cleanText($(option).text())))
    .map((option) => cleanText($(option).text()))
    .filter((text) => text.length > 0);
}
