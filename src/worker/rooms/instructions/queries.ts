/** Live query of the instruction presets: the built-ins and the saved ones, sorted by name (spec 000 section 1). */
import { asyncScheduler, defer, filter, from, merge, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { InstructionRow } from '../../../events/model';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import { presetList } from './system-message';
import type { QueryHandlers } from '../../query-types';

export function instructionQueries(core: EngineCore): Pick<QueryHandlers, 'instructions'> {
  async function load(): Promise<InstructionRow[]> {
    await core.whenStarted();
    if (!core.storageOk) return presetList([]);
    return presetList(await core.db.instructions.toArray());
  }
  return {
    instructions: (): Observable<InstructionRow[]> =>
      merge(
        core.changes$.pipe(filter((c) => c.all)),
        core.events$.pipe(filter((events) => events.some((e) => e.type.startsWith('instruction.')))),
      ).pipe(
        startWith(null),
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        switchMap(() => defer(() => from(load()))),
      ),
  };
}
