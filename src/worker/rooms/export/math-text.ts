/**
 * TeX math as Unicode text, for the PDF export (issue 16): jspdf draws text, not KaTeX's HTML, so a formula is
 * typeset as the characters a reader would write by hand: `x^2 + y^2` becomes `x² + y²`, `\frac{a+b}{2}` becomes
 * `(a + b)/2`, `\sqrt{x}` `√x`, `\alpha` `α`, `\sum_{k=1}^{n}` `∑ₖ₌₁ⁿ`. The TeX is parsed by KaTeX (the same parser
 * the view renders with), which prints MathML; that small, well-formed vocabulary (mi, mn, mo, msup, mfrac, ...) is
 * read back here into a tree and written out as text. Superscripts and subscripts use the Unicode script characters
 * when every character has one, else `^(...)` / `_(...)`. Only characters of the Basic Multilingual Plane come
 * out (the PDF's faces are drawn by UTF-16 unit): `\mathbb{R}` is `ℝ`, other styled letters are plain letters.
 * Pure; no DOM.
 */
import katex from 'katex';

interface MathNode {
  tag: string;
  attrs: Record<string, string>;
  children: MathChild[];
}
type MathChild = MathNode | string;

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITY[name.toLowerCase()] ?? whole;
  });
}

/** KaTeX's MathML markup (its own output, well-formed, attributes quoted) to a tree. Linear in the length. */
function readMarkup(markup: string): MathNode {
  const root: MathNode = { tag: '#root', attrs: {}, children: [] };
  const stack: MathNode[] = [root];
  const token = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  for (const m of markup.matchAll(token)) {
    const top = stack[stack.length - 1]!;
    if (m[5] !== undefined) {
      top.children.push(decode(m[5]));
      continue;
    }
    const tag = m[2]!.toLowerCase();
    if (m[1] === '/') {
      // Close up to the matching tag (KaTeX's output always matches; this only guards the stack).
      const at = stack.map((n) => n.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (m[3] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1]!] = decode(a[2]!);
    const node: MathNode = { tag, attrs, children: [] };
    top.children.push(node);
    if (m[4] !== '/') stack.push(node);
  }
  return root;
}

const SUPERSCRIPT: Record<string, string> = {
  '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
  '+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', n: 'ⁿ', i: 'ⁱ', '′': '′', '″': '″', '∗': '*', '*': '*',
  a: 'ᵃ', b: 'ᵇ', c: 'ᶜ', d: 'ᵈ', e: 'ᵉ', f: 'ᶠ', g: 'ᵍ', h: 'ʰ', j: 'ʲ', k: 'ᵏ', l: 'ˡ', m: 'ᵐ', o: 'ᵒ', p: 'ᵖ',
  r: 'ʳ', s: 'ˢ', t: 'ᵗ', u: 'ᵘ', v: 'ᵛ', w: 'ʷ', x: 'ˣ', y: 'ʸ', z: 'ᶻ', T: 'ᵀ',
};
const SUBSCRIPT: Record<string, string> = {
  '0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉',
  '+': '₊', '-': '₋', '−': '₋', '=': '₌', '(': '₍', ')': '₎',
  a: 'ₐ', e: 'ₑ', h: 'ₕ', i: 'ᵢ', j: 'ⱼ', k: 'ₖ', l: 'ₗ', m: 'ₘ', n: 'ₙ', o: 'ₒ', p: 'ₚ', r: 'ᵣ', s: 'ₛ', t: 'ₜ',
  u: 'ᵤ', v: 'ᵥ', x: 'ₓ',
};

/** Double-struck capitals with a letterlike character in the Basic Multilingual Plane. */
const DOUBLE_STRUCK: Record<string, string> = { C: 'ℂ', H: 'ℍ', N: 'ℕ', P: 'ℙ', Q: 'ℚ', R: 'ℝ', Z: 'ℤ' };

/** Operators written with a space either side (relations, binary operators, arrows). */
const SPACED = new Set('+−-=<>≤≥≠≈≡∼≃≅∝×·⋅÷±∓→←↔⇒⇐⇔↦∈∉⊂⊃⊆⊇∪∩∧∨≪≫⊕⊗∘≔'.split(''));
/** Large operators: a space after them and their limits. */
const LARGE = new Set('∑∏∐∫∬∭∮⋃⋂⋁⋀⨁⨂'.split(''));
/** Accents KaTeX writes as an `mo` over its base, as combining characters. */
const COMBINING: Record<string, string> = { '^': '\u0302', ˆ: '\u0302', ˉ: '\u0304', '¯': '\u0304', '~': '\u0303', '˜': '\u0303', '⃗': '\u20d7', '→': '\u20d7', '˙': '\u0307', '¨': '\u0308', 'ˇ': '\u030c', '˘': '\u0306', 'ˊ': '\u0301', 'ˋ': '\u0300' };

function textOf(node: MathChild): string {
  return typeof node === 'string' ? node : node.children.map(textOf).join('');
}

function elements(node: MathNode): MathNode[] {
  return node.children.filter((c): c is MathNode => typeof c !== 'string');
}

/** One character or one number: needs no parentheses around it as a fraction part or script. */
function atomic(text: string): boolean {
  return [...text].length <= 1 || /^[0-9.,]+$/.test(text) || /^[\p{L}][\u0300-\u036f\u20d0-\u20ff]*$/u.test(text);
}

function group(text: string): string {
  return atomic(text) || /^\(.*\)$/.test(text) ? text : `(${text})`;
}

function script(text: string, map: Record<string, string>, mark: '^' | '_'): string {
  const chars = [...text.replace(/\s+/g, '')];
  if (chars.length > 0 && chars.every((c) => map[c] !== undefined)) return chars.map((c) => map[c]).join('');
  return `${mark}${group(text.replace(/\s+/g, ' ').trim())}`;
}

/** Scripts right after their base; a space after a function name (`lim`, `sin`) moves after the scripts. */
function attach(base: string, scripts: string): string {
  const trimmed = base.trimEnd();
  return trimmed + scripts + (trimmed === base ? '' : ' ');
}

interface Ctx {
  /** Inside a superscript or subscript: no spaces around operators. */
  tight: boolean;
  display: boolean;
}

function render(node: MathChild, ctx: Ctx): string {
  if (typeof node === 'string') return node;
  const kids = elements(node);
  const kid = (i: number, c: Ctx = ctx) => (kids[i] ? render(kids[i], c) : '');
  const tight = { ...ctx, tight: true };
  switch (node.tag) {
    case 'annotation':
    case 'annotation-xml':
    case 'mphantom':
      return '';
    case 'mi': {
      const text = textOf(node);
      if (node.attrs.mathvariant === 'double-struck') return [...text].map((c) => DOUBLE_STRUCK[c] ?? c).join('');
      return text;
    }
    case 'mn':
    case 'mtext':
    case 'ms':
      return textOf(node);
    case 'mo': {
      // Function application and the other invisible operators: a space after `sin`, `lim`, nothing else.
      const text = textOf(node);
      return /^[\u2061]$/.test(text) ? ' ' : text.replace(/[\u2061-\u2064]/g, '');
    }
    case 'mspace': {
      const width = parseFloat(node.attrs.width ?? '0');
      return width >= 0.2 ? ' ' : '';
    }
    case 'msup':
      return attach(kid(0), script(kid(1, tight), SUPERSCRIPT, '^'));
    case 'msub':
      return attach(kid(0), script(kid(1, tight), SUBSCRIPT, '_'));
    case 'msubsup':
      return attach(kid(0), script(kid(1, tight), SUBSCRIPT, '_') + script(kid(2, tight), SUPERSCRIPT, '^'));
    case 'munder':
      return attach(kid(0), node.attrs.accentunder === 'true' ? '' : script(kid(1, tight), SUBSCRIPT, '_'));
    case 'munderover':
      return attach(kid(0), script(kid(1, tight), SUBSCRIPT, '_') + script(kid(2, tight), SUPERSCRIPT, '^'));
    case 'mover': {
      const base = kid(0);
      const over = kids[1] ? textOf(kids[1]) : '';
      if (node.attrs.accent === 'true') {
        const mark = COMBINING[over.trim()];
        return mark && [...base].length === 1 ? base + mark : base;
      }
      // \overset, \stackrel and limits over a large operator.
      return attach(base, script(kid(1, tight), SUPERSCRIPT, '^'));
    }
    case 'mfrac': {
      const num = kid(0);
      const den = kid(1);
      // \binom: a fraction without a bar, inside its parentheses.
      if (/^0(px|em|pt)?$/.test(node.attrs.linethickness ?? '')) return `${num} ${den}`;
      return `${group(num)}/${group(den)}`;
    }
    case 'msqrt': {
      const inner = kids.map((k) => render(k, ctx)).join('');
      return `√${group(inner)}`;
    }
    case 'mroot': {
      const index = kid(1, tight);
      const root = index === '3' ? '∛' : index === '4' ? '∜' : `${script(index, SUPERSCRIPT, '^')}√`;
      return `${root}${group(kid(0))}`;
    }
    case 'mtable': {
      const rows = kids.map((row) => elements(row).map((cell) => render(cell, ctx).trim()).join('  '));
      return rows.join(ctx.display ? '\n' : '; ');
    }
    case 'mrow':
    case 'mstyle':
    case 'mpadded':
    case 'menclose':
    case 'semantics':
    case 'math':
    case 'mtd':
    case 'mtr':
    case '#root':
    default:
      return row(node.children, ctx);
  }
}

/** A row of items: binary operators and relations get a space either side (not a leading sign, not in scripts). */
function row(children: readonly MathChild[], ctx: Ctx): string {
  let out = '';
  let previous: MathNode | null = null;
  for (const child of children) {
    if (typeof child === 'string') {
      out += child;
      continue;
    }
    const text = render(child, ctx);
    const op = child.tag === 'mo' ? text.trim() : '';
    const afterOperand = previous !== null && !(previous.tag === 'mo' && !LARGE.has(textOf(previous).trim()) && !/^[)\]}|⟩]$/.test(textOf(previous).trim()));
    if (!ctx.tight && SPACED.has(op) && afterOperand) out = `${out.replace(/ +$/, '')} ${op} `;
    else if (!ctx.tight && op === ',') out += ', ';
    else out += text;
    if (!ctx.tight && child.tag !== 'mo' && LARGE.has(textOf(elements(child)[0] ?? '').trim())) out += ' ';
    else if (!ctx.tight && child.tag === 'mo' && LARGE.has(op)) out += ' ';
    previous = child;
  }
  return out;
}

/**
 * The TeX of a `$...$` (inline) or `$$...$$` (display) formula as Unicode text, or null when KaTeX cannot parse it
 * (the caller then prints the TeX as written, as the view does). Display math may have several lines (aligned rows).
 */
export function mathText(tex: string, display: boolean): string | null {
  let markup: string;
  try {
    markup = katex.renderToString(tex, { displayMode: display, output: 'mathml', throwOnError: true });
  } catch {
    return null;
  }
  const text = render(readMarkup(markup), { tight: false, display })
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l !== '')
    .join('\n');
  return text === '' ? null : text;
}
