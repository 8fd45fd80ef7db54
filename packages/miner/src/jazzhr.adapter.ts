import { expandBase, readText, request, type AtsAdapter } from './adapter-support.ts';
import { extractJazzForm } from './jazzhr-apply.extractor.ts';

export const jazzAdapter =
  (baseUrl: string): AtsAdapter<{ company: string; jobPath: string }> =>
  async (target, context) => {
    const response = await request(
      context,
      `${expandBase(baseUrl, { company: target.company })}/${target.jobPath.split('/').map(encodeURIComponent).join('/')}`,
      { headers: { accept: 'text/html' } },
    );
    return extractJazzForm(await readText(response), context.jobPost.jobTitle);
  };
