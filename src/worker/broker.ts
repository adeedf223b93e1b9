/// <reference lib="webworker" />
/**
 * The SharedWorker broker: a pure port router (no engine state). The leader tab registers its port; any tab asks
 * for a connection by sending one end of a MessageChannel, which the broker forwards to the leader, which hands it
 * to the engine worker. Requests that arrive before a leader exists wait in a queue.
 */
import type { BrokerToLeader, TabToBroker } from './tab/messages';

declare const self: SharedWorkerGlobalScope;

let leader: { tabId: string; port: MessagePort } | null = null;
const waiting: { tabId: string; port: MessagePort }[] = [];

function forward(request: { tabId: string; port: MessagePort }): void {
  if (!leader) {
    waiting.push(request);
    return;
  }
  const message: BrokerToLeader = { type: 'connect', tabId: request.tabId, port: request.port };
  leader.port.postMessage(message, [request.port]);
}

self.onconnect = (event: MessageEvent) => {
  const tabPort = event.ports[0];
  if (!tabPort) return;
  tabPort.onmessage = (msg: MessageEvent<TabToBroker>) => {
    const data = msg.data;
    if (data.type === 'leader') {
      leader = { tabId: data.tabId, port: tabPort };
      for (const request of waiting.splice(0)) forward(request);
    } else if (data.type === 'connect') {
      forward({ tabId: data.tabId, port: data.port });
    }
  };
};
