/**
 * Recovery revokes, in Chromium (issue 15 item 9): an owner and a thief in two browser profiles. The thief enters
 * the owner's leaked recovery code and sees the balance; the owner makes a new code (after a confirmation), or
 * signs the other browsers out: the thief's next request is refused as signed out, its wallet says so plainly and
 * shows a new, empty session, nothing breaks; the owner stays signed in with the balance.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SIGNED_OUT } from '../../src/protocol/api';
import { ACCOUNT_TEXT } from '../../src/protocol/money-text';
import { useStack } from './stack';

const getStack = useStack();

const balance = (page: Page) => page.getByRole('region', { name: 'Balance', exact: true });
const notices = (page: Page) => page.getByRole('region', { name: 'Notifications' });

async function sessionId(context: BrowserContext): Promise<string> {
  const r = await context.request.get('/auth/local-session');
  return ((await r.json()) as { data: { id: string } }).data.id;
}

/** The wallet page, once the session's balance shows; page errors fail the test. */
async function openWallet(context: BrowserContext, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/wallet/recovery');
  await balance(page).getByText('$').waitFor();
  return page;
}

/** "Refresh balance" is on the Wallet's Overview; back to the Recovery code section after it unless told to stay. */
async function refreshBalance(page: Page, stay = false): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Wallet sections' });
  await nav.getByRole('link', { name: 'Overview', exact: true }).click();
  await page.getByRole('button', { name: 'Refresh balance' }).click();
  if (stay) return;
  await nav.getByRole('link', { name: 'Recovery code', exact: true }).click();
  await page.getByRole('heading', { name: 'Recovery code', level: 2 }).waitFor();
}

async function shownCode(page: Page): Promise<string> {
  const code = (await page.getByLabel('Your recovery code').textContent()) ?? '';
  expect(code).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
  return code;
}

/** A thief's profile that enters the code and sees the owner's balance. */
async function thiefWith(code: string, errors: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await getStack().newContext();
  const page = await openWallet(context, errors);
  await page.getByRole('textbox', { name: 'Restore a session with its recovery code' }).fill(code);
  await page.getByRole('button', { name: 'Restore session' }).click();
  await expect.poll(() => balance(page).textContent()).toContain('$6.50');
  return { context, page };
}

/** The thief after the owner acted: refused at the next request, then told, with a new empty session. */
async function expectSignedOut(thief: { context: BrowserContext; page: Page }, ownerId: string): Promise<void> {
  const refused = await thief.context.request.get('/api/invitations');
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { error: string }).error).toBe(SIGNED_OUT);
  await refreshBalance(thief.page, true);
  const notice = notices(thief.page).getByRole('status').filter({ hasText: ACCOUNT_TEXT.signedOutTitle });
  await notice.getByText(ACCOUNT_TEXT.signedOutText).waitFor();
  await notice.getByRole('button', { name: 'Go to wallet' }).waitFor();
  await expect.poll(() => balance(thief.page).textContent()).toContain('$0.00');
  const figures = thief.page.locator('.wallet-figures');
  await figures.getByText('$0.00', { exact: true }).waitFor();
  expect(await figures.textContent()).not.toContain('6.50');
  expect(await sessionId(thief.context)).not.toBe(ownerId);
}

describe('recovery revokes, in two browser profiles', () => {
  it('a new recovery code (confirmed) signs out the thief who used the leaked one; the owner keeps the session', async () => {
    const errors: string[] = [];
    const ownerContext = await getStack().newContext();
    const owner = await openWallet(ownerContext, errors);
    const ownerId = await sessionId(ownerContext);
    await getStack().gateway.ledger.credit(ownerId, { key: `e2e-signout-${ownerId}`, usdMicro: 6_500_000n });
    await refreshBalance(owner);
    await owner.getByRole('button', { name: 'Create recovery code' }).click();
    const leaked = await shownCode(owner);
    await owner.getByRole('button', { name: 'I saved it' }).click();

    const thief = await thiefWith(leaked, errors);

    // The owner makes a new code: asked first, in plain words; Cancel changes nothing.
    await owner.getByRole('button', { name: 'Create a new recovery code' }).click();
    const ask = owner.getByRole('dialog', { name: 'Create a new recovery code?' });
    await ask.getByText('every other browser that has this session is signed out', { exact: false }).waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect((await thief.context.request.get('/api/invitations')).status()).toBe(200);
    await owner.getByRole('button', { name: 'Create a new recovery code' }).click();
    await ask.getByRole('button', { name: 'Create a new code' }).click();
    expect(await shownCode(owner)).not.toBe(leaked);

    await expectSignedOut(thief, ownerId);
    // The owner is still signed in, with the balance.
    await refreshBalance(owner);
    await expect.poll(() => balance(owner).textContent()).toContain('$6.50');
    expect(await sessionId(ownerContext)).toBe(ownerId);
    expect(errors).toEqual([]);
  });

  it('"Sign out other browsers" (confirmed) signs out the thief; the code keeps working for the owner', async () => {
    const errors: string[] = [];
    const ownerContext = await getStack().newContext();
    const owner = await openWallet(ownerContext, errors);
    const ownerId = await sessionId(ownerContext);
    await getStack().gateway.ledger.credit(ownerId, { key: `e2e-signout-${ownerId}`, usdMicro: 6_500_000n });
    await owner.getByRole('button', { name: 'Create recovery code' }).click();
    const code = await shownCode(owner);
    await owner.getByRole('button', { name: 'I saved it' }).click();
    const thief = await thiefWith(code, errors);

    await owner.getByRole('button', { name: 'Sign out other browsers' }).click();
    const ask = owner.getByRole('dialog', { name: 'Sign out other browsers?' });
    await ask.getByText('Your recovery code keeps working', { exact: false }).waitFor();
    await ask.getByRole('button', { name: 'Sign out other browsers' }).click();
    await owner.getByText('Other browsers are signed out. This browser stays signed in.').waitFor();
    await notices(owner).getByText(ACCOUNT_TEXT.othersSignedOutTitle).waitFor();

    await expectSignedOut(thief, ownerId);
    await refreshBalance(owner);
    await expect.poll(() => balance(owner).textContent()).toContain('$6.50');
    expect(await sessionId(ownerContext)).toBe(ownerId);
    expect(errors).toEqual([]);
  });
});
