import { AUTO_MODEL_ID } from '../../protocol/auto-model';
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useSnapshot } from 'valtio';
import type { ActionResult, SendMessageResult } from '../../protocol/engine';
import { inputImageUse } from '../../protocol/image-rules';
import { chooseMediaModel, media, mediaModelFor, restoreMediaModel, suggestionChoice } from '../media/media-state';
import { engine, useConversation, useQuery } from '../engine';
import { decodeSlugPrompt, navigate } from '../router';
import { resolveLocalNotices, showLocalNotice, view } from '../state';
import { Composer } from './Composer';
import { composer, lastTurnModels } from '../composer-state';
import { ConversationHeader } from './ConversationHeader';
import { InstructionsButton } from './SystemPromptDialog';
import { ExportMenu } from './ExportMenu';
import { ShareButton } from './ShareButton';
import { ScratchpadButton } from './ToolSplit';
import { ErrorBoundary } from './ErrorBoundary';
import { formatTotalCost } from './cost-format';
import { Suggestions } from './web/Suggestions';
import { ModelSuggestions } from './web/ModelSuggestions';
import { clearWebDraft, web, webSendExtras } from '../web-state';
import { useAttachmentInput } from './Attachments';
import { audioPicker, audioSendExtras, speechView } from '../speech/speech-state';
import { markSent, useAutoRead } from '../speech/auto-read';
import { useQueueTurn } from './queue-turn';
import { loadMessageList } from './lazy-chunks';

// The message list (the virtualiser, message rows, their actions and media) is a lazy chunk: an empty or new
// conversation shows the same frame without it, and main.tsx starts loading it after the first paint, while the
// engine reads the messages.
const MessageList = lazy(() => loadMessageList().then((m) => ({ default: m.MessageList })));

/** The list's frame with no rows: a new conversation's empty state, and the list's place while its chunk loads. */
function EmptyMessages({ children }: { children?: ReactNode }) {
  return (
    <div className="messages-frame">
      <section className="messages" aria-label="Messages">
        {children}
      </section>
    </div>
  );
}

/** Notice.topic of the send's own errors, closed by the next message sent. */
const SEND_TOPIC = 'send';

const MESSAGE_REQUIRED = 'Message is required';

export function ConversationPage({ slug }: { slug: string }) {
  const isNew = slug === 'new';
  const conversation = useConversation(isNew ? '' : slug);
  const models = useQuery({ kind: 'models' });
  const session = useQuery({ kind: 'session' });
  const snap = useSnapshot(view);
  const composerSnap = useSnapshot(composer);
  const draftKey = isNew ? 'new' : slug;
  const autoSubmitted = useRef<string | null>(null);
  const restoredFor = useRef<string | null>(null);
  const page = useRef<HTMLDivElement>(null);
  const sendingRef = useRef(false);
  const [sending, setSending] = useState(false);

  const textModels = useMemo(() => models?.models.filter((m) => m.modality === 'text') ?? [], [models]);
  // Image and video modes pick among their own models (spec 000 section 4: a model sets its mode).
  const mediaMode = composerSnap.mode === 'video' ? 'video' : 'image';
  const isMediaMode = composerSnap.mode === 'image' || composerSnap.mode === 'video';
  const mediaSnap = useSnapshot(media);
  const mediaModels = useMemo(() => models?.models.filter((m) => m.modality === mediaMode) ?? [], [models, mediaMode]);
  void mediaSnap.imageModel;
  void mediaSnap.videoModel;
  const preferences = useQuery({ kind: 'preferences' });
  useAutoRead(conversation, preferences);
  // The Audio mode picks among the speech models, here and in its own controls (one choice: speechView.model).
  const speechSnap = useSnapshot(speechView);
  // The speech catalogue is a chunk of its own: until it arrives the picker has no speech model to show, so its
  // arrival must render this page again (a snapshot only re-renders for the fields read).
  void speechSnap.catalogueLoaded;
  const audio = composerSnap.mode === 'audio' ? audioPicker(models?.models, preferences, speechSnap.model) : null;
  const model = snap.model || models?.defaultModel || '';
  /** The user picked a model on this page: the default-model preference no longer applies to it. */
  const pickedHere = useRef(false);
  // Files on the composer (engine data: they survive a reload); dropped anywhere on the conversation they attach.
  const composerSlug = conversation ? conversation.conversation.slug : null;
  const attached = useQuery({ kind: 'attachments', slug: composerSlug });
  const drop = useAttachmentInput(composerSlug, preferences?.largeTextPasteToFile ?? true);
  // Spec 000 section 4: the next queued message is put in the input and sent from there.
  const sendingQueued = useQueueTurn(composerSlug, (result) => {
    if (result.ok) markSent(result.slug, result.userMessageId);
  });

  // A new conversation starts with the "Default model" preference (when the catalogue has it, or it is Auto), else
  // the catalogue's; a model already chosen in this tab (view.model) is kept, as a person expects going back and forth.
  useEffect(() => {
    if (!isNew || !models || !preferences || pickedHere.current || view.model !== '' || models.models.length === 0) return;
    const preferred = preferences.defaultModel;
    view.model = preferred && (preferred === AUTO_MODEL_ID || models.models.some((m) => m.id === preferred)) ? preferred : models.defaultModel;
  }, [isNew, models, preferences]);

  // Spec 000 section 4: on load the last message's model restores the model; unknown falls back to the default.
  useEffect(() => {
    if (!conversation || !models || models.models.length === 0 || restoredFor.current === conversation.conversation.slug) return;
    restoredFor.current = conversation.conversation.slug;
    // A multi-model turn restores all its models, in their columns' order (issue 16): the first is the page's
    // model, the others the extras; otherwise the last message's model (the last column's, for a multi turn).
    const turn = lastTurnModels(conversation.messages);
    if (turn.length > 1 && turn.every((id) => models.models.some((m) => m.id === id && m.modality === 'text'))) {
      view.model = turn[0] as string;
      composer.extraModels = turn.slice(1);
      return;
    }
    // One model answered the last turn: extras chosen for another conversation do not carry over. (No reply yet:
    // this conversation's first send has just moved here, with the extras the user chose for it.)
    if (turn.length === 1) composer.extraModels = [];
    const last = conversation.messages.at(-1)?.model;
    const lastModel = models.models.find((m) => m.id === last);
    // An image, video or speech model restores that mode's model (the Composer restores the mode); the text model stays.
    if (lastModel && (lastModel.modality === 'image' || lastModel.modality === 'video')) restoreMediaModel(lastModel.modality, lastModel.id);
    else if (lastModel?.modality === 'audio') speechView.model = lastModel.id;
    // A turn Auto answered restores Auto (the next prompt chooses again).
    else if (conversation.messages.at(-1)?.isAutoModel === true) view.model = AUTO_MODEL_ID;
    else view.model = lastModel ? lastModel.id : models.defaultModel;
  }, [conversation, models]);

  async function submit(prompt: string, targetSlug: string | null) {
    // One send at a time: a second Enter while the first is being prepared (a large photo takes seconds) would
    // send the same text twice (issue 16). The composer says "Sending…" meanwhile.
    if (sendingRef.current) return;
    const attachments = (attached ?? []).map((a) => String(a.id));
    // An image prompt may be empty (ghiblify and Upscaler fill it: spec 000 section 5): the engine decides.
    if (prompt.trim() === '' && web.pages.length === 0 && attachments.length === 0 && composer.mode !== 'image') {
      showLocalNotice({ title: MESSAGE_REQUIRED, text: 'Type a message before sending.', tone: 'orange', durationMs: 5000, topic: SEND_TOPIC });
      return;
    }
    sendingRef.current = true;
    setSending(true);
    let result: SendMessageResult;
    const mode = composer.mode;
    const isMedia = mode === 'image' || mode === 'video';
    // A new conversation's instructions chosen before its first message go with it (absent: the default ones).
    const chosenInstructions = targetSlug === null ? composer.newInstructions : null;
    const firstInstructions = chosenInstructions !== null ? { instructions: chosenInstructions } : {};
    try {
      const audioExtras = isMedia ? {} : await audioSendExtras(models?.models, preferences);
      // A system prompt or a setting saved just before is what is sent: the engine runs writes in order (core.inOrder).
      result = await engine<SendMessageResult>((api) =>
        isMedia
          ? api.sendMessage({ slug: targetSlug, prompt, model: mediaModelFor(mode, models?.models ?? []), mode, inputImageIds: [...media.inputImageIds], ...firstInstructions })
          : api.sendMessage({ slug: targetSlug, prompt, model, mode, extraModels: [...composer.extraModels], attachments, ...webSendExtras(preferences?.linkupDepth ?? 'standard'), ...audioExtras, ...firstInstructions }),
      );
    } finally {
      sendingRef.current = false;
      setSending(false);
    }
    if (!result.ok) {
      if (result.notified) return;
      showLocalNotice({ title: result.error, text: '', tone: result.error === MESSAGE_REQUIRED ? 'orange' : 'red', durationMs: 5000, topic: SEND_TOPIC });
      return;
    }
    // A message went out: the send's earlier errors ("Message is required", ...) no longer apply.
    resolveLocalNotices(SEND_TOPIC);
    markSent(result.slug, result.userMessageId);
    // Spec 000 section 4: a chat prompt is cleared once the user message is saved (and an image request's inputs).
    view.drafts[draftKey] = '';
    if (targetSlug === null) composer.newInstructions = null;
    // The input images went with this request only if its mode and model take them (protocol/image-rules.ts).
    const sentTo = isMedia ? models?.models.find((m) => m.id === mediaModelFor(mode, models.models)) : undefined;
    if (isMedia && sentTo && inputImageUse(mode, sentTo) !== null) media.inputImageIds = [];
    clearWebDraft();
    focusComposer();
    if (result.slug !== targetSlug) {
      view.drafts[result.slug] = '';
      navigate(`/conversation/${result.slug}`, { replace: true });
    }
  }

  // Spec 000 section 2: a slug matching no conversation is a prompt, submitted once the session is ready.
  const unknownSlug = !isNew && conversation === null;
  const sessionReady = session?.session != null && (models?.models.length ?? 0) > 0;
  useEffect(() => {
    if (!unknownSlug || autoSubmitted.current === slug) return;
    const prompt = decodeSlugPrompt(slug);
    view.drafts[slug] = prompt;
    if (!sessionReady) return;
    autoSubmitted.current = slug;
    void submit(prompt, null);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- submit reads the latest model; runs once per slug
  }, [unknownSlug, sessionReady, slug]);

  /** The message input keeps the focus: on page load, after a send (also when the first send remounts the page). */
  function focusComposer() {
    if (view.drawerOpen) return;
    page.current?.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus();
  }
  useEffect(focusComposer, []);

  const title = isNew || !conversation ? 'New conversation' : conversation.conversation.name;
  useEffect(() => {
    document.title = `${title} · Parley`;
  }, [title]);

  const pending = conversation?.pending ?? false;
  const totalCost = useMemo(() => formatTotalCost(conversation?.messages ?? []), [conversation?.messages]);

  // Escape stops a reply, unless something on top (a menu, a dialog, the drawer) took the key first.
  useEffect(() => {
    if (!pending) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || view.drawerOpen || document.querySelector('dialog[open]')) return;
      void engine((api) => api.stopReply(slug));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [pending, slug]);

  return (
    <div className="conversation" ref={page} data-dragging={drop.dragging || undefined} onDragOver={drop.onDragOver} onDragLeave={drop.onDragLeave} onDrop={drop.onDrop}>
      {drop.dragging && (
        <div className="drop-overlay" aria-hidden="true">
          Drop files to attach
        </div>
      )}
      <ConversationHeader
        title={title}
        model={isMediaMode ? mediaModelFor(mediaMode, models?.models ?? []) : audio ? audio.model : model}
        models={isMediaMode ? mediaModels : audio ? audio.models : textModels}
        auto={!isMediaMode && !audio}
        onModelChange={(id) => {
          if (isMediaMode) return chooseMediaModel(mediaMode, id);
          if (audio) return void (speechView.model = id);
          pickedHere.current = true;
          view.model = id;
        }}
        totalCost={totalCost}
      >
        <InstructionsButton slug={conversation ? conversation.conversation.slug : null} instructions={conversation?.conversation.instructions} />
        <ExportMenu slug={conversation ? conversation.conversation.slug : null} />
        <ShareButton slug={conversation ? conversation.conversation.slug : null} />
        <ScratchpadButton />
      </ConversationHeader>
      <ErrorBoundary resetKey={conversation?.conversation.slug} fallback={<p className="messages-failed" role="alert">The messages could not be shown. Reload the page to try again.</p>}>
      {(conversation?.messages.length ?? 0) === 0 ? (
        <EmptyMessages>
          {isNew && (
            <div className="empty">
              <h2>What shall we talk about?</h2>
              <p className="muted">Pick a model, type a message and press Enter.</p>
              {preferences?.showExamplePromptsCarousel !== false && <Suggestions mode={composerSnap.mode} onPick={(s) => {
                  view.drafts[draftKey] = s.prompt;
                  // An image (or video) suggestion also picks its model and size (spec 000 section 9).
                  const mode = composer.mode;
                  if (mode === 'image' || mode === 'video') {
                    const { modelId, settings } = suggestionChoice(mode, s, models?.models ?? []);
                    if (settings && modelId) void engine<ActionResult>((api) => api.setModelSettings(modelId, settings));
                  }
                  focusComposer();
                }} />}
              {composerSnap.mode === 'chat' && (
                <ModelSuggestions
                  models={textModels}
                  current={model}
                  onPick={(id) => {
                    pickedHere.current = true;
                    view.model = id;
                    focusComposer();
                  }}
                />
              )}
            </div>
          )}
        </EmptyMessages>
      ) : (
        <Suspense fallback={<EmptyMessages />}>
          <MessageList messages={conversation?.messages ?? []} partial={conversation?.partial ?? false} models={models?.models ?? []} />
        </Suspense>
      )}
      </ErrorBoundary>
      <Composer
        value={snap.drafts[draftKey] ?? ''}
        onChange={(text) => (view.drafts[draftKey] = text)}
        pending={pending}
        sending={sending || sendingQueued}
        onSend={() => !sendingQueued && void submit(view.drafts[draftKey] ?? '', isNew || unknownSlug ? null : slug)}
        onStop={() => void engine((api) => api.stopReply(slug))}
        slug={conversation ? conversation.conversation.slug : null}
        queued={conversation?.queue}
        messages={conversation?.messages}
        models={models?.models}
        model={model}
        loaded={(models?.models.length ?? 0) > 0 && (isNew || conversation !== undefined)}
        attachments={attached}
        instructions={conversation?.conversation.instructions}
      />
    </div>
  );
}
