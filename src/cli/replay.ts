/**
 * npm run replay -- FILE [options]   (USAGE below lists them; docs/events.md "Replay in Node" explains them)
 *
 * Reads an exported NDJSON event log, decodes and upcasts it, folds it with the same projection code the worker
 * runs, and answers: the read models at the end or at any event (--at, --until), what changed between two points
 * (--diff), which events match (--events), a repro log of one conversation (--trim, --redact), whether the whole
 * log reads (--check). The logic is src/inspect (shared with the app's Inspector); this file reads, prints, exits.
 * Exit status: 0 ok, 1 the log is invalid or unreadable, 2 bad usage, 3 the question names something the log does
 * not have (an unknown conversation, a position outside the log).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { encodeLog, iterateLog, LogFormatError } from '../events/codec';
import type { LogHeader } from '../events/codec';
import type { NewEvent, StoredEvent } from '../events/catalogue';
import type { MessageRow } from '../events/model';
import { fold, readModels } from '../projections/fold';
import type { ConversationWithMessages } from '../projections/fold';
import { firstChars, promptText } from '../projections/projection';
import {
  checkLog,
  conversationState,
  describeEvent,
  diffStates,
  filterEvents,
  formatDiff,
  mentionsConversation,
  parseTime,
  redactEvent,
  TABLES,
  Timeline,
  trimLog,
} from '../inspect';
import type { EventFilter, LogState } from '../inspect';

const USAGE = 'usage: npm run replay -- FILE [--conversation SLUG] [--json]';
const HELP = `${USAGE}
       npm run replay -- FILE (--at N | --until TIME) [--conversation SLUG] [--json]
       npm run replay -- FILE --diff A B [--conversation SLUG] [--json]
       npm run replay -- FILE --events [--type T[,T...]] [--conversation SLUG] [--from TIME] [--to TIME] [--text S] [--json]
       npm run replay -- FILE --trim SLUG [--redact] [--out OUT]
       npm run replay -- FILE --redact [--out OUT]
       npm run replay -- FILE --check

Reads an exported Parley event log (NDJSON), folds it with the app's projections and prints:
  (no option)        the read models at the end of the log: every conversation with its latest messages
  --conversation S   one conversation in full
  --at N             the state after event N (1 = the first event, 0 = empty)
  --until TIME       the state after the last event at or before TIME (ms since 1970 or ISO 8601)
  --diff A B         what changed from point A to point B (event positions or times), one change a line
  --events           the events, one a line: position, time, type and version, conversations, id, payload;
                     --type (exact, or a prefix ending in *), --conversation, --from/--to (times), --text filter them
  --trim S           a repro log of conversation S: its events and the global ones; it replays to the same state
                     of S. Written to --out (else printed)
  --redact           message text, names and instructions replaced by placeholder letters of the same length
  --check            decode, upcast and fold the whole log; report the first bad line with the reason
  --json             machine-readable output (for --events: one JSON object a line)

Exit status: 0 ok; 1 the log is invalid or cannot be read (with the line and the reason); 2 bad usage;
3 the log has no such conversation or position.`;

const EXIT_BAD_LOG = 1;
const EXIT_USAGE = 2;
const EXIT_NOT_FOUND = 3;

function fail(message: string, code: number): never {
  if (code === EXIT_USAGE && !message.includes('usage:')) message = `${message}\n${USAGE} (--help for more)`;
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms));
const oneLine = (s: string, n: number) => firstChars(s.replace(/\s+/g, ' ').trim(), n);

function describeMessage(m: MessageRow, full: boolean): string {
  const text = promptText(m.prompt);
  const flags = [
    m.hasError ? `error: ${m.error ?? ''}` : '',
    m.isPartial ? 'partial' : '',
    m.interrupted ? `interrupted: ${m.error ?? ''}` : '',
    m.cost !== undefined ? `cost ${m.cost}${m.paymentSource ? ` ${m.paymentSource}` : ''}` : '',
    m.outputTokens !== undefined ? `${m.outputTokens} tokens` : '',
    m.alternativeGroup !== null ? `branch ${m.alternativeGroup}#${m.branchIndex}${m.isActiveBranch ? ' active' : ''}` : '',
  ].filter((s) => s !== '');
  const head = `  #${m.id} ${iso(m.timestamp)} ${m.role.padEnd(9)} [${m.status}] ${m.model}${flags.length ? ` (${flags.join(', ')})` : ''}`;
  if (!full) return `${head}\n      ${oneLine(text, 100) || '(empty)'}`;
  const body = text === '' ? '(empty)' : text;
  const thinking = m.thinking ? `\n    thinking: ${m.thinking.split('\n').join('\n      ')}` : '';
  return `${head}${thinking}\n    ${body.split('\n').join('\n    ')}`;
}

function describeConversation(c: ConversationWithMessages, full: boolean): string {
  const conv = c.conversation;
  const lines = [
    `${conv.slug}  "${conv.name}"  (${c.messages.length} messages, created ${iso(conv.createdAt)}, updated ${iso(conv.updatedAt)})`,
  ];
  if (!full) {
    if (conv.latestMessage) lines.push(`  latest: ${oneLine(conv.latestMessage, 100)}`);
    const shown = c.messages.slice(-3);
    if (c.messages.length > shown.length) lines.push(`  ... ${c.messages.length - shown.length} earlier messages`);
    for (const m of shown) lines.push(describeMessage(m, false));
  } else {
    lines.push(`  uuid ${conv.uuid}, id ${conv.id}${conv.isMediaOnly ? ', media only' : ''}`);
    for (const m of c.messages) lines.push(describeMessage(m, true));
  }
  return lines.join('\n');
}

interface Cli {
  file: string;
  json: boolean;
  conversation?: string;
  at?: string;
  until?: string;
  diff?: [string, string];
  events: boolean;
  filter: EventFilter;
  trim?: string;
  redact: boolean;
  out?: string;
  check: boolean;
  help: boolean;
}

class UsageError extends Error {}

function parseCli(argv: string[]): Cli {
  // `--diff A B` takes two values, which parseArgs cannot express: lift them out first.
  const args = [...argv];
  let diff: [string, string] | undefined;
  const d = args.indexOf('--diff');
  if (d !== -1) {
    const [a, b] = [args[d + 1], args[d + 2]];
    if (a === undefined || b === undefined || a.startsWith('--') || b.startsWith('--')) throw new UsageError('--diff needs two points: --diff A B');
    diff = [a, b];
    args.splice(d, 3);
  }
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        conversation: { type: 'string', short: 'c' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        at: { type: 'string' },
        until: { type: 'string' },
        events: { type: 'boolean' },
        type: { type: 'string', multiple: true },
        from: { type: 'string' },
        to: { type: 'string' },
        text: { type: 'string' },
        trim: { type: 'string' },
        redact: { type: 'boolean' },
        out: { type: 'string', short: 'o' },
        check: { type: 'boolean' },
      },
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const v = parsed.values;
  if (v.help) return { file: '', json: false, events: false, filter: {}, redact: false, check: false, help: true };
  const file = parsed.positionals[0];
  if (file === undefined) throw new UsageError('no log file given');
  if (parsed.positionals.length > 1) throw new UsageError(`unexpected argument '${parsed.positionals[1]}'`);
  const modes = [v.at !== undefined || v.until !== undefined, diff !== undefined, v.events === true, v.trim !== undefined || v.redact === true, v.check === true];
  if (modes.filter(Boolean).length > 1) throw new UsageError('choose one of --at/--until, --diff, --events, --trim/--redact, --check');
  if (v.at !== undefined && v.until !== undefined) throw new UsageError('--at and --until both give a point: choose one');
  if (!v.events && (v.type !== undefined || v.from !== undefined || v.to !== undefined || v.text !== undefined)) throw new UsageError('--type, --from, --to and --text filter --events');
  if (v.out !== undefined && v.trim === undefined && !v.redact) throw new UsageError('--out is for --trim and --redact');
  const time = (name: string, s: string | undefined): number | undefined => {
    if (s === undefined) return undefined;
    const t = parseTime(s);
    if (t === null) throw new UsageError(`--${name} ${s}: not a time (milliseconds since 1970, or ISO 8601 like 2024-05-01T10:00:00Z)`);
    return t;
  };
  const filter: EventFilter = {};
  if (v.type !== undefined) filter.types = v.type.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  if (v.conversation !== undefined) filter.conversation = v.conversation;
  const from = time('from', v.from);
  const to = time('to', v.to);
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  if (v.text !== undefined) filter.text = v.text;
  const cli: Cli = { file, json: v.json === true, events: v.events === true, filter, redact: v.redact === true, check: v.check === true, help: false };
  if (v.conversation !== undefined) cli.conversation = v.conversation;
  if (v.at !== undefined) cli.at = v.at;
  if (v.until !== undefined) {
    time('until', v.until);
    cli.until = v.until;
  }
  if (diff !== undefined) cli.diff = diff;
  if (v.trim !== undefined) cli.trim = v.trim;
  if (v.out !== undefined) cli.out = v.out;
  return cli;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    fail(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, EXIT_BAD_LOG);
  }
}

function decode(file: string, text: string): { header: LogHeader; events: (NewEvent | StoredEvent)[] } {
  try {
    const stream = iterateLog(text);
    return { header: stream.header, events: [...stream.events] };
  } catch (e) {
    if (e instanceof LogFormatError) fail(`${file}: not a valid Parley event log: ${e.message}`, EXIT_BAD_LOG);
    throw e;
  }
}

/** A point of the log: an event position (0..length) or a time. */
function pointOf(timeline: Timeline, text: string, what: string): number {
  if (/^\d+$/.test(text) && text.length < 13) {
    const n = Number(text);
    if (n > timeline.length) fail(`${what} ${n}: the log has ${timeline.length} events (positions 0..${timeline.length})`, EXIT_NOT_FOUND);
    return n;
  }
  const t = parseTime(text);
  if (t === null) fail(`${what} ${text}: not an event position or a time`, EXIT_USAGE);
  return timeline.positionAtTime(t);
}

function pointLabel(timeline: Timeline, n: number): string {
  if (n === 0) return `before the first event (0 of ${timeline.length})`;
  const e = timeline.events[n - 1] as NewEvent;
  return `after event ${n} of ${timeline.length} (${iso(e.at)}, ${e.type} ${e.id})`;
}

function plainState(state: LogState): Record<string, unknown> {
  const tables: Record<string, unknown> = {};
  for (const t of TABLES) tables[t] = state.tables.rows(t);
  return { ...readModels(state.tables), tables, preferences: state.preferences, deposits: state.payments.records, queue: Object.fromEntries(state.queue) };
}

function printState(cli: Cli, timeline: Timeline, n: number): void {
  const state = timeline.stateAt(n);
  if (cli.conversation !== undefined) {
    const slug = cli.conversation;
    if (!mentionsConversation(timeline.events, slug)) fail(`${cli.file}: no conversation with slug '${slug}'`, EXIT_NOT_FOUND);
    const conv = conversationState(state, slug);
    if (cli.json) {
      process.stdout.write(`${JSON.stringify({ position: n, ...conv }, null, 2)}\n`);
      return;
    }
    const out = [`State ${pointLabel(timeline, n)}`];
    if (conv.conversation === null) out.push(`  conversation ${slug} does not exist at this point${conv.messages.length ? ` (${conv.messages.length} messages name it)` : ''}`);
    else out.push(describeConversation({ conversation: conv.conversation, messages: conv.messages }, true));
    if (conv.queue.length > 0) out.push(`  queue: ${conv.queue.length} waiting (${conv.queue.map((q) => `#${q.message.id}`).join(', ')})`);
    process.stdout.write(`${out.join('\n')}\n`);
    return;
  }
  if (cli.json) {
    process.stdout.write(`${JSON.stringify({ position: n, of: timeline.length, ...plainState(state) }, null, 2)}\n`);
    return;
  }
  const models = readModels(state.tables);
  const messageCount = state.tables.size('messages');
  const queued = [...state.queue.values()].reduce((k, q) => k + q.length, 0);
  const out = [
    `State ${pointLabel(timeline, n)}`,
    `Read models: ${models.conversations.length} conversations, ${messageCount} messages, ${queued} queued, ${state.payments.records.length} deposits`,
    '',
    ...models.conversations.map((c) => describeConversation(c, false)),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

function summary(cli: Cli, text: string): void {
  // Streamed: each line is decoded, validated, upcast and folded, then dropped (large logs fit in memory).
  const file = cli.file;
  const counts: Record<string, number> = {};
  let eventCount = 0;
  function* counted(events: Iterable<NewEvent | StoredEvent>) {
    for (const e of events) {
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      eventCount++;
      yield e;
    }
  }
  let header: LogHeader;
  let models: ReturnType<typeof readModels>;
  try {
    const stream = iterateLog(text);
    header = stream.header;
    models = readModels(fold(counted(stream.events)));
  } catch (e) {
    if (e instanceof LogFormatError) fail(`${file}: not a valid Parley event log: ${e.message}`, EXIT_BAD_LOG);
    throw e;
  }
  const slug = cli.conversation;

  if (slug !== undefined) {
    const found = models.conversations.find((c) => c.conversation.slug === slug);
    if (found === undefined) {
      const known = models.conversations.slice(0, 10).map((c) => c.conversation.slug).join(', ');
      fail(`${file}: no conversation with slug '${slug}'${known ? ` (some known: ${known})` : ' (the log has no conversations)'}`, EXIT_NOT_FOUND);
    }
    process.stdout.write(cli.json ? `${JSON.stringify(found, null, 2)}\n` : `${describeConversation(found, true)}\n`);
    return;
  }

  const messageCount = models.conversations.reduce((n, c) => n + c.messages.length, 0) + models.orphanMessages.length;
  if (cli.json) {
    process.stdout.write(`${JSON.stringify({ header, eventCounts: counts, ...models }, null, 2)}\n`);
    return;
  }
  const out = [
    `Parley event log ${file}`,
    `  format v${header.version}, schema ${header.schema}, exported ${iso(header.exportedAt)}, ${eventCount} events`,
    `  ${Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ') || 'no events'}`,
    `Read models: ${models.conversations.length} conversations, ${messageCount} messages`,
    '',
    ...models.conversations.map((c) => describeConversation(c, false)),
  ];
  if (models.orphanMessages.length > 0) {
    out.push('', `${models.orphanMessages.length} messages belong to no conversation in the log:`);
    for (const m of models.orphanMessages.slice(0, 20)) out.push(describeMessage(m, false));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

function main(): void {
  let cli: Cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) fail(e.message, EXIT_USAGE);
    throw e;
  }
  if (cli.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const text = readText(cli.file);

  if (cli.check) {
    const result = checkLog(text);
    if (!result.ok) fail(`${cli.file}: line ${result.line}: ${result.reason} (${result.good} events before it read and folded)`, EXIT_BAD_LOG);
    const h = result.header;
    process.stdout.write(`${cli.file}: ok, ${result.events.length} events decoded, upcast and folded (format v${h.version}, schema ${h.schema})\n`);
    return;
  }
  const plain = cli.at === undefined && cli.until === undefined && cli.diff === undefined && !cli.events && cli.trim === undefined && !cli.redact;
  if (plain) {
    summary(cli, text);
    return;
  }

  const { header, events } = decode(cli.file, text);

  if (cli.events) {
    const positions = filterEvents(events, cli.filter);
    const lines = positions.map((n) => {
      const e = events[n - 1] as NewEvent;
      return cli.json ? JSON.stringify({ position: n, ...e }) : describeEvent(e, n);
    });
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    if (!cli.json) process.stderr.write(`${positions.length} of ${events.length} events match\n`);
    return;
  }

  if (cli.trim !== undefined || cli.redact) {
    let kept: (NewEvent | StoredEvent)[] = events;
    if (cli.trim !== undefined) {
      if (!mentionsConversation(events, cli.trim)) fail(`${cli.file}: no conversation with slug '${cli.trim}'`, EXIT_NOT_FOUND);
      kept = trimLog(events, cli.trim);
    }
    if (cli.redact) kept = kept.map(redactEvent);
    const out = encodeLog(kept, { exportedAt: header.exportedAt });
    if (cli.out !== undefined) {
      try {
        writeFileSync(cli.out, out);
      } catch (e) {
        fail(`cannot write ${cli.out}: ${e instanceof Error ? e.message : String(e)}`, EXIT_BAD_LOG);
      }
    } else process.stdout.write(out);
    const pct = ((100 * out.length) / Math.max(1, text.length)).toFixed(1);
    process.stderr.write(`${kept.length} of ${events.length} events, ${out.length} of ${text.length} characters (${pct}%)${cli.redact ? ', text redacted' : ''}${cli.out ? `, written to ${cli.out}` : ''}\n`);
    return;
  }

  const timeline = new Timeline(events);
  if (cli.diff !== undefined) {
    const a = pointOf(timeline, cli.diff[0], '--diff');
    const b = pointOf(timeline, cli.diff[1], '--diff');
    const diff = diffStates(timeline.stateAt(a), timeline.stateAt(b));
    if (cli.json) {
      process.stdout.write(`${JSON.stringify({ from: a, to: b, ...diff }, null, 2)}\n`);
      return;
    }
    process.stdout.write(`Changes from ${pointLabel(timeline, a)}\n          to ${pointLabel(timeline, b)}:\n${formatDiff(diff).join('\n')}\n`);
    return;
  }
  const n = cli.at !== undefined ? pointOf(timeline, cli.at, '--at') : timeline.positionAtTime(parseTime(cli.until as string) as number);
  printState(cli, timeline, n);
}

main();
