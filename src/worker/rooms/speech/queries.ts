/** Live query of a message's speech: the chunks made so far (the message row's audio) and whether more are coming. */
import { combineLatest, defer, filter, from, map, merge, startWith, switchMap, type Observable } from 'rxjs';
import type { SpeechState } from '../../../protocol/engine';
import { SPEECH_ROOM } from './speaker';
import type { EngineCore } from '../../core';
import type { QueryHandlers } from '../../query-types';

export function speechQueries(core: EngineCore): Pick<QueryHandlers, 'speech'> {
  async function load(messageId: number) {
    await core.whenStarted();
    if (!core.storageOk) return null;
    return (await core.db.messages.get(messageId))?.audio ?? null;
  }
  return {
    speech: ({ messageId }): Observable<SpeechState> => {
      const stored = merge(
        core.changes$.pipe(filter((c) => c.all)),
        core.events$.pipe(filter((events) => events.some((e) => e.type === 'speech.generated' && e.payload.messageId === messageId))),
      ).pipe(
        startWith(null),
        switchMap(() => defer(() => from(load(messageId)))),
      );
      const state = core.room(SPEECH_ROOM).state$(messageId);
      return combineLatest([stored, state]).pipe(map(([audio, s]) => ({ audio: s.generating && s.audio ? s.audio : (audio ?? s.audio), generating: s.generating, error: s.error })));
    },
  };
}
