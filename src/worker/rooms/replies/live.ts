/**
 * The replies room's per-engine state: the replies this engine is running (chat, multi-model, web, branch and
 * mode replies all start here), their live publication, and taking over the replies an engine that went away left
 * pending. Created with the engine and disposed with it: dispose stops every reply it runs.
 */
import { Subject, filter, firstValueFrom } from 'rxjs';
import type { ModelsView } from '../../../protocol/engine';
import { noticeCurrency } from '../../../protocol/money-format';
import { makeEvent } from '../../../events/catalogue';
import type { MessageRow } from '../../../events/model';
import type { EngineCore, Room, RoomKind } from '../../core';
import { gateway } from '../../infra/gateway';
import { waitForNetwork } from '../../infra/network';
import { ReplyStreamParser } from './stream-parser';
import { runReply, type LiveReply, type ReplyHost } from './reply-runner';
import { imageLinesFor } from './image-lines';
import { storeReplyImages } from './reply-images';

export const INTERRUPTED_REASON = 'Reply interrupted: the tab that was generating it closed before it finished.';

export class LiveReplies implements Room {
  /** Replies this engine is running, by assistant message id. */
  readonly live = new Map<number, LiveReply>();
  /** A live reply of this conversation (slug) published new text or started or ended. */
  readonly live$ = new Subject<string>();
  /**
   * Resumes an orphaned reply of a mode that is not a stream (an Image or Audio mode reply asked again with its
   * requestId); true when it took the reply over. Registered by the mode's room (rooms/media, rooms/speech).
   */
  readonly resumers = new Map<string, (message: MessageRow) => Promise<boolean>>();

  constructor(private readonly core: EngineCore) {}

  dispose(): void {
    for (const reply of this.live.values()) reply.controller.abort();
  }

  /**
   * Replies left pending or streaming by an engine that went away (its tab closed) are picked up again: the
   * gateway kept relaying them, and a resume replays each from its first byte and follows it to the end. One the
   * gateway no longer has (restarted, expired, another instance) is marked interrupted, keeping its checkpoint.
   */
  async resumeOrphaned(): Promise<void> {
    const orphans = await this.core.db.messages.filter((m) => m.role === 'assistant' && (m.status === 'pending' || m.status === 'streaming')).toArray();
    await Promise.all(orphans.map((m) => this.resumeOrInterrupt(m)));
  }

  private async resumeOrInterrupt(message: MessageRow): Promise<void> {
    const resumer = message.mode ? this.resumers.get(message.mode) : undefined;
    if (resumer && message.requestId) {
      try {
        if (await resumer(message)) return;
      } catch (error) {
        console.info(`Reply ${message.id} cannot be resumed`, error);
      }
    }
    const reply: LiveReply = {
      messageId: message.id,
      userMessageId: message.parentMessageId ?? 0,
      slug: message.conversationSlug,
      requestId: message.requestId ?? '',
      parser: new ReplyStreamParser(),
      controller: new AbortController(),
      stoppedByUser: false,
      // A reply being continued (reply.continued) resumes after the text it had.
      ...(message.continuedFrom ? { continuation: { ...message.continuedFrom, cost: message.cost ?? 0, outputTokens: message.outputTokens ?? 0 } } : {}),
    };
    let stream: ReadableStream<Uint8Array> | null = null;
    if (reply.requestId) {
      try {
        stream = await gateway.resumeReply(reply.requestId, reply.controller.signal);
      } catch (error) {
        console.info(`Reply ${message.id} cannot be resumed`, error);
      }
    }
    if (stream) {
      const body = stream;
      this.startReply(reply, () => Promise.resolve(body), message.model);
      return;
    }
    const now = Date.now();
    await this.core.append([makeEvent('reply.interrupted', { messageId: message.id, conversationSlug: message.conversationSlug, reason: INTERRUPTED_REASON, at: now }, crypto.randomUUID(), now)]);
  }

  /** Runs a reply in the background; while it runs, its conversation shows it live. */
  startReply(reply: LiveReply, open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>, model?: string): void {
    const core = this.core;
    // A model that answers in image lines (spec 000 section 7): its text and images are decoded as they arrive.
    // It decodes the whole stream text so far, so a catalogue that arrives after the stream began (a reply resumed
    // while the new engine loads it) still decodes it all.
    if (model !== undefined && !reply.imageLines) {
      const attach = (models: ModelsView['models']) => {
        const lines = imageLinesFor(models, model);
        if (lines) reply.imageLines = lines;
      };
      if (core.models$.value.models.length > 0) attach(core.models$.value.models);
      else void firstValueFrom(core.models$.pipe(filter((m) => m.models.length > 0))).then((m) => attach(m.models));
    }
    this.live.set(reply.messageId, reply);
    this.live$.next(reply.slug);
    // Offline, the reply waits for the network (its message is saved already); Stop ends the wait.
    void waitForNetwork(reply.controller.signal)
      .then(() => runReply(this.replyHost(), reply, open))
      .catch((error: unknown) => {
        if (!core.ended) console.error('Reply failed to record', error);
      })
      .finally(() => {
        this.live.delete(reply.messageId);
        this.live$.next(reply.slug);
        void core.refreshSession();
      });
  }

  replyHost(): ReplyHost {
    const core = this.core;
    const stallMs = core.hooksValue('replyStallMs');
    return {
      append: (events) => core.append(events),
      publish: (reply) => this.live$.next(reply.slug),
      notify: (notice) => core.notify(notice),
      newEventId: () => crypto.randomUUID(),
      now: () => Date.now(),
      // The currency a 402 notice speaks (protocol/money-format.ts noticeCurrency).
      currency: () => noticeCurrency(core.session$.value.session),
      ...(stallMs === undefined ? {} : { stallMs }),
      storeImages: (reply, images, at) => storeReplyImages(core, reply, images, at),
    };
  }
}

export const LIVE_REPLIES: RoomKind<LiveReplies> = { name: 'live replies', create: (core) => new LiveReplies(core) };

/** This engine's live replies. */
export function liveReplies(core: EngineCore): LiveReplies {
  return core.room(LIVE_REPLIES);
}
