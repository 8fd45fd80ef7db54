/**
 * What an application page says, as data: the wording that proves a submission, closes a posting,
 * refuses a duplicate or puts a bot wall in the way, and how a field error's own message is
 * sorted into an error code. English first, with the common German, French and Spanish phrases;
 * extend these lists, not the code that reads them (browser.applier.ts, outcome-page.ts).
 */

/** A confirmation: the page thanks the candidate or says the application arrived. */
export const successText =
  /thank(s| you) for (your )?(applying|application|submitting|submission)|application (has been |was |is )?(received|submitted|sent|complete)|we('ve| have) (successfully )?received your application|successfully (applied|submitted)|your application (is on its way|has been sent)|vielen dank für ihre bewerbung|bewerbung (wurde )?(erfolgreich )?(gesendet|eingegangen|übermittelt)|merci pour votre candidature|candidature (a été )?(envoyée|reçue)|gracias por (tu|su) (solicitud|postulación|candidatura)/i;

/** A confirmation address: where an ATS sends the candidate after a submission (Greenhouse `/confirmation`, Lever `/thanks`). */
export const successUrl =
  /\/(confirmation|confirmed|thank-?you|thanks|success|submitted|application-received|applied)(\/|\?|#|$)|[?&](submitted|success|applied)=(1|true|yes)\b/i;

/** A reference the page gives for the application, with at least one digit ("Reference: APP-20931", "application number is 48213"). */
export const referenceNumber =
  /\b(?:reference|ref\.?|application|confirmation|submission|tracking|candidate)\s*(?:number|no\.?|id|code|#)?\s*(?:is|:|#)?\s*#?\s*((?=[A-Z0-9-]{4,40}\b)[A-Z0-9-]*\d[A-Z0-9-]*)\b/i;

/** The posting no longer takes applications (Breezy answers 200 with this text; JazzHR 410). */
export const closedText =
  /no longer (accepting|available|open|taking)|(position|job|posting|vacancy|role|opening) (has been |is |was )?(closed|filled|expired|removed)|applications? (are |is )?(now )?closed|put on hold|not accepting (new )?applications|stelle ist (bereits )?(besetzt|nicht mehr verfügbar)|offre (n'est plus|est) (disponible|pourvue|expirée)/i;

/** The site already has an application from this candidate for this posting. */
export const duplicateText =
  /(already|previously) (applied|submitted an application)|you have (already )?applied (for|to) this|duplicate application|application (for this (job|position|role) )?already exists|an application (with|from|using) this (e-?mail|email address) (already )?exists|one application per (role|job|position)|bereits beworben|déjà postulé/i;

/** A bot wall or a challenge in words (not a "protected by reCAPTCHA" footer, which every Greenhouse board shows). */
export const botWallText =
  /verify (that )?you are (a )?human|are you a robot|i'?m not a robot|unusual traffic|checking (if the site connection is secure|your browser)|complete the (security )?(check|captcha|challenge)|captcha (verification )?(failed|required|is required|was incorrect)|please (solve|complete) the captcha|access denied|request (was )?blocked|bot detected/i;

/**
 * A challenge a person would have to solve: checkbox captchas and challenge frames. Invisible
 * reCAPTCHA (`data-size="invisible"`, the `.grecaptcha-badge`) scores in the background and is not
 * one; browser.applier.ts checks these are laid out.
 */
export const challengeSelector =
  '.g-recaptcha:not([data-size="invisible"]), .h-captcha:not([data-size="invisible"]), .cf-turnstile, iframe[src*="hcaptcha.com"][src*="checkbox"], iframe[src*="recaptcha"][src*="anchor"]:not([src*="size=invisible"]), iframe[src*="challenges.cloudflare.com"], #challenge-form, #px-captcha';

/**
 * The bot checks a person would have to pass, by the vendor that runs them: what the page lays
 * out (a selector, checked for layout in the page) or says (a pattern on its text). The message of
 * a `BotDetection` outcome names the vendor. Invisible reCAPTCHA / hCaptcha score in the
 * background and are not listed: they stop an application only when they turn into a challenge.
 */
export const botChecks: ReadonlyArray<{ vendor: string; selector?: string; text?: RegExp }> = [
  {
    vendor: 'Google reCAPTCHA',
    selector:
      '.g-recaptcha:not([data-size="invisible"]), iframe[src*="recaptcha"][src*="anchor"]:not([src*="size=invisible"]), iframe[src*="recaptcha"][src*="bframe"]',
  },
  {
    vendor: 'hCaptcha',
    selector:
      '.h-captcha:not([data-size="invisible"]), iframe[src*="hcaptcha.com"][src*="checkbox"], iframe[src*="hcaptcha.com"][src*="challenge"], [data-hcaptcha-widget-id]:not([data-size="invisible"])',
  },
  { vendor: 'Cloudflare Turnstile', selector: '.cf-turnstile, iframe[src*="challenges.cloudflare.com"][src*="turnstile"]' },
  {
    vendor: 'Cloudflare challenge',
    selector: '#challenge-form, #challenge-running, #cf-challenge-running, iframe[src*="challenges.cloudflare.com"]',
    text: /checking (if the site connection is secure|your browser before accessing)|performing security verification|enable javascript and cookies to continue/i,
  },
  { vendor: 'DataDome', selector: 'iframe[src*="captcha-delivery.com"], #ddv1-captcha-container, [id^="datadome-captcha"]' },
  {
    vendor: 'AWS WAF',
    selector: 'awswaf-captcha, #captcha-container[data-awswaf], iframe[src*="awswaf.com"]',
    text: /aws waf|confirm you are human.{0,80}(audio|puzzle)/i,
  },
  { vendor: 'PerimeterX', selector: '#px-captcha' },
  // Teamtailor's `forms--challenge` status ("Checking your browser") is shown while its proof of work runs (what it shows once solved was not measured).
  {
    vendor: 'proof-of-work wall',
    selector: '.frc-captcha, altcha-widget, [data-proof-of-work], [data-controller~="forms--challenge"] [role="status"]',
    text: /proof[- ]of[- ]work|solving a (computational )?puzzle to (verify|check) your browser/i,
  },
  {
    vendor: 'e-mailed security code',
    selector:
      'input[name="security_code"], input[id="security_code"], input[name="verification_code"], input[autocomplete="one-time-code"]',
    text: /(security|verification) code (was |has been )?(sent|e-?mailed) to|enter the (\d-digit )?(security|verification) code (we|that was) (sent|e-?mailed)|check your (e-?mail|inbox) for (a|the) (security|verification) code/i,
  },
];

/** Response headers by which a vendor's edge says it challenged the request instead of serving the page. */
export const botCheckHeaders: ReadonlyArray<{ header: string; value: RegExp; vendor: string }> = [
  { header: 'cf-mitigated', value: /challenge/i, vendor: 'Cloudflare challenge' },
  { header: 'x-amzn-waf-action', value: /challenge|captcha/i, vendor: 'AWS WAF' },
];

/** Where a page shows a field's error or a form-level alert. */
export const fieldErrorSelector =
  '[role="alert"], [aria-live="assertive"], .error, .errors, .field-error, .form-error, .invalid-feedback, .error-message, .help-block.error, [class*="error" i]:not(input):not(select):not(textarea):not(form):not(body), [data-error], [data-automation-id="errorMessage"]';

/** A field error's message, sorted into a code: first match wins, in this order. */
export const fieldErrorCodes = [
  {
    code: 'FileTypeNotSupported',
    pattern:
      /file (type|format|extension)|(type|format) (is )?not (supported|allowed|accepted)|unsupported (file|format|type)|invalid file|only (pdf|docx?|\.pdf)|must be (a |an )?(pdf|docx?|\.pdf)|accepted (file )?(types|formats)|supported formats/i,
  },
  {
    code: 'FileFailedToUpload',
    pattern:
      /upload (failed|error)|failed to upload|could ?n[o']t (be )?upload|file (is )?too (big|large)|exceeds? the (maximum )?(file )?size|file size/i,
  },
  {
    code: 'ApplicantDetailsInvalid',
    pattern:
      /(not (a )?valid|invalid|incorrect|malformed|wrong format)|(enter|provide|use|type) an? (valid|correct)|(e-?mail|phone|telephone|name|url|link|linkedin|website|date|postcode|zip).{0,30}(invalid|not valid|is not correct|must (be|contain|include))|requires? an? ['"]?@/i,
  },
  {
    code: 'MandatoryQuestionsNotAnswered',
    pattern:
      /required|mandatory|can(no|')t be (blank|empty)|must not be (blank|empty)|please (fill|complete|answer|select|enter|provide|choose|check|tick|upload)|missing|is empty|pflichtfeld|obligatoire|obligatorio/i,
  },
] as const;

/** The final button: "Submit", "Submit application", "Apply", "Apply now", "Send application". */
export const submitButtonText =
  /^\s*(submit|apply|send|bewerbung (absenden|senden)|jetzt bewerben|absenden|envoyer|postuler|enviar)(\s+(my|your)?\s*(application|now|form|candidature))?\s*$|^\s*(submit|send) (my |your )?application\b|^\s*apply (now|for this (job|position|role))\b/i;
