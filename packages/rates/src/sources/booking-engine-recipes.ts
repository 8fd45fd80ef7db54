import type { FieldRecipe } from '@quarry/browser';

export type { FieldRecipe };

/**
 * Declarative recipes: how one booking engine's search form is filled and how its rooms and rates
 * read (its checkout, for bookings, is `@quarry/bookings`' checkout recipe). Adding an engine is adding data here, not code. Selectors are plain CSS, matched by the
 * page's own `querySelector` (Playwright's selector extensions are not understood); a field is read
 * from an element's text, or from `attribute` when given.
 */
/** A page of the engine by address: `path` resolved against the hotel's booking page URL (keeping its query), then each of `params` set. */
export type PageAddress = { path: string; params: Record<string, string> };

export type BookingEngineRecipe = {
  search: {
    /**
     * The results page's own address, for engines whose search form is a plain GET form (metasearch
     * links to most engines this way): the search opens it instead of filling the form, one page
     * load and the form's typing fewer. Resolved like `checkout.entry` (`path` against the booking
     * page URL keeping its query; `params` with `{checkIn}`, `{checkOut}`, `{nights}` and `{guests}`).
     */
    results?: PageAddress;
    checkIn: string;
    /** The engine asks for a length of stay (input or select) … */
    nights?: string;
    /** … or for a check-out date. */
    checkOut?: string;
    guests: string;
    submit: string;
  };
  results: {
    /** Present once results (rooms or a no-availability notice) are shown. */
    ready: string;
    noAvailability: string;
    /** The hotel is not (or no longer) on this engine. */
    hotelUnknown?: string;
    /** The engine refuses this number of adults. */
    adultsRefused?: string;
    currency: FieldRecipe;
    room: string;
    roomId: FieldRecipe;
    roomName: FieldRecipe;
    roomDescription?: FieldRecipe;
    roomOccupancy?: FieldRecipe;
    rate: string;
    rateId: FieldRecipe;
    rateName: FieldRecipe;
    /** The stay total before taxes and fees. */
    baseTotal: FieldRecipe;
    /** One element per tax or fee; `kind` reads "tax" or "fee", `code` our code when the engine gives one. */
    charge?: { selector: string; name: FieldRecipe; amount: FieldRecipe; kind: FieldRecipe; code?: FieldRecipe };
    /** Text of the cancellation policy: "non-refundable" or a free-cancellation deadline date (yyyy-MM-dd [HH:mm]). */
    cancellation?: FieldRecipe;
    mealPlan?: FieldRecipe;
    memberOnly?: FieldRecipe;
  };
};

export const bookingEngineRecipes: Record<string, BookingEngineRecipe> = {
  // The engine the demo serves (packages/demo) and the booking-page tests use; also a template for real engines.
  'demo-ibe': {
    search: {
      results: { path: 'results.html', params: { checkin: '{checkIn}', nights: '{nights}', adults: '{guests}' } },
      checkIn: '#search-checkin',
      nights: '#search-nights',
      guests: '#search-adults',
      submit: '#search-submit',
    },
    results: {
      ready: '#results, #no-availability, #hotel-unknown, #adults-refused',
      noAvailability: '#no-availability',
      hotelUnknown: '#hotel-unknown',
      adultsRefused: '#adults-refused',
      currency: { selector: '#results', attribute: 'data-currency' },
      room: '.room',
      roomId: { selector: ':scope', attribute: 'data-room-code' },
      roomName: { selector: '.room-name' },
      roomDescription: { selector: '.room-description' },
      roomOccupancy: { selector: ':scope', attribute: 'data-max-guests' },
      rate: '.rate',
      rateId: { selector: ':scope', attribute: 'data-rate-code' },
      rateName: { selector: '.rate-name' },
      baseTotal: { selector: '.rate-total' },
      charge: {
        selector: '.charge',
        name: { selector: '.charge-name' },
        amount: { selector: '.charge-amount' },
        kind: { selector: ':scope', attribute: 'data-kind' },
        code: { selector: ':scope', attribute: 'data-code' },
      },
      cancellation: { selector: '.rate-cancellation' },
      mealPlan: { selector: ':scope', attribute: 'data-meal' },
      memberOnly: { selector: ':scope', attribute: 'data-member' },
    },
  },
};
