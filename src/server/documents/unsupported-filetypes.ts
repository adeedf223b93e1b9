/**
 * POST /notion/unsupported-filetypes (spec 000 section 7: `{filetype, filesizemb}`, sent fire-and-forget when a
 * file add fails). Recorded in `unsupported_filetype_reports` (migration 6), at most REPORTS_PER_DAY per session a
 * day (one conditional INSERT), so the table cannot be flooded. Answers 202 either way; bad input gets 400.
 */
import type { Hono } from 'hono';
import { UnsupportedFiletypeSchema } from '../../protocol/attachments-api';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';

export const REPORTS_PER_DAY = 100;
export const UNSUPPORTED_FILETYPES_PATH = '/notion/unsupported-filetypes';

export function registerUnsupportedFiletypesRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  app.post(UNSUPPORTED_FILETYPES_PATH, async (c) => {
    const body = await readJson(c, 4096);
    if (!body.ok) return body.response;
    const parsed = UnsupportedFiletypeSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const filetype = parsed.data.filetype.toLowerCase().replace(/^\./, '');
    const sessionId = c.get('sessionId');
    const rows = await ctx.db.query<{ id: string }>(
      `INSERT INTO unsupported_filetype_reports (session_id, filetype, filesize_mb)
       SELECT $1, $2, $3
       WHERE (SELECT count(*) FROM unsupported_filetype_reports WHERE session_id = $1 AND created_at > now() - interval '1 day') < $4
       RETURNING id`,
      [sessionId, filetype, parsed.data.filesizemb.toFixed(3), REPORTS_PER_DAY],
    );
    c.header('Cache-Control', 'no-store');
    return c.json({ recorded: rows.length > 0 }, 202);
  });
  app.all(UNSUPPORTED_FILETYPES_PATH, (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
