/**
 * Text rules both generic miners apply: the server-rendered HTML extractor here in Node, and the
 * browser miner inside the page, where page-snapshot.ts installs these same patterns (their source
 * text) so the two can never drift apart.
 */

/**
 * An option that only asks for a choice: "Select…", "-- No answer --", "Please select", "-Select-",
 * "Choose one", a lone dash. A real answer that merely starts alike ("Choose not to disclose") and
 * one whose value is 0 ("Decline to answer", "0 years") stay options: the value alone says nothing.
 */
const placeholderOptionText =
  /^[\s\-–—_.…*:([]*(?:(?:please\s+)?(?:select|choose|pick)(?:\s+(?!not\b)[\w'’]+){0,3}|no answer|no selection|not selected|nothing selected|none selected)?[\s\-–—_.…*:)\]]*$/i;

/** A label's own required marker: an asterisk after it (or before it, as Workable draws it) or "(required)". */
export const requiredMarker = /^\s*[*✱]|[*✱]\s*$|\(required\)/i;

/** A label that says the answer may be left out. */
export const optionalMarker = /\(optional\)/i;

/** A select option that is a prompt, not an answer: no value, or the words of a prompt. */
export function isPlaceholderOption(value: string | undefined, text: string): boolean {
  return value === '' || placeholderOptionText.test(text.replace(/[\s\u00a0]+/g, ' ').trim());
}

/** The patterns as the page script receives them (page-scripts/snapshot-form.js reads `__quarryMiner.rules`). */
export const pageRulesScript = `window.__quarryMiner.rules = ${JSON.stringify({
  placeholderOptionText: placeholderOptionText.source,
  requiredMarker: requiredMarker.source,
  optionalMarker: optionalMarker.source,
})};
window.__quarryMiner.rules.placeholderOptionText = new RegExp(window.__quarryMiner.rules.placeholderOptionText, 'i');
window.__quarryMiner.rules.requiredMarker = new RegExp(window.__quarryMiner.rules.requiredMarker, 'i');
window.__quarryMiner.rules.optionalMarker = new RegExp(window.__quarryMiner.rules.optionalMarker, 'i');`;
