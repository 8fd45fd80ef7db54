import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { otaXmlParserOptions, text } from './ota-xml.ts';

const parse = (xml: string) => new XMLParser(otaXmlParserOptions).parse(xml) as Record<string, Record<string, unknown>>;

describe('otaXmlParserOptions', () => {
  it('decodes the built-in entities and no HTML entity', () => {
    const parsed = parse('<OTA_HotelResRS><Text>Tom &amp; Jerry &lt;3 &eacute;</Text></OTA_HotelResRS>');
    expect(text(parsed['OTA_HotelResRS']?.['Text'])).toBe('Tom & Jerry <3 &eacute;');
  });

  it('never expands an entity inside another, so nesting cannot multiply a message', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE OTA_HotelResRS [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<OTA_HotelResRS><Text>&lol3;</Text></OTA_HotelResRS>`;
    expect(text(parse(laughs)['OTA_HotelResRS']?.['Text'])).toBe('&lol3;');
  });

  it('refuses a message whose DOCTYPE declares an external entity', () => {
    const external = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY secret SYSTEM "file:///etc/passwd">]><r><Text>&secret;</Text></r>`;
    expect(() => parse(external)).toThrow(/External entities are not supported/);
  });

  it('keeps values as text and drops namespace prefixes', () => {
    const parsed = parse(
      '<ota:OTA_HotelAvailRS xmlns:ota="http://www.opentravel.org/OTA/2003/05"><ota:Rate Amount="0100.50"> 007 </ota:Rate></ota:OTA_HotelAvailRS>',
    );
    expect(parsed['OTA_HotelAvailRS']?.['Rate']).toEqual({ '@Amount': '0100.50', '#text': '007' });
  });
});
