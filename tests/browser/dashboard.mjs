// Drives the mock's dashboard in headless Chromium and prints what it saw as one JSON line:
//   node dashboard.mjs CHROMIUM URL TASK_ID
// It waits for the task's row to show `queued`, clicks `+10 min`, waits for `completed`, and
// reports whether any injected script ran. The Rust test (browser/dashboard.rs) asserts.
import { launch, openPage } from './cdp.mjs';

const [chromium, url, taskId] = process.argv.slice(2);
const row = `document.querySelector('#tasks tr[data-task-id=${JSON.stringify(taskId)}]')`;
const browser = launch(chromium, ['--window-size=1200,900']);
const watchdog = setTimeout(() => { console.error('dashboard.mjs: timed out'); process.exit(2); }, 30000);
try {
  const page = await openPage(browser, url);
  const before = await page.waitFor(`${row} && ${row}.dataset.status`);
  const clockBefore = await page.evaluate(`document.getElementById('clock-unix').textContent`);
  await page.click('button[data-advance="600"]');
  const after = await page.waitFor(`${row} && ${row}.dataset.status === 'completed' && 'completed'`);
  const clockAfter = await page.evaluate(`document.getElementById('clock-unix').textContent`);
  // The request that carried the injected prompt: its body is shown, as text.
  const shown = await page.waitFor(`[...document.querySelectorAll('#journal pre')]
    .map((p) => p.textContent).find((t) => t.includes('<script>')) || ''`);
  const seen = await page.evaluate(`({
    title: document.title,
    pwned: window.__pwned === undefined ? null : window.__pwned,
    marked: document.documentElement.getAttribute('data-pwned'),
    injectedImages: document.querySelectorAll('img[src="x"]').length,
    scripts: [...document.scripts].map((s) => s.getAttribute('src')),
  })`);
  const dialogs = browser.events.filter((e) => e.method === 'Page.javascriptDialogOpening').length;
  const exceptions = browser.events.filter((e) => e.method === 'Runtime.exceptionThrown')
    .map((e) => e.params.exceptionDetails.text);
  console.log(JSON.stringify({ before, after, clockBefore, clockAfter, shown, dialogs, exceptions, ...seen }));
} finally {
  clearTimeout(watchdog);
  await browser.close();
}
