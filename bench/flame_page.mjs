// Times the flame graph page in Debian's Chromium (Playwright from tests/web, which must have
// had `npm ci`): from navigation to the first drawn frame, then one search over every frame.
// Not a test. Usage: node bench/flame_page.mjs PAGE.html   prints "load MS search MS frames N".
import { launchChromium, offlinePage } from "../tests/web/page_checks.mjs";

const browser = await launchChromium();
try {
  const { tab, errors } = await offlinePage(browser);
  const start = performance.now();
  await tab.goto("file://" + process.argv[2]);
  await tab.waitForSelector(".frame");
  const loaded = performance.now();
  await tab.fill("#search", "method1");
  await tab.waitForFunction(() => document.querySelector("#matched").textContent !== "");
  const searched = performance.now();
  const frames = await tab.$$eval(".frame", (f) => f.length);
  if (errors.length) throw new Error(errors.join("; "));
  console.log(`load ${(loaded - start).toFixed(0)} search ${(searched - loaded).toFixed(0)} frames ${frames}`);
} finally {
  await browser.close();
}
