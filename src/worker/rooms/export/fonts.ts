/**
 * The PDF faces, in the browser: DejaVu Sans, Sans Bold and Sans Mono from the dejavu-fonts-ttf package (and Noto
 * Sans SC Regular from @expo-google-fonts/noto-sans-sc for CJK text), bundled
 * by Vite as assets of the app (hashed names, served by our own origin under the app's CSP) and fetched once per
 * engine when the first PDF is made. Loaded only through a dynamic import, so neither the fonts nor jspdf weigh
 * on the engine's start.
 */
import bodyUrl from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf?url';
import boldUrl from 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf?url';
import monoUrl from 'dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf?url';
import cjkUrl from '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf?url';
import type { PdfFonts } from './pdf';

async function fetchFont(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Font ${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

let loading: Promise<PdfFonts> | null = null;
let loadingCjk: Promise<ArrayBuffer> | null = null;

/**
 * The DejaVu faces, and Noto Sans SC (10 MB, also from our origin) only when `cjk` is asked for: a conversation
 * with Chinese or Japanese text (`needsCjkFace`). Others never fetch it.
 */
export async function loadPdfFonts(options: { cjk?: boolean } = {}): Promise<PdfFonts> {
  loading ??= Promise.all([fetchFont(bodyUrl), fetchFont(boldUrl), fetchFont(monoUrl)]).then(([body, bold, mono]) => ({ body, bold, mono }));
  // A failed fetch is not remembered: the next export tries again.
  loading.catch(() => (loading = null));
  if (!options.cjk) return loading;
  loadingCjk ??= fetchFont(cjkUrl);
  loadingCjk.catch(() => (loadingCjk = null));
  const [fonts, cjk] = await Promise.all([loading, loadingCjk]);
  return { ...fonts, cjk };
}
