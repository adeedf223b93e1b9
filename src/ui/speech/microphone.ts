/** A microphone that cannot be used, in plain words (issue 16). Pure: no DOM access beyond the error's name. */

/**
 * The microphone cannot be used (issue 16): 'blocked' = the browser (or the user) refused it for this site;
 * 'missing' = there is none, or none that works. Voice mode then gives plain advice and Retry, never the raw
 * browser error; the typed conversation goes on.
 */
export type MicrophoneProblem = 'blocked' | 'missing';

export const MICROPHONE_ADVICE: Record<MicrophoneProblem, { title: string; text: string }> = {
  blocked: { title: 'The microphone is blocked', text: "Allow the microphone for this site in the browser's settings, then press Retry." },
  missing: { title: 'No microphone found', text: 'Connect a microphone (or turn it on in your system’s sound settings), then press Retry.' },
};

/** The microphone could not be opened; `problem` says why in plain words (MICROPHONE_ADVICE). */
export class MicrophoneError extends Error {
  constructor(readonly problem: MicrophoneProblem, cause: string) {
    super(`${MICROPHONE_ADVICE[problem].title} (${cause})`);
    this.name = 'MicrophoneError';
  }
}

/**
 * What a failure to open the microphone means: getUserMedia's DOMException names, or the Web Speech API's error
 * codes. null = some other failure (a network or service error), reported as it is.
 */
export function microphoneProblem(error: unknown): MicrophoneProblem | null {
  const name = typeof error === 'string' ? error : error instanceof Error || error instanceof DOMException ? error.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
    case 'SecurityError':
    case 'not-allowed':
    case 'service-not-allowed':
      return 'blocked';
    case 'NotFoundError':
    case 'DevicesNotFoundError':
    case 'OverconstrainedError':
    case 'NotReadableError':
    case 'TrackStartError':
    case 'audio-capture':
      return 'missing';
    default:
      return null;
  }
}
