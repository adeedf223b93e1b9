/**
 * Which of the viewer's languages a code block opens in. The block's own language wins when the viewer runs it
 * (Python) or previews it (HTML); otherwise the codeLanguage preference (the language the user last chose in the
 * viewer), which falls back to python (issue 8 item 5).
 */
import type { CodeLanguage } from '../protocol/preferences';

const ALIASES: Record<string, CodeLanguage> = {
  python: 'python',
  py: 'python',
  python3: 'python',
  py3: 'python',
  pycon: 'python',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  svg: 'html',
};

export function viewerLanguage(blockLanguage: string, preferred: CodeLanguage | undefined): CodeLanguage {
  return ALIASES[blockLanguage.trim().toLowerCase()] ?? preferred ?? 'python';
}

export const LANGUAGE_LABEL: Record<CodeLanguage, string> = { python: 'Python', html: 'HTML' };
