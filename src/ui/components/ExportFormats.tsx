/**
 * Export (DESIGN UI contract: button "Export" with "Markdown", "JSON", "PDF"): the conversation header's menu, and
 * the Settings page's "Export all conversations". The engine builds every file (the PDF in its worker, off this
 * thread) and hands over the bytes; this tab only saves them. A refusal (spec 000 section 5: exporting needs a
 * named conversation with messages) comes back as the notice's text.
 *
 * A chunk of its own: the header's Export button (./ExportMenu.tsx) loads it when pointed at, focused or pressed.
 */
import { useState } from 'react';
import type { ExportFile, ExportFormat } from '../../protocol/engine';
import { engine } from '../engine';
import { showLocalNotice } from '../state';
import { useMenuItems } from './use-menu-items';

const FORMATS: readonly { format: ExportFormat; label: string }[] = [
  { format: 'markdown', label: 'Markdown' },
  { format: 'json', label: 'JSON' },
  { format: 'pdf', label: 'PDF' },
];

/** Saves the file through a temporary object URL (a download, not a navigation). */
function save(file: Extract<ExportFile, { ok: true }>): void {
  const url = URL.createObjectURL(new Blob([file.bytes], { type: file.mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = file.fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function runExport(make: () => Promise<ExportFile>): Promise<void> {
  try {
    const file = await make();
    if (file.ok) save(file);
    else showLocalNotice({ title: file.error, text: '', tone: 'orange', durationMs: 5000 });
  } catch (err) {
    showLocalNotice({ title: 'Export failed', text: err instanceof Error ? err.message : String(err), tone: 'red', durationMs: 5000 });
  }
}

/**
 * The open menu of the conversation header's Export button (./ExportMenu.tsx): Markdown, JSON and PDF. Opens with
 * its first item focused; Escape, a choice or a click elsewhere closes it.
 */
export function ExportFormatMenu({ slug, onClose, onBusy }: { slug: string | null; onClose(focusToggle: boolean): void; onBusy(format: ExportFormat | null): void }) {
  const { menu, onKeyDown: onKey } = useMenuItems(onClose);

  async function choose(format: ExportFormat) {
    onClose(true);
    onBusy(format);
    await runExport(() => engine<ExportFile>((api) => api.exportConversation(slug ?? '', format)));
    onBusy(null);
  }

  return (
    <div ref={menu} role="menu" aria-label="Export format" className="menu" onKeyDown={onKey}>
      {FORMATS.map(({ format, label }) => (
        <button key={format} type="button" role="menuitem" onClick={() => void choose(format)}>
          {label}
        </button>
      ))}
    </div>
  );
}

/** Every named conversation with messages in one zip (Markdown and JSON of each, and an index). */
export function ExportAllButton() {
  const [busy, setBusy] = useState(false);
  return (
    <div className="setting">
      <span className="setting-label">All conversations</span>
      <p className="setting-hint muted">One .zip with each conversation as Markdown and JSON.</p>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          await runExport(() => engine<ExportFile>((api) => api.exportAllConversations()));
          setBusy(false);
        }}
      >
        {busy ? 'Exporting…' : 'Export all conversations'}
      </button>
    </div>
  );
}
