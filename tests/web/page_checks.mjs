// What the browser tests share: named checks with a closing "N passed, N failed" line, and
// Debian's Chromium with every request but file: refused (the pages must work offline).
import { chromium } from "playwright-core";

let passed = 0, failed = 0;

export function check(name, ok, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : ": " + detail}`);
}

export const near = (a, b, tolerance) => Math.abs(a - b) <= tolerance;

export function launchChromium() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
}

// A page of `browser` that refuses the network; its script errors and refused requests are
// collected in the returned arrays.
export async function offlinePage(browser) {
  const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [], refused = [];
  tab.on("pageerror", (error) => errors.push(String(error)));
  await tab.route("**", (route) => {
    if (route.request().url().startsWith("file:")) return route.continue();
    refused.push(route.request().url());
    return route.abort();
  });
  return { tab, errors, refused };
}

// Prints the summary and exits: failure when a check failed or none ran.
export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
