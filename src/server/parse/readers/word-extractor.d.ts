/** Types of word-extractor (it ships none): the part ./document.ts uses. */
declare module 'word-extractor' {
  interface WordDocument {
    getBody(): string;
    getFootnotes(): string;
  }
  export default class WordExtractor {
    extract(input: Buffer | string): Promise<WordDocument>;
  }
}
