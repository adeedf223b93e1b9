/**
 * Issue 5, item 1: one prompt must not freeze the gateway (160,000 '(' once stalled every request for 19 s). Every
 * scan of the offline engine must be linear in the prompt, and only the first OFFLINE_ANALYSIS_CHARS characters are
 * analysed. Checked without wall-clock limits (./scaling.ts): the cost of a prompt 8 times longer, measured in the
 * same test, must stay far from the 64 times a quadratic scan costs, on a quiet machine or a loaded one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/protocol/api';
import { composeOfflineReply, OFFLINE_ANALYSIS_CHARS } from '../../../src/server/providers/offline';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { scaling } from './scaling';

/** A linear scan costs about 8 times more for 8 times the input; a quadratic one about 64 times. */
const FACTOR = 8;
const MAX_RATIO = 20;

/** Adversarial prompts of about n characters, each built against one of the engine's scans. */
const ADVERSARIAL: Record<string, (n: number) => string> = {
  "a sea of '('": (n) => '('.repeat(n),
  'nested brackets around arithmetic': (n) => `${'(1+'.repeat(Math.floor(n / 4))}1${')'.repeat(Math.floor(n / 4))}`,
  'one long sentence of dots': (n) => `${'.'.repeat(n)}x`,
  'a huge number': (n) => `${'9'.repeat(n)} + 1`,
  'a word of punctuation': (n) => `${'!'.repeat(n)}a`,
  'a digit before a sea of spaces': (n) => `1${' '.repeat(n)}x`,
  'mixed text with arithmetic': (n) => 'What is (2 + 3) * 4? Think step by step. '.repeat(Math.ceil(n / 41)).slice(0, n),
};

const asked = (text: string): ChatMessage[] => [{ role: 'user', content: text }];

describe('the offline engine reads any prompt in linear time', () => {
  for (const [name, make] of Object.entries(ADVERSARIAL)) {
    it(`${name}: ${FACTOR}× the characters cost about ${FACTOR}× (under ${MAX_RATIO}×), below the cap and past it`, () => {
      const compose = (m: ChatMessage[]): unknown => composeOfflineReply(m);
      // Below the cap every character is analysed: this is where a quadratic scan shows.
      const below = scaling((n) => asked(make(n)), compose, OFFLINE_ANALYSIS_CHARS / FACTOR, FACTOR);
      expect(below.ratio, `CPU µs ${below.small.toFixed(0)} -> ${below.large.toFixed(0)}`).toBeLessThan(MAX_RATIO);
      // Past the cap the analysis stops at OFFLINE_ANALYSIS_CHARS: what remains (measuring the text) is linear.
      const above = scaling((n) => asked(make(n)), compose, OFFLINE_ANALYSIS_CHARS, FACTOR);
      expect(above.ratio, `CPU µs ${above.small.toFixed(0)} -> ${above.large.toFixed(0)}`).toBeLessThan(MAX_RATIO);
    });
  }

  it('the engine analyses only the first OFFLINE_ANALYSIS_CHARS characters and says so', () => {
    const long = 'word '.repeat(20_000);
    const r = composeOfflineReply([{ role: 'user', content: long }]);
    expect(r.text).toContain(`- **Analysed:** the first ${OFFLINE_ANALYSIS_CHARS} of ${long.trim().length} characters`);
    expect(r.text).toContain(`- **Words:** ${Math.ceil(OFFLINE_ANALYSIS_CHARS / 5)}`);
    // Arithmetic is still found and evaluated in an adversarial neighbourhood.
    const math = composeOfflineReply([{ role: 'user', content: `${'('.repeat(1000)} and then 6 * 7 please` }]);
    expect(math.text).toContain('$6 \\times 7 = 42$');
  });
});

/*
 * Through the gateway: each adversarial prompt is answered over a real socket, its analysis capped. Its CPU is not
 * compared with a plain prompt's here: the CPU of an asynchronous request counts whatever else the process does
 * meanwhile, and a busy machine broke a 5x bound (7.5x for a plain reply that happened to cost 16 ms). The scans'
 * linearity is asserted above, on the engine's own functions, where the measurement is the work alone.
 */
describe('through the gateway, an adversarial prompt is answered, its analysis capped', () => {
  let gw: RunningGateway;
  let cookie = '';
  beforeAll(async () => {
    gw = await startGateway({
      port: 0,
      memory: true,
      clientDir: null,
      inheritEnv: false,
      env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_COSTLY_RATE_BURST: '1000' },
      log: () => {},
    });
    const res = await fetch(`${gw.url}/auth/local-session`);
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** The offline reply over a real socket. */
  async function ask(prompt: string): Promise<string> {
    const res = await fetch(`${gw.url}/api/stream-gpt`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'parley-offline', messages: asked(prompt), conversationUUID: 'c' }),
    });
    expect(res.status).toBe(200);
    return res.text();
  }

  /** 160,000 characters (1 MB for the mixed text, which the body worker parses): the sizes of the issue. */
  const sizes: Record<string, number> = { 'mixed text with arithmetic': 1_000_000 };

  for (const [name, make] of Object.entries(ADVERSARIAL)) {
    it(`${name}: answered in full, the first ${OFFLINE_ANALYSIS_CHARS} characters analysed`, async () => {
      const n = sizes[name] ?? 160_000;
      const hostile = make(n);
      const reply = await ask(hostile);
      expect(reply).toContain('Parley Offline');
      expect(reply).toContain(`- **Analysed:** the first ${OFFLINE_ANALYSIS_CHARS} of `);
      expect(reply).toContain('<metadata>');
    });
  }
});
