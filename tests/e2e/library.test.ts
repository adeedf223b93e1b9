/**
 * Attachments and the library in Chromium: files added on the library page are read in the engine's file worker
 * (a 12-megapixel JPEG compressed under 3.5 MB with both notices, a transparent PNG kept PNG, a 30-page PDF and a
 * DOCX read with pdf.js and mammoth), hostile files refused with their notice, an upload that survives a reload,
 * and the page's search, paging and delete.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import * as UTIF from 'utif2';
import { makeDocx, makePdf } from '../unit/attachments/fixtures';
import { openApp, useStack } from './stack';

const getStack = useStack();

async function openLibrary(): Promise<Page> {
  const context = await getStack().newContext();
  const page = await openApp(context);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Library' }).click();
  await page.getByRole('heading', { name: 'Library' }).waitFor();
  return page;
}

const input = (page: Page) => page.getByLabel('Add files to the library');
const row = (page: Page, name: string) => page.getByRole('list', { name: 'Library files' }).getByRole('listitem').filter({ hasText: name });
const statusOf = (page: Page, name: string) => page.getByRole('status', { name: new RegExp(`^${name.replace('.', '\\.')}: `) });
const notices = (page: Page) => page.getByRole('region', { name: 'Notifications' });

/** Builds an image in the page (canvas) and hands it to the library's file input, as a user picking it would. */
async function addGeneratedImage(page: Page, spec: { name: string; width: number; height: number; type: 'image/jpeg' | 'image/png'; alpha: boolean }): Promise<number> {
  return page.evaluate(async ({ name, width, height, type, alpha }) => {
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
    const img = ctx.createImageData(width, height);
    let seed = 7;
    for (let i = 0; i < img.data.length; i += 4) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const p = i / 4;
      img.data[i] = (p % width) & 255;
      img.data[i + 1] = (seed >> 8) & 255;
      img.data[i + 2] = ((p / width) | 0) & 255;
      img.data[i + 3] = alpha ? (seed >> 16) & 255 : 255;
    }
    ctx.putImageData(img, 0, 0);
    const blob = await canvas.convertToBlob({ type, quality: 1 });
    const file = new File([blob], name, { type });
    const field = document.querySelector<HTMLInputElement>('input[aria-label="Add files to the library"]') as HTMLInputElement;
    const dt = new DataTransfer();
    dt.items.add(file);
    field.files = dt.files;
    field.dispatchEvent(new Event('change', { bubbles: true }));
    return file.size;
  }, spec);
}

describe('library and attachments in the browser', () => {
  it('compresses a 12-megapixel JPEG under 3.5 MB in the worker, with both notices', async () => {
    const page = await openLibrary();
    const size = await addGeneratedImage(page, { name: 'photo.jpg', width: 4000, height: 3000, type: 'image/jpeg', alpha: false });
    expect(size).toBeGreaterThan(3_670_016);
    await notices(page).getByRole('status').filter({ hasText: 'Compressing Image' }).waitFor();
    const done = notices(page).getByRole('status').filter({ hasText: 'Image Compressed Successfully' });
    await done.waitFor({ timeout: 90_000 });
    expect(await done.textContent()).toMatch(/\d+\.\d\d MB → \d+\.\d\d MB \(\d+% smaller\)/);
    await statusOf(page, 'photo.jpg').filter({ hasText: 'Ready' }).waitFor();
    const meta = await row(page, 'photo.jpg').textContent();
    const mb = Number(/JPEG · (\d+\.\d\d) MB/.exec(meta ?? '')?.[1]);
    expect(mb).toBeGreaterThan(0);
    expect(mb).toBeLessThanOrEqual(3.5);
    // The compressing notice is gone once done.
    await expect.poll(() => notices(page).getByText('Compressing Image').count()).toBe(0);
  });

  it('a PNG with real transparency stays PNG', async () => {
    const page = await openLibrary();
    const size = await addGeneratedImage(page, { name: 'clear.png', width: 1400, height: 1400, type: 'image/png', alpha: true });
    expect(size).toBeGreaterThan(3_670_016);
    await statusOf(page, 'clear.png').filter({ hasText: 'Ready' }).waitFor({ timeout: 90_000 });
    expect(await row(page, 'clear.png').textContent()).toContain('PNG · ');
  });

  it('an image of exactly 3,670,016 bytes passes unchanged; one byte more is compressed', async () => {
    const page = await openLibrary();
    // A real JPEG padded with trailing bytes (decoders ignore what follows the end marker) to an exact size.
    await page.evaluate(async () => {
      const canvas = new OffscreenCanvas(64, 64);
      (canvas.getContext('2d') as OffscreenCanvasRenderingContext2D).fillRect(0, 0, 64, 64);
      const jpeg = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg' })).arrayBuffer());
      const make = (size: number, name: string): File => {
        const bytes = new Uint8Array(size);
        bytes.set(jpeg);
        return new File([bytes], name, { type: 'image/jpeg' });
      };
      const field = document.querySelector<HTMLInputElement>('input[aria-label="Add files to the library"]') as HTMLInputElement;
      const dt = new DataTransfer();
      dt.items.add(make(3_670_016, 'exact.jpg'));
      dt.items.add(make(3_670_017, 'over.jpg'));
      field.files = dt.files;
      field.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await statusOf(page, 'exact.jpg').filter({ hasText: 'Ready' }).waitFor();
    await statusOf(page, 'over.jpg').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    expect(await row(page, 'exact.jpg').textContent()).toContain('JPEG · 3.50 MB');
    const over = await row(page, 'over.jpg').textContent();
    expect(over).toMatch(/JPEG · \d+\.\d KB/);
    await notices(page).getByRole('status').filter({ hasText: 'Image Compressed Successfully' }).waitFor();
  });

  it('a TIFF is decoded with UTIF and converted', async () => {
    const page = await openLibrary();
    const rgba = new Uint8Array(32 * 16 * 4).fill(200);
    for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
    const tiff = Buffer.from(UTIF.encodeImage(rgba, 32, 16));
    await input(page).setInputFiles({ name: 'scan.tiff', mimeType: 'image/tiff', buffer: tiff });
    await statusOf(page, 'scan.tiff').filter({ hasText: 'Ready' }).waitFor({ timeout: 30_000 });
    expect(await row(page, 'scan.tiff').textContent()).toContain('JPEG · ');
  });

  it('reads a 30-page PDF and a DOCX in the worker', async () => {
    const page = await openLibrary();
    await input(page).setInputFiles([
      { name: 'thirty.pdf', mimeType: 'application/pdf', buffer: Buffer.from(makePdf(30)) },
      { name: 'memo.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: Buffer.from(makeDocx(['Memo title', 'The launch is on Tuesday.'])) },
    ]);
    await statusOf(page, 'thirty.pdf').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await statusOf(page, 'memo.docx').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await row(page, 'thirty.pdf').getByText('Preview').click();
    expect(await row(page, 'thirty.pdf').locator('pre').textContent()).toContain('Page 1 of the test document.');
    await row(page, 'memo.docx').getByText('Preview').click();
    expect(await row(page, 'memo.docx').locator('pre').textContent()).toBe('Memo title\n\nThe launch is on Tuesday.');
  });

  it('refuses hostile files with their notice: an unknown type, an empty file, an SVG named .png', async () => {
    const page = await openLibrary();
    await input(page).setInputFiles({ name: 'tool.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') });
    await notices(page).getByRole('alert').filter({ hasText: 'Unsupported file: unknown file format (.exe)' }).waitFor();
    await input(page).setInputFiles({ name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) });
    await notices(page).getByRole('alert').filter({ hasText: 'Unsupported file: the file is empty' }).waitFor();
    await input(page).setInputFiles({ name: 'cat.png', mimeType: 'image/png', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>') });
    await notices(page).getByRole('alert').filter({ hasText: 'Supported image formats: JPG, PNG, WEBP, BMP, TIFF.' }).waitFor();
    expect(await page.getByText('No files yet.').count()).toBe(1);
  });

  it('an upload survives a reload: the next engine reads it from its stored file', async () => {
    const page = await openLibrary();
    await input(page).setInputFiles({ name: 'long.pdf', mimeType: 'application/pdf', buffer: Buffer.from(makePdf(60)) });
    await row(page, 'long.pdf').waitFor();
    await page.reload();
    await statusOf(page, 'long.pdf').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    // Ready for good: no late progress event takes it back.
    await page.waitForTimeout(1000);
    expect(await statusOf(page, 'long.pdf').textContent()).toBe('Ready');
  });

  it('searches by name, pages, and deletes', async () => {
    const page = await openLibrary();
    const files = Array.from({ length: 22 }, (_, i) => ({ name: `note-${String(i).padStart(2, '0')}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`Note number ${i}`) }));
    await input(page).setInputFiles(files);
    await expect.poll(() => page.getByText(/Page 1 of 2 \(22 files\)/).count(), { timeout: 30_000 }).toBe(1);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2 (22 files)').waitFor();
    expect(await page.getByRole('list', { name: 'Library files' }).getByRole('listitem').count()).toBe(2);
    await page.getByRole('searchbox', { name: 'Search library' }).fill('note-07');
    await expect.poll(() => page.getByRole('list', { name: 'Library files' }).getByRole('listitem').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete note-07.txt' }).click();
    await page.getByText('No file name contains "note-07".').waitFor();
  });
});
