/**
 * Web search, URL scraping and starter suggestions in Chromium, end to end: a fake search server (SearXNG's API) and
 * a test host on loopback (reached through the scraper's in-process test allowance), with a canary that must see no
 * connection. Hostile search results and scraped pages render as inert text (the XSS corpus: img onerror, svg
 * onload, javascript: and data: links, iframes, meta refresh, CSS url()).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, startTestHost } from '../unit/web/helpers';
import { startFakeSearch, type FakeSearch } from '../unit/web/fake-search';
import { textReply } from '../unit/server/fake-upstream';
import { assistant, chooseModel, FREE_MODEL, openApp, send, useStack } from './stack';

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
  });
  canary = await startCanary();
});
afterAll(async () => {
  await search.close();
  await host.close();
  await canary.close();
});

const getStack = useStack(() => ({
  env: { PARLEY_SEARXNG_URL: search.url },
  scrapeTest: { allow: [{ address: '127.0.0.1', port: host.port }] },
}));

async function fund(page: Page): Promise<string> {
  const id = await page.evaluate(async () => ((await (await fetch('/auth/local-session')).json()) as { data: { id: string } }).data.id);
  await getStack().gateway.ledger.credit(id, { key: `fund:${id}`, usdMicro: 1_000_000n });
  return id;
}

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);

describe('web search and scraping in the browser', () => {
  it('web search on: the reply cites numbered sources linking to the pages, and the search is a ledger charge', async () => {
    getStack().upstream.setScript(textReply('Feed the starter daily [1]. Bake hot [2]. Unknown [7].'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const sessionId = await fund(page);
    await chooseModel(page, FREE_MODEL);
    const toggle = page.getByRole('switch', { name: 'Web search' });
    await page.locator('[role="switch"][aria-label="Web search"]:enabled').waitFor();
    await toggle.click();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await send(page, 'How do I keep a sourdough starter?');
    const reply = assistant(page).first();
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();

    expect(search.queries.at(-1)).toMatchObject({ api: 'searxng', q: 'How do I keep a sourdough starter?' });
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
    expect(entries).toEqual([{ applied_usd_micro: '6000', note: 'web-search standard searxng' }]);

    // Hostile titles and snippets are text: nothing ran, nothing became markup.
    expect(await reply.locator('img, svg, iframe, script').count()).toBe(0);
    expect(await sources.textContent()).toContain('<img src=x onerror=');
    await page.waitForTimeout(300);
    expect(await pwned(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
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
    // No balance: 15 prompts, with an "Add balance" card in every 3rd place.
    expect(await list.locator('li:not(.balance-card)').count()).toBe(15);
    expect(await list.getByRole('link', { name: /Add balance/ }).count()).toBeGreaterThanOrEqual(5);
    const first = list.locator('li:not(.balance-card) button').first();
    const prompt = await first.getAttribute('title');
    await first.click();
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(prompt);
  });
});
