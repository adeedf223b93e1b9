/**
 * Speech in Chromium: a 3-chunk reply read aloud with its middle chunk failing (skipped, the others in order, the
 * failed one made again on the next Read aloud while the others come from the cache), a paid voice skipped for want
 * of balance, a blocked autoplay giving 'Audio Ready', Read aloud with the built-in offline voice, the Audio mode, and
 * voice mode with Chromium's fake microphone and a fake transcription server.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAIL_MARK, fakeSpeechProviders, fakeTranscriber, startFakeSpeech, type FakeSpeech } from '../unit/server/fake-speech';
import { textReply } from '../unit/server/fake-upstream';
import { CHROMIUM_PATH } from './browser';
import { FREE_MODEL, assistant, openApp, send, useStack, user } from './stack';

let fake: FakeSpeech;
beforeAll(async () => {
  fake = await startFakeSpeech({ msPerChar: 0 });
});
afterAll(async () => {
  await fake.close();
});
const getStack = useStack(() => ({ env: { PARLEY_TTS_PROVIDERS: fakeSpeechProviders(fake.url, { freeKokoro: true }), PARLEY_TRANSCRIBE_PROVIDER: fakeTranscriber(fake.url) } }));

const speechCalls = () => fake.calls.filter((c) => c.path.startsWith('/v1/audio/speech') || c.path.startsWith('/v1/text-to-speech/'));
const playerRegion = (page: Page) => page.getByRole('region', { name: 'Audio player' });

/** Settings: the text-to-speech model (by its name in the list) and, optionally, auto audio. */
async function chooseSpeechModel(page: Page, name: string, autoRead = false): Promise<void> {
  await page.getByRole('link', { name: 'Settings' }).first().click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Voice' }).click();
  const select = page.getByRole('combobox', { name: 'Text-to-speech model' });
  await select.waitFor();
  const value = await select.locator('option', { hasText: name }).first().getAttribute('value');
  await select.selectOption(value ?? '');
  if (autoRead) {
    const toggle = page.getByRole('switch', { name: 'Read replies aloud' });
    await toggle.click();
    await expect.poll(() => toggle.isChecked()).toBe(true);
  }
  await expect.poll(() => select.inputValue()).toBe(value);
}

async function readAloud(page: Page, message = assistant(page).last()): Promise<void> {
  await message.getByRole('button', { name: 'Read aloud', exact: true }).click();
}

/** Sentences of about 50 characters, `chars` characters in all. */
function sentences(chars: number, word: string): string {
  const one = `The ${word} sentence goes on for a little while here. `;
  return one.repeat(Math.floor(chars / one.length)).trim();
}

describe('speech playback', () => {
  it('plays a 3-chunk reply in sequence, skipping the chunk that fails; Read aloud again makes only that one', async () => {
    const stack = getStack();
    // Chunks split on sentences: the middle one holds the failure mark, the others do not.
    // The first chunk is at most 1000 characters, the others 3900.
    const reply = `${sentences(900, 'first')} ${sentences(1900, 'second')} ${FAIL_MARK} ${sentences(1900, 'second')} ${sentences(3000, 'third')}`;
    stack.upstream.setScript(textReply(reply));
    const page = await openApp(await stack.newContext());
    await chooseSpeechModel(page, 'Kokoro 82M');
    await page.goto('/conversation/new');
    await send(page, 'Tell me a long story');
    await assistant(page).and(page.locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
    const before = speechCalls().length;
    await readAloud(page);
    const bar = playerRegion(page);
    await bar.waitFor();
    await expect.poll(() => bar.getAttribute('data-state'), { timeout: 30_000 }).toBe('idle');
    expect(await bar.getAttribute('data-played')).toBe('0,2');
    expect(speechCalls().length - before).toBe(3);
    const texts = speechCalls().slice(before).map((c) => String(c.body?.input ?? ''));
    expect(texts.map((t) => t.includes(FAIL_MARK))).toEqual([false, true, false]);
    expect(texts.every((t) => [...t].length <= 3900)).toBe(true);
    expect(speechCalls().at(-1)?.body).toMatchObject({ model: 'kokoro', voice: 'af_bella' });
    await assistant(page).last().getByText('2 of 3 parts · 1 failed').waitFor();

    // Cached per message and chunk: only the failed chunk is asked for again (and fails again).
    await bar.getByRole('button', { name: 'Close' }).click();
    await readAloud(page);
    await expect.poll(() => playerRegion(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('idle');
    expect(speechCalls().length - before).toBe(4);
    expect(await playerRegion(page).getAttribute('data-played')).toBe('0,2');
  });

  it('a paid voice with no balance skips generation: no provider call, the reason shown, nothing played', async () => {
    const stack = getStack();
    stack.upstream.setScript(textReply('A reply nobody pays to hear.'));
    const page = await openApp(await stack.newContext());
    // The default text-to-speech model, gpt-4o-mini-tts, is paid here; a new session has no balance.
    await page.goto('/conversation/new');
    await send(page, 'Say something');
    await assistant(page).and(page.locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
    const before = speechCalls().length;
    await readAloud(page);
    await page.getByRole('region', { name: 'Notifications' }).getByText('Insufficient balance: audio generation was skipped').waitFor();
    expect(speechCalls().length).toBe(before);
    expect(await assistant(page).last().getByRole('button', { name: 'Play audio' }).count()).toBe(0);
  });

  it('reads aloud with the built-in offline voice (eSpeak NG on the gateway), no provider involved', async () => {
    const stack = getStack();
    stack.upstream.setScript(textReply('<think>private plan</think>The offline voice reads this sentence.'));
    const page = await openApp(await stack.newContext());
    await chooseSpeechModel(page, 'Parley Offline Voice');
    await page.goto('/conversation/new');
    await send(page, 'Say something');
    await assistant(page).and(page.locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
    const before = speechCalls().length;
    await readAloud(page);
    const bar = playerRegion(page);
    await expect.poll(() => bar.getAttribute('data-state'), { timeout: 30_000 }).toBe('idle');
    expect(await bar.getAttribute('data-played')).toBe('0');
    expect(speechCalls().length).toBe(before);
    await assistant(page).last().getByText('Parley Offline Voice (built-in, not an AI model) · English (American)').waitFor();
  });

  it('the Audio mode turns a prompt into speech with the chosen model, voice and speed; too long a text is refused', async () => {
    const stack = getStack();
    const page = await openApp(await stack.newContext(), '/conversation/new?mode=audio');
    const controls = page.getByRole('group', { name: 'Audio settings' });
    await controls.waitFor();
    const modelSelect = controls.getByRole('combobox', { name: 'Speech model' });
    await modelSelect.selectOption('Kokoro-82m');
    await controls.getByRole('combobox', { name: 'Voice' }).selectOption('bm_george');
    await controls.getByRole('slider', { name: /Speed/ }).fill('1.5');
    await expect.poll(() => controls.getByRole('slider', { name: /Speed/ }).inputValue()).toBe('1.5');
    const before = speechCalls().length;
    await send(page, 'Hello from the Audio mode.');
    const reply = assistant(page).last();
    await reply.and(page.locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
    expect(await reply.getAttribute('data-model')).toBe('Kokoro-82m');
    expect(speechCalls().length - before).toBe(1);
    expect(speechCalls().at(-1)?.body).toMatchObject({ model: 'kokoro', voice: 'bm_george', speed: 1.5, input: 'Hello from the Audio mode.' });
    await reply.getByRole('button', { name: 'Play audio' }).click();
    await expect.poll(() => playerRegion(page).getAttribute('data-played'), { timeout: 60_000 }).toBe('0');

    expect(await page.getByRole('radio', { name: 'Audio' }).isChecked()).toBe(true);
    await modelSelect.selectOption('tts-1');
    await send(page, 'a'.repeat(4097));
    await page.getByRole('region', { name: 'Notifications' }).getByText('The text is 4,097 characters; OpenAI TTS takes at most 4,096').waitFor();
    expect(await user(page).count()).toBe(1);

    // Reopened, the conversation is in the Audio mode with its speech model, in the header's picker too; the text
    // model is untouched, so Chat sends to it.
    await page.reload();
    const header = page.getByRole('combobox', { name: 'Model', exact: true });
    await header.and(page.locator('[data-value="Kokoro-82m"]')).waitFor();
    expect(await page.getByRole('radio', { name: 'Audio' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Chat' }).check();
    await header.and(page.locator(`[data-value="${FREE_MODEL}"]`)).waitFor();
    stack.upstream.setScript(textReply('Words for the chat turn.'));
    await send(page, 'And now in words');
    await assistant(page).last().getByText('Words for the chat turn.').waitFor({ timeout: 60_000 });
  });
});

/** Chromium with a fake microphone (a beep) and no permission prompt. */
async function launch(args: string[]): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', ...args],
  });
}

describe('autoplay and voice', () => {
  it('a blocked autoplay gives the persistent blue notice Audio Ready; clicking it plays the reply', async () => {
    const stack = getStack();
    stack.upstream.setScript(textReply('This reply is read aloud automatically.'));
    const context = await stack.newContext();
    // Headless Chromium plays sound without a gesture whatever --autoplay-policy says, so each document here
    // refuses play() the way a browser's autoplay policy does (NotAllowedError) until the user clicks in it.
    await context.addInitScript(() => {
      let clicked = false;
      addEventListener('click', (e) => (clicked ||= e.isTrusted), true);
      const play = HTMLMediaElement.prototype.play;
      HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
        return clicked ? play.call(this) : Promise.reject(new DOMException("play() failed because the user didn't interact with the document first.", 'NotAllowedError'));
      };
    });
    const page = await openApp(context);
    await chooseSpeechModel(page, 'Kokoro 82M', true);
    // A new document, and the message sent with script events: no click in it before the reply is read aloud.
    await page.goto('/conversation/new');
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    // The composer takes a send once the page's model is settled (its Send enabled).
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
    await page.evaluate(() => {
      const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]');
      if (!box) throw new Error('no message box');
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(box, 'Please answer');
      box.dispatchEvent(new Event('input', { bubbles: true }));
      box.form?.requestSubmit();
    });
    await assistant(page).and(page.locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
    const notice = page.getByRole('region', { name: 'Notifications' }).locator('.notice-blue', { hasText: 'Audio Ready' });
    await notice.waitFor({ timeout: 60_000 });
    await notice.getByText('Click here to play the audio response').waitFor();
    expect(await playerRegion(page).getAttribute('data-state')).toBe('paused');
    // Persistent: still there a while later.
    await page.waitForTimeout(1500);
    expect(await notice.count()).toBe(1);
    await notice.getByText('Click here to play the audio response').click();
    await expect.poll(() => playerRegion(page).getAttribute('data-played'), { timeout: 60_000 }).toBe('0');
    expect(await notice.count()).toBe(0);
  });

  it('voice mode: listens through the fake microphone, transcribes, replies, speaks, and listens again until ended', async () => {
    const stack = getStack();
    stack.upstream.setScript(textReply('Sunny with a light breeze.'));
    fake.transcript = 'What is the weather like';
    const browser = await launch(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);
    try {
      const context = await browser.newContext({ baseURL: stack.url });
      const page = await openApp(context);
      await chooseSpeechModel(page, 'Kokoro 82M');
      await page.goto('/conversation/new?mode=voice');
      const voice = page.getByRole('group', { name: 'Voice conversation' });
      // Every state the loop shows, as the user sees it (the status line's text), in order.
      await voice.waitFor();
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { voiceStates: string[] }).voiceStates = seen;
        const record = () => {
          const text = document.querySelector('.voice-mode .voice-state')?.textContent ?? '';
          if (text && seen.at(-1) !== text) seen.push(text);
        };
        new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-phase'] });
        record();
      });
      await voice.getByRole('button', { name: 'Start voice conversation' }).click();
      await voice.getByText('Listening…').waitFor();
      await page.waitForTimeout(800);
      const transcriptions = () => fake.calls.filter((c) => c.path.startsWith('/v1/audio/transcriptions')).length;
      const before = transcriptions();
      await voice.getByRole('button', { name: 'Done speaking' }).click();
      await user(page).getByText('What is the weather like').waitFor({ timeout: 60_000 });
      expect(transcriptions()).toBe(before + 1);
      expect(fake.calls.filter((c) => c.path.startsWith('/v1/audio/transcriptions')).at(-1)?.bytes).toBeGreaterThan(1000);
      await assistant(page).getByText('Sunny with a light breeze.').waitFor({ timeout: 60_000 });
      // The reply is spoken, then it listens again.
      await expect.poll(() => speechCalls().at(-1)?.body?.input, { timeout: 60_000 }).toBe('Sunny with a light breeze.');
      await voice.getByText('Listening…').waitFor({ timeout: 60_000 });
      expect(page.url()).toContain('/conversation/');
      // Listening, then Thinking while the reply comes, Speaking while it is read, and Listening again.
      const states = await page.evaluate(() => (window as unknown as { voiceStates: string[] }).voiceStates);
      const from = states.indexOf('Listening…');
      expect(states.slice(from, from + 4), states.join(' > ')).toEqual(['Listening…', 'Thinking…', 'Speaking…', 'Listening…']);
      await voice.getByRole('button', { name: 'End voice conversation' }).click();
      await voice.getByRole('button', { name: 'Start voice conversation' }).waitFor();
    } finally {
      await browser.close();
    }
  });

  it('voice mode with the microphone refused: plain advice and Retry, the typed conversation still works; allowed, Retry listens', async () => {
    const stack = getStack();
    fake.transcript = 'Now I can speak';
    // A fake device but no fake prompt: headless Chromium refuses the microphone until the context grants it.
    const browser = await launch(['--use-fake-device-for-media-stream']);
    try {
      const context = await browser.newContext({ baseURL: stack.url });
      const page = await openApp(context, '/conversation/new?mode=voice');
      const voice = page.getByRole('group', { name: 'Voice conversation' });
      await voice.getByRole('button', { name: 'Start voice conversation' }).click();
      const advice = voice.getByRole('alert');
      await advice.getByText('The microphone is blocked').waitFor({ timeout: 60_000 });
      expect(await advice.textContent()).toContain("Allow the microphone for this site in the browser's settings");
      expect(await page.getByText(/Speech recognition failed|not-allowed|NotAllowedError/).count()).toBe(0);
      // The typed conversation goes on.
      stack.upstream.setScript(textReply('Typed reply arrives.'));
      await send(page, 'Typed instead');
      await assistant(page).last().getByText('Typed reply arrives.').waitFor({ timeout: 60_000 });
      // Allowed now: Retry listens.
      await context.grantPermissions(['microphone']);
      await voice.getByRole('button', { name: 'Retry' }).click();
      await voice.getByText('Listening…').waitFor({ timeout: 60_000 });
      expect(await advice.count()).toBe(0);
      await voice.getByRole('button', { name: 'End voice conversation' }).click();
    } finally {
      await browser.close();
    }
  });

  it('voice mode with no microphone at all says none was found, with Retry', async () => {
    const stack = getStack();
    // The prompt is accepted, but there is no fake device (and a test machine has no real one).
    const browser = await launch(['--use-fake-ui-for-media-stream']);
    try {
      const context = await browser.newContext({ baseURL: stack.url });
      const page = await openApp(context, '/conversation/new?mode=voice');
      const voice = page.getByRole('group', { name: 'Voice conversation' });
      await voice.getByRole('button', { name: 'Start voice conversation' }).click();
      const advice = voice.getByRole('alert');
      await advice.getByText('No microphone found').waitFor({ timeout: 60_000 });
      await advice.getByRole('button', { name: 'Retry' }).click();
      await advice.getByText('No microphone found').waitFor({ timeout: 60_000 });
      expect(await page.getByRole('textbox', { name: 'Message' }).isEditable()).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('voice mode hands the words to the composer through session storage (transcriptId) when asked to review them', async () => {
    const stack = getStack();
    fake.transcript = 'Draft this for me';
    const browser = await launch(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);
    try {
      const context = await browser.newContext({ baseURL: stack.url });
      const page = await openApp(context, '/conversation/new?mode=voice');
      const voice = page.getByRole('group', { name: 'Voice conversation' });
      await voice.getByRole('checkbox', { name: 'Review before sending' }).check();
      await voice.getByRole('button', { name: 'Start voice conversation' }).click();
      await voice.getByText('Listening…').waitFor();
      await page.waitForTimeout(500);
      await voice.getByRole('button', { name: 'Done speaking' }).click();
      await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).inputValue(), { timeout: 60_000 }).toBe('Draft this for me');
      expect(await page.getByRole('radio', { name: 'Chat' }).isChecked()).toBe(true);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(await user(page).count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
