/** The modes this engine can submit in: the handlers registered when the engine was composed. */
import { defer, of } from 'rxjs';
import type { EngineCore } from '../../core';
import { availableModes } from './submit-plugins';
import type { QueryHandlers } from '../../query-types';

export function modeQueries(core: EngineCore): Pick<QueryHandlers, 'modes'> {
  return { modes: () => defer(() => of(availableModes(core))) };
}
