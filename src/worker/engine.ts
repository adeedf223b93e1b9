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
import { EngineCore, type EngineHooks } from './core';
import { branchCommands } from './commands/branches';
import { chatCommands } from './commands/chat';
import { preferencesCommands } from './commands/preferences';
import { exportCommands } from './commands/export';
import { messageCommands } from './commands/messages';
import { conversationCommands } from './commands/conversations';
import { instructionCommands } from './commands/instructions';
import { queueCommands } from './commands/queue';
import { mediaCommands } from './commands/media';
import { webCommands } from './commands/web';
import { scratchpadCommands } from './commands/scratchpad';
import { speechCommands } from './commands/speech';
import { moneyCommands } from './commands/money';
import { moneyQueries } from './queries/money';
import { MoneyRoom } from './services/money-room';
import { libraryCommands } from './commands/library';
import { libraryQueries } from './queries/library';
import { conversationQueries } from './queries/conversations';
import { coreQueries } from './queries/core';
import { instructionQueries } from './queries/instructions';
import { queueQueries } from './queries/queue';
import { mediaQueries } from './queries/media';
import { scratchpadQueries } from './queries/scratchpad';
import { modeQueries } from './queries/modes';
import { speechQueries } from './queries/speech';
import type { QueryHandlers } from './queries/types';
import { folderCommands } from './commands/folders';
import { folderQueries } from './queries/folders';
import { updatesCommands, updatesQueries } from './commands/updates';
import { consentCommands, consentQueries } from './commands/consent';

export { INTERRUPTED_REASON, PAID_USE_THRESHOLD, STREAM_THROTTLE_MS, type EngineHooks } from './core';
export { REPLY_IN_PROGRESS } from './commands/submit';

// The class gets every domain's commands as its own methods (assigned in the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Engine extends CommandHandlers {}

export class Engine extends EngineCore {
  /** Every command, as plain functions (what a tab's Comlink endpoint exposes). */
  readonly commands: CommandHandlers;
  private readonly queries: QueryHandlers;
  /** Deposits, nano, invitations: state and pipelines of the money room. */
  readonly money: MoneyRoom;

  constructor(hooks: EngineHooks) {
    super(hooks);
    this.money = new MoneyRoom(this);
    // One room per domain (DESIGN rule 12): add a line, never rewrite this list.
    const domains = {
      ...chatCommands(this),
      ...preferencesCommands(this),
      ...conversationCommands(this),
      ...instructionCommands(this),
      ...branchCommands(this),
      ...messageCommands(this),
      ...exportCommands(this),
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

  override async dispose(): Promise<void> {
    this.money.dispose();
    await super.dispose();
  }

  observe<Q extends Query>(query: Q): Observable<QueryResult<Q>> {
    const open = this.queries[query.kind] as (q: Q) => Observable<QueryResult<Q>>;
    return open(query);
  }
}
