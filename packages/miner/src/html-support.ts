import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { cleanText } from './question-builder.ts';

/** An element's own words: controls, option lists, icons, scripts and screen-reader/asterisk markers removed. */
export function visibleLabel(element: Cheerio<AnyNode>, strip = ''): string {
  const copy = element.clone();
  copy.find(`input, select, textarea, option, button, script, style, svg, template, .sr-only, sup, .required, i.asterisk${strip ? `, ${strip}` : ''}`).remove();
  return cleanText(copy.text()).replace(/\s*[*✱]\s*$/, '').trim();
}

/** Controls a person answers: not hidden, not disabled, not buttons. */
export function answerableControls($: CheerioAPI, scope: Cheerio<AnyNode>): Cheerio<Element> {
  return scope
    .find('input, select, textarea')
    .filter((_, element) => {
      const control = $(element);
      const type = (control.attr('type') ?? '').toLowerCase();
      return !['hidden', 'submit', 'button', 'reset', 'image'].includes(type) && !control.is('[disabled]');
    });
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
