/**
 * The settings of issue 10 (spec 001 sections 3, 5 and 9), as parts of Settings' sections: layout, the message box
 * and code, privacy (analytics consent) and the app install banner, each a control named in plain words. Sizes are typed and saved when valid (on blur or
 * Enter); the window clamps the composer's size when it is applied, not when it is stored.
 */
import { useEffect, useId, useState } from 'react';
import type { ActionResult } from '../../protocol/engine';
import type { CodeLanguage, Preferences } from '../../protocol/preferences';
import * as layout from '../../protocol/layout';
import { engine, useQuery } from '../engine';
import { report } from './folder-state';
import { WholeNumberSetting } from '../components/WholeNumberSetting';
import { SettingsGroup } from '../components/SectionedPage';

type Save = (changes: Partial<Preferences>) => void;

/** A switch that shows the change at once, before the engine's preferences (every tab's) come back with it. */
export function Switch({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange(v: boolean): void; hint?: string }) {
  const id = useId();
  const [local, setLocal] = useState<boolean | null>(null);
  useEffect(() => setLocal(null), [checked]);
  return (
    <div className="setting setting-toggle">
      <input
        id={id}
        type="checkbox"
        role="switch"
        checked={local ?? checked}
        onChange={(e) => {
          setLocal(e.target.checked);
          onChange(e.target.checked);
        }}
      />
      <label htmlFor={id}>{label}</label>
      {hint && <p className="setting-hint muted">{hint}</p>}
    </div>
  );
}

function Pixels({ label, value, min, max, hint, onSave }: { label: string; value: number; min: number; max: number; hint: string; onSave(v: number): void }) {
  return <WholeNumberSetting label={label} value={value} min={min} max={max} step={10} unit="px" hint={hint} onSave={onSave} />;
}

function AnalyticsConsent() {
  const consent = useQuery({ kind: 'consent' })?.consent;
  // The switch moves at once (the choice is being saved); it settles on the recorded value once the engine answers,
  // and goes back if saving failed.
  const [pending, setPending] = useState<boolean | null>(null);
  const granted = consent?.consentStatus === 'granted' && consent.analyticsConsent;
  useEffect(() => {
    if (pending !== null && granted === pending) setPending(null);
  }, [granted, pending]);
  const decide = async (v: boolean) => {
    setPending(v);
    try {
      if (!report(await engine<ActionResult>((api) => (v ? api.grantConsent() : api.denyConsent())))) setPending(null);
    } catch (error) {
      setPending(null);
      throw error;
    }
  };
  const busy = pending !== null;
  const hint =
    consent === null || consent === undefined
      ? 'Your choice cannot be read right now (offline?); nothing is recorded meanwhile.'
      : 'First-party usage events only (no third-party script). Off: nothing is recorded at all.';
  return (
    <div className="setting setting-toggle">
      <input id="share-analytics" type="checkbox" role="switch" checked={pending ?? granted} disabled={busy || !consent} aria-busy={busy} onChange={(e) => void decide(e.target.checked)} />
      <label htmlFor="share-analytics">Share usage analytics</label>
      <p className="setting-hint muted">{hint}</p>
    </div>
  );
}

/** Settings > Layout: the sidebar and the sizes of the conversation and the message box. */
export function LayoutSettings({ preferences, save }: { preferences: Preferences; save: Save }) {
  return (
    <>
      <SettingsGroup title="Sidebar">
        <Switch label="Show sidebar" checked={preferences.sidebarOpen} onChange={(v) => save({ sidebarOpen: v })} hint="The conversation list and page links beside the page, on wide screens." />
        <Switch label="Show conversation list" checked={preferences.conversationsSidebarVisible} onChange={(v) => save({ conversationsSidebarVisible: v })} hint="Search, folders and conversations in the sidebar." />
        <Switch label="Collapse page links" checked={preferences.navbarCollapsed} onChange={(v) => save({ navbarCollapsed: v })} hint="Hide Wallet, Settings and the other page links behind one button." />
      </SettingsGroup>
      <SettingsGroup title="Conversation">
        <Switch label="Message actions menu" checked={!preferences.messageMenuDisabled} onChange={(v) => save({ messageMenuDisabled: !v })} hint="The actions under each message (copy, regenerate, edit, ...)." />
        <Pixels label="Conversation width" value={preferences.conversationWidth} min={layout.CONVERSATION_WIDTH_MIN} max={layout.CONVERSATION_WIDTH_MAX} hint="The widest messages read, in pixels (default 1200)." onSave={(v) => save({ conversationWidth: v })} />
        <Pixels label="Message input height" value={preferences.inputHeight} min={layout.INPUT_HEIGHT_MIN} max={layout.INPUT_HEIGHT_MAX} hint="At most 75% of the window (at least 200, at most 800). Or drag the bar above the message box." onSave={(v) => save({ inputHeight: v })} />
        <Pixels label="Message input width" value={preferences.inputWidth} min={layout.INPUT_WIDTH_MIN} max={layout.INPUT_WIDTH_MAX} hint="At most the window less 280 pixels (at least 600). Or drag the message box's right edge." onSave={(v) => save({ inputWidth: v })} />
      </SettingsGroup>
    </>
  );
}

/** Settings > Chat, "Message box": pasted text, large images and the code language. */
export function ComposingSettings({ preferences, save }: { preferences: Preferences; save: Save }) {
  const codeId = useId();
  return (
    <>
      <Switch label="Convert long pasted text to a file" checked={preferences.largeTextPasteToFile} onChange={(v) => save({ largeTextPasteToFile: v })} hint="A long paste is attached as a text file instead of filling the message box." />
      <Switch label="Compress large images" checked={preferences.imageCompressionEnabled} onChange={(v) => save({ imageCompressionEnabled: v })} hint="Images over 3.5 MB are made smaller before they are attached. Off, they are refused." />
      <div className="setting">
        <label htmlFor={codeId}>Code language</label>
        <select id={codeId} value={preferences.codeLanguage} onChange={(e) => save({ codeLanguage: e.target.value as CodeLanguage })}>
          <option value="python">Python (run)</option>
          <option value="html">HTML (preview)</option>
        </select>
        <p className="setting-hint muted">What the code viewer does with a block that names no language.</p>
      </div>
    </>
  );
}

/** Settings > Privacy: analytics consent and the install banner. */
export function PrivacySettings({ preferences, save }: { preferences: Preferences; save: Save }) {
  return (
    <SettingsGroup>
      <AnalyticsConsent />
      <Switch label="Hide install banner" checked={preferences.installBannerHidden} onChange={(v) => save({ installBannerHidden: v })} hint="Do not offer to install Parley as an app." />
    </SettingsGroup>
  );
}
