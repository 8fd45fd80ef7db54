import { bookingPages } from '@quarry/demo';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type EngineAnswer = {
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

/**
 * A small booking engine on loopback: a search form, a results page rendered by script from an XHR,
 * and the availability endpoint behind it, answering per hotel with `answers(hotel, query)`.
 */
export async function startFixtureBookingEngine(
  answers: (hotel: string, query: URLSearchParams) => EngineAnswer,
): Promise<{ url: (path: string) => string; searches: URLSearchParams[]; pages: string[]; close: () => Promise<void> }> {
  // The demo engine's own pages: the demo is this fixture engine, served to newcomers.
  const page = (name: 'search.html' | 'results.html') => bookingPages[`/booking/${name}`];
  const searches: URLSearchParams[] = [];
  const pages: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://engine.local');
    pages.push(url.pathname);
    if (url.pathname.endsWith('/search.html'))
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('search.html'));
    if (url.pathname.endsWith('/results.html'))
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('results.html'));
    if (url.pathname === '/api/availability') {
      searches.push(url.searchParams);
      const answer = answers(url.searchParams.get('hotel') ?? '', url.searchParams);
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    searches,
    pages,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
