import type { Hono } from 'hono';
import type { RouteContext } from '../context';
import type { AppEnv } from '../http';

/** GET /api/models: the catalogue (offline model always included) and the default model. */
export function registerModelRoutes(app: Hono<AppEnv>, ctx: RouteContext): void {
  app.get('/api/models', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(ctx.catalogue.response());
  });
}
