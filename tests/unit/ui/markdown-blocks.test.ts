import { describe, expect, it } from 'vitest';
import { splitBlocks } from '../../../src/ui/components/markdown-blocks';

describe('splitBlocks (streaming Markdown is re-parsed only from its last block)', () => {
  it('splits at blank lines', () => {
    expect(splitBlocks('One.\n\nTwo **b**.\n\n- a\n- b')).toEqual(['One.', 'Two **b**.', '- a\n- b']);
  });

  it('keeps a fenced code block whole, blank lines and all, until its closing fence', () => {
    const code = '```py\nx = 1\n\n\ny = 2\n```';
    expect(splitBlocks(`Intro\n\n${code}\n\nAfter`)).toEqual(['Intro', code, 'After']);
    // Still open (streaming): everything after the fence stays in it.
    expect(splitBlocks('Intro\n\n~~~\na\n\nb')).toEqual(['Intro', '~~~\na\n\nb']);
    // A shorter or different fence does not close it.
    expect(splitBlocks('````\n```\n\nstill code\n````\n\nnext')).toEqual(['````\n```\n\nstill code\n````', 'next']);
  });

  it('keeps a $$ math block whole; one-line $$x$$ opens nothing', () => {
    expect(splitBlocks('$$\na\n\nb\n$$\n\nText')).toEqual(['$$\na\n\nb\n$$', 'Text']);
    expect(splitBlocks('$$x$$\n\nText')).toEqual(['$$x$$', 'Text']);
  });

  it('does not split before an indented line (a list item continued, indented code)', () => {
    expect(splitBlocks('- item\n\n  more of the item\n\nNext')).toEqual(['- item\n\n  more of the item', 'Next']);
    expect(splitBlocks('Intro\n\n    code\n\nNext')).toEqual(['Intro\n\n    code', 'Next']);
  });

  it('splits before a paragraph that starts with one space (streamed tokens often do): it continues nothing', () => {
    expect(splitBlocks('- item\n\n word and more\n\n another')).toEqual(['- item', ' word and more', ' another']);
  });

  it('joined back, the blocks are the text (nothing lost)', () => {
    const text = 'a\n\n\n\nb\n\n```\nc\n\nd\n```\n\n  e\n\nf\n';
    const blocks = splitBlocks(text);
    expect(blocks.join('\n').replace(/\n+/g, '\n').trim()).toBe(text.replace(/\n+/g, '\n').trim());
  });
});
