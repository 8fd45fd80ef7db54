import type { ApplicationErrorCode } from '@quarry/contracts';
import type { AccountWall } from '@quarry/browser';
import { detectAts, workdayAccountWall, workdayDraftMarks, workdayFormLinks, type DraftMarks } from '@quarry/miner';
import type { Page } from 'playwright-core';

/** A vendor's own wording on its apply page, and the interface code it means. */
type VendorText = { pattern: RegExp; code: ApplicationErrorCode };

type HostedAts =
  | 'greenhouse'
  | 'lever'
  | 'ashby'
  | 'workable'
  | 'smartrecruiters'
  | 'bamboohr'
  | 'recruitee'
  | 'teamtailor'
  | 'jazzhr'
  | 'breezy'
  | 'manatal'
  | 'workday';

/**
 * How one ATS's hosted apply page is driven, as data: the generic engine (browser.applier.ts)
 * reads it. Everything here comes from the vendor's pages as the research on each measured them
 * (docs/adr/0043-ats-recipes-bot-checks-early-uploads.md); what was never measured is marked.
 */
export type AtsRecipe = {
  ats: HostedAts;
  /** The vendor's name, for messages ("hCaptcha challenge on the Lever form"). */
  vendor: string;
  /** Addresses of its apply pages: the page's own URL, else its canonical / og:url link. */
  hosts: RegExp;
  /** Marks its pages carry wherever they are served from (a custom domain, an embed): a CSS selector. */
  pageMarker: string;
  /** The vendor's field names among the mined question ids: the last way to know a page no mark names (a bare 404). */
  fieldNames?: RegExp;
  /**
   * Where the control of a mined question id is when the page does not name the control by the id
   * (`{id}` is replaced): Ashby wraps each field in `div[data-field-path="<path>"]`.
   */
  fieldScope?: string;
  /**
   * Where a question's control is when the page names it by nothing the miner kept (BambooHR's
   * file boxes and date sit under their heading only): a CSS selector of blocks, of which the
   * innermost showing the question's words holds the control.
   */
  questionBlock?: string;
  /**
   * Controls of a split question's parts that the page names by nothing (Breezy's pay-period list
   * right after `cSalary`): a CSS selector by part id.
   */
  partControls?: Record<string, string>;
  /**
   * The page rewrites other boxes from a chosen file (Breezy reads the résumé into Experience
   * Summary): files are chosen first, and the page settles before anything else is typed.
   */
  filesFirst?: boolean;
  /** Fill in the scope before the generic engine looks by name: the vendor's named inputs are mirrors of drawn widgets. */
  scopeFirst?: boolean;
  /**
   * Which writes leave before Submit, so the at-most-once record must come before them:
   * `files` — choosing a file uploads it; `answers` — every answer is saved as it is given
   * (Ashby's `ApiSetFormValue`), so the first fill is the first write; `none` — nothing before Submit.
   */
  earlyWrites: 'none' | 'files' | 'answers';
  /** The address a submission ends on, when the vendor has one (Greenhouse `/confirmation`). */
  successUrl?: RegExp;
  /** The vendor's confirmation wording, beside the generic one. */
  successText?: RegExp;
  /** The vendor's texts for closed postings, duplicates, refused files and field errors, first match wins. */
  texts: VendorText[];
  /** The final control when it is no button (JazzHR's "Submit Application" is a link). */
  submit?: string;
  /**
   * What a person clicks to choose a file when the field holds no file input (Teamtailor's
   * Dropzone keeps its input at the end of the body): the file goes to the chooser it opens.
   */
  uploadTrigger?: string;
  /**
   * The vendor's words when an answer excludes the candidate (Teamtailor's knockout questions):
   * looked for before the first write the vendor keeps and before the final click, so an
   * excluded candidate's files are never uploaded.
   */
  knockout?: VendorText;
  /**
   * Links a person follows from the posting to the form, in order, while the page shows them
   * (Workday's Apply, then Apply Manually).
   */
  openForm?: readonly string[];
  /**
   * The account wall the page puts up before the form and its sign-in form, used with an account
   * the client registered for the tenant (Workday's; the miner signs in with the same).
   */
  accountWall?: AccountWall;
  /**
   * The vendor keeps an unfinished application and shows it again (Workday's draft: each step's
   * "Save and Continue", mining's placeholders included): what a field may hold that a fill does
   * not replace (listed files, chosen pills) and the buttons that remove it. Before a step is
   * filled, whatever it holds that the candidate's answers do not set is emptied (resumed-draft.ts).
   */
  resumedDraft?: DraftMarks;
};

const canonical = (host: string) => `link[rel="canonical"][href*="${host}"], meta[property="og:url"][content*="${host}"]`;

const atsRecipes: readonly AtsRecipe[] = [
  {
    ats: 'greenhouse',
    fieldNames: /^question_\d+$/,
    vendor: 'Greenhouse',
    hosts: /(^|\.)greenhouse\.io$/,
    pageMarker: `${canonical('greenhouse.io')}, form#application-form input#first_name, #grnhse_app`,
    // Multi-selects are checkbox groups named `question_N[]`; the job board calls the question `question_N`.
    fieldScope: 'fieldset[id="{id}[]"]',
    earlyWrites: 'files',
    successUrl: /\/confirmation(\/|\?|$)/,
    successText: /thank you for applying/i,
    texts: [
      { pattern: /must be a supported file type|file size must be (greater than|>) 0/i, code: 'FileTypeNotSupported' },
      {
        pattern: /cannot read properties of undefined \(reading 'uploadFile'\)|attachment (could not|failed to) upload/i,
        code: 'FileFailedToUpload',
      },
      { pattern: /posting not found|job (you are looking for|is no longer)/i, code: 'JobExpired' },
      { pattern: /must not contain a url|is not a valid email|must be 255 characters or fewer/i, code: 'ApplicantDetailsInvalid' },
    ],
  },
  {
    ats: 'lever',
    fieldNames: /^(cards|urls|eeo|surveysResponses)\[/,
    vendor: 'Lever',
    hosts: /(^|\.)lever\.co$/,
    pageMarker: `${canonical('lever.co')}, input[name="resumeStorageId"], button[data-qa="btn-submit"], input[name^="cards["][name$="[baseTemplate]"]`,
    earlyWrites: 'files',
    // Unmeasured: the research expects `…/thanks`; the generic confirmation wording covers the rest.
    successUrl: /\/thanks(\/|\?|$)/,
    texts: [
      { pattern: /sorry, we couldn'?t find anything here|job posting you'?re looking for might have closed/i, code: 'JobExpired' },
      { pattern: /couldn'?t auto-read resume/i, code: 'FileFailedToUpload' },
      { pattern: /requires an '@' symbol/i, code: 'ApplicantDetailsInvalid' },
    ],
  },
  {
    ats: 'ashby',
    fieldNames: /^_systemfield_/,
    vendor: 'Ashby',
    hosts: /(^|\.)ashbyhq\.com$/,
    pageMarker: `${canonical('ashbyhq.com')}, [data-field-path^="_systemfield_"]`,
    fieldScope: '[data-field-path="{id}"]',
    earlyWrites: 'answers',
    // Ashby keeps the address after Submit; the form gives way to its confirmation in place.
    successText: /application was successfully submitted|thanks for applying/i,
    texts: [
      { pattern: /failed to upload/i, code: 'FileFailedToUpload' },
      {
        pattern: /one application per (role|job) (per|every) \d+ days|already (applied|submitted an application) (to|for) this/i,
        code: 'AlreadyApplied',
      },
      { pattern: /job (posting )?(is no longer|was not found)|not accepting applications/i, code: 'JobExpired' },
    ],
  },
  {
    ats: 'workable',
    fieldNames: /^(QA|CA)_\d+$/,
    vendor: 'Workable',
    hosts: /(^|\.)workable\.com$/,
    pageMarker: `${canonical('workable.com')}, form[data-ui="application-form"], [data-ui="cookie-consent"]`,
    // Controls sit in `[data-ui="<field id>"]`; the résumé's input id is random per load, its
    // radios are hidden inputs mirrored by drawn `role=radio` boxes.
    fieldScope: '[data-ui="{id}"]',
    scopeFirst: true,
    earlyWrites: 'files',
    successText: /application (has been )?submitted|thanks for applying/i,
    texts: [
      { pattern: /file is too big|please use a different file/i, code: 'FileFailedToUpload' },
      { pattern: /something went wrong\. we are working on this/i, code: 'ApplicationFailed' },
      { pattern: /^not found$|this job is no longer available|oops/i, code: 'JobExpired' },
    ],
  },
  {
    ats: 'smartrecruiters',
    vendor: 'SmartRecruiters',
    hosts: /(^|\.)smartrecruiters\.com$/,
    pageMarker: `${canonical('smartrecruiters.com')}, oneclick-ui, [data-test="oneclick-application"]`,
    // The form app's boxes are found by their labels. Two file boxes share id and label: the one
    // above the name parses the résumé into the boxes, the field is the last one.
    questionBlock: 'oneclick-ui :is(div, section):has(input, textarea)',
    // A chosen résumé is posted at once, before Submit (measured).
    earlyWrites: 'files',
    successText: /application (has been )?(sent|submitted)|thank you for (your interest|applying)/i,
    texts: [
      { pattern: /this job (ad|posting) is no longer (active|available)|this job has expired/i, code: 'JobExpired' },
      { pattern: /this file format is not supported/i, code: 'FileTypeNotSupported' },
      { pattern: /cannot upload (resume|file)\. please try again|file size cannot be empty nor bigger than/i, code: 'FileFailedToUpload' },
      { pattern: /please attach your resume to complete this application/i, code: 'MandatoryQuestionsNotAnswered' },
    ],
  },
  {
    ats: 'bamboohr',
    fieldNames: /^customQuestionAnswers\./,
    vendor: 'BambooHR',
    hosts: /(^|\.)bamboohr\.com$/,
    pageMarker: `${canonical('bamboohr.com')}, input#nickname_hpcsaf, [name^="customQuestionAnswers."]`,
    // Only first and last name, e-mail and phone are named by the definition's key; the address
    // boxes are `<key>.value`, the lists are Fabric menus over an empty native select, the file
    // boxes and Date Available have nothing but their heading. The block is found by structure, not
    // by a Fabric class name no capture shows.
    questionBlock: 'form :is(div, fieldset):has(input:not([type="hidden"]), textarea, select, button[aria-haspopup])',
    scopeFirst: true,
    earlyWrites: 'files',
    texts: [
      { pattern: /resource not found/i, code: 'JobExpired' },
      {
        pattern:
          /sorry, we can.t accept the \S+ (file )?format|make sure you.re only trying to upload the file types specified|encrypted pdfs are not allowed/i,
        code: 'FileTypeNotSupported',
      },
      {
        pattern:
          /whoa, this is a big file|unable to upload an empty file|something on our side prevented your file from uploading|having trouble uploading files/i,
        code: 'FileFailedToUpload',
      },
      { pattern: /please leave this field blank/i, code: 'ApplicationFailed' },
    ],
  },
  {
    ats: 'recruitee',
    // The miner keys the careers-site fields `candidate.<name>` and open questions `open_question_<id>`.
    fieldNames: /^candidate\.(name|email|cv)$|^open_question_\d+$/,
    vendor: 'Recruitee',
    hosts: /(^|\.)recruitee\.com$/,
    pageMarker: `${canonical('recruitee.com')}, [name^="candidate[open_question_answers_attributes]"]`,
    // The page names its boxes by the careers-site API's parts (`candidate[name]`, entry `i` of
    // `candidate[open_question_answers_attributes]`), none by the miner's ids: each is found under its words.
    questionBlock: 'form :is(div, fieldset):has(input:not([type="hidden"]), textarea, select)',
    earlyWrites: 'none',
    texts: [{ pattern: /job offer is no longer available|offer (is )?(closed|unpublished)/i, code: 'JobExpired' }],
  },
  {
    ats: 'teamtailor',
    fieldNames: /^candidate\[(first_name|answers_attributes)\]/,
    vendor: 'Teamtailor',
    hosts: /(^|\.)teamtailor\.com$/,
    pageMarker: `${canonical('teamtailor.com')}, form#job-application-form, [name="candidate[first_name]"]`,
    // Uploads are Dropzones: the zone is named by its label (`candidate[resume_remote_url]` →
    // `candidate_resume_remote_url`), the stored address box appears only after the upload.
    fieldScope: '[data-controller~="forms--inputs--upload"]:has(> label[for="{domId}"])',
    uploadTrigger: '[data-forms--inputs--upload-target="trigger"]',
    earlyWrites: 'files',
    // A knockout question answered the way the employer excludes: the rest of the form is disabled.
    // The research files this text under a required answer the candidate cannot give.
    knockout: { pattern: /you have to meet these requirements to be able to apply/i, code: 'MandatoryQuestionsNotAnswered' },
    texts: [
      { pattern: /you have to meet these requirements to be able to apply/i, code: 'MandatoryQuestionsNotAnswered' },
      { pattern: /no longer (accepting|available)/i, code: 'JobExpired' },
      { pattern: /this is an invalid file, please use a document|you can.t upload files of this type/i, code: 'FileTypeNotSupported' },
      { pattern: /file is too big \(|server responded with \d+ code/i, code: 'FileFailedToUpload' },
    ],
  },
  {
    ats: 'jazzhr',
    fieldNames: /^resumator-/,
    vendor: 'JazzHR',
    hosts: /(^|\.)applytojob\.com$/,
    pageMarker: `${canonical('applytojob.com')}, form#form_submit_new_resume, [name^="resumator-"]`,
    submit: 'a#resumator-submit-resume',
    earlyWrites: 'none',
    texts: [
      { pattern: /this position is no longer available|hiring for this position has been put on hold/i, code: 'JobExpired' },
      { pattern: /\(limit 5 ?mb\)|file (is )?too large/i, code: 'FileFailedToUpload' },
    ],
  },
  {
    ats: 'breezy',
    fieldNames: /^(cName|cEmail|cPhoneNumber)$|^section_[^_]+_question_/,
    vendor: 'Breezy',
    hosts: /(^|\.)breezy\.hr$/,
    pageMarker: `${canonical('breezy.hr')}, input[name="hp_7f2b"], input[name="cName"]`,
    // Employer questions are named by place (`section_<sid>_question_<n>`) while the definition
    // keys them by `_id`: they are found under their own words.
    questionBlock: 'form[name="form"] :is(li, div, fieldset):has(input, select, textarea)',
    partControls: { 'cSalary:per': 'form[name="form"] [name="cSalary"] ~ select:not([name])' },
    filesFirst: true,
    earlyWrites: 'files',
    texts: [
      { pattern: /position closed|no longer accepting candidates/i, code: 'JobExpired' },
      { pattern: /couldn.t upload your resume|problem uploading your resume/i, code: 'FileFailedToUpload' },
    ],
  },
  {
    ats: 'manatal',
    vendor: 'Manatal',
    hosts: /(^|\.)careers-page\.com$/,
    pageMarker: `${canonical('careers-page.com')}, input[name="terms_and_condition"][id^="field"], [data-manatal]`,
    earlyWrites: 'none',
    texts: [{ pattern: /this file is invalid\. supported formats/i, code: 'FileTypeNotSupported' }],
  },
  {
    ats: 'workday',
    vendor: 'Workday',
    hosts: /(^|\.)myworkdayjobs\.com$|(^|\.)myworkdaysite\.com$/,
    pageMarker: `${canonical('myworkday')}, [data-automation-id="applyFlowPage"], [data-automation-id="adventureButton"]`,
    // Each step's fields sit in `[data-automation-id="formField-<key>"]`; a box counts once focus leaves it.
    fieldScope: '[data-automation-id="formField-{id}"]',
    scopeFirst: true,
    // "Save and Continue" keeps each step in the tenant's draft of the application, and the résumé
    // uploads on choose: the record comes before the first answer.
    earlyWrites: 'answers',
    successUrl: /\/jobTasks\/completed\/application/,
    texts: [{ pattern: /the page you are looking for doesn'?t exist/i, code: 'JobNotFound' }],
    openForm: workdayFormLinks,
    accountWall: workdayAccountWall,
    // Mining's saves leave a draft (placeholders, the placeholder résumé) that the next sign-in
    // with the account resumes: emptied of what the candidate does not give before each step is filled.
    resumedDraft: workdayDraftMarks,
  },
];

/**
 * The recipe of the page: by its address (the miner's ATS detection, then the vendor hosts), else
 * by the marks the vendor's pages carry (a canonical link, the vendor's field names), so a form
 * served from an employer's own domain or an embed still gets its vendor's recipe, else by the
 * vendor's field names among the mined question ids. Null: the generic engine alone.
 */
export async function recipeFor(page: Page, questionIds: string[] = []): Promise<AtsRecipe | null> {
  const url = page.url();
  const detected = detectAts(url)?.ats;
  const byName = atsRecipes.find((recipe) => recipe.ats === detected);
  if (byName) return byName;
  const host = (() => {
    try {
      return new URL(url).hostname;
    } catch {
      return '';
    }
  })();
  const byHost = atsRecipes.find((recipe) => recipe.hosts.test(host));
  if (byHost) return byHost;
  for (const recipe of atsRecipes) {
    const marked = await page
      .mainFrame()
      .locator(recipe.pageMarker)
      .count()
      .catch(() => 0);
    if (marked > 0) return recipe;
  }
  return atsRecipes.find((recipe) => recipe.fieldNames && questionIds.some((id) => recipe.fieldNames?.test(id))) ?? null;
}

/** The vendor text among the page's words or errors, or null. */
export function vendorTextOf(recipe: AtsRecipe | null, texts: string[]): { code: ApplicationErrorCode; message: string } | null {
  for (const rule of recipe?.texts ?? []) {
    const found = texts.find((text) => rule.pattern.test(text));
    if (found) {
      const match = rule.pattern.exec(found);
      const at = match?.index ?? 0;
      return { code: rule.code, message: `${recipe?.vendor}: ${found.slice(Math.max(0, at - 120), at + 200).trim()}` };
    }
  }
  return null;
}
