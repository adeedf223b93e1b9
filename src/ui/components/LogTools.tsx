/**
 * Settings > Data, "Event log": the event log's export and import (NDJSON, docs/architecture.md). Out of the sidebar (issue 16
 * item 6); a file that is not a Parley log gets a plain message with its line, never a raw JSON parser error.
 */
import { useRef, useState } from 'react';
import { engine } from '../engine';
import { showLocalNotice } from '../state';

export const NOT_A_LOG = 'This is not a Parley log';

/** The import failure in plain words: "This is not a Parley log (line 1: not a log line)." from the codec's "line N: reason". */
export function importFailureText(message: string): string {
  const m = /line (\d+): ([\s\S]*)$/.exec(message);
  if (!m) return `${NOT_A_LOG}.`;
  const reason = /not valid JSON/.test(m[2] ?? '') ? 'not a log line' : (m[2] ?? '').trim();
  return `${NOT_A_LOG} (line ${m[1]}: ${reason}).`;
}

export function LogTools() {
  const fileInput = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);

  async function exportLog() {
    const text = await engine((api) => api.exportLog());
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `parley-log-${new Date().toISOString().slice(0, 10)}.ndjson`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function importLog(file: File) {
    setBusy(true);
    try {
      const { imported, skipped } = await engine(async (api) => api.importLog(await file.text()));
      showLocalNotice({ title: 'Log imported', text: `${imported} events added, ${skipped} already present.`, tone: 'green', durationMs: 5000 });
    } catch (error) {
      showLocalNotice({ title: 'Import failed', text: importFailureText(error instanceof Error ? error.message : String(error)), tone: 'red', durationMs: 15000 });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="setting">
      <span className="setting-label">Event log</span>
      <p className="setting-hint muted">
        Everything you do is kept as a log in this browser. Export it as a backup or to move to another browser; importing adds the events this browser does not have.
      </p>
      <div className="log-actions">
        <button type="button" onClick={() => void exportLog()}>
          Export log
        </button>
        <button type="button" disabled={busy} onClick={() => fileInput.current?.click()}>
          Import log
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".ndjson,application/x-ndjson,application/json,text/plain"
          aria-label="Import log file"
          hidden
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void importLog(file);
          }}
        />
      </div>
    </div>
  );
}
