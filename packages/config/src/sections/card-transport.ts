import { trueOrFalse, type VariablesOf } from './section.ts';

export const cardTransportVariables = {
  // Card data goes to hotels over https: only. This development allowance lets a hotel on a
  // loopback address (the tests', the demo's) take it over plain http:, and each such hotel is logged.
  ALLOW_LOOPBACK_HTTP_HOTELS: trueOrFalse.default('false'),
};

export const readCardTransport = (vars: VariablesOf<typeof cardTransportVariables>) => ({
  allowLoopbackHttpHotels: vars.ALLOW_LOOPBACK_HTTP_HOTELS === 'true',
});
