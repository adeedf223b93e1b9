/**
 * Rows of the message list beyond single messages: the replies of one multi-model request side by side (stacked
 * on a phone, by CSS), and the marker of where the latest request's context window began (older messages were
 * not sent to the model; src/worker/rooms/replies/context-window.ts).
 */
import type { MessageView } from '../../protocol/engine';
import type { ModelInfo } from '../../protocol/api';
import { MessageItem } from './MessageItem';
import { ModelSettingsButton } from './ModelSettings';

export { listRows, type ListRow } from './list-rows';

export function MultiModelReplies({ messages, names, models, last = false }: { messages: readonly MessageView[]; names: ReadonlyMap<string, string>; models?: ReadonlyMap<string, ModelInfo>; last?: boolean }) {
  return (
    <div className="multi-replies" role="group" aria-label={`Replies from ${messages.length} models`}>
      {messages.map((m) => (
        <div className="multi-reply" key={m.id}>
          {/* The column's header: its model's settings, for the next prompt. */}
          <ModelSettingsButton model={models?.get(m.model)} className="multi-reply-settings" />
          <MessageItem message={m} modelName={names.get(m.model) ?? m.model} last={last} />
        </div>
      ))}
    </div>
  );
}

export function OmittedMarker({ count }: { count: number }) {
  return (
    <p className="context-omitted" role="note">
      {count.toLocaleString('en-US')} older {count === 1 ? 'message was' : 'messages were'} not sent with the latest prompt: they do not fit the
      model&apos;s context window.
    </p>
  );
}
