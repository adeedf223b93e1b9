import { describe, expect, it } from 'vitest';
import { analyseFile } from '../../../src/worker/rooms/library/attachments/analyser';
import { CLIENT_FORMATS, SERVER_FORMATS, UPLOAD } from '../../../src/protocol/attachments';

const MB = 1024 * 1024;

describe('file analyser (spec 000 section 5)', () => {
  it.each([...CLIENT_FORMATS])('client-handled .%s under 10 MB is read in the browser, estimated time 1', (ext) => {
    const a = analyseFile({ name: `notes.${ext}`, size: 1000 });
    expect(a).toEqual({ extension: ext, isSupported: true, needsServerProcessing: false, recommendedProcessing: 'client', estimatedProcessingTime: 1, reasons: [] });
  });

  it.each([...SERVER_FORMATS])('complex format .%s needs the server', (ext) => {
    const a = analyseFile({ name: `report.${ext}`, size: 2000 });
    expect(a.isSupported).toBe(true);
    expect(a.needsServerProcessing).toBe(true);
    expect(a.recommendedProcessing).toBe('server');
    expect(a.estimatedProcessingTime).toBe(1);
    expect(a.reasons).toEqual([`complex format (.${ext})`]);
  });

  it('a client format over 10 MB goes to the server with estimated time 1.5; exactly 10 MB stays in the browser', () => {
    const big = analyseFile({ name: 'log.txt', size: 10 * MB + 1 });
    expect(big.needsServerProcessing).toBe(true);
    expect(big.recommendedProcessing).toBe('server');
    expect(big.estimatedProcessingTime).toBe(1.5);
    expect(big.reasons).toEqual(['larger than 10 MB']);
    const limit = analyseFile({ name: 'log.txt', size: 10 * MB });
    expect(limit.recommendedProcessing).toBe('client');
    expect(limit.estimatedProcessingTime).toBe(1);
  });

  it('a large complex file lists both reasons', () => {
    expect(analyseFile({ name: 'deck.pptx', size: 11 * MB }).reasons).toEqual(['larger than 10 MB', 'complex format (.pptx)']);
  });

  it('rejects unknown formats and names them in the notice', () => {
    const a = analyseFile({ name: 'tool.exe', size: 10 });
    expect(a.isSupported).toBe(false);
    expect(a.needsServerProcessing).toBe(false);
    expect(UPLOAD.unsupportedFile(a.reasons)).toBe('Unsupported file: unknown file format (.exe)');
    expect(analyseFile({ name: 'README', size: 10 }).reasons).toEqual(['unknown file format (no extension)']);
    expect(analyseFile({ name: 'image.svg', size: 10 }).isSupported).toBe(false);
  });

  it('the extension decides, case-insensitively, and a path in the name is ignored', () => {
    expect(analyseFile({ name: '../../etc/REPORT.PDF', size: 10 }).extension).toBe('pdf');
    expect(analyseFile({ name: 'C:\\temp\\x.Docx', size: 10 }).recommendedProcessing).toBe('server');
    expect(analyseFile({ name: 'archive.tar.7z', size: 10 }).extension).toBe('7z');
  });

  it('an empty file is rejected', () => {
    const a = analyseFile({ name: 'empty.txt', size: 0 });
    expect(a.isSupported).toBe(false);
    expect(UPLOAD.unsupportedFile(a.reasons)).toBe('Unsupported file: the file is empty');
  });
});
