import { CvvUnavailableError, PanTokenInvalidError, type CardDetails, type CardVault } from '@quarry/vault';

/**
 * Test cards behind v2-shaped tokens, for a stand-in of our own vault port in processes the tests
 * start: the token names the card, so the test and the worker process agree without sharing memory.
 * `cvvgone` is a card stored with a CVV that is no longer kept (its time ran out, Redis lost it).
 */
const cards: Record<string, CardDetails> = {
  visa: { pan: '4111111111111111', expiryMonth: 12, expiryYear: 2030, name: 'Ada Lovelace', cvv: '123' },
  mastercard: { pan: '5555555555554444', expiryMonth: 6, expiryYear: 2031, name: 'Grace Hopper', cvv: '456' },
  cvvgone: { pan: '4000056655665556', expiryMonth: 3, expiryYear: 2032, name: 'Mary Jackson', cvv: '789' },
};

let issued = 0;
/** A new token for a test card each call: the vault purges a card when its booking ends. */
export const testCardToken = (card: keyof typeof cards | 'unknown'): string =>
  `v2:${card}-${process.pid}x${(issued += 1)}x${Date.now()}`.padEnd(299, 'A');

/** The vault as a worker sees it; a token's CVV is read until an order spends it, as the real vault does. */
export function createTestCardVault(): CardVault & { purged: string[] } {
  const cvvSpent = new Set<string>();
  const purged: string[] = [];
  return {
    purged,
    isPanTokenShaped: (token) => /^v2:[A-Za-z0-9_-]{296}$/.test(token),
    async checkCard(token) {
      if (!cards[/^v2:([a-z]+)-/.exec(token)?.[1] ?? ''] || purged.includes(token)) throw new PanTokenInvalidError('unknown token');
    },
    async openCard(token) {
      const name = /^v2:([a-z]+)-/.exec(token)?.[1] ?? '';
      const card = cards[name];
      if (!card || purged.includes(token)) throw new PanTokenInvalidError('unknown token');
      if (name === 'cvvgone' || cvvSpent.has(token)) throw new CvvUnavailableError();
      return { ...card };
    },
    async holdCvv() {},
    async spendCvv(token) {
      cvvSpent.add(token);
    },
    async purgeCard(token) {
      purged.push(token);
    },
  };
}
