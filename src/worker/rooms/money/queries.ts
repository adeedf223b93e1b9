/** The money room's live query: deposits, the pending one, and the nano websocket state. */
import type { MoneyRoom } from './money-room';
import type { QueryHandlers } from '../../query-types';

export function moneyQueries(room: MoneyRoom): Pick<QueryHandlers, 'wallet'> {
  return { wallet: () => room.wallet$ };
}
