// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe: no npm package, no
// network port. Chromium reads commands on fd 3 and writes answers and events on fd 4, each a
// JSON message ended by a NUL byte.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The launch flags of every browser test (see crates/gatecheck-conformance/tests/it/browser).
export const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Starts Chromium and returns { send(method, params, sessionId), events, close() }. */
export function launch(executable, extraFlags = []) {
  const profile = mkdtempSync(join(tmpdir(), 'gatecheck-chromium-'));
  const child = spawn(executable, [...FLAGS, ...extraFlags, `--user-data-dir=${profile}`,
    '--remote-debugging-pipe', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const [toBrowser, fromBrowser] = [child.stdio[3], child.stdio[4]];
  const pending = new Map();
  const events = [];
  let nextId = 0;
  let buffer = Buffer.alloc(0);
  fromBrowser.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    let end;
    while ((end = buffer.indexOf(0)) >= 0) {
      const msg = JSON.parse(buffer.subarray(0, end).toString('utf8'));
      buffer = buffer.subarray(end + 1);
      const waiter = msg.id !== undefined && pending.get(msg.id);
      if (waiter) {
        pending.delete(msg.id);
        if (msg.error) waiter.reject(new Error(`${waiter.method}: ${msg.error.message}`));
        else waiter.resolve(msg.result);
      } else {
        events.push(msg);
      }
    }
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.on('exit', () => {
    for (const w of pending.values()) w.reject(new Error(`chromium exited: ${stderr}`));
    pending.clear();
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject, method });
    toBrowser.write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  });
  const close = async () => {
    try { await Promise.race([send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]); } catch { /* gone */ }
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    // The browser's helper processes may still be writing to the profile for a moment.
    try { rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch { /* left in tmp */ }
  };
  return { send, events, close };
}

/** Opens a page and returns a session: { eval(expr), click(selector), waitFor(expr, ms) }. */
export async function openPage(browser, url) {
  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
  const send = (m, p) => browser.send(m, p, sessionId);
  await send('Page.enable');
  await send('Runtime.enable');
  await send('Page.navigate', { url });
  const evaluate = async (expression) => {
    const r = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  const waitFor = async (expression, ms = 10000) => {
    const until = Date.now() + ms;
    for (;;) {
      const v = await evaluate(expression);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for: ${expression}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  // A real mouse click at the element's centre (pressed, then released).
  const click = async (selector) => {
    const box = await evaluate(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
      e.scrollIntoView({ block: 'center' }); const r = e.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
    }
  };
  return { evaluate, waitFor, click, sessionId };
}
