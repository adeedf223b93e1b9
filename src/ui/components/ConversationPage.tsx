import { useEffect, useRef } from 'react';
import { useSnapshot } from 'valtio';
import type { SendMessageResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { decodeSlugPrompt, navigate } from '../router';
import { showLocalNotice, view } from '../state';
import { Composer } from './Composer';
import { MessageItem } from './MessageItem';

const MESSAGE_REQUIRED = 'Message is required';

export function ConversationPage({ slug }: { slug: string }) {
  const isNew = slug === 'new';
  const conversation = useQuery({ kind: 'conversation', slug: isNew ? '' : slug });
  const models = useQuery({ kind: 'models' });
  const session = useQuery({ kind: 'session' });
  const snap = useSnapshot(view);
  const draftKey = isNew ? 'new' : slug;
  const autoSubmitted = useRef<string | null>(null);
  const restoredFor = useRef<string | null>(null);
  const listEnd = useRef<HTMLDivElement>(null);

  const textModels = models?.models.filter((m) => m.modality === 'text') ?? [];
  const model = snap.model || models?.defaultModel || '';

  // Spec 000 section 4: on load the last message's model restores the model; unknown falls back to the default.
  useEffect(() => {
    if (!conversation || !models || restoredFor.current === conversation.conversation.slug) return;
    restoredFor.current = conversation.conversation.slug;
    const last = conversation.messages.at(-1)?.model;
    view.model = last && models.models.some((m) => m.id === last) ? last : models.defaultModel;
  }, [conversation, models]);

  async function submit(prompt: string, targetSlug: string | null) {
    if (prompt.trim() === '') {
      showLocalNotice({ title: MESSAGE_REQUIRED, text: 'Type a message before sending.', tone: 'orange', durationMs: 5000 });
      return;
    }
    const result = await engine<SendMessageResult>((api) => api.sendMessage({ slug: targetSlug, prompt, model }));
    if (!result.ok) {
      if (result.notified) return;
      showLocalNotice({ title: result.error, text: '', tone: result.error === MESSAGE_REQUIRED ? 'orange' : 'red', durationMs: 5000 });
      return;
    }
    // Spec 000 section 4: a chat prompt is cleared once the user message is saved.
    view.drafts[draftKey] = '';
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

  const messageCount = conversation?.messages.length ?? 0;
  const lastText = conversation?.messages.at(-1)?.text.length ?? 0;
  // Follow the reply as it streams, unless the reader scrolled up to read something else.
  const stickToBottom = useRef(true);
  useEffect(() => {
    if (stickToBottom.current) listEnd.current?.scrollIntoView({ block: 'end' });
  }, [messageCount, lastText]);
  useEffect(() => {
    stickToBottom.current = true;
  }, [messageCount]);

  const title = isNew || !conversation ? 'New conversation' : conversation.conversation.name;
  useEffect(() => {
    document.title = `${title} · Parley`;
  }, [title]);

  const pending = conversation?.pending ?? false;

  return (
    <div className="conversation">
      <header className="conversation-header">
        <h1>{title}</h1>
        <label className="model-picker">
          <span className="visually-hidden">Model</span>
          <select aria-label="Model" value={model} onChange={(e) => (view.model = e.target.value)} disabled={textModels.length === 0}>
            {textModels.length === 0 && <option value="">Loading models…</option>}
            {textModels.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
                {m.offline ? '' : m.free ? ' (free)' : ''}
              </option>
            ))}
          </select>
        </label>
      </header>
      <section
        className="messages"
        aria-label="Messages"
        onScroll={(e) => {
          const el = e.currentTarget;
          stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        {isNew && messageCount === 0 && (
          <div className="empty">
            <h2>What shall we talk about?</h2>
            <p className="muted">Pick a model, type a message and press Enter.</p>
          </div>
        )}
        {conversation?.messages.map((m) => (
          <MessageItem key={m.id} message={m} modelName={models?.models.find((x) => x.id === m.model)?.name ?? m.model} />
        ))}
        <div ref={listEnd} />
      </section>
      <Composer
        value={snap.drafts[draftKey] ?? ''}
        onChange={(text) => (view.drafts[draftKey] = text)}
        pending={pending}
        onSend={() => void submit(view.drafts[draftKey] ?? '', isNew || unknownSlug ? null : slug)}
        onStop={() => void engine((api) => api.stopReply(slug))}
      />
    </div>
  );
}
