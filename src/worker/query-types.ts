import type { Observable } from 'rxjs';
import type { QueryDefs } from '../protocol/engine';

/** One observable factory per query kind; each domain provides its own (a Pick of this), engine.ts joins them. */
export type QueryHandlers = { [K in keyof QueryDefs]: (query: QueryDefs[K]['query']) => Observable<QueryDefs[K]['result']> };
