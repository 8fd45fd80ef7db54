/**
 * The demo's named test cards (Luhn-valid numbers in the test ranges card networks and payment
 * providers publish; no real card has them). Any other valid number books without a challenge.
 */
export const demoCards = {
  /** Challenged with 3-D Secure by the demo issuer (on the OpenTravel hotels and the booking page): enter `demoOtp`. */
  challenged: '4000000000003220',
  /** Refused by the demo OpenTravel hotels: "Unable to authorize – please enter alternate credit card". */
  declined: '4000000000000002',
} as const;

/** The one-time code the demo issuer accepts. */
export const demoOtp = '123456';
