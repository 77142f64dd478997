// A PNG of a page's top, for the README (scripts/screenshots):
//   node screenshot.mjs CHROMIUM URL OUT.png WIDTH HEIGHT [READY_EXPRESSION]
// It waits for READY_EXPRESSION (JavaScript, truthy once the page has drawn) when given.
import { writeFileSync } from 'node:fs';
import { launch, openPage } from './cdp.mjs';

const [chromium, url, out, width, height, ready] = process.argv.slice(2);
const browser = launch(chromium, ['--hide-scrollbars', '--force-device-scale-factor=1']);
try {
  const page = await openPage(browser, 'about:blank');
  const send = (m, p) => browser.send(m, p, page.sessionId);
  await send('Emulation.setDeviceMetricsOverride', {
    width: Number(width), height: Number(height), deviceScaleFactor: 1, mobile: Number(width) < 600,
  });
  await send('Page.navigate', { url });
  await page.waitFor(`document.readyState === 'complete'`);
  if (ready) await page.waitFor(ready);
  await new Promise((r) => setTimeout(r, 300));
  const shot = await send('Page.captureScreenshot', { format: 'png' });
  writeFileSync(out, Buffer.from(shot.data, 'base64'));
} finally {
  await browser.close();
}
