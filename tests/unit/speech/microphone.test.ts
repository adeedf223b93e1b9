import { describe, expect, it } from 'vitest';
import { MICROPHONE_ADVICE, MicrophoneError, microphoneProblem } from '../../../src/ui/speech/microphone';

describe('a microphone that cannot be used (issue 16)', () => {
  it("reads getUserMedia's refusals and the Web Speech API's codes as blocked or missing", () => {
    expect(microphoneProblem(new DOMException('Permission denied', 'NotAllowedError'))).toBe('blocked');
    expect(microphoneProblem(new DOMException('Permission dismissed', 'SecurityError'))).toBe('blocked');
    expect(microphoneProblem('not-allowed')).toBe('blocked');
    expect(microphoneProblem('service-not-allowed')).toBe('blocked');
    expect(microphoneProblem(new DOMException('Requested device not found', 'NotFoundError'))).toBe('missing');
    expect(microphoneProblem(new DOMException('Could not start audio source', 'NotReadableError'))).toBe('missing');
    expect(microphoneProblem('audio-capture')).toBe('missing');
  });

  it('leaves other failures alone (they are reported as they are)', () => {
    expect(microphoneProblem('network')).toBeNull();
    expect(microphoneProblem(new Error('Transcription failed'))).toBeNull();
    expect(microphoneProblem(new DOMException('aborted', 'AbortError'))).toBeNull();
    expect(microphoneProblem(undefined)).toBeNull();
  });

  it('advises in plain words, one way for a blocked microphone and another for a missing one', () => {
    expect(MICROPHONE_ADVICE.blocked.text).toContain("Allow the microphone for this site in the browser's settings");
    expect(MICROPHONE_ADVICE.missing.title).toBe('No microphone found');
    expect(MICROPHONE_ADVICE.missing.text).not.toBe(MICROPHONE_ADVICE.blocked.text);
    const e = new MicrophoneError('blocked', 'not-allowed');
    expect(e.problem).toBe('blocked');
    expect(e.message).not.toMatch(/^Speech recognition failed/);
  });
});
