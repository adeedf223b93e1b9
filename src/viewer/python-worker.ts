/// <reference lib="webworker" />
/**
 * The code viewer's Python: Pyodide in a dedicated worker of its own, loaded from the app's origin
 * (/assets/pyodide-<version>/, scripts/vite-pyodide.ts) when the viewer starts it. It runs one program at a time
 * and reports through ./protocol.ts: stdout and stderr in batches, then the value of the last expression (as the
 * REPL shows it) or the Python traceback. Each run gets a fresh namespace; the interpreter stays warm between
 * runs. Runaway code is stopped by the page, which terminates this worker.
 *
 * Only the standard library is there: packages would be fetched from elsewhere, and nothing is.
 */
import type { PyodideAPI } from 'pyodide';
import { OutputBuffer, isRunRequest, type OutputStream, type WorkerMessage } from './protocol';
import { PYODIDE_BASE } from './pyodide-base';

declare const self: DedicatedWorkerGlobalScope;

function post(message: WorkerMessage): void {
  self.postMessage(message);
}

/**
 * Runs a program the way `python file.py` would, and evaluates a last bare expression like the REPL. Returns
 * [True, repr or None] or [False, traceback]; the traceback starts at the program's own frames, with its source
 * lines (linecache), as Python prints it. SystemExit(0) is a normal end.
 */
const RUNNER = `
import ast, linecache, sys, traceback

def _parley_run(source):
    name = '<viewer>'
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {'__name__': '__main__', '__builtins__': __builtins__}
    try:
        tree = ast.parse(source, name, 'exec')
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, name, 'exec'), namespace)
        if last is not None:
            value = eval(compile(last, name, 'eval'), namespace)
            if value is not None:
                return [True, repr(value)]
        return [True, None]
    except SystemExit as e:
        if e.code in (None, 0):
            return [True, None]
        return [False, 'SystemExit: %s\\n' % (e.code,)]
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != name:
            tb = tb.tb_next
        return [False, ''.join(traceback.format_exception(type(e), e, tb))]
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;

let current: OutputBuffer | null = null;
let currentId = 0;

function writer(stream: OutputStream) {
  const decoder = new TextDecoder();
  return {
    isatty: true, // line-buffered: a long program's prints arrive as they happen
    write(buffer: Uint8Array): number {
      current?.write(stream, decoder.decode(buffer, { stream: true }));
      return buffer.length;
    },
  };
}

type Runner = (source: string) => { toJs(): [boolean, string | null | undefined]; destroy(): void };

async function load(): Promise<Runner> {
  const started = performance.now();
  const { loadPyodide } = (await import(/* @vite-ignore */ `${PYODIDE_BASE}pyodide.mjs`)) as typeof import('pyodide');
  const pyodide = await loadPyodide({ indexURL: PYODIDE_BASE, stdin: () => null });
  pyodide.setStdout(writer('stdout'));
  pyodide.setStderr(writer('stderr'));
  pyodide.runPython(RUNNER);
  const run = (pyodide as PyodideAPI).globals.get('_parley_run') as Runner;
  post({ type: 'ready', version: pyodide.version, ms: performance.now() - started });
  return run;
}

const ready = load();
ready.catch((err: unknown) => post({ type: 'loadFailed', error: err instanceof Error ? err.message : String(err) }));

self.onmessage = async (event: MessageEvent<unknown>) => {
  if (!isRunRequest(event.data)) return;
  const { id, code } = event.data;
  let run: Runner;
  try {
    run = await ready;
  } catch {
    return; // loadFailed was posted; the page starts a new worker for the next run
  }
  const started = performance.now();
  currentId = id;
  current = new OutputBuffer(
    (chunks) => {
      for (const c of chunks) post({ type: 'output', id: currentId, stream: c.stream, text: c.text });
    },
    () => performance.now(),
  );
  try {
    const outcome = run(code);
    // Python's None comes back as undefined.
    const [ok, value] = outcome.toJs();
    const text = value ?? null;
    outcome.destroy();
    current.flush();
    post(ok ? { type: 'done', id, ok: true, result: text, ms: performance.now() - started } : { type: 'done', id, ok: false, error: text ?? '', ms: performance.now() - started });
  } catch (err) {
    // Not a Python exception (those come back as [False, traceback]): the runtime itself failed (a wasm trap,
    // memory exhausted inside the interpreter). It cannot be trusted again; the page starts a new worker.
    current.flush();
    post({ type: 'done', id, ok: false, error: err instanceof Error ? err.message : String(err), ms: performance.now() - started, fatal: true });
  } finally {
    current = null;
  }
};
