/**
 * Folders in the browser (spec 001 section 4): nested folders, "Move to folder" from a conversation's actions, a
 * bulk move of a selection, the active folder filter, and deleting the active folder resets the filter to all; a bulk
 * delete of a selection with one notice whose Undo brings them all back (issue 16).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseModel, FREE_MODEL, openApp, send, useStack } from './stack';

const getStack = useStack();

const list = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const folders = (page: Page) => page.getByRole('region', { name: 'Folders' });
const listed = (page: Page) => list(page).getByRole('link').allTextContents();

async function newConversation(page: Page, text: string): Promise<void> {
  await page.getByRole('link', { name: '+ New chat' }).click();
  await chooseModel(page, FREE_MODEL);
  await send(page, text);
  await list(page).getByRole('link', { name: text }).waitFor();
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
}

async function createFolder(page: Page, name: string, parent?: string): Promise<void> {
  if (parent) {
    await folders(page).getByRole('listitem').filter({ has: page.getByRole('button', { name: parent, exact: true }) }).getByRole('button', { name: 'Folder actions' }).click();
    await page.getByRole('menuitem', { name: 'New subfolder' }).click();
  } else {
    await folders(page).getByRole('button', { name: 'New folder' }).click();
  }
  const input = page.getByRole('textbox', { name: 'New folder name' });
  await input.fill(name);
  await input.press('Enter');
  await folders(page).getByRole('button', { name, exact: true }).waitFor();
}

async function moveTo(page: Page, conversation: string, folderPath: string): Promise<void> {
  await list(page).getByRole('listitem').filter({ hasText: conversation }).getByRole('button', { name: 'Conversation actions' }).click();
  await page.getByRole('menuitem', { name: 'Move to folder' }).click();
  await page.getByRole('dialog', { name: 'Move to folder' }).getByRole('button', { name: folderPath, exact: true }).click();
  await page.getByRole('dialog', { name: 'Move to folder' }).waitFor({ state: 'hidden' });
}

describe('folders', () => {
  it('nested folders, a move, a bulk move, the filter, and delete resets to all', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    for (const text of ['Alpha talk', 'Beta talk', 'Gamma talk', 'Delta talk']) await newConversation(page, text);

    await createFolder(page, 'Work');
    await createFolder(page, 'Reports', 'Work');
    // The new subfolder shows under its (now expanded) parent.
    expect(await folders(page).getByRole('button', { name: 'Collapse Work' }).getAttribute('aria-expanded')).toBe('true');

    await moveTo(page, 'Alpha talk', 'Work');
    // Bulk move: select two conversations and move them into the subfolder.
    await page.getByRole('button', { name: 'Select conversations' }).click();
    await page.getByRole('checkbox', { name: 'Select Beta talk' }).check();
    await page.getByRole('checkbox', { name: 'Select Gamma talk' }).check();
    await page.getByRole('button', { name: 'Move selected' }).click();
    await page.getByRole('dialog', { name: 'Move to folder' }).getByRole('button', { name: 'Work / Reports', exact: true }).click();
    await page.getByRole('checkbox', { name: 'Select Beta talk' }).waitFor({ state: 'detached' });

    // The filter: the subfolder shows its own; the parent shows itself and its subfolder's.
    await folders(page).getByRole('button', { name: 'Reports', exact: true }).click();
    await expect.poll(() => listed(page)).toEqual(['Gamma talk', 'Beta talk']);
    await folders(page).getByRole('button', { name: 'Work', exact: true }).click();
    await expect.poll(() => listed(page)).toEqual(['Gamma talk', 'Beta talk', 'Alpha talk']);
    expect(await folders(page).getByRole('button', { name: 'Work', exact: true }).getAttribute('aria-pressed')).toBe('true');
    // The count beside a folder counts what choosing it shows: Work's one and its subfolder's two.
    await expect.poll(() => folders(page).getByRole('button', { name: 'Work', exact: true }).locator('.folder-count').textContent()).toBe('3');
    expect(await folders(page).getByRole('button', { name: 'Work', exact: true }).getAttribute('title')).toBe('3 conversations');
    expect(await folders(page).getByRole('button', { name: 'Reports', exact: true }).locator('.folder-count').textContent()).toBe('2');

    // One folder per conversation: moving Alpha to Reports takes it out of Work itself.
    await moveTo(page, 'Alpha talk', 'Work / Reports');
    await folders(page).getByRole('button', { name: 'Reports', exact: true }).click();
    await expect.poll(() => listed(page)).toEqual(['Gamma talk', 'Beta talk', 'Alpha talk']);

    // Survives a reload (engine data).
    await page.reload();
    await folders(page).getByRole('button', { name: 'Work', exact: true }).waitFor();
    await folders(page).getByRole('button', { name: 'Work', exact: true }).click();
    await expect.poll(() => listed(page)).toEqual(['Gamma talk', 'Beta talk', 'Alpha talk']);

    // Deleting the active folder (with its subfolder): the filter goes back to all, every conversation stays.
    await folders(page).getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Work', exact: true }) }).first().getByRole('button', { name: 'Folder actions' }).first().click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await folders(page).getByRole('button', { name: 'Work', exact: true }).waitFor({ state: 'detached' });
    expect(await folders(page).getByRole('button', { name: 'Reports', exact: true }).count()).toBe(0);
    expect(await folders(page).getByRole('button', { name: 'All conversations' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => listed(page)).toEqual(['Delta talk', 'Gamma talk', 'Beta talk', 'Alpha talk']);
  });

  it('deletes a selection after a question, with one notice whose Undo brings them all back', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    for (const text of ['Keep talk', 'Drop one', 'Drop two']) await newConversation(page, text);
    await page.getByRole('button', { name: 'Select conversations' }).click();
    await page.getByRole('checkbox', { name: 'Select Drop one' }).check();
    await page.getByRole('checkbox', { name: 'Select Drop two' }).check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const question = page.getByRole('dialog', { name: 'Delete 2 conversations?' });
    await question.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => listed(page)).toEqual(['Keep talk']);
    const notice = page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({ hasText: 'Conversations deleted' });
    await expect.poll(() => notice.textContent()).toContain('2 conversations');
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => listed(page)).toEqual(['Drop two', 'Drop one', 'Keep talk']);
    await expect.poll(() => notice.count()).toBe(0);
  });

  it('rename a folder, and a second tab follows the moves', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await newConversation(page, 'Shared talk');
    await createFolder(page, 'Drafts');
    const other = await openApp(context);
    await moveTo(page, 'Shared talk', 'Drafts');
    await folders(page).getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Drafts', exact: true }) }).getByRole('button', { name: 'Folder actions' }).click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    await page.getByRole('textbox', { name: 'Folder name' }).fill('Final');
    await page.getByRole('textbox', { name: 'Folder name' }).press('Enter');
    await folders(other).getByRole('button', { name: 'Final', exact: true }).click();
    await expect.poll(() => listed(other)).toEqual(['Shared talk']);
  });

  it('two tabs on one engine: a move shows in the other; of two moves of one conversation the later wins in both; a folder deleted in one leaves the other\'s Move dialog', async () => {
    const context = await getStack().newContext();
    const a = await openApp(context);
    await newConversation(a, 'Contested talk');
    await createFolder(a, 'Left');
    await createFolder(a, 'Right');
    await createFolder(a, 'Gone');
    const b = await openApp(context);
    await folders(b).getByRole('button', { name: 'Gone', exact: true }).waitFor();
    const inFolder = async (page: Page, name: string) => {
      await folders(page).getByRole('button', { name, exact: true }).click();
      return listed(page);
    };
    // A move in tab A shows in tab B (the engine's live query is the spec's mapping version counter).
    await moveTo(a, 'Contested talk', 'Left');
    await expect.poll(() => inFolder(b, 'Left')).toEqual(['Contested talk']);
    // Tab B moves it elsewhere after A: the later move wins, in both tabs (one folder per conversation).
    await moveTo(b, 'Contested talk', 'Right');
    for (const page of [a, b]) {
      await expect.poll(() => inFolder(page, 'Right')).toEqual(['Contested talk']);
      await expect.poll(() => inFolder(page, 'Left')).toEqual([]);
    }
    // Tab B has the Move dialog open on 'Gone' when tab A deletes that folder: B's dialog no longer offers it.
    await folders(b).getByRole('button', { name: 'All conversations' }).click();
    await list(b).getByRole('listitem').filter({ hasText: 'Contested talk' }).getByRole('button', { name: 'Conversation actions' }).click();
    await b.getByRole('menuitem', { name: 'Move to folder' }).click();
    const dialog = b.getByRole('dialog', { name: 'Move to folder' });
    await dialog.getByRole('button', { name: 'Gone', exact: true }).waitFor();
    await folders(a).getByRole('listitem').filter({ has: a.getByRole('button', { name: 'Gone', exact: true }) }).getByRole('button', { name: 'Folder actions' }).click();
    await a.getByRole('menuitem', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Gone', exact: true }).waitFor({ state: 'detached' });
    expect(await dialog.getByRole('button', { name: 'Right', exact: true }).count()).toBe(1);
    await context.close();
  });
});
