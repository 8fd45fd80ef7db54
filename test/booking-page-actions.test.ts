import {
  checkOnPage,
  clickOnPage,
  fillOnPage,
  frameOnPage,
  readFieldsOnPage,
  waitForAnyOnPage,
  waitForSelectorOnPage,
} from '@quarry/browser';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The booking engine drives a hotel's page with questions asked in the page and Chromium's own
 * keyboard and mouse, not Playwright's locators: these are the checks a locator's actions make
 * (visible, enabled, editable, steady, on top), in the headless shell the bookings worker runs.
 */
let browser: Browser;

// Two sites: the hotel's page, and a payment provider whose iframe has a renderer of its own (site isolation).
const pages: Record<string, string> = {
  'http://hotel.test/first': '<p id="first">first</p><script>setTimeout(() => { location.href = "/second"; }, 300)</script>',
  'http://hotel.test/second': '<p id="second" data-code=" A  1 ">second   page</p><p id="also">also</p>',
  'http://hotel.test/busy': '<p id="busy">busy</p><script>setTimeout(() => { for (;;) {} }, 100)</script>',
  'http://hotel.test/late-field': `<div id="slot"></div><script>
    window.typed = [];
    setTimeout(() => { document.getElementById('slot').innerHTML = '<input id="name" value="old" disabled>'; }, 200);
    setTimeout(() => { const input = document.getElementById('name'); input.disabled = false; input.addEventListener('input', (event) => typed.push(event.isTrusted)); }, 400);
  </script>`,
  'http://hotel.test/fields':
    '<input id="locked" readonly value="x"><input id="day" type="date"><input type="checkbox" id="terms"><input type="checkbox" id="stuck" onclick="return false">',
  'http://hotel.test/covered': `<button id="pay" onclick="clicks.push('pay')">Pay</button>
    <div id="overlay" onclick="clicks.push('overlay')" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>
    <script>window.clicks = []; setTimeout(() => document.getElementById('overlay').remove(), 500);</script>`,
  'http://hotel.test/banner': `<button id="pay" onclick="clicks.push('pay')">Pay</button><script>
    window.clicks = [];
    // A banner slides over the button as the pointer arrives, and goes again.
    addEventListener('mousemove', () => {
      if (document.getElementById('banner') || clicks.length) return;
      const banner = Object.assign(document.createElement('div'), { id: 'banner', onclick: () => clicks.push('banner') });
      banner.style.cssText = 'position:fixed;inset:0;background:#fc0';
      document.body.append(banner);
      setTimeout(() => banner.remove(), 300);
    }, { once: true });
  </script>`,
  'http://hotel.test/payment':
    '<iframe id="ads" src="http://hotel.test/second"></iframe><iframe id="card" src="http://pay.example/card"></iframe>',
  'http://hotel.test/twins':
    '<iframe id="first-card" src="http://pay.example/card"></iframe><iframe id="second-card" src="http://pay.example/card"></iframe>',
  'http://pay.example/card': '<input id="number"><input id="holder">',
};

async function withPage(work: (page: Page) => Promise<void>): Promise<void> {
  const context = await browser.newContext();
  try {
    await context.route(/\.(test|example)\//, (route) =>
      route.fulfill({ contentType: 'text/html', body: pages[route.request().url()] ?? '' }),
    );
    await work(await context.newPage());
  } finally {
    await context.close();
  }
}

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
    args: ['--no-sandbox', '--disable-gpu'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('waiting for and reading a booking page', () => {
  it('follows the page to its next document and says which selector matched first', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/first');
      expect(await waitForAnyOnPage(page, ['#missing', '#second'], 10_000)).toBe(1);
      expect(page.url()).toBe('http://hotel.test/second');
      expect(await waitForAnyOnPage(page, ['#also', '#second'], 1_000)).toBe(0);
    });
  });

  it('reads text and attributes with whitespace collapsed, null where nothing matches', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/second');
      const read = await readFieldsOnPage(page, [
        { selector: '#second' },
        { selector: '#second', attribute: 'data-code' },
        { selector: '#missing' },
        { selector: '#second', attribute: 'missing' },
      ]);
      expect(read).toEqual(['second page', 'A 1', null, null]);
    });
  });

  it('keeps its deadline when the page is busy in a script and answers nothing', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/busy');
      const started = Date.now();
      await expect(waitForSelectorOnPage(page, '#never', 1_500)).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(Date.now() - started).toBeLessThan(4_000);
    });
  });
});

describe('typing into and clicking a booking page', () => {
  it('types into a field once it is there and enabled, replacing its text, with trusted input events', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/late-field');
      await fillOnPage(page, '#name', 'Ada Lovelace', 5_000);
      expect(await page.inputValue('#name')).toBe('Ada Lovelace');
      expect(await page.evaluate('window.typed')).toEqual([true]);
    });
  });

  it('refuses a read-only field; sets a date input’s value as Playwright does', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/fields');
      await expect(fillOnPage(page, '#locked', 'y', 1_000)).rejects.toThrow(/read-only/);
      await fillOnPage(page, '#day', '2027-01-05', 1_000);
      expect(await page.inputValue('#day')).toBe('2027-01-05');
    });
  });

  it('waits while another element covers the button, and never clicks that one', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/covered');
      await expect(clickOnPage(page, '#pay', 200)).rejects.toThrow(/covered by another element/);
      await clickOnPage(page, '#pay', 5_000);
      expect(await page.evaluate('window.clicks')).toEqual(['pay']);
    });
  });

  it('refuses a click a banner took as the pointer arrived, and clicks again once it is gone', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/banner');
      await clickOnPage(page, '#pay', 5_000);
      expect(await page.evaluate('window.clicks')).toEqual(['pay']);
    });
  });

  it('checks a checkbox once, and says so when a click does not check it', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/fields');
      await checkOnPage(page, '#terms', 1_000);
      await checkOnPage(page, '#terms', 1_000);
      expect(await page.isChecked('#terms')).toBe(true);
      await expect(checkOnPage(page, '#stuck', 1_000)).rejects.toThrow(/did not check it/);
    });
  });

  it('types into the fields of a payment provider’s iframe on another site, found by its selector', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/payment');
      const card = await frameOnPage(page, 'iframe#card', 5_000);
      expect(card.url()).toBe('http://pay.example/card');
      await fillOnPage(card, '#number', '4111111111111111', 5_000);
      await fillOnPage(card, '#holder', 'Ada Lovelace', 5_000);
      expect([await card.inputValue('#number'), await card.inputValue('#holder')]).toEqual(['4111111111111111', 'Ada Lovelace']);
    });
  });

  it('tells apart two iframes of the same address by their element', async () => {
    await withPage(async (page) => {
      await page.goto('http://hotel.test/twins');
      const second = await frameOnPage(page, 'iframe#second-card', 5_000);
      expect(await (await second.frameElement()).getAttribute('id')).toBe('second-card');
    });
  });
});
