import type { BookingEngineRecipe as SearchRecipe, FieldRecipe, PageAddress } from '@quarry/rates';

/**
 * The checkout steps of an engine, as data. Selectors may hold `{room}` and `{rate}` (the engine's
 * own codes of our ids, CSS-escaped) and `{n}` (1 for the second guest, 2 for the third, …).
 */
export type CheckoutRecipe = {
  /**
   * The guest page of one room and rate opened by its address, for engines whose rate buttons are
   * plain links: the checkout then starts there instead of searching again (the price check just
   * searched, and the final-price page still says whether the rate is offered and at what price).
   * `path` is resolved against the hotel's booking page URL keeping its query; each of `params`
   * is set on it, with `{checkIn}`, `{checkOut}`, `{nights}`, `{guests}`, `{room}` and `{rate}`
   * (the engine's codes) replaced. `unavailable` is what a checkout page shows once the rate is sold.
   */
  entry?: PageAddress & { unavailable: string };
  /** On the results page: what opens the guest page of one room and rate (checkouts without `entry`). */
  selectRate: string;
  guest: {
    firstName: string;
    lastName: string;
    email: string;
    phone: string;
    /** A field the engine keeps with the reservation and can look it up by: our reference goes there. */
    reference: string;
    otherFirstName: string;
    otherLastName: string;
    submit: string;
  };
  payment: {
    /** The payment provider's iframe holding the card fields, when they are not on the page itself. */
    frame?: string;
    number: string;
    holder: string;
    /** Typed as MM/YY. */
    expiry: string;
    cvc: string;
    submit: string;
  };
  /** The final-price page: its price is read with `prices` (the results recipe's reading), right before the order button. */
  review: { ready: string; prices: SearchRecipe['results']; terms?: string; placeOrder: string };
  /** What the page shows after the order button (or after a 3-D Secure challenge). */
  outcome: {
    ready: string;
    confirmed: string;
    confirmationNumber: FieldRecipe;
    declined: string;
    priceChanged: string;
    cardInvalid: string;
    unavailable: string;
  };
  /** The engine's reservation lookup ("manage my booking"), resolved against the hotel's booking page URL and keeping its query. */
  lookup: {
    path: string;
    reference: string;
    submit: string;
    ready: string;
    notFound: string;
    status: FieldRecipe;
    confirmationNumber: FieldRecipe;
    statuses: { confirmed: string; pending: string; declined: string };
  };
};

/** An engine's pages as bookings drive them: rates' search and results recipe, and how a rate is booked (an engine without `checkout` cannot be booked). */
export type BookingPageRecipe = SearchRecipe & { checkout?: CheckoutRecipe };

/** The checkout of each booking engine, by the engine's name (`hotels.source.engine`). Adding an engine is adding data here, not code. */
export const checkoutRecipes: Record<string, CheckoutRecipe> = {
  // The engine the demo serves (packages/demo) and the booking-page tests use; also a template for real engines.
  'demo-ibe': {
    entry: {
      path: 'checkout',
      params: { checkin: '{checkIn}', nights: '{nights}', adults: '{guests}', room: '{room}', rate: '{rate}' },
      unavailable: '#sold-out',
    },
    selectRate: '.room[data-room-code="{room}"] .rate[data-rate-code="{rate}"] .rate-book',
    guest: {
      firstName: '#guest-first-name',
      lastName: '#guest-last-name',
      email: '#guest-email',
      phone: '#guest-phone',
      reference: '#guest-reference',
      otherFirstName: '#other-guest-{n}-first-name',
      otherLastName: '#other-guest-{n}-last-name',
      submit: '#guest-continue',
    },
    payment: {
      frame: 'iframe#card-frame',
      number: '#card-number',
      holder: '#card-holder',
      expiry: '#card-expiry',
      cvc: '#card-cvc',
      submit: '#payment-continue',
    },
    review: {
      ready: '#results, #sold-out',
      prices: {
        ready: '#results',
        noAvailability: '#sold-out',
        currency: { selector: '#results', attribute: 'data-currency' },
        room: '.room',
        roomId: { selector: ':scope', attribute: 'data-room-code' },
        roomName: { selector: '.room-name' },
        rate: '.rate',
        rateId: { selector: ':scope', attribute: 'data-rate-code' },
        rateName: { selector: '.rate-name' },
        baseTotal: { selector: '.rate-total' },
        charge: {
          selector: '.charge[data-kind]',
          name: { selector: '.charge-name' },
          amount: { selector: '.charge-amount' },
          kind: { selector: ':scope', attribute: 'data-kind' },
          code: { selector: ':scope', attribute: 'data-code' },
        },
      },
      terms: '#accept-terms',
      placeOrder: '#place-order',
    },
    outcome: {
      ready: '#confirmation, #payment-declined, #price-changed, #card-invalid, #sold-out',
      confirmed: '#confirmation',
      confirmationNumber: { selector: '#confirmation-number' },
      declined: '#payment-declined',
      priceChanged: '#price-changed',
      cardInvalid: '#card-invalid',
      unavailable: '#sold-out',
    },
    lookup: {
      path: 'manage',
      reference: '#lookup-reference',
      submit: '#lookup-submit',
      ready: '#reservation, #reservation-not-found',
      notFound: '#reservation-not-found',
      status: { selector: '#reservation', attribute: 'data-status' },
      confirmationNumber: { selector: '#reservation-number' },
      statuses: { confirmed: 'confirmed', pending: 'pending', declined: 'declined' },
    },
  },
};

/** Each engine's search and results recipe (from rates) with its checkout. */
export const bookingPageRecipes = (
  searches: Record<string, SearchRecipe>,
  checkouts: Record<string, CheckoutRecipe> = checkoutRecipes,
): Record<string, BookingPageRecipe> =>
  Object.fromEntries(
    Object.entries(searches).map(([engine, recipe]) => {
      const checkout = checkouts[engine];
      return [engine, checkout ? { ...recipe, checkout } : recipe];
    }),
  );
