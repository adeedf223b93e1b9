/**
 * The text a PDF page holds outside its content stream, as pdf.js's `page.getAnnotations()` reports it: the values
 * of filled form fields (text fields, choices) and the text of annotations (notes, free text, comments), in reading
 * order (top to bottom, then left to right). Shared by the gateway's and the browser's PDF readers, so both give the
 * same text. Check boxes, radio buttons and push buttons carry no text of their own.
 */
interface AnnotationLike {
  rect?: unknown;
  fieldType?: unknown;
  fieldValue?: unknown;
  checkBox?: unknown;
  radioButton?: unknown;
  pushButton?: unknown;
  contentsObj?: unknown;
  contents?: unknown;
}

function valueText(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string').join(', ').trim();
  return '';
}

/** The annotations' text, one per line (empty when there is none). */
export function annotationText(annotations: readonly unknown[]): string {
  const found: { top: number; left: number; text: string }[] = [];
  for (const raw of annotations) {
    if (typeof raw !== 'object' || raw === null) continue;
    const a = raw as AnnotationLike;
    let text = '';
    if (a.fieldType !== undefined) {
      if (a.checkBox === true || a.radioButton === true || a.pushButton === true) continue;
      text = valueText(a.fieldValue);
    } else {
      const c = a.contentsObj;
      text = typeof c === 'object' && c !== null && 'str' in c ? valueText((c as { str: unknown }).str) : valueText(a.contents);
    }
    if (text === '') continue;
    const r = Array.isArray(a.rect) ? (a.rect as unknown[]).map((n) => (typeof n === 'number' ? n : 0)) : [0, 0, 0, 0];
    found.push({ top: Math.max(r[1] ?? 0, r[3] ?? 0), left: Math.min(r[0] ?? 0, r[2] ?? 0), text });
  }
  found.sort((x, y) => y.top - x.top || x.left - y.left);
  return found.map((f) => f.text).join('\n');
}
