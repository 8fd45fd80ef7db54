import { expandBase, readText, request, type AtsAdapter } from './adapter-support.ts';
import { extractLeverForm } from './lever-apply.extractor.ts';

/** The public postings API does not expose custom questions; the `/apply` page does. */
export const leverAdapter =
  (baseUrl: string): AtsAdapter<{ host: string; site: string; postingId: string }> =>
  async (target, context) => {
    const base = expandBase(baseUrl, { host: target.host });
    const response = await request(context, `${base}/${encodeURIComponent(target.site)}/${encodeURIComponent(target.postingId)}/apply`, {
      headers: { accept: 'text/html' },
    });
    return extractLeverForm(await readText(response), context.jobPost.jobTitle);
  };
