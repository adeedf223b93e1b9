/**
 * Settings: the preferences this workspace introduces (spec 001 sections 3 and 9), each a control named in plain
 * words, in sections (issue 16): General, Chat, Layout, Voice, Web search, Privacy, Data and Developer, each at its
 * own address (/settings/voice). Every change goes to the engine at once (it is logged and reaches every tab);
 * nothing is kept here.
 */
import { WebSettings } from './web/WebSettings';
import { DefaultInstructionsSetting } from './DefaultInstructionsSetting';
import { SpeechSettings } from '../speech/SpeechSettings';
import { useId } from 'react';
import { Code2, Database, Globe, LayoutPanelLeft, MessageSquare, Mic, Shield, SlidersHorizontal } from 'lucide-react';
import type { Preferences, Theme } from '../../protocol/preferences';
import { engine, useQuery } from '../engine';
import { ModelPicker } from './ModelPicker';
import { WholeNumberSetting } from './WholeNumberSetting';
import { ExportAllButton } from './ExportFormats';
import { Link } from './Link';
import { LogTools } from './LogTools';
import { ComposingSettings, LayoutSettings, PrivacySettings, Switch } from '../account/AccountSettings';
import { SectionedPage, SettingsGroup, type PageSection } from './SectionedPage';
import { usePaymentSetup } from './payment-setup';

/** Bounds of the max-tokens setting: a positive whole number no larger than the biggest context we know. */
export const MAX_TOKENS_MIN = 1;
export const MAX_TOKENS_MAX = 1_000_000;

function save(changes: Partial<Preferences>): void {
  void engine((api) => api.setPreferences(changes));
}

/** The explicit-content setting says it is for adults (issue 20, spec 001 section 6). */
export const EXPLICIT_CONTENT_LABEL = 'Show explicit content (18+)';

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

export function SettingsPage({ section }: { section: string | null }) {
  const preferences = useQuery({ kind: 'preferences' });
  const models = useQuery({ kind: 'models' });
  const themeId = useId();
  const textModels = models?.models.filter((m) => m.modality === 'text') ?? [];
  const catalogueDefault = models?.models.find((m) => m.id === models.defaultModel)?.name ?? models?.defaultModel ?? '';
  const loading = <p className="muted">Loading…</p>;
  const p = preferences;
  const setup = usePaymentSetup();
  const sessionId = useQuery({ kind: 'session' })?.session?.id ?? null;

  const sections: PageSection[] = [
    {
      id: 'general',
      title: 'General',
      icon: SlidersHorizontal,
      description: 'How Parley looks and what it shows.',
      content: p ? (
        <SettingsGroup>
          <div className="setting">
            <label htmlFor={themeId}>Theme</label>
            <select id={themeId} value={p.theme} onChange={(e) => save({ theme: e.target.value as Theme })}>
              <option value="dark">Dark</option>
              <option value="light">Light</option>
              <option value="system">Same as the system</option>
            </select>
            <p className="setting-hint muted">Dark, light, or whatever your system uses.</p>
          </div>
          <Switch label="Show thinking" checked={p.showThinkingBlocks} onChange={(v) => save({ showThinkingBlocks: v })} hint="Show a model's reasoning above its reply." />
          <Switch label="Show example prompts" checked={p.showExamplePromptsCarousel} onChange={(v) => save({ showExamplePromptsCarousel: v })} hint="Suggestions on an empty conversation." />
          <Switch label={EXPLICIT_CONTENT_LABEL} checked={p.showExplicitContent} onChange={(v) => save({ showExplicitContent: v })} hint="For adults only: lets image and video models make what they flag as explicit. Off by default." />
        </SettingsGroup>
      ) : loading,
    },
    {
      id: 'chat',
      title: 'Chat',
      icon: MessageSquare,
      description: 'How a new conversation starts, and how the message box behaves.',
      content: p ? (
        <>
          <SettingsGroup title="Model">
            <div className="setting">
              <span className="setting-label" aria-hidden="true">
                Default model
              </span>
              <ModelPicker
                label="Default model"
                value={p.defaultModel ?? ''}
                models={textModels}
                auto
                noneLabel={catalogueDefault ? `Catalogue default (${catalogueDefault})` : 'Catalogue default'}
                onChange={(id) => save({ defaultModel: id === '' ? null : id })}
              />
              <p className="setting-hint muted">The model a new conversation starts with.</p>
            </div>
            <MaxTokens value={p.maxTokens} />
            <Switch
              label="Auto-generate titles"
              checked={p.autoGenerateTitle}
              onChange={(v) => save({ autoGenerateTitle: v, hasBeenAskedAboutAutoTitle: true })}
              hint="After the first reply, a short title replaces the conversation's first words."
            />
          </SettingsGroup>
          <SettingsGroup title="Instructions">
            <DefaultInstructionsSetting preferences={p} save={save} />
          </SettingsGroup>
          <SettingsGroup title="Message box">
            <Switch label="Enter sends message" checked={p.enterSendsMessage} onChange={(v) => save({ enterSendsMessage: v })} hint="When off, Enter starts a new line; send with the Send button." />
            <ComposingSettings preferences={p} save={save} />
          </SettingsGroup>
        </>
      ) : loading,
    },
    { id: 'layout', title: 'Layout', icon: LayoutPanelLeft, description: 'The sidebar, and how wide the conversation and the message box are.', content: p ? <LayoutSettings preferences={p} save={save} /> : loading },
    {
      id: 'voice',
      title: 'Voice',
      icon: Mic,
      description: 'Replies read aloud, and the voice that reads them.',
      content: p ? (
        <SettingsGroup>
          <SpeechSettings preferences={p} models={models?.models} save={save} />
        </SettingsGroup>
      ) : loading,
    },
    {
      id: 'web',
      title: 'Web search',
      icon: Globe,
      description: 'Reading links in your messages, and how deep a web search goes.',
      content: p ? (
        <SettingsGroup>
          <WebSettings preferences={p} save={save} />
        </SettingsGroup>
      ) : loading,
    },
    { id: 'privacy', title: 'Privacy', icon: Shield, description: 'What Parley records about how it is used, and what it offers to install.', content: p ? <PrivacySettings preferences={p} save={save} /> : loading },
    {
      id: 'data',
      title: 'Data',
      icon: Database,
      description: 'Your conversations and the log they are kept in, to take elsewhere or bring back.',
      content: (
        <SettingsGroup>
          <ExportAllButton />
          <LogTools />
        </SettingsGroup>
      ),
    },
    {
      id: 'developer',
      title: 'Developer',
      icon: Code2,
      description: 'Tools to look inside Parley. Nothing here changes your conversations.',
      content: (
        <SettingsGroup>
          <div className="setting">
            <span className="setting-label">Inspector</span>
            <p className="setting-hint muted">The event log, the state after any event and what it changed, and a repro of one conversation to export. Shortcut: Ctrl+Alt+I.</p>
            <Link href="/inspector" className="button">
              Open the Inspector
            </Link>
          </div>
          <div className="setting" role="group" aria-labelledby="session-id">
            <span className="setting-label" id="session-id">
              Session ID
            </span>
            <p className="setting-hint muted">What the server's operator needs to find this browser's balance.</p>
            <code className="session-id">{sessionId ?? '…'}</code>
          </div>
          {setup?.testPayments && (
            // An operator's command for a server that runs test payments (development); docs/gateway.md has it.
            <div className="setting" role="group" aria-labelledby="operator-credit">
              <span className="setting-label" id="operator-credit">
                Test credit
              </span>
              <p className="setting-hint muted">
                This server runs test payments: its operator can add to this session's balance with <code>npm run admin -- credit {sessionId ?? 'SESSION_ID'} 5.00</code>
              </p>
            </div>
          )}
        </SettingsGroup>
      ),
    },
  ];
  return <SectionedPage title="Settings" base="/settings" current={section} sections={sections} className="settings" />;
}
