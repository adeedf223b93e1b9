/**
 * Where the submit flow (./submit.ts, spec 000 section 4) is extended: each mode's handler (step 7, "call the chat,
 * video or image handler", with its own step 6) and the attachment step (step 3, "describe pending images"). The
 * flow owns the order and what every mode shares (validation, the pending flag and the queue, the balance check,
 * the conversation and the user message, all in one append); a feature plugs its part in from its own module:
 *
 *   // src/worker/rooms/media/commands.ts (the image mode)
 *   export function imageCommands(core: EngineCore): ImageHandlers {
 *     registerModeHandler(core, { mode: 'image', queueable: false, async run(submit) { ... } });
 *     ...
 *   }
 *
 * engine.ts composes the domains; a mode with no handler is refused with its plain "not available yet" message,
 * and the `modes` query tells the composer which modes are built. Registries are per engine (a WeakMap on the
 * core), so two engines in one process (tests) never share handlers.
 */
import type { NewEvent } from '../../../events/catalogue';
import type { ConversationRow, Mode, MessageRow } from '../../../events/model';
import type { ChatPart, ModelInfo } from '../../../protocol/api';
import type { SendMessageInput, SendMessageResult } from '../../../protocol/engine';
import type { EngineCore, Room, RoomKind } from '../../core';
import type { BalanceProbe } from './submit';

/** A submit that passed steps 1 to 5: what a mode handler gets. Nothing is written yet. */
export interface Submission {
  core: EngineCore;
  input: SendMessageInput;
  mode: Mode;
  /** The chosen model, and the extra models of multi-model chat (empty otherwise). */
  model: ModelInfo;
  extras: ModelInfo[];
  /** The conversation, new or stored; `events` creates it when new. */
  conversation: ConversationRow;
  /** Its messages along the active branch, before the user message. */
  history: MessageRow[];
  /**
   * The user message (step 5), not yet appended: it is the object in `events`' message.added, so a handler may add
   * to it before appending (chat records how many older messages its request left out, contextOmitted).
   */
  user: MessageRow;
  /**
   * Steps 4 and 5 (and the queue entry a queued message leaves): the handler appends them together with its own
   * step 6, in one append (core.append), so that the log never holds half a submit.
   */
  events: NewEvent[];
  maxTokens: number;
  now: number;
}

/** One mode's part of the submit flow: steps 6 and 7. */
export interface ModeHandler {
  readonly mode: Mode;
  /** Send queues the message while a reply generates (spec 000 section 4: chat mode only). */
  readonly queueable: boolean;
  /** Takes extra models (multi-model mode: chat only). */
  readonly multiModel: boolean;
  /** Models this mode takes (spec 000 section 4: a model sets its mode). */
  accepts(model: ModelInfo): boolean;
  /** Step 1 for this mode (its own limits: prompt length, a required image...): an error text, or null. */
  validate?(input: SendMessageInput, model: ModelInfo): string | null;
  /** Step 2 for this mode when its paid model cannot be paid for; default: the engine's (chat's) probe. */
  readonly balanceProbe?: BalanceProbe;
  /** The prompt this mode sends for a model ('' may become a model's own, e.g. ghiblify's 'Ghiblify'); null: refuse. */
  promptFor?(model: ModelInfo, prompt: string): string | null;
  /** Step 2 is the gateway's own (image and video: free daily uses, a 402 with the amount): no balance probe here. */
  readonly gatewayChecksBalance?: boolean;
  /** Steps 6 and 7: append `submission.events` with its own, then start the work. */
  run(submission: Submission): Promise<SendMessageResult>;
}

/** What step 3 hands on: the prompt to send and the attachments that stay with the message. */
export interface PreparedAttachments {
  /** Text, or text and image parts (images inline for a vision model). */
  prompt: string | ChatPart[];
  attachments: string[];
  /** Events that record what the step did (descriptions stored, attachments linked), appended with the user message. */
  events: NewEvent[];
  /** Fields the user message carries besides its prompt (the files, with what each adds for the model). */
  message?: Pick<MessageRow, 'files'>;
  /** Events that need steps 4 and 5 done (links to the conversation and the user message), appended with them. */
  after?(made: { conversation: ConversationRow; created: boolean; user: MessageRow; now: number }): Promise<NewEvent[]>;
}

/**
 * Step 3: attachments (library ids) are checked and images the model cannot see are described (spec 000 section 4,
 * "Image attachment in chat"). Returns an error text to refuse the submit.
 */
export interface AttachmentStep {
  prepare(
    core: EngineCore,
    request: {
      prompt: string;
      attachments: readonly string[];
      model: ModelInfo;
      mode: Mode;
      now: number;
      /** Multi-model: the other models that read the message. */
      extras?: readonly ModelInfo[];
      /** The conversation's uuid; absent for a new one. */
      conversationUUID?: string;
      /** Sent from the queue: files still being read are waited for (nobody is at the Send button). */
      queued?: boolean;
    },
  ): Promise<PreparedAttachments | { error: string }>;
}

/** The engine's submit plugins: the mode handlers and the attachment step the other rooms registered. */
class SubmitPlugins implements Room {
  readonly modes = new Map<Mode, ModeHandler>();
  attachments: AttachmentStep | null = null;
  dispose(): void {
    this.modes.clear();
    this.attachments = null;
  }
}

const SUBMIT_PLUGINS: RoomKind<SubmitPlugins> = { name: 'submit plugins', create: () => new SubmitPlugins() };

function of(core: EngineCore): SubmitPlugins {
  return core.room(SUBMIT_PLUGINS);
}

export function registerModeHandler(core: EngineCore, handler: ModeHandler): void {
  if (of(core).modes.has(handler.mode)) throw new Error(`A handler for mode ${handler.mode} is registered already`);
  of(core).modes.set(handler.mode, handler);
}

export function modeHandler(core: EngineCore, mode: Mode): ModeHandler | undefined {
  return of(core).modes.get(mode);
}

/** The modes this engine can submit in, in the order of the Mode group. */
export function availableModes(core: EngineCore): Mode[] {
  const order: Mode[] = ['chat', 'image', 'video', 'audio', 'voice'];
  return order.filter((m) => of(core).modes.has(m));
}

export function registerAttachmentStep(core: EngineCore, step: AttachmentStep): void {
  if (of(core).attachments) throw new Error('An attachment step is registered already');
  of(core).attachments = step;
}

export function attachmentStep(core: EngineCore): AttachmentStep | null {
  return of(core).attachments;
}
