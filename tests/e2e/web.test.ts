/**
 * Web search, URL scraping and starter suggestions in Chromium, end to end: a fake search server (SearXNG's API) and
 * a test host on loopback (reached through the scraper's in-process test allowance), with a canary that must see no
 * connection. Hostile search results and scraped pages render as inert text (the XSS corpus: img onerror, svg
 * onload, javascript: and data: links, iframes, meta refresh, CSS url()).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, startTestHost } from '../unit/web/helpers';
import { KEY, startFakeSearch, type FakeSearch } from '../unit/web/fake-search';
import { textReply } from '../unit/server/fake-upstream';
import { assistant, chooseModel, FREE_MODEL, modelPicker, openApp, send, slowReply, useStack, waitForModels } from './stack';

const XSS = [
  '<img src=x onerror="window.__pwned=\'img\'">',
  '<svg onload="window.__pwned=\'svg\'"></svg>',
  '<a href="javascript:window.__pwned=\'js\'">js link</a>',
  '<a href="data:text/html,<script>parent.__pwned=1</script>">data link</a>',
  '<iframe src="javascript:parent.__pwned=\'iframe\'"></iframe>',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=\'meta\'">',
  '<div style="background:url(javascript:window.__pwned=\'css\')">css</div>',
].join(' ');

let search: FakeSearch;
let host: Awaited<ReturnType<typeof startTestHost>>;
let canary: Awaited<ReturnType<typeof startCanary>>;
beforeAll(async () => {
  search = await startFakeSearch([
    { title: 'Sourdough basics', url: 'https://bread.example/basics', content: 'Feed your starter twice a day.' },
    { title: `Hostile ${XSS}`, url: 'https://oven.example/temps', content: `Bake hot. ${XSS}` },
    { title: 'Script URL', url: 'javascript:window.__pwned="result"', content: 'dropped by the gateway' },
  ]);
  host = await startTestHost({
    '/recipe': (_q, r) =>
      r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html><head><title>Rye recipe ${XSS}</title><meta http-equiv="refresh" content="0;url=javascript:window.__pwned='page'"></head>` +
          `<body><article><h1>Rye</h1><p>${'Rye bread wants a long, cool proof and a very hot oven. '.repeat(8)}</p><p>${XSS}</p></article></body></html>`,
      ),
    // Answers after a while: scrapes that are still in flight when the next one starts.
    '/later': (_q, r) => {
      setTimeout(() => r.writeHead(200, { 'content-type': 'text/plain' }).end('A page that took its time to answer.'), 2500);
    },
    '/quick': (_q, r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('A page that answered at once.'),
  });
  canary = await startCanary();
});
afterAll(async () => {
  await search.close();
  await host.close();
  await canary.close();
});

const getStack = useStack(() => ({
  // Linkup (by key), so the deep depth is offered; SearXNG and Brave are covered in tests/unit/web/search.test.ts.
  // flux-schnell is listed (its provider is never called here) so the image suggestions' model is in the catalogue.
  env: {
    PARLEY_LINKUP_API_KEY: KEY,
    PARLEY_LINKUP_URL: `${search.url}/v1`,
    PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'imgs', url: 'http://127.0.0.1:9/v1', models: ['other-image', 'flux-schnell'] }]),
  },
  scrapeTest: { allow: [{ address: '127.0.0.1', port: host.port }] },
}));

async function fund(page: Page): Promise<string> {
  const id = await page.evaluate(async () => ((await (await fetch('/auth/local-session')).json()) as { data: { id: string } }).data.id);
  await getStack().gateway.ledger.credit(id, { key: `fund:${id}`, usdMicro: 1_000_000n });
  return id;
}

/** Every alert, confirm or prompt the page opens (each dismissed): there must be none. */
function watchDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return dialogs;
}

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);

describe('web search and scraping in the browser', () => {
  it('web search on: the reply cites numbered sources linking to the pages, and the search is a ledger charge', async () => {
    getStack().upstream.setScript(textReply('Feed the starter daily [1]. Bake hot [2]. Unknown [7].'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    const dialogs = watchDialogs(page);
    const sessionId = await fund(page);
    await chooseModel(page, FREE_MODEL);
    const toggle = page.getByRole('switch', { name: 'Web search' });
    await page.locator('[role="switch"][aria-label="Web search"]:enabled').waitFor();
    await toggle.click();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await send(page, 'How do I keep a sourdough starter?');
    const reply = assistant(page).first();
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();

    expect(search.queries.at(-1)).toMatchObject({ api: 'linkup', q: 'How do I keep a sourdough starter?', depth: 'standard' });
    const c1 = reply.locator('a.citation', { hasText: '[1]' });
    expect(await c1.getAttribute('href')).toBe('https://bread.example/basics');
    expect(await reply.locator('a.citation', { hasText: '[2]' }).getAttribute('href')).toBe('https://oven.example/temps');
    expect(await reply.locator('a.citation').count()).toBe(2); // [7] has no source: left as text
    const sources = reply.getByRole('list', { name: 'Sources' });
    expect(await sources.getByRole('link').count()).toBe(2);
    expect(await sources.getByRole('link', { name: 'Sourdough basics' }).getAttribute('href')).toBe('https://bread.example/basics');

    // The model saw the sources, numbered, with the prompt; the request named the model with ':online'.
    const sent = getStack().upstream.requests.at(-1)?.body?.messages as { role: string; content: string }[];
    const last = sent.at(-1)?.content ?? '';
    expect(last).toContain('How do I keep a sourdough starter?');
    expect(last).toContain('[1] Sourdough basics\nhttps://bread.example/basics\nFeed your starter twice a day.');

    const entries = await getStack().gateway.db.query<{ applied_usd_micro: string; note: string }>(
      `SELECT applied_usd_micro::text AS applied_usd_micro, note FROM ledger_entries WHERE session_id = $1 AND kind = 'charge' AND note LIKE 'web-search%'`,
      [sessionId],
    );
    expect(entries).toEqual([{ applied_usd_micro: '6000', note: 'web-search standard linkup' }]);

    // Hostile titles and snippets are text: nothing ran, nothing became markup.
    // (The message's own action buttons carry icons: an svg inside a button is the app's, not the reply's.)
    expect(await reply.locator('img, svg:not(button *), iframe, script').count()).toBe(0);
    expect(await sources.textContent()).toContain('<img src=x onerror=');
    await page.waitForTimeout(300);
    expect(await pwned(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it('a message queued with web search on keeps it: the queue shows it, and it searches the web when it is sent', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await fund(page);
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(slowReply(60, 40, 'w'));
    await send(page, 'A long answer first');
    await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor({ timeout: 60_000 });
    const toggle = page.getByRole('switch', { name: 'Web search' });
    await page.locator('[role="switch"][aria-label="Web search"]:enabled').waitFor();
    await toggle.click();
    await send(page, 'Queued with a search');
    const queue = page.getByRole('list', { name: 'Queued messages' });
    await queue.getByRole('listitem').filter({ hasText: 'Queued with a search' }).getByText('Web search', { exact: true }).waitFor();
    const shots = process.env.PARLEY_E2E_SHOTS;
    if (shots) {
      await page.setViewportSize({ width: 1366, height: 850 });
      await page.screenshot({ path: `${shots}/queue-web-search-1366.png` });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(400);
      await page.screenshot({ path: `${shots}/queue-web-search-390.png` });
    }
    // Turning the switch off now does not change what was queued.
    await toggle.click();
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    getStack().upstream.setScript(textReply('Found it [1].'));
    await expect.poll(() => assistant(page).count(), { timeout: 30_000 }).toBe(2);
    await page.locator('article[data-role="assistant"][data-status="done"]').nth(1).waitFor({ timeout: 60_000 });
    expect(search.queries.at(-1)).toMatchObject({ api: 'linkup', q: 'Queued with a search' });
    await page.locator('article[data-role="user"]', { hasText: 'Queued with a search' }).getByText(/^Searched the web: \d+ sources?/).waitFor();
    expect(await assistant(page).nth(1).locator('a.citation', { hasText: '[1]' }).getAttribute('href')).toBe('https://bread.example/basics');
  });

  it('a pasted URL is offered, scraped into a chip that opens and can be removed, and its text reaches the model', async () => {
    getStack().upstream.setScript(textReply('Rye noted.'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await fund(page);
    await chooseModel(page, FREE_MODEL);
    const input = page.getByRole('textbox', { name: 'Message' });
    const url = `${host.url}/recipe`;
    await input.fill(`Summarise ${url} please`);
    const offer = page.getByRole('group', { name: 'Scrape links' });
    await offer.getByRole('button', { name: 'Scrape' }).click();
    const chips = page.getByRole('list', { name: 'Scraped pages' });
    const chip = chips.getByRole('button', { name: /^Rye recipe/ });
    await chip.waitFor();
    await expect.poll(() => offer.count()).toBe(0);

    await chip.click();
    const dialog = page.getByRole('dialog', { name: 'Scraped page' });
    await dialog.getByText('Rye bread wants a long, cool proof').first().waitFor();
    expect(await dialog.locator('img, svg, iframe, script, meta').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).click();

    await chips.getByRole('button', { name: /^Remove Rye recipe/ }).click();
    expect(await chips.count()).toBe(0);
    // Removed; another address is offered again.
    await input.fill(`Summarise ${url}?again=1 please`);
    await offer.getByRole('button', { name: 'Scrape' }).click();
    await chips.getByRole('button', { name: /^Rye recipe/ }).waitFor();
    await input.press('Enter');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const sent = getStack().upstream.requests.at(-1)?.body?.messages as { role: string; content: string }[];
    expect(sent.at(-1)?.content).toContain('Rye bread wants a long, cool proof and a very hot oven.');
    // The chip stays on the sent message, and the composer is clear for the next one.
    expect(await page.locator('article[data-role="user"]').getByRole('list', { name: 'Scraped pages' }).getByRole('button', { name: /^Rye recipe/ }).count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Scraped pages' }).count()).toBe(1);
    expect(await pwned(page)).toBeUndefined();
  });

  it('a private URL is refused with a clear message and nothing connects to it', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await fund(page);
    await page.getByRole('textbox', { name: 'Message' }).fill(`Read http://127.1:${canary.port}/admin`);
    await page.getByRole('group', { name: 'Scrape links' }).getByRole('button', { name: 'Scrape' }).click();
    const notices = page.getByRole('region', { name: 'Notifications' });
    await notices.getByText('Could not scrape the page').waitFor();
    expect(await notices.textContent()).toContain('This address is private or local, so it cannot be scraped');
    expect(canary.connections()).toBe(0);
  });

  it('shows starter suggestions on an empty conversation; choosing one fills the message', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const list = page.getByRole('region', { name: 'Suggestions' });
    await list.getByRole('listitem').first().waitFor();
    // No balance: 15 prompts, with one "Add balance" card, in the 3rd place.
    expect(await list.locator('li:not(.balance-card)').count()).toBe(15);
    expect(await list.getByRole('link', { name: /Add balance/ }).count()).toBe(1);
    expect(await list.locator('li').nth(2).getAttribute('class')).toContain('balance-card');
    const first = list.locator('li:not(.balance-card) button').first();
    const prompt = await first.getAttribute('title');
    await first.click();
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(prompt);
  });
  it('Web search stays on after a reload; "Search depth" picks deep, which is kept, sent and charged at the deep price', async () => {
    getStack().upstream.setScript(textReply('Deep answer [1].'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    const sessionId = await fund(page);
    await chooseModel(page, FREE_MODEL);
    const enabled = page.locator('[role="switch"][aria-label="Web search"]:enabled');
    await enabled.waitFor();
    expect(await page.getByRole('combobox', { name: 'Search depth' }).count()).toBe(0); // only while the switch is on
    await page.getByRole('switch', { name: 'Web search' }).click();
    const depth = page.getByRole('combobox', { name: 'Search depth' });
    expect(await depth.inputValue()).toBe('standard');
    expect(await depth.locator('option').allTextContents()).toEqual(['Standard ($0.006)', 'Deep ($0.06)']);
    await depth.selectOption('deep');
    await expect.poll(() => depth.inputValue()).toBe('deep');

    await page.reload();
    await waitForModels(page);
    await enabled.waitFor();
    await expect.poll(() => page.getByRole('switch', { name: 'Web search' }).getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => page.getByRole('combobox', { name: 'Search depth' }).inputValue()).toBe('deep');
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Dig deep into rye flour');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    expect(search.queries.at(-1)).toMatchObject({ api: 'linkup', q: 'Dig deep into rye flour', depth: 'deep' });
    expect(getStack().upstream.requests.at(-1)?.body?.model).toBe(FREE_MODEL); // the gateway strips ':online/linkup-deep'
    const entries = await getStack().gateway.db.query<{ applied_usd_micro: string; note: string }>(
      `SELECT applied_usd_micro::text AS applied_usd_micro, note FROM ledger_entries WHERE session_id = $1 AND kind = 'charge' AND note LIKE 'web-search%'`,
      [sessionId],
    );
    expect(entries).toEqual([{ applied_usd_micro: '60000', note: 'web-search deep linkup' }]);

    // Off is kept too.
    await page.getByRole('switch', { name: 'Web search' }).click();
    await page.reload();
    await waitForModels(page);
    await enabled.waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByRole('switch', { name: 'Web search' }).getAttribute('aria-checked')).toBe('false');
  });

  async function setScraping(page: Page, value: 'ask' | 'always' | 'never'): Promise<void> {
    await page.goto('/settings/web');
    const select = page.getByLabel('URL scraping');
    await select.selectOption(value);
    await page.reload();
    await expect.poll(() => page.getByLabel('URL scraping').inputValue()).toBe(value);
    await page.goto('/conversation/new');
    await waitForModels(page);
  }

  it("urlScrapingPreference 'always' scrapes a pasted URL without asking; 'never' neither offers nor scrapes", async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await fund(page);
    await setScraping(page, 'always');
    const input = page.getByRole('textbox', { name: 'Message' });
    const before = host.hits.get('/quick') ?? 0;
    await input.fill(`What does ${host.url}/quick?always=1 say?`);
    const chips = page.getByRole('list', { name: 'Scraped pages' });
    await chips.getByRole('listitem').first().waitFor();
    expect(await chips.getByRole('listitem').count()).toBe(1);
    expect(await page.getByRole('group', { name: 'Scrape links' }).count()).toBe(0);
    expect(host.hits.get('/quick')).toBe(before + 1);

    await setScraping(page, 'never');
    await page.getByRole('textbox', { name: 'Message' }).fill(`And ${host.url}/quick?never=1 then?`);
    await page.waitForTimeout(1500); // past the 0.6 s 'always' would wait
    expect(await page.getByRole('group', { name: 'Scrape links' }).count()).toBe(0);
    expect(await page.getByRole('list', { name: 'Scraped pages' }).count()).toBe(0);
    expect(host.hits.get('/quick')).toBe(before + 1);
  });

  it('"Not now" declines the offer: nothing is fetched, the URL is not offered again, a new one is', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await fund(page);
    const input = page.getByRole('textbox', { name: 'Message' });
    const before = host.hits.get('/quick') ?? 0;
    const declined = `${host.url}/quick?declined=1`;
    await input.fill(`Look at ${declined}`);
    const offer = page.getByRole('group', { name: 'Scrape links' });
    await offer.getByRole('button', { name: 'Not now' }).click();
    await expect.poll(() => offer.count()).toBe(0);
    await input.fill(`Look at ${declined} again, please`);
    await page.waitForTimeout(700);
    expect(await offer.count()).toBe(0);
    await input.fill(`Look at ${declined} and ${host.url}/quick?fresh=1`);
    await offer.waitFor();
    expect(await offer.textContent()).toContain('Read 127.0.0.1 for context?'); // one link offered: the new one
    expect(host.hits.get('/quick') ?? 0).toBe(before);
    expect(await page.getByRole('list', { name: 'Scraped pages' }).count()).toBe(0);
  });

  it('two scrapes at once stop at 25 URLs a message, with the notice', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await fund(page);
    const input = page.getByRole('textbox', { name: 'Message' });
    const offer = page.getByRole('group', { name: 'Scrape links' });
    await input.fill(Array.from({ length: 20 }, (_, i) => `${host.url}/later?n=${i}`).join(' '));
    await offer.getByRole('button', { name: 'Scrape' }).click();
    await page.getByRole('status').filter({ hasText: 'Scraping 20 pages' }).waitFor();
    // While those 20 load, 10 more: only 5 fit.
    await input.fill(Array.from({ length: 10 }, (_, i) => `${host.url}/quick?cap=${i}`).join(' '));
    await offer.getByText('Read these 10 links for context?').waitFor();
    await offer.getByRole('button', { name: 'Scrape' }).click();
    const notices = page.getByRole('region', { name: 'Notifications' });
    await notices.getByText('At most 25 URLs can be scraped for one message').waitFor();
    const chips = page.getByRole('list', { name: 'Scraped pages' }).getByRole('listitem');
    await expect.poll(() => chips.count(), { timeout: 60_000 }).toBe(25);
    await page.waitForTimeout(500);
    expect(await chips.count()).toBe(25);
    // The 5 left out are not offered again for this message.
    expect(await offer.count()).toBe(0);
  });

  it('an image suggestion picks its model and size; video suggestions fill the prompt in Video mode', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Image' }).check();
    await page.getByRole('group', { name: 'Image settings' }).waitFor();
    await chooseModel(page, 'other-image');
    // flux-schnell takes a width and a height (no resolution list): the suggestion's size goes there.
    const settings = page.getByRole('group', { name: 'Image settings' });
    expect(await settings.getByLabel('Width', { exact: true }).inputValue()).toBe('');
    const list = page.getByRole('region', { name: 'Suggestions' });
    const cards = list.locator('li:not(.balance-card) button');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(15);
    // Each image card names its category and resolution; pick one that is not square.
    const metas = await list.locator('li:not(.balance-card) .suggestion-meta').allTextContents();
    expect(metas).toHaveLength(15);
    for (const m of metas) expect(m).toMatch(/^[\w -]+ · \d{3,4}x\d{3,4}$/);
    const at = metas.findIndex((m) => !m.endsWith('1024x1024'));
    const resolution = (metas[at] ?? '').split(' · ')[1] ?? '';
    const card = cards.nth(at === -1 ? 0 : at);
    const prompt = await card.getAttribute('title');
    await card.click();
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(prompt);
    await expect.poll(() => modelPicker(page).getAttribute('data-value')).toBe('flux-schnell');
    const [width, height] = resolution.split('x');
    await expect.poll(() => settings.getByLabel('Width', { exact: true }).inputValue()).toBe(width);
    expect(await settings.getByLabel('Height', { exact: true }).inputValue()).toBe(height);
    expect(await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Image' }).isChecked()).toBe(true);

    await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Video' }).check();
    await page.getByRole('group', { name: 'Video settings' }).waitFor();
    await expect.poll(() => list.locator('li:not(.balance-card) .suggestion-meta').count()).toBe(0); // the video set
    await expect.poll(() => cards.count()).toBe(15);
    const video = cards.first();
    const videoPrompt = await video.getAttribute('title');
    expect(videoPrompt).not.toBe(prompt);
    await video.click();
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(videoPrompt);
    expect(await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Video' }).isChecked()).toBe(true);
  });

  it('the XSS corpus in a model reply: nothing runs, nothing navigates, nothing is requested', async () => {
    const port = canary.port;
    const reply = [
      XSS,
      `<iframe src="http://127.0.0.1:${port}/frame"></iframe>`,
      `<meta http-equiv="refresh" content="0;url=http://127.0.0.1:${port}/meta">`,
      `<div style="background:url(http://127.0.0.1:${port}/css)">css url</div>`,
      `<style>body { background: url(http://127.0.0.1:${port}/style) }</style>`,
      `<img src="http://127.0.0.1:${port}/img"> <svg><image href="http://127.0.0.1:${port}/svg-image"/></svg>`,
      `<object data="http://127.0.0.1:${port}/object"></object> <link rel="stylesheet" href="http://127.0.0.1:${port}/link">`,
      `<form action="http://127.0.0.1:${port}/form"><button>Send form</button></form>`,
      `[md js link](javascript:window.__pwned='md-js')`,
      '[md data link](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xPC9zY3JpcHQ+)',
      `![md image](http://127.0.0.1:${port}/md-image)`,
      'The end.',
    ].join('\n\n');
    getStack().upstream.setScript(textReply(reply, { chunkSize: 11 }));
    const context = await getStack().newContext();
    const page = await openApp(context);
    const dialogs = watchDialogs(page);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Reply with every trick you know');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const answer = assistant(page).first();
    await answer.getByText('The end.').waitFor();
    const url = page.url();
    await page.waitForTimeout(500);

    expect(await answer.locator('script, img, svg:not(button *), iframe, meta, style, object, link, form, embed').count()).toBe(0);
    // Links are http(s) only: one whose address was removed is plain text, not a link to the page itself.
    const hrefs = await answer.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual([`http://127.0.0.1:${port}/md-image`]); // the Markdown image, as a link (not fetched)
    expect(await answer.getByText('md js link', { exact: true }).evaluate((e) => e.tagName)).toBe('SPAN');
    // Clicking what looks like a link goes nowhere.
    for (const name of ['js link', 'data link', 'md js link', 'md data link']) {
      const link = answer.getByText(name, { exact: true });
      if ((await link.count()) > 0) await link.first().click({ timeout: 2000 }).catch(() => undefined);
    }
    await page.waitForTimeout(300);
    expect(page.url()).toBe(url);
    expect(context.pages()).toHaveLength(1);
    expect(await pwned(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(canary.connections()).toBe(0);
    expect(requested.filter((r) => r.includes(`:${port}`))).toEqual([]);
    // The markup is shown as text.
    expect(await answer.textContent()).toContain('<svg onload=');
  });
});
