/** Live queries of the engine core: session, catalogue, notices and status are behaviour subjects already. */
import type { EngineCore } from './core';
import type { QueryHandlers } from './query-types';

export function coreQueries(core: EngineCore): Pick<QueryHandlers, 'session' | 'models' | 'notices' | 'status' | 'preferences'> {
  return {
    session: () => core.session$,
    models: () => core.models$,
    notices: () => core.notices$,
    status: () => core.status$,
    preferences: () => core.preferences$,
  };
}
