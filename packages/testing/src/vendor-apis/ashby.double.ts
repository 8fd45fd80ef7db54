import { basicUser, minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

type AshbyEntry = { isRequired?: boolean; field: { path: string; title?: string; type: string; selectableValues?: Array<{ label: string; value?: string }> } };
type AshbyPosting = { title?: string; applicationForm: { sections: Array<{ fieldEntries: AshbyEntry[] }> }; surveyForms?: Array<{ sections: Array<{ fieldEntries: AshbyEntry[] }> }> };

/**
 * A posting with every field type Ashby's forms were measured to use (String, Email, Phone, File,
 * Boolean, Date, Number, LongText, ValueSelect, MultiValueSelect), in the shape of the captures:
 * the captured forms hold only names, URLs, consents and education.
 */
const everyKind: AshbyPosting = {
  title: 'Example Role',
  applicationForm: {
    sections: [
      {
        fieldEntries: [
          { isRequired: true, field: { path: '_systemfield_name', title: 'Name', type: 'String' } },
          { isRequired: true, field: { path: '_systemfield_email', title: 'Email', type: 'Email' } },
          { isRequired: false, field: { path: '_systemfield_phone', title: 'Phone', type: 'Phone' } },
          { isRequired: true, field: { path: '_systemfield_resume', title: 'Resume', type: 'File' } },
          { isRequired: true, field: { path: '0a1b2c3d-0000-4000-8000-0000000000b1', title: 'Are you authorized to work in the UK?', type: 'Boolean' } },
          { isRequired: false, field: { path: '0a1b2c3d-0000-4000-8000-0000000000b2', title: 'Earliest start date', type: 'Date' } },
          { isRequired: false, field: { path: '0a1b2c3d-0000-4000-8000-0000000000b3', title: 'Years of experience', type: 'Number' } },
          { isRequired: false, field: { path: '0a1b2c3d-0000-4000-8000-0000000000b4', title: 'Why Acme?', type: 'LongText' } },
          {
            isRequired: true,
            field: { path: '0a1b2c3d-0000-4000-8000-0000000000b5', title: 'Preferred office', type: 'ValueSelect', selectableValues: [{ label: 'London', value: 'london' }, { label: 'Remote (UK)', value: 'remote-uk' }] },
          },
          {
            isRequired: false,
            field: { path: '0a1b2c3d-0000-4000-8000-0000000000b6', title: 'Languages', type: 'MultiValueSelect', selectableValues: [{ label: 'English', value: 'en' }, { label: 'French', value: 'fr' }, { label: 'Spanish', value: 'es' }] },
          },
        ],
      },
    ],
  },
  surveyForms: [],
};

/** The postings of org `acme` on the Ashby double, by posting id. */
export const ashbyDoublePostings = {
  /** Captured: name, two URLs and a required education history. */
  surveyKinds: '0a1b2c3d-0000-4000-8000-00000000f001',
  /** Captured: a name and two required consent boxes in the survey form. */
  consent: '0a1b2c3d-0000-4000-8000-00000000f002',
  /** Every field type, in the captures' shape. */
  everyKind: '0a1b2c3d-0000-4000-8000-00000000f003',
  /** Closed: the posting query answers `jobPosting: null`. */
  closed: '0a1b2c3d-0000-4000-8000-00000000f0ff',
} as const;

const postings = (): Map<string, AshbyPosting> =>
  new Map([
    [ashbyDoublePostings.surveyKinds, JSON.parse(minerFixture('ats/ashby/survey-kinds.json')) as AshbyPosting],
    [ashbyDoublePostings.consent, JSON.parse(minerFixture('ats/ashby/consent-untitled.json')) as AshbyPosting],
    [ashbyDoublePostings.everyKind, everyKind],
  ]);

const submissionText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Ashby on loopback, one base URL for both of its hosts: the hosted jobs page's posting query
 * (`POST /api/non-user-graphql?op=ApiJobPosting`, what the miner reads) and the API's
 * `POST /applicationForm.submit` (Basic `key:`, multipart: `jobPostingId`, `applicationForm` as
 * JSON `{fieldSubmissions: [{path, value}]}`, a file as its own part named by the value). It answers
 * as the notes describe Ashby: HTTP 200 `{success: true, results: {submittedFormInstance}}`;
 * 200 `{success: false, errors}` for a missing required field or an unpublished posting; the same
 * email on the same posting again is blocked ("one application per role per 60 days"); 401 for
 * another key.
 */
export async function startAshbyApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const forms = postings();
  const applied = new Set<string>();
  let sequence = 0;
  const double = await startVendorDouble((request) => {
    if (request.method === 'POST' && request.path === '/api/non-user-graphql') {
      const variables = (request.json as { variables?: { jobPostingId?: string; organizationHostedJobsPageName?: string } } | undefined)?.variables;
      const posting = variables?.organizationHostedJobsPageName === 'acme' ? forms.get(variables.jobPostingId ?? '') : undefined;
      return { reply: { status: 200, body: { data: { jobPosting: posting ?? null } } } };
    }
    if (request.method !== 'POST' || request.path !== '/applicationForm.submit') return null;
    if (request.headers.authorization !== basicUser(options.key)) return { reply: { status: 401, body: { success: false, errors: ['invalid_api_key: the API key is not valid'] } } };
    const part = (name: string) => request.parts.find(([key]) => key === name)?.[1];
    const jobPostingId = part('jobPostingId');
    const posting = typeof jobPostingId === 'string' ? forms.get(jobPostingId) : undefined;
    if (!posting) return { accept: () => ({ status: 200, body: { success: false, errors: ['Job posting is not published or does not exist'] } }) };
    return { accept: () => accept(posting, String(jobPostingId), part('applicationForm')) };
  }, (url) => ({ ashby: url, ashbyApi: url }));

  function accept(posting: AshbyPosting, jobPostingId: string, applicationForm: unknown) {
    let submissions: Array<{ path: string; value: unknown }> = [];
    try {
      submissions = (JSON.parse(submissionText(applicationForm)) as { fieldSubmissions: Array<{ path: string; value: unknown }> }).fieldSubmissions;
    } catch {
      return { status: 200, body: { success: false, errors: ['invalid_input: applicationForm must be JSON'] } };
    }
    const given = new Map(submissions.map((entry) => [entry.path, entry.value]));
    const missing = posting.applicationForm.sections
      .flatMap((section) => section.fieldEntries)
      .filter((entry) => entry.isRequired === true && (given.get(entry.field.path) ?? '') === '')
      .map((entry) => entry.field.title ?? entry.field.path);
    if (missing.length > 0) return { status: 200, body: { success: false, errors: missing.map((title) => `Missing required field: ${title}`) } };
    const email = String(given.get('_systemfield_email') ?? '').toLowerCase();
    if (applied.has(`${jobPostingId}|${email}`)) {
      const blocked = { blocked: true, blockMessageForCandidateHtml: '<p>You have already applied for this role. We accept one application per role per 60 days.</p>' };
      return { status: 200, body: { success: true, results: { formMessages: blocked } } };
    }
    applied.add(`${jobPostingId}|${email}`);
    sequence += 1;
    return { status: 200, body: { success: true, results: { submittedFormInstance: { id: `ashby-form-instance-${sequence}`, submittedValues: Object.fromEntries(given) }, formMessages: { blocked: false } } } };
  }
  return double;
}
