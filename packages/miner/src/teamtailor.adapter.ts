import { expandBase, readText, request, type AtsAdapter } from './adapter-support.ts';
import { extractTeamtailorForm } from './teamtailor-apply.extractor.ts';

/** The whole form comes back from one GET when asked for the Turbo frame (9 of 9 tenants tried). */
export const teamtailorAdapter =
  (baseUrl: string): AtsAdapter<{ host: string; jobPath: string }> =>
  async (target, context) => {
    const path = target.jobPath.split('/').map(encodeURIComponent).join('/');
    const response = await request(context, `${expandBase(baseUrl, { host: target.host })}/${path}/applications/new`, {
      headers: { accept: 'text/html', 'turbo-frame': 'application_form' },
    });
    return extractTeamtailorForm(await readText(response), context.jobPost.jobTitle);
  };
