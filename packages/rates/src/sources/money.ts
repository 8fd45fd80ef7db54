import { currencyExponent, isCurrencyCode, type Price } from '@quarry/contracts';
import { SourceFailure } from './rate-source.ts';

/**
 * Converts a decimal amount as a source wrote it ("1234.50", "1,234.50", "12345" with
 * DecimalPlaces 2) into an integer of the currency's smallest unit, in exact string arithmetic:
 * floats would turn 0.29 into 28.999…, and rounding would invent a price. An amount more precise
 * than the currency allows is refused rather than rounded.
 */
export function toPrice(amount: string, currency: string, decimalPlaces?: number): Price {
  const code = currency.trim().toLowerCase();
  if (!isCurrencyCode(code)) throw new SourceFailure('InvalidResult', `currency ${currency} is not in the allowed list`);
  const exponent = currencyExponent(code);
  const text = amount.trim().replace(/[,\s]/g, '');
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new SourceFailure('InvalidResult', `amount "${amount}" is not a number`);
  const [, sign, whole = '', fraction = ''] = match;
  let digits: string;
  let scale: number;
  if (decimalPlaces !== undefined && fraction === '') {
    // OTA "implied decimals": 12345 with DecimalPlaces=2 is 123.45.
    digits = whole;
    scale = decimalPlaces;
  } else {
    digits = whole + fraction;
    scale = fraction.length;
  }
  if (scale > exponent) {
    const excess = digits.slice(digits.length - (scale - exponent));
    if (!/^0*$/.test(excess))
      throw new SourceFailure('InvalidResult', `amount ${amount} ${code} has more decimals than the currency (${exponent})`);
    digits = digits.slice(0, digits.length - (scale - exponent));
  } else {
    digits = digits + '0'.repeat(exponent - scale);
  }
  const value = Number(digits || '0');
  if (!Number.isSafeInteger(value)) throw new SourceFailure('InvalidResult', `amount ${amount} is out of range`);
  return { currencyCode: code, value: sign === '-' ? -value : value };
}

/** Reads a price as a booking page shows it ("¥12,000", "US$ 123.45", "123,45 €" is refused). */
export function priceFromText(text: string, currency: string): Price {
  const cleaned = text.replace(/[^\d.,-]/g, '');
  if (!/\d/.test(cleaned)) throw new SourceFailure('InvalidResult', `price "${text}" shows no amount`);
  if (/,\d{1,2}$/.test(cleaned) && !cleaned.includes('.')) throw new SourceFailure('InvalidResult', `ambiguous decimal comma in "${text}"`);
  return toPrice(cleaned, currency);
}
