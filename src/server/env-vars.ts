/**
 * Reading environment variables: the `Env` the gateway is configured from, the error a bad value stops it with,
 * and the shared shapes. The lowest module of the configuration: the gateway's config.ts and each domain's
 * config.ts import it, never each other's.
 */

export type Env = Record<string, string | undefined>;

/** A bad configuration value; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A token bucket: `burst` requests at once, refilled at `perMinute`; perMinute 0 turns the limit off. */
export interface RateLimit {
  burst: number;
  perMinute: number;
}

/** An integer variable from `min` to `max`, `def` when unset or blank. */
export function intVar(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return n;
}
