import type { Question } from '@quarry/contracts';

type Category = NonNullable<Question['category']>;

// Most specific first: "LinkedIn URL" is linkedin, not website; "First name" is not fullName.
const rules: Array<[Category, RegExp]> = [
  ['linkedin', /linkedin/i],
  ['github', /github/i],
  ['email', /e-?mail|courriel|correo/i],
  ['firstName', /first.?name|given.?name|fore.?name|vorname|pr[ée]nom|^nombre$/i],
  ['lastName', /last.?name|sur.?name|family.?name|nachname|apellido|nom de famille/i],
  ['fullName', /full.?name|^name$|your name|legal name|^nom$/i],
  ['phone', /phone|mobile|telefon|t[ée]l[ée]phone|^tel$/i],
  ['zip', /zip|postal|post.?code|\bplz\b|code postal/i],
  ['city', /\bcity\b|\btown\b|ville|stadt|ciudad/i],
  ['country', /country|\bland\b|\bpays\b|pa[íi]s/i],
  ['address', /address|street|adresse|direcci[óo]n/i],
  ['resume', /r[ée]sum[ée]|\bcv\b|curriculum|lebenslauf/i],
  ['coverLetter', /cover.?letter|motivation|anschreiben/i],
  ['website', /website|portfolio|personal (site|url)|homepage/i],
  ['salary', /salary|compensation|pay expectation|gehalt|salaire/i],
  ['startDate', /start date|notice period|available to start|earliest start|when can you start/i],
  ['sponsorship', /sponsor/i],
  ['workAuthorization', /authori[sz]ed to work|work authori[sz]ation|right to work|legally (authori[sz]ed|able|eligible)|work permit/i],
  ['relocation', /relocat/i],
  ['pronouns', /pronoun/i],
  ['gender', /gender|\bsex\b|geschlecht/i],
  ['ethnicity', /ethnic/i],
  ['race', /\brace\b/i],
  ['veteran', /veteran/i],
  ['disability', /disabilit/i],
  ['referral', /referr|how did you hear/i],
  ['education', /education|degree|school|university|qualification/i],
  ['experience', /experience|employment history|previous (job|employer)|work history/i],
  ['consent', /consent|privacy|gdpr|i agree|terms/i],
];

const autocompleteCategories: Record<string, Category> = {
  'given-name': 'firstName',
  'family-name': 'lastName',
  name: 'fullName',
  email: 'email',
  tel: 'phone',
  'postal-code': 'zip',
  'address-level2': 'city',
  country: 'country',
  'country-name': 'country',
  'street-address': 'address',
  'address-line1': 'address',
  url: 'website',
};

/** A category when the question clearly is one (DECISIONS.md); otherwise none. */
export function categorize(hints: { label: string; name?: string | undefined; autocomplete?: string | undefined; type?: string | undefined }): Category | undefined {
  const autocomplete = hints.autocomplete?.trim().toLowerCase().split(/\s+/).pop();
  if (autocomplete && autocompleteCategories[autocomplete]) return autocompleteCategories[autocomplete];
  if (hints.type === 'email') return 'email';
  if (hints.type === 'tel') return 'phone';
  for (const text of [hints.label, hints.name ?? '']) {
    const normalized = text.replace(/[_-]+/g, ' ');
    for (const [category, pattern] of rules) if (pattern.test(normalized)) return category;
  }
  return undefined;
}
