/**
 * Run by main-thread-modules.test.ts in a fresh Node process (with tsx): imports the gateway the way `npm start`
 * does and prints, as one JSON line, whether the global JSON functions are still Node's own and which npm packages
 * the main thread loaded.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const packages = new Set<string>();
port1.on('message', (name: string) => packages.add(name));
port1.unref();
// A resolve hook that reports each package a module is resolved in (hooks run on the loader's own thread).
const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url);
  if (m) port.postMessage(m[1]);
  return r;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] });

const { parse, stringify } = JSON;
await import('../../../src/server/start');
// Let the hook's last messages arrive.
await new Promise((r) => setTimeout(r, 200));
process.stdout.write(`${JSON.stringify({ parse: JSON.parse === parse, stringify: JSON.stringify === stringify, packages: [...packages].sort() })}\n`);
