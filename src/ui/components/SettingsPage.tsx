/**
 * Settings: the preferences this workspace introduces (spec 001 sections 3 and 9), each a control named in plain
 * words. Every change goes to the engine at once (it is logged and reaches every tab); nothing is kept here.
 */
import { WebSettings } from './web/WebSettings';
import { DefaultInstructionsSetting } from './DefaultInstructionsSetting';
import { SpeechSettings } from '../speech/SpeechSettings';
import { useEffect, useId } from 'react';
import type { Preferences, Theme } from '../../protocol/preferences';
import { engine, useQuery } from '../engine';
import { ModelPicker } from './ModelPicker';
import { WholeNumberSetting } from './WholeNumberSetting';
import { ExportAllButton } from './ExportMenu';
import { Link } from './Link';
import { LogTools } from './LogTools';
import { AccountSettings } from '../account/AccountSettings';

/** Bounds of the max-tokens setting: a positive whole number no larger than the biggest context we know. */
export const MAX_TOKENS_MIN = 1;
export const MAX_TOKENS_MAX = 1_000_000;

function save(changes: Partial<Preferences>): void {
  void engine((api) => api.setPreferences(changes));
}

/** The explicit-content setting says it is for adults (issue 20, spec 001 section 6). */
export const EXPLICIT_CONTENT_LABEL = 'Show explicit content (18+)';

function Toggle({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange(v: boolean): void; hint?: string }) {
  const id = useId();
  return (
    <div className="setting setting-toggle">
      <input id={id} type="checkbox" role="switch" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
      {hint && <p className="setting-hint muted">{hint}</p>}
    </div>
  );
}

/** Max tokens: typed freely, saved when it is a valid whole number (on blur or Enter), otherwise explained. */
function MaxTokens({ value }: { value: number }) {
  return (
    <WholeNumberSetting
      label="Max tokens"
      value={value}
      min={MAX_TOKENS_MIN}
      max={MAX_TOKENS_MAX}
      step={1}
      hint="The longest reply a model may write. A reply that ends within 10% of it can be continued."
      onSave={(n) => save({ maxTokens: n })}
    />
  );
}

export function SettingsPage() {
  const preferences = useQuery({ kind: 'preferences' });
  const models = useQuery({ kind: 'models' });
  const themeId = useId();
  useEffect(() => {
    document.title = 'Settings · Parley';
  }, []);
  const textModels = models?.models.filter((m) => m.modality === 'text') ?? [];
  const catalogueDefault = models?.models.find((m) => m.id === models.defaultModel)?.name ?? models?.defaultModel ?? '';

  return (
    <div className="settings">
      <h1>Settings</h1>
      {preferences === undefined ? (
        <p className="muted">Loading…</p>
      ) : (
        <form className="settings-form" onSubmit={(e) => e.preventDefault()}>
          <div className="setting">
            <label htmlFor={themeId}>Theme</label>
            <select id={themeId} value={preferences.theme} onChange={(e) => save({ theme: e.target.value as Theme })}>
              <option value="dark">Dark</option>
              <option value="light">Light</option>
              <option value="system">Same as the system</option>
            </select>
          </div>
          <MaxTokens value={preferences.maxTokens} />
          <div className="setting">
            <span className="setting-label" aria-hidden="true">
              Default model
            </span>
            <ModelPicker
              label="Default model"
              value={preferences.defaultModel ?? ''}
              models={textModels}
              noneLabel={catalogueDefault ? `Catalogue default (${catalogueDefault})` : 'Catalogue default'}
              onChange={(id) => save({ defaultModel: id === '' ? null : id })}
            />
            <p className="setting-hint muted">The model a new conversation starts with.</p>
          </div>
          <Toggle
            label="Auto-generate titles"
            checked={preferences.autoGenerateTitle}
            onChange={(v) => save({ autoGenerateTitle: v, hasBeenAskedAboutAutoTitle: true })}
            hint="After the first reply, a short title replaces the conversation's first words."
          />
          <Toggle label="Enter sends message" checked={preferences.enterSendsMessage} onChange={(v) => save({ enterSendsMessage: v })} hint="When off, Enter starts a new line; send with the Send button." />
          <Toggle label="Show thinking" checked={preferences.showThinkingBlocks} onChange={(v) => save({ showThinkingBlocks: v })} hint="Show a model's reasoning above its reply." />
          <Toggle label={EXPLICIT_CONTENT_LABEL} checked={preferences.showExplicitContent} onChange={(v) => save({ showExplicitContent: v })} hint="For adults only: lets image and video models make what they flag as explicit. Off by default." />
          <DefaultInstructionsSetting preferences={preferences} save={save} />
          <WebSettings preferences={preferences} save={save} />
          <SpeechSettings preferences={preferences} models={models?.models} save={save} />
          <AccountSettings preferences={preferences} save={save} />
        </form>
      )}
      <ExportAllButton />
      <LogTools />
      <h2 className="settings-section">Developer</h2>
      <p className="setting-hint muted">
        The Inspector shows the event log, the state after any event and what it changed, and exports a repro of one conversation. Shortcut: Ctrl+Alt+I.
      </p>
      <Link href="/inspector">Open the Inspector</Link>
    </div>
  );
}
