/** Runs a conversation action of the sidebar (rename, pin, delete); a refusal shows as a notice. */
import type { ActionResult } from '../../protocol/engine';
import { showLocalNotice } from '../state';

export async function run(fn: () => Promise<ActionResult>): Promise<boolean> {
  const result = await fn();
  if (!result.ok) showLocalNotice({ title: result.error, text: '', tone: 'red', durationMs: 5000 });
  return result.ok;
}
