/** The log inspector's logic, shared by `npm run replay` and the app's Inspector page. Pure. */
export { cloneStore, foldState, slugsOf, TABLES, Timeline } from './state';
export type { LogState } from './state';
export { diffStates, fieldChanges, formatDiff, sameValue } from './diff';
export type { Change, FieldChange, StateDiff } from './diff';
export { conversationState, mentionsConversation, redactEvent, redactText, shareLog, trimLog } from './repro';
export type { ConversationState } from './repro';
export { checkLog } from './check';
export type { CheckResult } from './check';
export { describeEvent, filterEvents, matchesFilter, parseTime, typeMatches } from './filter';
export type { EventFilter } from './filter';
