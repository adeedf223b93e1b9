/** The engine's client of the gateway calls used so far. Runs in the engine worker (same origin, cookie session). */
import type {
  ConversationSummaryRequest,
  ConversationSummaryResponse,
  ErrorBody,
  LocalSessionResponse,
  ModelsResponse,
  StreamGptRequest,
} from '../../protocol/api';
import type { TalkToGptMultiRequest } from '../../protocol/multi';
import type { CancelVideoRequest, GenerateImageRequest, GenerateImageResponse, GenerateVideoRequest, GenerateVideoResponse, VideoStatusResponse } from '../../protocol/media';
import { noteGatewayAnswer } from './signed-out';
import { SHARE_OWNER_HEADER, type ShareCreated } from '../../protocol/share';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly body: Partial<ErrorBody> | null,
  ) {
    super(body?.message ?? `Gateway answered ${status}`);
    this.name = 'GatewayError';
  }
}

async function readErrorBody(res: Response): Promise<Partial<ErrorBody> | null> {
  try {
    const body: unknown = await res.json();
    return typeof body === 'object' && body !== null ? (body as Partial<ErrorBody>) : null;
  } catch {
    return null;
  }
}

/**
 * The GatewayError of a non-2xx answer, with its `{error, message}` body when it has one (the other engine clients
 * use it too). A SIGNED_OUT answer is also told to the engine (./signed-out.ts).
 */
export async function gatewayErrorOf(res: Response): Promise<GatewayError> {
  const body = await readErrorBody(res);
  noteGatewayAnswer(res.status, body?.error);
  return new GatewayError(res.status, body);
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!res.ok) throw await gatewayErrorOf(res);
  return (await res.json()) as T;
}

export const gateway = {
  /** The session; a refusal is not told to ./signed-out.ts (the session refresh handles SIGNED_OUT itself). */
  async localSession(): Promise<LocalSessionResponse> {
    const res = await fetch('/auth/local-session', { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!res.ok) throw new GatewayError(res.status, await readErrorBody(res));
    return (await res.json()) as LocalSessionResponse;
  },
  models: () => getJson<ModelsResponse>('/api/models'),
  /** Starts a reply stream. Resolves with the response once headers arrive; a non-2xx answer throws GatewayError. */
  streamReply: (request: StreamGptRequest, signal: AbortSignal) => postStream('/api/stream-gpt', request, signal),
  /** Starts a multi-model stream (NDJSON lines, src/protocol/multi.ts); a non-2xx answer throws GatewayError. */
  multiReply: (request: TalkToGptMultiRequest, signal: AbortSignal) => postStream('/api/talk-to-gpt-multi', request, signal),
  /** The whole stream of a reply whose connection was lost, from its first byte; 404 when the gateway lost it. */
  resumeReply: (requestId: string, signal: AbortSignal) => postStream('/api/stream-gpt/resume', { requestId }, signal),
  /** A title for a conversation from its opening text (spec 000 section 7). */
  conversationSummary: (request: ConversationSummaryRequest) => postJson<ConversationSummaryResponse>('/api/conversation-summary', request),
  /** Image and video calls (spec 000 section 7; src/protocol/media.ts). */
  generateImage: (request: GenerateImageRequest, signal?: AbortSignal) => postJson<GenerateImageResponse>('/api/generate-image', request, signal),
  generateVideo: (request: GenerateVideoRequest, signal?: AbortSignal) => postJson<GenerateVideoResponse>('/api/generate-video', request, signal),
  /** Settles a generate call whose answer was lost (src/server/media/generate-video-route.ts). */
  cancelVideo: (request: CancelVideoRequest, signal?: AbortSignal) => postJson<GenerateVideoResponse>('/api/generate-video/cancel', request, signal),
  videoStatus: (runId: string, modelSlug: string) => getJson<VideoStatusResponse>(`/api/generate-video/status?runId=${encodeURIComponent(runId)}&modelSlug=${encodeURIComponent(modelSlug)}`),
  /** Publishes a shared conversation's log (NDJSON); the answer carries the owner token. */
  async publishShare(ndjson: string): Promise<ShareCreated> {
    const res = await fetch('/api/share', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/x-ndjson', accept: 'application/json' }, body: ndjson });
    if (!res.ok) throw await gatewayErrorOf(res);
    return (await res.json()) as ShareCreated;
  },
  /** Deletes a published share with its owner token; a 404 (already gone) is not an error. */
  async deleteShare(id: string, ownerToken: string): Promise<void> {
    const res = await fetch(`/api/share/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', [SHARE_OWNER_HEADER]: ownerToken },
    });
    if (!res.ok && res.status !== 404) throw await gatewayErrorOf(res);
  },
  /** Ends a reply's upstream now (Stop), rather than after the gateway's resume grace period. */
  async cancelReply(requestId: string): Promise<void> {
    await fetch('/api/stream-gpt/cancel', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requestId }),
    });
  },
};

async function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    ...(signal ? { signal } : {}),
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await gatewayErrorOf(res);
  return (await res.json()) as T;
}

async function postStream(path: string, body: unknown, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw await gatewayErrorOf(res);
  if (!res.body) throw new GatewayError(502, null);
  return res.body;
}
