/**
 * The engine: owns the local database and the event log, runs commands and replies, and serves live queries.
 * One instance runs in the leader tab's dedicated worker; every tab talks to it through Comlink.
 *
 * This file only composes (DESIGN rule 12): the core (./core.ts) holds the database, log, live replies, session
 * and catalogue; each domain adds its commands (./commands/*) and live queries (./queries/*). The engine API is
 * the intersection of the domains' handler types (src/protocol/engine.ts CommandHandlers).
 */
import type { Observable } from 'rxjs';
import type { CommandHandlers, Query, QueryResult } from '../protocol/engine';
import { EngineCore, type EngineHooks, type RoomKind } from './core';
import { liveReplies } from './rooms/replies/live';
import { branchCommands } from './rooms/branches/commands';
import { chatCommands } from './rooms/chat/commands';
import { preferencesCommands } from './rooms/preferences/commands';
import { exportCommands } from './rooms/export/commands';
import { shareCommands } from './rooms/share/commands';
import { messageCommands } from './rooms/messages/commands';
import { conversationCommands } from './rooms/conversations/commands';
import { instructionCommands } from './rooms/instructions/commands';
import { queueCommands } from './rooms/queue/commands';
import { mediaCommands } from './rooms/media/commands';
import { webCommands } from './rooms/web/commands';
import { scratchpadCommands } from './rooms/scratchpad/commands';
import { speechCommands } from './rooms/speech/commands';
import { moneyCommands } from './rooms/money/commands';
import { moneyQueries } from './rooms/money/queries';
import { MoneyRoom } from './rooms/money/money-room';
import { libraryCommands } from './rooms/library/commands';
import { libraryQueries } from './rooms/library/queries';
import { conversationQueries } from './rooms/conversations/queries';
import { coreQueries } from './core-queries';
import { instructionQueries } from './rooms/instructions/queries';
import { queueQueries } from './rooms/queue/queries';
import { mediaQueries } from './rooms/media/queries';
import { scratchpadQueries } from './rooms/scratchpad/queries';
import { modeQueries } from './rooms/replies/queries';
import { speechQueries } from './rooms/speech/queries';
import type { QueryHandlers } from './query-types';
import { folderCommands } from './rooms/folders/commands';
import { folderQueries } from './rooms/folders/queries';
import { updatesCommands, updatesQueries } from './rooms/updates/commands';
import { consentCommands, consentQueries } from './rooms/consent/commands';

export { PAID_USE_THRESHOLD, STREAM_THROTTLE_MS, type EngineHooks } from './core';
export { INTERRUPTED_REASON } from './rooms/replies/live';
export { REPLY_IN_PROGRESS } from './rooms/replies/submit';

// The class gets every domain's commands as its own methods (assigned in the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Engine extends CommandHandlers {}

/**
 * The writing commands that only read the local database, check and append (no network wait inside): each runs
 * whole in the write queue. Commands that wait on the network (a send, a payment, speech) are not here; a send
 * waits for the queue before it reads (rooms/replies/submit.ts).
 */
const IN_ORDER = [
  'setPreferences',
  'createInstruction',
  'updateInstruction',
  'deleteInstruction',
  'addScratchpadEntry',
  'editScratchpadEntry',
  'deleteScratchpadEntry',
  'renameConversation',
  'deleteConversation',
  'restoreConversation',
  'deleteConversations',
  'restoreConversations',
  'pinConversation',
  'setConversationInstructions',
  'createFolder',
  'renameFolder',
  'deleteFolder',
  'moveConversationsToFolder',
  'markUpdatesRead',
  'markAllUpdatesRead',
  'editMessage',
  'deleteMessage',
  'restoreMessage',
  'retryMessage',
  'duplicateConversation',
  'regenerate',
  'switchBranch',
  'continueReply',
  'removeQueuedMessage',
  'setModelSettings',
  'setImageFavourite',
] as const satisfies readonly (keyof CommandHandlers)[];

const MONEY_ROOM: RoomKind<MoneyRoom> = { name: 'money', create: (core) => new MoneyRoom(core) };

export class Engine extends EngineCore {
  /** Every command, as plain functions (what a tab's Comlink endpoint exposes). */
  readonly commands: CommandHandlers;
  private readonly queries: QueryHandlers;
  /** Deposits, nano, invitations: state and pipelines of the money room. */
  readonly money: MoneyRoom;

  constructor(hooks: EngineHooks) {
    super(hooks);
    this.money = this.room(MONEY_ROOM);
    // One room per domain (DESIGN rule 12): add a line, never rewrite this list.
    const domains = {
      ...chatCommands(this),
      ...preferencesCommands(this),
      ...conversationCommands(this),
      ...instructionCommands(this),
      ...branchCommands(this),
      ...messageCommands(this),
      ...exportCommands(this),
      ...shareCommands(this),
      ...queueCommands(this),
      ...webCommands(this),
      ...scratchpadCommands(this),
      ...mediaCommands(this),
      ...moneyCommands(this, this.money),
      ...libraryCommands(this),
      ...speechCommands(this),
      ...folderCommands(this),
      ...updatesCommands(this),
      ...consentCommands(this),
    };
    // Writes in order (core.inOrder): the commands that read, check and append locally run one at a time.
    for (const name of IN_ORDER) {
      const run = domains[name] as (...args: unknown[]) => Promise<unknown>;
      Object.assign(domains, { [name]: (...args: unknown[]) => this.inOrder(() => run(...args)) });
    }
    Object.assign(this, domains);
    this.commands = {
      handshake: (v) => this.handshake(v),
      dismissNotice: (id) => this.dismissNotice(id),
      refreshSession: () => this.refreshSession(),
      exportLog: () => this.exportLog(),
      importLog: (text) => this.importLog(text),
      ...domains,
    };
    // One factory per domain's queries: add a line, never rewrite this list.
    this.queries = {
      ...coreQueries(this),
      ...conversationQueries(this),
      ...instructionQueries(this),
      ...queueQueries(this),
      ...scratchpadQueries(this),
      ...moneyQueries(this.money),
      ...modeQueries(this),
      ...libraryQueries(this),
      ...speechQueries(this),
      ...mediaQueries(this),
      ...folderQueries(this),
      ...updatesQueries(this),
      ...consentQueries(this),
    };
  }

  /** Replies an engine that went away left running are taken over before the engine says ready. */
  protected override resumeWork(): Promise<void> {
    return liveReplies(this).resumeOrphaned();
  }

  observe<Q extends Query>(query: Q): Observable<QueryResult<Q>> {
    const open = this.queries[query.kind] as (q: Q) => Observable<QueryResult<Q>>;
    return open(query);
  }
}
