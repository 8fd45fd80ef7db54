import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerAvailability, bookingPages } from './demo-booking-page.ts';
import { startDemoCheckoutSites, type EngineAvailability } from './demo-checkout.ts';
import { createCallbackReceiver, type ReceivedCallback } from './demo-callback-receiver.ts';
import { createApplicationReceiver, demoCv, demoCvPath, type ReceivedApplication } from './demo-careers.ts';
import { demoJobPostPage, demoJobPostPaths } from './demo-job-post.ts';
import { startDemoMailbox, type ReceivedMail } from './demo-mailbox.ts';
import { answerAvailRequest } from './demo-opentravel.ts';
import { createPushReceiver, type ReceivedPush } from './demo-push-receiver.ts';
import { createDemoReservations } from './demo-reservations.ts';

/**
 * Everything outside Quarry that the demo needs, on one loopback address: a hotel's OpenTravel
 * endpoint (`POST /ota`: availability, reservations, reads and cancellations; what it received at
 * `GET /reservations`, and its card issuer's 3-D Secure page at `/acs/challenge`), its booking page (`/booking/…`, whose checkout and reservation lookup
 * are on the booking engine's own origin, with the card in a payment provider's iframe and a 3-D
 * Secure issuer on two more), a careers page (`/jobs/…`, taking
 * applications; what arrived at `GET /applications`) with a candidate's CV to apply with
 * (`GET /files/jane-doe-cv.pdf`), a client's push endpoint (`PUT /push`, what arrived at
 * `GET /push`), a platform's callback endpoint (`POST /callbacks`, what arrived at `GET /callbacks`)
 * and a mailbox (SMTP; what arrived at `GET /mail`).
 */
export type DemoSites = {
  /** `http://host:port` of the web side. */
  origin: string;
  /** `smtp://host:port` of the mailbox. */
  smtpUrl: string;
  pushes: ReceivedPush[];
  mails: ReceivedMail[];
  applications: ReceivedApplication[];
  expectPushKey: (apiKey: string) => void;
  callbacks: ReceivedCallback[];
  expectCallbackSecret: (secret: string) => void;
  close: () => Promise<void>;
};

async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  let body = '';
  for await (const chunk of request) {
    body += (chunk as Buffer).toString('utf8');
    if (body.length > maxBytes) throw new Error('body too large');
  }
  return body;
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

const json = (response: ServerResponse, status: number, body: unknown) =>
  send(response, status, 'application/json', `${JSON.stringify(body, null, 2)}\n`);

export async function startDemoSites(options: { host: string; port: number; smtpPort: number }): Promise<DemoSites> {
  const mailbox = await startDemoMailbox(options.host, options.smtpPort);
  const receiver = createPushReceiver();
  const careers = createApplicationReceiver();
  const callbackReceiver = createCallbackReceiver();
  const cv = demoCv();
  let origin = '';
  const reservations = createDemoReservations(() => origin);
  // The hotel's checkout runs on its booking engine's origin, as with most hosted engines.
  const checkout = await startDemoCheckoutSites((_hotel, query) => {
    const answer = answerAvailability(query);
    return answer.status === 200 ? (answer.body as EngineAvailability) : { state: 'unknown' };
  }, options.host);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://demo.invalid');
    const route = `${request.method ?? 'GET'} ${url.pathname}`;
    const handle = async () => {
      if (route === 'POST /ota') {
        const body = await readBody(request, 1_000_000);
        return send(response, 200, 'text/xml; charset=utf-8', reservations.answer(body) ?? answerAvailRequest(body));
      }
      if (route === 'GET /reservations') return json(response, 200, reservations.reservations);
      if (route === 'POST /acs/challenge')
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          reservations.challengePage(new URLSearchParams(await readBody(request, 100_000))),
        );
      if (route === 'POST /acs/verify')
        return send(response, 200, 'text/html; charset=utf-8', reservations.verify(new URLSearchParams(await readBody(request, 100_000))));
      const bookingPage = request.method === 'GET' ? bookingPages[url.pathname] : undefined;
      if (bookingPage) return send(response, 200, 'text/html; charset=utf-8', bookingPage);
      if (route === 'GET /booking/checkout' || route === 'GET /booking/manage') {
        return void response.writeHead(302, { location: checkout.engineUrl(`${url.pathname}${url.search}`) }).end();
      }
      if (route === 'GET /api/availability') {
        const answer = answerAvailability(url.searchParams);
        return json(response, answer.status, answer.body);
      }
      if (request.method === 'GET' && demoJobPostPaths.includes(url.pathname))
        return send(response, 200, 'text/html; charset=utf-8', demoJobPostPage());
      if (request.method === 'POST' && demoJobPostPaths.some((path) => url.pathname === `${path}/apply`)) {
        const answer = await careers.receive(request, 10_000_000);
        return send(response, answer.status, 'text/html; charset=utf-8', answer.html);
      }
      if (route === 'GET /applications') return json(response, 200, careers.applications);
      if (route === `GET ${demoCvPath}`) return send(response, 200, 'application/pdf', cv);
      if (route === 'PUT /push') {
        const answer = await receiver.receive(request);
        return json(response, answer.status, answer.body);
      }
      if (route === 'GET /push') return json(response, 200, receiver.pushes);
      if (route === 'GET /mail') return json(response, 200, mailbox.messages);
      if (route === 'POST /callbacks') {
        const answer = await callbackReceiver.receive(request);
        return answer.body === null ? void response.writeHead(answer.status).end() : json(response, answer.status, answer.body);
      }
      if (route === 'GET /callbacks') return json(response, 200, callbackReceiver.callbacks);
      return json(response, 404, { error: `nothing at ${route}` });
    };
    handle().catch((error: unknown) => json(response, 400, { error: (error as Error).message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${options.host}:${port}`;
  return {
    origin,
    smtpUrl: `smtp://${options.host}:${mailbox.port}`,
    pushes: receiver.pushes,
    mails: mailbox.messages,
    applications: careers.applications,
    expectPushKey: (apiKey) => receiver.expectApiKey(apiKey),
    callbacks: callbackReceiver.callbacks,
    expectCallbackSecret: (secret) => callbackReceiver.expectSecret(secret),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mailbox.close();
      await checkout.close();
    },
  };
}
