/**
 * The tab side of "one engine for all tabs".
 *
 * Every tab queues for a Web Lock; the holder is the leader and runs the engine in a dedicated worker. Tabs reach
 * that worker through a port: the leader connects directly, other tabs get one routed by the SharedWorker broker,
 * or, where SharedWorker is missing, through a BroadcastChannel relay (PortBridge). When the leader tab closes, the
 * next tab in the lock queue starts a new engine and announces it; every tab reconnects, re-subscribes its live
 * queries, and rejects calls that were in flight on the old engine.
 */
import * as Comlink from 'comlink';
import { ENGINE_PROTOCOL_VERSION, type EngineApi, type Query, type QueryResult } from '../../protocol/engine';
import {
  ENGINE_CHANNEL,
  LEADER_LOCK,
  RELAY_CHANNEL,
  type BrokerToLeader,
  type EngineAnnouncement,
  type RelayControl,
  type TabToBroker,
  type TabToEngineWorker,
} from './messages';
import { PortBridge } from './port-bridge';

const HANDSHAKE_TIMEOUT_MS = 2500;
/** localStorage key of the last database lifecycle marker (spec 000 section 4). */
export const DB_MARKER_KEY = 'parley:db-marker';

export type ConnectionState = 'connecting' | 'connected';

/** The engine API seen from a tab: per-tab connection management on top of the engine's own interface. */
interface ConnectionApi extends EngineApi {
  /** Drop everything this connection subscribed to (the tab is going away). */
  close(): Promise<void>;
}

interface Subscription {
  query: Query;
  callback: (value: unknown) => void;
  remoteUnsubscribe: (() => Promise<void>) | null;
  active: boolean;
}

export class EngineDisconnectedError extends Error {
  constructor() {
    super('The engine restarted while this request was running.');
    this.name = 'EngineDisconnectedError';
  }
}

export interface ConnectOptions {
  /** Force the BroadcastChannel relay even where SharedWorker exists (tests). */
  forceRelay?: boolean;
  createEngineWorker: () => Worker;
  createBroker: () => SharedWorker;
}

export class EngineConnection {
  readonly tabId = crypto.randomUUID();
  private remote: Comlink.Remote<ConnectionApi> | null = null;
  private generation = 0;
  private state: ConnectionState = 'connecting';
  private readonly stateListeners = new Set<(s: ConnectionState) => void>();
  private readonly waiters: { resolve: (r: Comlink.Remote<ConnectionApi>) => void }[] = [];
  private readonly inflight = new Set<(error: Error) => void>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly announcements = new BroadcastChannel(ENGINE_CHANNEL);
  private broker: SharedWorker | null = null;
  private relay: BroadcastChannel | null = null;
  private relayBridge: PortBridge | null = null;
  private engineWorker: Worker | null = null;
  private leaderBridge: PortBridge | null = null;
  private isLeader = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** A version mismatch asked for a reload: nothing more is attempted. */
  private connectAttempts = 0;
  private reloading = false;
  engineId: string | null = null;

  constructor(private readonly options: ConnectOptions) {}

  get leader(): boolean {
    return this.isLeader;
  }

  start(): void {
    const useBroker = !this.options.forceRelay && typeof SharedWorker !== 'undefined';
    if (useBroker) {
      this.broker = this.options.createBroker();
      this.broker.port.onmessage = (event: MessageEvent<BrokerToLeader>) => this.onBrokerMessage(event.data);
      this.broker.port.start();
    } else {
      this.relay = new BroadcastChannel(RELAY_CHANNEL);
    }
    this.announcements.onmessage = (event: MessageEvent<EngineAnnouncement>) => this.onAnnouncement(event.data);
    addEventListener('pagehide', () => void this.remote?.close().catch(() => undefined));

    void navigator.locks.request(LEADER_LOCK, () => {
      this.becomeLeader();
      // Held for the life of the tab: the lock is released when the tab closes.
      return new Promise<void>(() => undefined);
    });
    // Until we know better, try to reach an existing leader.
    void this.connect();
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    listener(this.state);
    return () => this.stateListeners.delete(listener);
  }

  /** Run one engine call; rejects with EngineDisconnectedError if the engine changes while it runs. */
  async call<T>(fn: (api: Comlink.Remote<EngineApi>) => Promise<T>): Promise<T> {
    const api = await this.ready();
    return new Promise<T>((resolve, reject) => {
      const fail = (error: Error) => reject(error);
      this.inflight.add(fail);
      fn(api as unknown as Comlink.Remote<EngineApi>).then(
        (value) => {
          this.inflight.delete(fail);
          resolve(value);
        },
        (error: unknown) => {
          this.inflight.delete(fail);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Live query: the callback gets every new value; survives engine changes (re-subscribes). */
  subscribe<Q extends Query>(query: Q, callback: (value: QueryResult<Q>) => void): () => void {
    const sub: Subscription = { query, callback: callback as (value: unknown) => void, remoteUnsubscribe: null, active: true };
    this.subscriptions.add(sub);
    if (this.remote) void this.subscribeRemote(this.remote, sub, this.generation);
    return () => {
      sub.active = false;
      this.subscriptions.delete(sub);
      const unsub = sub.remoteUnsubscribe;
      sub.remoteUnsubscribe = null;
      if (unsub) void unsub().catch(() => undefined);
    };
  }

  private ready(): Promise<Comlink.Remote<ConnectionApi>> {
    if (this.remote) return Promise.resolve(this.remote);
    return new Promise((resolve) => this.waiters.push({ resolve }));
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  private onBrokerMessage(message: BrokerToLeader): void {
    if (message.type === 'connect' && this.engineWorker) this.handToEngine(message.port);
  }

  private handToEngine(port: MessagePort): void {
    const message: TabToEngineWorker = { type: 'connect', port };
    this.engineWorker?.postMessage(message, [port]);
  }

  private becomeLeader(): void {
    this.isLeader = true;
    this.engineWorker = this.options.createEngineWorker();
    if (this.broker) {
      const register: TabToBroker = { type: 'leader', tabId: this.tabId };
      this.broker.port.postMessage(register);
    } else if (this.relay) {
      const relay = this.relay;
      this.leaderBridge = new PortBridge(relay);
      relay.addEventListener('message', (event: MessageEvent<RelayControl>) => {
        const data = event.data;
        if (data?.type !== 'relay-connect') return;
        const { port1, port2 } = new MessageChannel();
        this.leaderBridge?.attach(data.link, port1);
        this.handToEngine(port2);
      });
    }
    // Connect this tab straight to its own worker, then tell the others.
    void this.attachToOwnEngine().then(() => {
      const hello: EngineAnnouncement = { type: 'leader', tabId: this.tabId, engineId: this.engineId ?? '' };
      this.announcements.postMessage(hello);
    });
  }

  /**
   * The leader's own engine answers its handshake once its database is open, which on a slow or busy device can take
   * longer than the handshake timeout: then ask again on a fresh port until it answers. Giving up after one timeout
   * left the leader tab, and every tab waiting on it, at "Loading…" for good.
   */
  private async attachToOwnEngine(): Promise<void> {
    for (;;) {
      const { port1, port2 } = new MessageChannel();
      this.handToEngine(port2);
      if ((await this.attach(port1)) || this.reloading) return;
    }
  }

  private onAnnouncement(message: EngineAnnouncement): void {
    if (message.type === 'leader') {
      if (this.isLeader || message.engineId === this.engineId) return;
      void this.connect();
    } else if (message.type === 'db-marker') {
      try {
        localStorage.setItem(DB_MARKER_KEY, JSON.stringify(message.marker));
      } catch {
        // storage may itself be what failed; the marker is best effort
      }
    } else if (message.type === 'reload') {
      setTimeout(() => location.reload(), message.delayMs);
    }
  }

  /** Follower path: get a port to the current leader's engine. */
  private async connect(): Promise<void> {
    if (this.isLeader) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const attempt = ++this.connectAttempts;
    const { port1, port2 } = new MessageChannel();
    if (this.broker) {
      const request: TabToBroker = { type: 'connect', tabId: this.tabId, port: port2 };
      this.broker.port.postMessage(request, [port2]);
    } else if (this.relay) {
      this.relayBridge?.dispose();
      this.relayBridge = new PortBridge(this.relay);
      const link = crypto.randomUUID();
      this.relayBridge.attach(link, port2);
      const control: RelayControl = { type: 'relay-connect', link, tabId: this.tabId };
      this.relay.postMessage(control);
    }
    const ok = await this.attach(port1);
    // No leader answered (none yet, or it just died): try again; a leader announcement also retries at once. Only the
    // latest attempt retries: an older one that failed because a newer one replaced its relay must not start a third,
    // which would in turn replace the relay the newer one just connected through.
    if (!ok && !this.isLeader && attempt === this.connectAttempts) this.retryTimer = setTimeout(() => void this.connect(), 500);
  }

  /** Handshake over a port; on success it becomes the current engine connection. */
  private async attach(port: MessagePort): Promise<boolean> {
    const remote = Comlink.wrap<ConnectionApi>(port);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), HANDSHAKE_TIMEOUT_MS);
    });
    const answer = await Promise.race([remote.handshake(ENGINE_PROTOCOL_VERSION).catch(() => null), timeout]);
    clearTimeout(timer);
    if (!answer) {
      port.close();
      return false;
    }
    if (!answer.ok) {
      // This tab's code is older or newer than the engine's: reload to get matching code.
      this.reloading = true;
      location.reload();
      return false;
    }
    // The same engine again: keep the connection we have, unless it went through a relay bridge, which the attempt
    // that brought this answer has just replaced (the old connection is dead: its calls and live queries would hang).
    if (this.engineId === answer.engineId && this.remote && !this.relay) return true;
    this.switchTo(remote, answer.engineId);
    return true;
  }

  private switchTo(remote: Comlink.Remote<ConnectionApi>, engineId: string): void {
    const old = this.remote;
    this.generation += 1;
    this.remote = remote;
    this.engineId = engineId;
    for (const fail of this.inflight) fail(new EngineDisconnectedError());
    this.inflight.clear();
    if (old) old[Comlink.releaseProxy]();
    for (const sub of this.subscriptions) {
      sub.remoteUnsubscribe = null;
      void this.subscribeRemote(remote, sub, this.generation);
    }
    for (const w of this.waiters.splice(0)) w.resolve(remote);
    this.setState('connected');
  }

  private async subscribeRemote(remote: Comlink.Remote<ConnectionApi>, sub: Subscription, generation: number): Promise<void> {
    const callback = Comlink.proxy((value: unknown) => {
      if (sub.active && generation === this.generation) sub.callback(value);
    });
    const unsubscribe = (await remote.subscribe(sub.query, callback as never)) as unknown as () => Promise<void>;
    if (!sub.active || generation !== this.generation) {
      void unsubscribe().catch(() => undefined);
      return;
    }
    sub.remoteUnsubscribe = unsubscribe;
  }
}
