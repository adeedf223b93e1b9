/** Types of word-extractor (it ships none): the part ./extract.ts uses. */
declare module 'word-extractor' {
  interface WordDocument {
    getBody(): string;
    getFootnotes(): string;
  }
  export default class WordExtractor {
    extract(input: Buffer | string): Promise<WordDocument>;
  }
}
