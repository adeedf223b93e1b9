/**
 * The composer: the message input with Send and Stop, the Mode group, multi-model extras ("Add model",
 * "Remove {model name}"), the "Web search" switch, the queue ("Queued messages") and the token counts.
 *
 * While a reply generates, Send stays: the engine queues the message and sends it when the reply ends (spec 000
 * section 4). A mode the engine has no handler for (the `modes` query) says so next to the group; Send in one gets
 * the same plain message from the engine. Token counts are estimates, recomputed 400 ms after the last keystroke.
 */
import { useAppReady } from '../ready';
import { useDistanceToBottom } from './use-distance-to-bottom';
import { AUTO_MODEL_ID } from '../../protocol/auto-model';
import { lazy, Suspense, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { ModelInfo } from '../../protocol/api';
import type { Mode } from '../../events/model';
import type { ActionResult, MessageView, QueuedView } from '../../protocol/engine';
import { MAX_EXTRA_MODELS } from '../../protocol/multi-limits';
import { TOKEN_COUNT_DEBOUNCE_MS, type TokenCounts } from '../../shared/tokens';
import { INSUFFICIENT_BALANCE, MODE_UNAVAILABLE, WEB_SEARCH_UNAVAILABLE } from '../../shared/composer-messages';
import { addExtraModel, applyModelChoice, composer, MODES, modeForModel, readAddress, nextExtraModel, removeExtraModel } from '../composer-state';
import { engine, useQuery } from '../engine';
import { showLocalNotice, view } from '../state';
import { ModelPicker } from './ModelPicker';
import { ModelSettingsButton } from './ModelSettings';
import { usePath } from '../router';
import { InputImages } from '../media/InputImages';
import { chooseMediaModel, mediaModelFor } from '../media/media-state';
import { ScrapeBar } from './web/ScrapeBar';
import { WebSearchSwitch } from './web/WebSearchSwitch';
import { web } from '../web-state';
import type { LibraryItemView } from '../../protocol/library';
import { takesImages } from '../../protocol/vision';
import { AttachButton, AttachmentChips, attachmentTokens, useAttachmentInput } from './Attachments';
import { useComposerSize } from '../account/layout';
import { MoreTools } from './MoreTools';
import { StudyModeToggle, useStudyMode } from './StudyModeToggle';

// The controls of the audio, voice, image and video modes are lazy chunks, loaded when their mode is chosen.
const AudioControls = lazy(() => import('../speech/AudioControls').then((m) => ({ default: m.AudioControls })));
const VoiceMode = lazy(() => import('../speech/VoiceMode').then((m) => ({ default: m.VoiceMode })));
const MediaControls = lazy(() => import('../media/MediaControls').then((m) => ({ default: m.MediaControls })));

interface Props {
  value: string;
  onChange(text: string): void;
  pending: boolean;
  /** A send is being prepared (files read, the message saved): Enter and Send wait, the composer says so. */
  sending?: boolean;
  onSend(): void;
  onStop(): void;
  /** The conversation (null for a new one). */
  slug?: string | null;
  /** Its queued messages (part of the conversation's view, so they never disagree with its messages). */
  queued?: readonly QueuedView[];
  /** The conversation's messages, for the token counts. */
  messages?: readonly MessageView[];
  /** The catalogue. */
  models?: readonly ModelInfo[];
  /** The chosen model (extras cannot repeat it). */
  model?: string;
  /** The page has what it needs to apply the address (catalogue loaded, conversation loaded or new). */
  loaded?: boolean;
  /** Files on this composer, not sent yet (the `attachments` query). */
  attachments?: readonly LibraryItemView[];
  /** The conversation's instructions ('' or absent = Standard), for the Study Mode chip. */
  instructions?: string;
}

const NO_MESSAGES: readonly MessageView[] = [];
const NO_MODELS: readonly ModelInfo[] = [];
const NO_QUEUE: readonly QueuedView[] = [];

export function Composer({ value, onChange, pending, sending = false, onSend, onStop, slug = null, queued = NO_QUEUE, messages = NO_MESSAGES, models = NO_MODELS, model = '', loaded = false, attachments, instructions }: Props) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const state = useSnapshot(composer);
  const webSnap = useSnapshot(web);
  const preferences = useQuery({ kind: 'preferences' });
  const available = useQuery({ kind: 'modes' });
  const session = useQuery({ kind: 'session' });
  const ids = useId();
  const enterSends = preferences?.enterSendsMessage ?? true;
  const textModels = useMemo(() => models.filter((m) => m.modality === 'text'), [models]);
  const names = useMemo(() => new Map(models.map((m) => [m.id, m.name])), [models]);
  const paste = useAttachmentInput(slug, preferences?.largeTextPasteToFile ?? true);
  // Study Mode tutors text replies (Chat and Voice); while on, its chip shows in the row, else with the other tools.
  const textMode = state.mode === 'chat' || state.mode === 'voice';
  const study = useStudyMode(slug, instructions);
  const studyOn = study.on;

  // Spec 001 sections 5 and 9: the input is at least its height preference (clamped to the window) and grows with
  // its text up to the window's limit; its width is the width preference, clamped (src/ui/account/layout.tsx).
  const size = useComposerSize();
  const area = useRef<HTMLDivElement>(null);
  // The floating notices sit just above the composer (issue 16).
  useDistanceToBottom(area, '--composer-offset');
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(Math.max(size.height, el.scrollHeight), size.maxHeight)}px`;
  }, [value, size.height, size.maxHeight]);

  // On load (spec 000 sections 2 and 4): the last message's model restores the mode, then the address's mode,
  // model (which sets the mode), online / source and transcriptId apply. Once per page.
  const applied = useRef<string | null>(null);
  /** A Mode the user clicked before the catalogue (or the conversation) loaded: it outranks the restored mode. */
  const clickedMode = useRef<Mode | null>(null);
  const pageKey = `${slug ?? 'new'}${location.search}`;
  const path = usePath();
  /**
   * The page whose model is settled (the address applied, its model chosen): until then Send and Enter wait, so a
   * quick Enter on `?model=X` does not go to the default model before the catalogue arrives (issue 16).
   */
  const [settledKey, setSettledKey] = useState<string | null>(null);
  // The readiness gate (../ready.ts): nothing is sent before the engine and its conversation store are ready.
  const ready = useAppReady();
  const loadingModels = !ready || !loaded || models.length === 0 || settledKey !== pageKey;
  useEffect(() => {
    const key = pageKey;
    if (!loaded || models.length === 0 || applied.current === key) return;
    applied.current = key;
    let settleLater = false;
    const clicked = clickedMode.current;
    clickedMode.current = null;
    const last = messages.at(-1);
    const lastModel = last ? models.find((m) => m.id === last.model) : undefined;
    // A conversation held by voice stays in the Voice mode (its turns are chat turns, so the model alone says Chat).
    const heldByVoice = messages.findLast((m) => m.role === 'user')?.mode === 'voice';
    composer.mode = heldByVoice ? 'voice' : lastModel ? modeForModel(lastModel) : 'chat';
    const address = readAddress(location.search, sessionStorage);
    if (address.badMode !== null) {
      showLocalNotice({ title: `Unknown mode: ${address.badMode}`, text: 'Modes are chat, image, video, audio and voice.', tone: 'orange', durationMs: 5000 });
    }
    if (address.mode) composer.mode = address.mode;
    if (address.model === AUTO_MODEL_ID && !models.some((m) => m.id === AUTO_MODEL_ID)) {
      // ?model=auto chooses Auto (protocol/auto-model.ts), as the picker does.
      settleLater = true;
      setTimeout(() => {
        view.model = AUTO_MODEL_ID;
        setSettledKey(key);
      }, 0);
    } else if (address.model !== null) {
      const chosen = models.find((m) => m.id === address.model);
      if (chosen) {
        // After the page's own effects (children's effects run first), which set a new conversation's default model.
        if (chosen.modality === 'text') {
          settleLater = true;
          setTimeout(() => {
            view.model = chosen.id;
            setSettledKey(key);
          }, 0);
        }
        else if (chosen.modality === 'image' || chosen.modality === 'video') chooseMediaModel(chosen.modality, chosen.id);
        applyModelChoice(chosen);
      } else {
        const fallback = models.find((m) => m.modality === 'text' && m.id === view.model) ?? textModels[0];
        showLocalNotice({ title: `Unknown model: ${address.model}`, text: `Using ${fallback?.name ?? 'the default model'} instead.`, tone: 'orange', durationMs: 5000 });
      }
    }
    if (address.webSearch !== null) composer.webSearch = address.webSearch;
    if (address.transcript !== null) onChange(address.transcript);
    // The address may change on the same page (voice mode hands its words over with ?transcriptId=): `path` follows it.
    // The click came after the page opened: it is the newest choice, so it stands (and ends multi-model as a click does).
    if (clicked !== null) {
      composer.mode = clicked;
      if (clicked !== 'chat') composer.extraModels = [];
    }
    if (!settleLater) setSettledKey(key);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per page and address, when loaded
  }, [loaded, models, slug, path]);

  // Token counts, debounced 400 ms (spec 000 section 9).
  const maxTokens = preferences?.maxTokens ?? 8192;
  const [counts, setCounts] = useState<TokenCounts | null>(null);
  // Files count too: a message's as the model reads them, the composer's images 85 each for a vision model.
  const chosen = models.find((m) => m.id === model);
  const fileTokens = attachmentTokens(attachments, chosen !== undefined && takesImages(chosen));
  useEffect(() => {
    let cancelled = false;
    const t = setTimeout(() => {
      // The counter is a chunk of its own (./composer-tokens.ts): the first count loads it.
      void import('./composer-tokens')
        .then((m) => {
          if (!cancelled) setCounts(m.composerTokens(messages, value, maxTokens, fileTokens));
        })
        .catch(() => undefined);
    }, TOKEN_COUNT_DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [messages, value, maxTokens, fileTokens]);

  function addModel() {
    const chosen = new Set([model, ...composer.extraModels]);
    const canUsePaid = session?.canUsePaidModels ?? false;
    const next = nextExtraModel(textModels, chosen, canUsePaid);
    if (!next || !addExtraModel(next.id)) {
      showLocalNotice({ title: `At most ${MAX_EXTRA_MODELS} additional text models in multi-model mode`, text: '', tone: 'orange', durationMs: 5000 });
      return;
    }
    // Only paid models were left and the balance cannot pay for them: say so now, not only at Send (spec 000
    // section 6: without a balance above 0.00001 only free models can be used; section 8: the 402 notice).
    if (!next.free && !canUsePaid) {
      showLocalNotice({
        title: INSUFFICIENT_BALANCE.title,
        text: `${next.name} is a paid model. ${INSUFFICIENT_BALANCE.text}`,
        tone: 'red',
        durationMs: 15_000,
        action: { label: INSUFFICIENT_BALANCE.goToWallet, kind: 'deposit' },
      });
    }
  }

  // A mode whose handler the engine does not have says so plainly (spec 000 section 2; issue 6: never silent).
  const nonChat = state.mode !== 'chat' && available !== undefined && !available.includes(state.mode) ? MODE_UNAVAILABLE[state.mode] : null;
  const canAdd = state.mode === 'chat' && state.extraModels.length < MAX_EXTRA_MODELS && textModels.length > state.extraModels.length + 1;

  return (
    <div className="composer-area" ref={area} style={{ maxWidth: `${size.width}px` }}>
      {queued.length > 0 && (
        <ul className="queue" aria-label="Queued messages">
          {queued.map((q) => (
            <li key={q.id}>
              <span className="queue-text">{q.prompt}</span>
              {q.webSearch && <span className="queue-tag">{q.webSearch.depth === 'deep' ? 'Deep web search' : 'Web search'}</span>}
              {q.attachments.length > 0 && <span className="queue-files muted">{q.attachments.length === 1 ? '1 file' : `${q.attachments.length} files`}</span>}
              <button
                type="button"
                className="icon"
                aria-label={`Remove queued message: ${q.prompt.slice(0, 40)}`}
                onClick={() => slug && void engine<ActionResult>((api) => api.removeQueuedMessage(slug, q.id))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-tools">
        {/* On a phone the modes and model chips scroll sideways in their own strip; the tools after it stay put. */}
        <div className="composer-tools-scroll">
          <div role="radiogroup" aria-label="Mode" className="mode-group">
            {MODES.map((m) => (
              <label key={m.id} className={state.mode === m.id ? 'mode on' : 'mode'}>
                <input type="radio" name={`${ids}-mode`} value={m.id} checked={state.mode === m.id}
                  // On click, not change: a click on the mode already shown (Chat on a page still loading) counts too.
                  onClick={() => {
                    if (applied.current !== pageKey) clickedMode.current = m.id;
                  }}
                  onChange={() => {
                    composer.mode = m.id;
                    // Multi-model is a chat capability: another mode ends it (spec 000 section 4, as an image model does).
                    if (m.id !== 'chat') composer.extraModels = [];
                  }}
                />
                {m.label}
              </label>
            ))}
          </div>
          <div className="extras">
            {state.extraModels.map((id, i) => (
              <span className="extra-model" key={id}>
                <ModelPicker
                  label={`Extra model ${i + 1}`}
                  value={id}
                  models={textModels}
                  exclude={[model, ...state.extraModels.filter((x) => x !== id)]}
                  onChange={(next) => (composer.extraModels = composer.extraModels.map((x) => (x === id ? next : x)))}
                />
                <ModelSettingsButton model={textModels.find((m) => m.id === id)} />
                <button type="button" className="icon" aria-label={`Remove ${names.get(id) ?? id}`} onClick={() => removeExtraModel(id)}>
                  ×
                </button>
              </span>
            ))}
          </div>
        </div>
        {textMode && studyOn && <StudyModeToggle slug={slug} study={study} />}
        {/* Issue 16: the secondary tools; on a phone they wait behind "More tools" (CSS shows the toggle there only). */}
        {textMode && (
          <MoreTools>
            {!studyOn && <StudyModeToggle slug={slug} study={study} />}
            {/* Multi-model is a chat capability: the other modes do not offer it (a phone has no row to spare). */}
            {state.mode === 'chat' && (
              <button type="button" className="add-model" onClick={addModel} disabled={!canAdd}>
                Add model
              </button>
            )}
            {/* Web search feeds a text reply: the Chat and Voice modes; the media modes would ignore it. */}
            <WebSearchSwitch />
          </MoreTools>
        )}
        {counts && (
          // A small indicator; the details open on a click or a tap (issue 16: developer detail out of the way).
          <details className="token-counts" aria-label="Token counts">
            <summary title="Token counts">{counts.total.toLocaleString('en-US')} tokens</summary>
            <div className="token-counts-detail">
              <span>Conversation {counts.conversation.toLocaleString('en-US')}</span>
              <span>Input {counts.input.toLocaleString('en-US')}</span>
              <span>
                Total {counts.total.toLocaleString('en-US')} · max reply {counts.maxTokens.toLocaleString('en-US')} tokens
              </span>
            </div>
          </details>
        )}
      </div>
      {nonChat && (
        <p className="mode-note" role="status">
          {nonChat}
        </p>
      )}
      <Suspense fallback={null}>
        {state.mode === 'audio' && available?.includes('audio') && <AudioControls />}
        {state.mode === 'voice' && available?.includes('voice') && <VoiceMode slug={slug} model={model} />}
        {(state.mode === 'image' || state.mode === 'video') && !nonChat && (
          <MediaControls mode={state.mode} model={models.find((m) => m.id === mediaModelFor(state.mode as 'image' | 'video', models))} />
        )}
      </Suspense>
      {state.webSearch && webSnap.status?.available === false && (
        <p className="mode-note" role="status">
          {webSnap.status.reason ?? WEB_SEARCH_UNAVAILABLE}
        </p>
      )}
      <ScrapeBar text={value} />
      <InputImages models={models} mode={state.mode} model={state.mode === 'image' || state.mode === 'video' ? models.find((m) => m.id === mediaModelFor(state.mode as 'image' | 'video', models)) : undefined} />
      <AttachmentChips slug={slug} items={attachments} />
      {size.handles}
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          if (!loadingModels) onSend();
        }}
      >
        <AttachButton slug={slug} />
        <textarea
          ref={ref}
          onPaste={paste.onPaste}
          aria-label="Message"
          aria-busy={sending || undefined}
          readOnly={sending}
          placeholder={pending ? 'Queue a message…' : 'Message Parley…'}
          rows={1}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            // enterSendsMessage (spec 001 section 9, default true); Shift+Enter inserts a newline.
            if (enterSends && e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (!loadingModels) onSend();
            }
          }}
        />
        {pending && (
          <button type="button" className="stop" onClick={onStop}>
            Stop
          </button>
        )}
        <button type="submit" className="send" disabled={sending || loadingModels}>
          Send
        </button>
      </form>
      {sending ? (
        <p className="sending-note" role="status">
          Sending…
        </p>
      ) : (
        loadingModels && (
          <p className="sending-note" role="status">
            {ready ? 'Loading models…' : 'Loading your conversations…'}
          </p>
        )
      )}
    </div>
  );
}
