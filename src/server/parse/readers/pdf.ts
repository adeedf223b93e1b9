/**
 * A PDF's text with pdf.js (eval off, no fonts loaded): each page's text in content order, then its filled form
 * fields and notes (src/protocol/pdf-annotations.ts). Light on purpose: a parse thread loads this (and pdf.js,
 * natively, in ../worker-boot.mjs) before the other readers, so the first PDF after a start does not wait for them.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { annotationText } from '../../../protocol/pdf-annotations';
import { readGuarded } from './extract';
import { ProtectedFileError } from './protection';

export async function pdfText(data: Uint8Array): Promise<string> {
  let doc;
  try {
    doc = await getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, enableXfa: false, verbosity: 0 }).promise;
  } catch (e) {
    // A PDF that needs a password to open (an owner password alone does not stop reading).
    if (e instanceof Error && e.name === 'PasswordException') throw new ProtectedFileError();
    throw e;
  }
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const text = content.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\n' : '') : '')).join('').trim();
    // Filled form fields and notes are not in the content stream (src/protocol/pdf-annotations.ts).
    const notes = annotationText(await page.getAnnotations());
    pages.push(notes ? `${text}\n${notes}`.trim() : text);
    page.cleanup();
  }
  await doc.destroy();
  return pages.join('\n\n');
}

/** A PDF's text as ./document.ts's extractText gives it (protection checked, failures in plain words, trimmed). */
export function extractPdf(data: Uint8Array): Promise<string> {
  return readGuarded(data, 'pdf', () => pdfText(data));
}
