import type { Question } from '@quarry/contracts';

type Category = NonNullable<Question['category']>;

// Identity fields are named by short labels ("Email", "Postal code"). A long sentence that merely
// mentions one ("Do you live within 60 miles of our office address?") is not that field, so these
// rules only apply to labels of a few words, or to a field name.
const fieldRules: Array<[Category, RegExp]> = [
  // Most specific first: "LinkedIn URL" is linkedin, not website; "First name" is not fullName.
  ['linkedin', /linkedin/i],
  ['github', /github/i],
  // Identity labels in English, German, French, Spanish, Italian, Dutch, Portuguese and Polish.
  ['email', /e-?mail|courriel|correo|posta elettronica/i],
  // "First and last name" in one field, before the rules that would take it for either half.
  [
    'fullName',
    /first and last name|imi[ęe] i nazwisko|nome e cognome|nombre y apellidos?|vor\s*und nachname|nom et pr[ée]nom|pr[ée]nom et nom|voor\s*en achternaam/i,
  ],
  ['firstName', /first.?name|given.?name|fore.?name|vorname|pr[ée]nom|^nombre$|^nome$|primeiro nome|voornaam|^imi[ęe]$/i],
  ['lastName', /last.?name|sur.?name|family.?name|nachname|apellido|nom de famille|cognome|sobrenome|achternaam|nazwisko/i],
  [
    'fullName',
    /full.?name|^name$|your name|legal name|^nom$|nom complet|nombre completo|nome completo|volledige naam|vollst[äa]ndiger name/i,
  ],
  ['phone', /phone|mobile|telefon|tel[ée]fono|telefoon|t[ée]l[ée]phone|^tel$|celular|cellulare|^handy$|^gsm$/i],
  ['zip', /zip|postal|post.?code|\bplz\b|code postal|postleitzahl|^cap$|kod pocztowy/i],
  ['city', /\bcity\b|\btown\b|ville|stadt|ciudad|citt[àa]|cidade|woonplaats|miejscowo[śs][ćc]|^miasto$/i],
  ['country', /country|\bland\b|\bpays\b|pa[íi]s|paese|^kraj$/i],
  ['address', /address|street|adresse|direcci[óo]n|indirizzo|endere[çc]o|morada|^adres$/i],
  ['resume', /r[ée]sum[ée]|\bcv\b|curriculum|curr[íi]culo|lebenslauf|^[żz]yciorys$/i],
  [
    'coverLetter',
    /cover.?letter|motivation|anschreiben|lettera di presentazione|carta de presentaci[óo]n|motivatiebrief|list motywacyjny/i,
  ],
  ['website', /website|portfolio|personal (site|url)|homepage/i],
];

// Topics a whole sentence can be about. Legal acknowledgements come first: "I authorize … previous
// employers and schools" is consent, not education or experience.
const questionRules: Array<[Category, RegExp]> = [
  ['consent', /\bi (hereby )?(authori[sz]e|acknowledge|certify|consent|agree)\b|consent|privacy|gdpr|terms and conditions/i],
  ['salary', /salary|compensation|pay expectation|desired pay|expected pay|gehalt|salaire/i],
  [
    'startDate',
    /start date|notice period|available to start|earliest start|when can you start|how soon (can|could|would) you (be able to )?start|date available/i,
  ],
  // "authorized to work … without sponsorship" is about authorization; "require sponsorship" is not.
  [
    'workAuthorization',
    /authori[sz]ed to work|work authori[sz]ation|right to work|legally (authori[sz]ed|able|eligible)|work permit|eligible to work/i,
  ],
  ['sponsorship', /sponsor/i],
  ['relocation', /relocat/i],
  ['pronouns', /pronoun/i],
  ['gender', /gender|\bsex\b|geschlecht/i],
  // "Race/Ethnicity" is the US EEO race question.
  ['race', /\brace\b/i],
  ['ethnicity', /ethnic/i],
  ['veteran', /veteran/i],
  ['disability', /disabilit/i],
  ['referral', /referr|how did you hear/i],
  ['education', /education|degree|school|university|qualification/i],
  ['experience', /^(work )?experience$|employment history|work history|previous (jobs|employers)$/i],
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

const maxFieldLabelWords = 8;

function match(rules: Array<[Category, RegExp]>, text: string): Category | undefined {
  for (const [category, pattern] of rules) if (pattern.test(text)) return category;
  return undefined;
}

/** A category when the question clearly is one; otherwise none. */
export function categorize(hints: {
  label: string;
  name?: string | undefined;
  autocomplete?: string | undefined;
  type?: string | undefined;
}): Category | undefined {
  const autocomplete = hints.autocomplete?.trim().toLowerCase().split(/\s+/).pop();
  if (autocomplete && autocompleteCategories[autocomplete]) return autocompleteCategories[autocomplete];
  if (hints.type === 'email') return 'email';
  if (hints.type === 'tel') return 'phone';
  const label = hints.label.replace(/[_-]+/g, ' ').trim();
  const name = (hints.name ?? '').replace(/[_-]+/g, ' ').trim();
  const short = label.split(/\s+/).length <= maxFieldLabelWords;
  return (
    (short ? match(fieldRules, label) : undefined) ?? match(questionRules, label) ?? match(fieldRules, name) ?? match(questionRules, name)
  );
}
