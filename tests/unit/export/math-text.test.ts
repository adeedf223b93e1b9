import { describe, expect, it } from 'vitest';
import { mathText } from '../../../src/worker/rooms/export/math-text';

describe('TeX math as Unicode text (PDF export, issue 16)', () => {
  it('writes scripts with the Unicode script characters and operators with spaces', () => {
    expect(mathText('x^2 + y^2 = z^2', false)).toBe('x² + y² = z²');
    expect(mathText('f(x) = -x^{2} + 3x - 1', false)).toBe('f(x) = −x² + 3x − 1');
    expect(mathText('a_{ij} + x_{n+1}', false)).toBe('aᵢⱼ + xₙ₊₁');
    expect(mathText('\\int_0^\\infty e^{-x}\\,dx', false)).toBe('∫₀^∞ e⁻ˣ dx');
  });

  it('falls back to ^(...) and _(...) where a script character is missing', () => {
    expect(mathText('e^{i\\pi}', false)).toBe('e^(iπ)');
    expect(mathText('\\lim_{x\\to 0} \\frac{\\sin x}{x} = 1', true)).toBe('lim_(x→0) (sin x)/x = 1');
  });

  it('writes fractions, roots, Greek letters, accents and blackboard letters', () => {
    expect(mathText('\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}', true)).toBe('∑ₖ₌₁ⁿ k = (n(n + 1))/2');
    expect(mathText('\\frac{a+b}{2}', false)).toBe('(a + b)/2');
    expect(mathText('\\sqrt{a^2+b^2} \\le \\sqrt[3]{x}', false)).toBe('√(a² + b²) ≤ ∛x');
    expect(mathText('\\alpha \\beta \\Omega', false)).toBe('αβΩ');
    expect(mathText('\\hat{x} \\in \\mathbb{R}^n', false)).toBe('x̂ ∈ ℝⁿ');
  });

  it('puts the rows of a display formula on lines of their own', () => {
    expect(mathText('\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}', true)).toBe('a = b\nc = d');
    expect(mathText('\\begin{pmatrix}a&b\\\\c&d\\end{pmatrix}', false)).toBe('(a b; c d)');
  });

  it('gives null for TeX KaTeX cannot parse (the export then prints it as written)', () => {
    expect(mathText('\\frac{1}{', false)).toBeNull();
    expect(mathText('', true)).toBeNull();
  });

  it('keeps KaTeX-escaped characters as themselves, never as markup', () => {
    expect(mathText('a < b > c \\& d', false)).toBe('a < b > c&d');
    expect(mathText('\\text{<script>}', false)).toBe('<script>');
  });
});
