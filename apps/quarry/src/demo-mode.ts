import { isIP } from 'node:net';
import { createClient, listClients, revokeClient } from '@quarry/auth';
import type { Config } from '@quarry/config';
import { createPool } from '@quarry/db';
import { demoHotels, startDemoSites, type DemoSites } from '@quarry/demo';
import { createDeploymentKeyring } from '@quarry/keyring';
import type { Tracing } from '@quarry/observability';
import { listClientSubscriptions, removeSubscription } from '@quarry/rates';
import { startRoles } from './start-roles.ts';

const demoClientName = 'demo';
const demoScopes = ['recruitment', 'forwarding', 'hotels', 'booking', 'admin'] as const;

/**
 * `quarry start --demo` (`npm run demo`): every role, plus the demo sites (two OpenTravel hotels
 * and a booking-page hotel, a careers page that takes applications, a push receiver, a mailbox) on
 * DEMO_HOST, a new `demo` client, the demo hotels registered and granted to it, a push
 * subscription to the receiver, and its default callback URL at the demo's callback receiver.
 * The SSRF guard lets through DEMO_HOST and nothing more; forwarded mail goes to the demo mailbox
 * unless MAIL_RELAY_URL says otherwise.
 */
export async function startDemo(config: Config, role: 'all' | 'api', tracing: Tracing): Promise<void> {
  const host = config.demo.host;
  if (!/^127\./.test(host) && host !== '::1')
    throw new Error(`DEMO_HOST ${host} must be a loopback address: the demo sites are for this machine only`);
  if (host === '127.0.0.1' || host === '::1') {
    process.stderr.write(
      `quarry: DEMO_HOST=${host} lets client URLs reach every service on ${host} (Postgres, Redis) while the demo runs; the default 127.0.0.77 does not\n`,
    );
  }
  const sites = await startDemoSites(config.demo);
  const demoConfig: Config = {
    ...config,
    allowPrivateUrls: [...config.allowPrivateUrls, host],
    // The demo hotels run on DEMO_HOST over plain http: (logged at start and at each registration).
    allowLoopbackHttpHotels: true,
    mail: { ...config.mail, relayUrl: config.mail.relayUrl ?? sites.smtpUrl },
  };
  const { port } = await startRoles(demoConfig, role, tracing);
  const apiHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const apiBase = `http://${isIP(apiHost) === 6 ? `[${apiHost}]` : apiHost}:${port}`;
  const client = await registerDemo(config, apiBase, sites);
  process.stdout.write(demoInstructions(apiBase, sites, client, config));
  // The line tests and scripts wait for; the secret is only in the instructions above.
  process.stdout.write(
    `${JSON.stringify({ msg: 'demo ready', apiBase, demoOrigin: sites.origin, demoSmtp: sites.smtpUrl, clientId: client.clientId })}\n`,
  );
}

async function call(apiBase: string, secret: string, method: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${apiBase}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`demo set-up: ${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/**
 * A fresh `demo` client each run (its secret is shown once); the previous demo clients are revoked
 * and their push subscriptions removed, so the receiver only gets this run's pushes. The set-up
 * goes through the public API, as an operator and a client would.
 */
async function registerDemo(config: Config, apiBase: string, sites: DemoSites): Promise<{ clientId: string; secret: string }> {
  const db = createPool(config.databaseUrl, 1);
  try {
    for (const old of (await listClients({ db })).filter((client) => client.name === demoClientName && client.revokedAt === null)) {
      for (const subscription of await listClientSubscriptions({ db }, old.clientId))
        await removeSubscription({ db }, old.clientId, subscription.subscriptionId);
      await revokeClient({ db }, old.clientId);
    }
    const client = await createClient(
      { db, secretKey: config.secretKey, keyring: createDeploymentKeyring(config.keyring) },
      { name: demoClientName, scopes: [...demoScopes] },
    );
    const hotels = demoHotels(sites.origin);
    for (const hotel of hotels) await call(apiBase, client.secret, 'PUT', `/v1/admin/hotels/${hotel.hotelId}`, hotel);
    await call(apiBase, client.secret, 'POST', '/v1/admin/hotel-grants', {
      clientId: client.clientId,
      hotelIds: hotels.map((hotel) => hotel.hotelId),
    });
    const apiKey = `demo-${client.clientId}`;
    sites.expectPushKey(apiKey);
    await call(apiBase, client.secret, 'POST', '/v1/hotels/push-subscriptions', {
      pushUrl: `${sites.origin}/push`,
      apiKey,
      hotelIds: hotels.map((hotel) => hotel.hotelId),
      searches: { daysAhead: 7, nights: [1], guests: [2] },
    });
    // Recruitment's callbacks: every mined post, batch and application of the demo client is POSTed to the receiver.
    const callbacks = (await call(apiBase, client.secret, 'PUT', `/v1/admin/callbacks/${client.clientId}`, {
      url: `${sites.origin}/callbacks`,
    })) as { webhookSecret?: string };
    if (callbacks.webhookSecret) sites.expectCallbackSecret(callbacks.webhookSecret);
    return { clientId: client.clientId, secret: client.secret };
  } finally {
    await db.end();
  }
}

function demoInstructions(apiBase: string, sites: DemoSites, client: { clientId: string; secret: string }, config: Config): string {
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return `
Demo ready. Client "${demoClientName}" (scopes ${demoScopes.join(', ')}):
  clientId ${client.clientId}
  secret   ${client.secret}   (shown once; a new demo client is made on every start)
  export QUARRY_SECRET=${client.secret}

Demo sites on ${sites.origin} (the only private address client URLs may reach):
  hotels      demo-harbour, demo-sakura (OpenTravel at ${sites.origin}/ota), demo-riverside (booking page, Chromium)
  reservations ${sites.origin}/reservations   (what the OpenTravel hotels received; card 4000000000003220 is challenged with 3-D Secure, code 123456)
  careers     ${sites.origin}/jobs/backend-engineer   (applications it received: ${sites.origin}/applications; a CV to apply with: ${sites.origin}/files/jane-doe-cv.pdf)
  pushes      ${sites.origin}/push   (what the demo subscription received)
  callbacks   ${sites.origin}/callbacks   (the demo client's mining and application callbacks, each signature verified)
  mailbox     ${sites.smtpUrl}, received mail at ${sites.origin}/mail${config.mail.relayUrl ? ` (not used: MAIL_RELAY_URL is set)` : ''}

Try:
  curl -u "$QUARRY_SECRET:" "${apiBase}/Pull/RatesFeed?hotelIds=demo-harbour&hotelIds=demo-sakura&checkIn=${tomorrow}&nights=1&guests=2"
  Dashboard: ${apiBase}/dashboard (sign in with the secret)   API reference: ${apiBase}/docs

`;
}
