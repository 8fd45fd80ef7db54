// Longer than 400 lines: the demo booking engine's pages (results, guest, card frame, review, outcome)
// are one small site, served together so a booking's state stays in one place.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bookingPages } from './demo-booking-page.ts';
import { demoCards, demoOtp } from './demo-cards.ts';

/** What the engine's availability endpoint answers (the results page renders it; the review page shows one rate of it). */
export type EngineAvailability = {
  state: 'rooms' | 'none' | 'unknown' | 'adults';
  currency?: string;
  rooms?: Array<{
    code: string;
    name: string;
    description: string;
    maxGuests: number;
    rates: Array<{
      code: string;
      name: string;
      total: string;
      cancellation: string;
      meal?: string;
      member?: boolean;
      charges: Array<{ kind: 'tax' | 'fee'; code?: string; name: string; amount: string }>;
    }>;
  }>;
};

type Guest = { firstName: string; lastName: string };

/** An order as the hotel keeps it: what reached the hotel, for tests to check (one order per click). */
export type DemoOrder = {
  orderId: string;
  hotel: string;
  room: string;
  rate: string;
  /** The booker's own reference (the "your reference" field): how a lookup finds the reservation. */
  reference: string;
  mainGuest: Guest;
  otherGuests: Guest[];
  email: string;
  phone: string;
  total: string;
  cardLast4: string;
  status: 'confirmed' | 'pending' | 'declined';
  confirmationNumber: string;
};

type Cart = {
  hotel: string;
  checkin: string;
  nights: string;
  adults: number;
  room: string;
  rate: string;
  mainGuest: Guest;
  otherGuests: Guest[];
  email: string;
  phone: string;
  reference: string;
  cardToken?: string;
};
type Card = { number: string; holder: string; expiry: string; cvc: string };
type Transaction = { orderId: string; otp: string; notifyUrl: string; finished: boolean };

export type DemoCheckoutSites = {
  /** The booking engine's origin (search, results, checkout, reservation lookup). */
  engineUrl: (path: string) => string;
  /** The payment provider's origin, serving the card iframe. */
  cardUrl: (path: string) => string;
  /** The card issuer's access control server (3-D Secure challenges), another origin again. */
  acsUrl: (path: string) => string;
  orders: DemoOrder[];
  /** Searches (the results page's availability requests) per hotel: what a checkout costs the engine. */
  searches: Map<string, number>;
  /** Hotels whose cards are challenged with 3-D Secure (the demo's challenged card is, at every hotel). */
  challengeHotels: Set<string>;
  /** The one-time code the demo issuer accepts. */
  otp: string;
  close(): Promise<void>;
};

const style = `<style>
  body { font-family: system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
  header { background: #17324d; color: #fff; padding: 14px 24px; font-weight: 600; }
  main { max-width: 720px; margin: 24px auto; padding: 0 16px; }
  .card { background: #fff; border-radius: 10px; padding: 20px; box-shadow: 0 1px 3px rgba(0,0,0,.12); margin-bottom: 16px; }
  label { display: block; margin: 10px 0 4px; font-size: 14px; }
  input[type=text], input[type=email], input[type=tel] { width: 100%; box-sizing: border-box; padding: 9px; border: 1px solid #b8c0cc; border-radius: 6px; font-size: 15px; }
  .row { display: flex; gap: 12px; flex-wrap: wrap; } .row > div { flex: 1 1 200px; }
  button { background: #1f6feb; color: #fff; border: 0; border-radius: 6px; padding: 11px 18px; font-size: 15px; margin-top: 14px; cursor: pointer; }
  iframe { border: 0; width: 100%; }
  .total { font-size: 20px; font-weight: 700; } .muted { color: #5b6577; font-size: 14px; }
  .charge { display: flex; justify-content: space-between; font-size: 14px; }
</style>`;

const escape = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>${style}</head><body><header>Demo Hotels · secure booking</header><main>${body}</main></body></html>`;

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers }).end(body);
}
const redirect = (response: ServerResponse, location: string) => response.writeHead(303, { location }).end();

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server, host: string): Promise<(path: string) => string> {
  server.listen(0, host);
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return (path) => `http://${host}:${port}${path}`;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * A hotel's own booking engine with a realistic checkout, on three loopback origins: the engine
 * (search, results, guest page, payment page, final-price page, the 3-D Secure step, the
 * confirmation and the reservation lookup), the payment provider whose card fields live in a
 * cross-origin iframe, and the card issuer's ACS that challenges the card holder with a one-time
 * code and tells the engine the outcome server to server. Prices come from `availability`.
 */
export async function startDemoCheckoutSites(
  availability: (hotel: string, query: URLSearchParams) => EngineAvailability,
  host = '127.0.0.1',
): Promise<DemoCheckoutSites> {
  const carts = new Map<string, Cart>();
  const cards = new Map<string, Card>();
  const transactions = new Map<string, Transaction>();
  const orders: DemoOrder[] = [];
  const searches = new Map<string, number>();
  const challengeHotels = new Set<string>();
  const otp = demoOtp;
  let engineUrl: (path: string) => string = () => '';
  let cardUrl: (path: string) => string = () => '';
  let acsUrl: (path: string) => string = () => '';

  const rateOf = (cart: Pick<Cart, 'hotel' | 'checkin' | 'nights' | 'adults' | 'room' | 'rate'>) => {
    const answer = availability(
      cart.hotel,
      new URLSearchParams({ hotel: cart.hotel, checkin: cart.checkin, nights: cart.nights, adults: String(cart.adults) }),
    );
    const room = answer.rooms?.find((candidate) => candidate.code === cart.room);
    const rate = room?.rates.find((candidate) => candidate.code === cart.rate);
    return room && rate && answer.currency ? { currency: answer.currency, room, rate } : null;
  };
  /** The price as a page shows it, compared by text: what the guest saw is what is charged. */
  const priceText = (rate: NonNullable<ReturnType<typeof rateOf>>['rate']) =>
    [rate.total, ...rate.charges.map((charge) => charge.amount)].join(' + ');

  const engine = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://engine.local');
      const query = url.searchParams;
      if (request.method === 'GET' && url.pathname.endsWith('/search.html'))
        return send(response, 200, 'text/html; charset=utf-8', bookingPages['/booking/search.html'] as Buffer);
      if (request.method === 'GET' && url.pathname.endsWith('/results.html'))
        return send(response, 200, 'text/html; charset=utf-8', bookingPages['/booking/results.html'] as Buffer);
      if (url.pathname === '/api/availability') {
        const hotel = query.get('hotel') ?? '';
        searches.set(hotel, (searches.get(hotel) ?? 0) + 1);
        return send(response, 200, 'application/json', JSON.stringify(availability(hotel, query)));
      }
      if (request.method === 'GET' && url.pathname.endsWith('/checkout')) {
        const adults = Number(query.get('adults') ?? '1');
        // Only the booker's name is required, as on most engines; the other guests' names are asked for.
        const others = Array.from({ length: Math.max(0, adults - 1) }, (_, index) => index + 1)
          .map(
            (
              n,
            ) => `<div class="row"><div><label for="other-guest-${n}-first-name">Guest ${n + 1} first name</label><input type="text" id="other-guest-${n}-first-name" name="other-${n}-first"></div>
            <div><label for="other-guest-${n}-last-name">Guest ${n + 1} last name</label><input type="text" id="other-guest-${n}-last-name" name="other-${n}-last"></div></div>`,
          )
          .join('');
        const hidden = ['hotel', 'checkin', 'nights', 'adults', 'room', 'rate']
          .map((name) => `<input type="hidden" name="${name}" value="${escape(query.get(name) ?? '')}">`)
          .join('');
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          html(
            'Your details',
            `<div class="card"><h1>Who is staying?</h1>
          <form id="guest-form" method="post" action="checkout">${hidden}
          <div class="row"><div><label for="guest-first-name">First name</label><input type="text" id="guest-first-name" name="first" required></div>
          <div><label for="guest-last-name">Last name</label><input type="text" id="guest-last-name" name="last" required></div></div>
          <div class="row"><div><label for="guest-email">Email</label><input type="email" id="guest-email" name="email" required></div>
          <div><label for="guest-phone">Phone</label><input type="tel" id="guest-phone" name="phone" required></div></div>
          ${others}
          <label for="guest-reference">Your reference (optional)</label><input type="text" id="guest-reference" name="reference">
          <button type="submit" id="guest-continue">Continue to payment</button></form></div>`,
          ),
        );
      }
      if (request.method === 'POST' && url.pathname.endsWith('/checkout')) {
        const form = new URLSearchParams(await readBody(request));
        const adults = Number(form.get('adults') ?? '1');
        const cart: Cart = {
          hotel: form.get('hotel') ?? '',
          checkin: form.get('checkin') ?? '',
          nights: form.get('nights') ?? '',
          adults,
          room: form.get('room') ?? '',
          rate: form.get('rate') ?? '',
          mainGuest: { firstName: form.get('first') ?? '', lastName: form.get('last') ?? '' },
          otherGuests: Array.from({ length: Math.max(0, adults - 1) }, (_, index) => ({
            firstName: form.get(`other-${index + 1}-first`) ?? '',
            lastName: form.get(`other-${index + 1}-last`) ?? '',
          })),
          email: form.get('email') ?? '',
          phone: form.get('phone') ?? '',
          reference: form.get('reference') ?? '',
        };
        if (!rateOf(cart))
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            html('Sold out', '<div class="card"><p id="sold-out">This rate is no longer available.</p></div>'),
          );
        const cartId = randomUUID();
        carts.set(cartId, cart);
        return redirect(response, `payment?cart=${cartId}`);
      }
      if (request.method === 'GET' && url.pathname.endsWith('/payment')) {
        const cartId = query.get('cart') ?? '';
        if (!carts.has(cartId)) return send(response, 404, 'text/plain', 'no such cart');
        const frame = cardUrl(`/card-frame?origin=${encodeURIComponent(new URL(engineUrl('/')).origin)}`);
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          html(
            'Payment',
            `<div class="card"><h1>Payment</h1><p class="muted">Card details are entered with our payment provider.</p>
          <iframe id="card-frame" title="Card details" src="${escape(frame)}" height="230"></iframe>
          <form id="payment-form" method="post" action="payment"><input type="hidden" name="cart" value="${escape(cartId)}"><input type="hidden" name="cardToken" id="card-token">
          <button type="button" id="payment-continue">Review booking</button></form></div>
          <script>
            const frame = document.getElementById('card-frame');
            const cardOrigin = new URL(frame.src).origin;
            window.addEventListener('message', (event) => {
              if (event.origin !== cardOrigin || !event.data || event.data.type !== 'card-token') return;
              document.getElementById('card-token').value = event.data.token;
              document.getElementById('payment-form').submit();
            });
            document.getElementById('payment-continue').addEventListener('click', () => frame.contentWindow.postMessage('tokenize', cardOrigin));
          </script>`,
          ),
        );
      }
      if (request.method === 'POST' && url.pathname.endsWith('/payment')) {
        const form = new URLSearchParams(await readBody(request));
        const cart = carts.get(form.get('cart') ?? '');
        if (!cart || !form.get('cardToken')) return send(response, 400, 'text/plain', 'card missing');
        cart.cardToken = form.get('cardToken') ?? '';
        return redirect(response, `review?cart=${form.get('cart')}`);
      }
      if (request.method === 'GET' && url.pathname.endsWith('/review')) {
        const cartId = query.get('cart') ?? '';
        const cart = carts.get(cartId);
        if (!cart) return send(response, 404, 'text/plain', 'no such cart');
        const found = rateOf(cart);
        if (!found)
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            html('Sold out', '<div class="card"><p id="sold-out">This rate is no longer available.</p></div>'),
          );
        const { currency, room, rate } = found;
        const charges = rate.charges
          .map(
            (charge) =>
              `<div class="charge" data-kind="${charge.kind}"${charge.code ? ` data-code="${escape(charge.code)}"` : ''}><span class="charge-name">${escape(charge.name)}</span><span class="charge-amount">${escape(charge.amount)}</span></div>`,
          )
          .join('');
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          html(
            'Review and book',
            `<div class="card"><h1>Review your booking</h1>
          <section id="results" data-currency="${escape(currency)}"><article class="room" data-room-code="${escape(room.code)}" data-max-guests="${room.maxGuests}">
          <h2 class="room-name">${escape(room.name)}</h2><p class="muted">${escape(cart.checkin)}, ${escape(cart.nights)} night(s), ${cart.adults} adult(s) · ${escape(cart.mainGuest.firstName)} ${escape(cart.mainGuest.lastName)}</p>
          <div class="rate" data-rate-code="${escape(rate.code)}"><h3 class="rate-name">${escape(rate.name)}</h3><div class="charge"><span>Room</span><span class="rate-total">${escape(rate.total)}</span></div>${charges}
          <p class="rate-cancellation muted">${escape(rate.cancellation)}</p></div></article></section>
          <form id="order-form" method="post" action="place"><input type="hidden" name="cart" value="${escape(cartId)}"><input type="hidden" name="shown" value="${escape(priceText(rate))}">
          <label><input type="checkbox" id="accept-terms" name="terms" required> I accept the booking conditions</label>
          <button type="submit" id="place-order">Book and pay</button></form></div>`,
          ),
        );
      }
      if (request.method === 'POST' && url.pathname.endsWith('/place')) {
        const form = new URLSearchParams(await readBody(request));
        const cart = carts.get(form.get('cart') ?? '');
        if (!cart?.cardToken || form.get('terms') !== 'on') return send(response, 400, 'text/plain', 'cart, card and terms are required');
        const found = rateOf(cart);
        if (!found)
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            html('Sold out', '<div class="card"><p id="sold-out">This rate is no longer available.</p></div>'),
          );
        if (priceText(found.rate) !== form.get('shown')) {
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            html(
              'Price changed',
              `<div class="card"><p id="price-changed">The price of this stay changed to ${escape(found.rate.total)}. Please review it again.</p></div>`,
            ),
          );
        }
        // The provider answers the card server to server (the engine never saw the number).
        const card = (await fetch(cardUrl(`/api/cards/${encodeURIComponent(cart.cardToken)}`)).then((answer) =>
          answer.ok ? answer.json() : null,
        )) as Card | null;
        if (!card || !/^\d{13,19}$/.test(card.number) || !/^\d{2}\/\d{2}$/.test(card.expiry) || !/^\d{3,4}$/.test(card.cvc)) {
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            html('Card refused', '<div class="card"><p id="card-invalid">Please check your card details.</p></div>'),
          );
        }
        const orderId = randomUUID();
        const challenged = challengeHotels.has(cart.hotel) || card.number === demoCards.challenged;
        const order: DemoOrder = {
          orderId,
          hotel: cart.hotel,
          room: cart.room,
          rate: cart.rate,
          reference: cart.reference,
          mainGuest: cart.mainGuest,
          otherGuests: cart.otherGuests,
          email: cart.email,
          phone: cart.phone,
          total: priceText(found.rate),
          cardLast4: card.number.slice(-4),
          status: challenged ? 'pending' : 'confirmed',
          confirmationNumber: `DH-${randomBytes(4).toString('hex').toUpperCase()}`,
        };
        orders.push(order);
        if (!challenged) return redirect(response, `confirmation?order=${orderId}`);
        const acsTransID = randomUUID();
        transactions.set(acsTransID, { orderId, otp, notifyUrl: engineUrl('/api/3ds-result'), finished: false });
        return redirect(response, `3ds?order=${orderId}&tx=${acsTransID}`);
      }
      if (request.method === 'GET' && url.pathname.endsWith('/3ds')) {
        const orderId = query.get('order') ?? '';
        const creq = Buffer.from(
          JSON.stringify({
            threeDSServerTransID: randomUUID(),
            acsTransID: query.get('tx'),
            challengeWindowSize: '02',
            messageType: 'CReq',
            messageVersion: '2.2.0',
          }),
        ).toString('base64url');
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          html(
            'Verify your card',
            `<div class="card"><h1>Verifying your card…</h1><p class="muted">Your bank may ask you to confirm this payment.</p>
          <iframe name="tds-frame" id="tds-frame" title="3-D Secure" height="400"></iframe>
          <form id="tds-form" method="post" action="${escape(acsUrl('/acs/challenge'))}" target="tds-frame"><input type="hidden" name="creq" value="${creq}"><input type="hidden" name="threeDSSessionData" value="${escape(orderId)}"></form></div>
          <script>
            document.getElementById('tds-form').submit();
            // The issuer tells us the outcome server to server; the page follows the order.
            setInterval(async () => {
              const order = await fetch('api/orders/${encodeURIComponent(orderId)}').then((answer) => answer.json());
              if (order.status === 'confirmed') location.href = 'confirmation?order=${encodeURIComponent(orderId)}';
              if (order.status === 'declined') location.href = 'declined?order=${encodeURIComponent(orderId)}';
            }, 400);
          </script>`,
          ),
        );
      }
      if (request.method === 'GET' && /\/api\/orders\/[^/]+$/.test(url.pathname)) {
        const order = orders.find((candidate) => candidate.orderId === url.pathname.split('/').pop());
        return order
          ? send(response, 200, 'application/json', JSON.stringify({ status: order.status }))
          : send(response, 404, 'application/json', '{}');
      }
      if (request.method === 'POST' && url.pathname === '/api/3ds-result') {
        const result = JSON.parse(await readBody(request)) as { orderId: string; transStatus: string };
        const order = orders.find((candidate) => candidate.orderId === result.orderId);
        if (order && order.status === 'pending') order.status = result.transStatus === 'Y' ? 'confirmed' : 'declined';
        return send(response, 204, 'text/plain', '');
      }
      if (request.method === 'GET' && url.pathname.endsWith('/confirmation')) {
        const order = orders.find((candidate) => candidate.orderId === query.get('order'));
        if (!order || order.status !== 'confirmed') return send(response, 404, 'text/plain', 'no such booking');
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          html(
            'Booking confirmed',
            `<div class="card"><section id="confirmation"><h1>Thank you, ${escape(order.mainGuest.firstName)}!</h1>
          <p>Your booking is confirmed. Confirmation number <strong id="confirmation-number">${order.confirmationNumber}</strong></p><p class="muted">Total ${escape(order.total)}</p></section></div>`,
          ),
        );
      }
      if (request.method === 'GET' && url.pathname.endsWith('/declined')) {
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          html(
            'Payment declined',
            '<div class="card"><p id="payment-declined">Your bank declined the payment. Nothing was charged.</p></div>',
          ),
        );
      }
      if (request.method === 'GET' && url.pathname.endsWith('/manage')) {
        const hotel = query.get('hotel') ?? '';
        const reference = query.get('reference');
        const form = `<form id="lookup-form" method="get" action="manage"><input type="hidden" name="hotel" value="${escape(hotel)}">
          <label for="lookup-reference">Booking reference</label><input type="text" id="lookup-reference" name="reference" required><button type="submit" id="lookup-submit">Find my booking</button></form>`;
        if (reference === null)
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            html('Manage your booking', `<div class="card"><h1>Manage your booking</h1>${form}</div>`),
          );
        const order = orders.find(
          (candidate) => candidate.hotel === hotel && candidate.reference !== '' && candidate.reference === reference,
        );
        const found = order
          ? `<section id="reservation" data-status="${order.status}"><p>Booking <strong id="reservation-number">${order.confirmationNumber}</strong>: ${order.status}</p></section>`
          : '<p id="reservation-not-found">We found no booking with this reference.</p>';
        return send(response, 200, 'text/html; charset=utf-8', html('Manage your booking', `<div class="card">${found}</div>`));
      }
      send(response, 404, 'text/plain', 'not found');
    })().catch((error: unknown) => send(response, 500, 'text/plain', String(error)));
  });

  const provider = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://card.local');
      if (request.method === 'GET' && url.pathname === '/card-frame') {
        const parentOrigin = url.searchParams.get('origin') ?? '';
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          `<!doctype html><html><head><meta charset="utf-8">${style}<style>body{background:#fff}</style></head><body>
          <label for="card-number">Card number</label><input type="text" id="card-number" inputmode="numeric" autocomplete="cc-number">
          <label for="card-holder">Name on card</label><input type="text" id="card-holder" autocomplete="cc-name">
          <div class="row"><div><label for="card-expiry">Expiry (MM/YY)</label><input type="text" id="card-expiry" autocomplete="cc-exp"></div>
          <div><label for="card-cvc">Security code</label><input type="text" id="card-cvc" inputmode="numeric" autocomplete="cc-csc"></div></div>
          <script>
            const parentOrigin = ${JSON.stringify(parentOrigin)};
            window.addEventListener('message', async (event) => {
              if (event.origin !== parentOrigin || event.data !== 'tokenize') return;
              const value = (id) => document.getElementById(id).value.replace(/\\s+/g, ' ').trim();
              const answer = await fetch('/tokenize', { method: 'POST', headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ number: value('card-number').replace(/ /g, ''), holder: value('card-holder'), expiry: value('card-expiry'), cvc: value('card-cvc') }) });
              const { token } = await answer.json();
              window.parent.postMessage({ type: 'card-token', token }, parentOrigin);
            });
          </script></body></html>`,
        );
      }
      if (request.method === 'POST' && url.pathname === '/tokenize') {
        const card = JSON.parse(await readBody(request)) as Card;
        const token = `tok_${randomBytes(12).toString('hex')}`;
        cards.set(token, card);
        return send(response, 200, 'application/json', JSON.stringify({ token }));
      }
      const match = /^\/api\/cards\/([^/]+)$/.exec(url.pathname);
      if (request.method === 'GET' && match) {
        const card = cards.get(decodeURIComponent(match[1] ?? ''));
        return card ? send(response, 200, 'application/json', JSON.stringify(card)) : send(response, 404, 'application/json', '{}');
      }
      send(response, 404, 'text/plain', 'not found');
    })().catch((error: unknown) => send(response, 500, 'text/plain', String(error)));
  });

  const acs = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://acs.local');
      if (request.method === 'POST' && url.pathname === '/acs/challenge') {
        const form = new URLSearchParams(await readBody(request));
        let acsTransID = '';
        try {
          acsTransID =
            (JSON.parse(Buffer.from(form.get('creq') ?? '', 'base64url').toString('utf8')) as { acsTransID?: string }).acsTransID ?? '';
        } catch {
          // An unreadable creq is an unknown transaction.
        }
        const transaction = transactions.get(acsTransID);
        if (!transaction || transaction.finished)
          return send(
            response,
            200,
            'text/html; charset=utf-8',
            `<!doctype html><html><body>${style}<p id="acs-unknown">This verification is no longer valid.</p></body></html>`,
          );
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${style}<style>body{background:#fff;padding:16px}</style></head><body>
          <h2>Demo Bank · confirm your payment</h2><p class="muted">Enter the one-time code we sent to your phone ending in 0000 (demo code ${otp}).</p>
          <form method="post" action="/acs/verify"><input type="hidden" name="acsTransID" value="${escape(acsTransID)}">
          <label for="otp">One-time code</label><input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code">
          <button type="submit" id="otp-submit">Confirm</button></form></body></html>`,
        );
      }
      if (request.method === 'POST' && url.pathname === '/acs/verify') {
        const form = new URLSearchParams(await readBody(request));
        const transaction = transactions.get(form.get('acsTransID') ?? '');
        if (!transaction || transaction.finished)
          return send(response, 200, 'text/html; charset=utf-8', '<p id="acs-unknown">This verification is no longer valid.</p>');
        transaction.finished = true;
        const passed = form.get('otp') === transaction.otp;
        // The issuer tells the merchant's side server to server; the card holder's page only learns it is done.
        await fetch(transaction.notifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ orderId: transaction.orderId, transStatus: passed ? 'Y' : 'N' }),
        });
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          `<!doctype html><html><body>${style}<p id="acs-result">${passed ? 'Payment confirmed. You can return to the merchant.' : 'The code was not correct: the payment was not confirmed.'}</p></body></html>`,
        );
      }
      send(response, 404, 'text/plain', 'not found');
    })().catch((error: unknown) => send(response, 500, 'text/plain', String(error)));
  });

  engineUrl = await listen(engine, host);
  cardUrl = await listen(provider, host);
  acsUrl = await listen(acs, host);
  return {
    engineUrl,
    cardUrl,
    acsUrl,
    orders,
    searches,
    challengeHotels,
    otp,
    close: async () => {
      await Promise.all([closeServer(engine), closeServer(provider), closeServer(acs)]);
    },
  };
}
