/**
 * `npm run serve` (and `npm start` after vite build): the Parley gateway on PORT (default 8787) and HOST
 * (default 127.0.0.1), with embedded PGlite in PARLEY_DATA_DIR (default ./data) or Postgres at DATABASE_URL,
 * serving the built client from dist/client. Configuration: docs/gateway.md.
 */
import { ConfigError } from './env-vars';
import { startGateway } from './start';

try {
  const gw = await startGateway({ log: (line) => console.log(`[gateway] ${line}`) });
  const db = gw.db.kind === 'postgres' ? 'Postgres (DATABASE_URL)' : `PGlite in ${gw.config.dataDir}`;
  const models = gw.catalogue.list();
  console.log(`Parley gateway listening on ${gw.url}`);
  console.log(`  database: ${db}`);
  console.log(`  models: ${models.length} (${models.map((m) => m.id).slice(0, 8).join(', ')}${models.length > 8 ? ', ...' : ''}); default ${gw.catalogue.defaultModel}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    gw.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (e) {
  if (e instanceof ConfigError) console.error(`Configuration error: ${e.message}`);
  else console.error(`Could not start the gateway: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
