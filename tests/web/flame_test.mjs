// The flame graph page (stackscope flame) in Debian's Chromium, driven by Playwright: a real
// JVM runs ThreeWay (one thread splitting its CPU time 50/30/20 among alpha, beta and gamma,
// measured by the workload itself), and the page must draw that split, zoom, search, reverse
// and switch metrics. Run by CTest (tests/web/CMakeLists.txt); prints "N passed, N failed".
//
// Environment: STACKSCOPE_BIN, WORKLOADS_JAR, JAVA (the JVM to record), CHROMIUM (default
// /usr/bin/chromium), WORK_DIR (a scratch directory).
import { check, near, launchChromium, offlinePage, finish } from "./page_checks.mjs";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.env.STACKSCOPE_BIN;
const jar = process.env.WORKLOADS_JAR;
const java = process.env.JAVA || "java";
const work = mkdtempSync(join(process.env.WORK_DIR || tmpdir(), "flame-"));
const pkg = "io.stackscope.workloads.ThreeWay";

const recording = join(work, "threeway.ssr");
const out = execFileSync(bin, ["record", "-e", "cpu", "-i", "5ms", "-o", recording, "--", java, "-cp", jar, pkg, "2000"],
                         { encoding: "utf8" });
const truth = Object.fromEntries([...out.matchAll(/^truth (\w+) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
const report = JSON.parse(execFileSync(bin, ["report", recording, "--json", "--no-cache"], { encoding: "utf8" }));
const reportShare = (method) => {
  const row = report.methods.find((m) => m.method === `${pkg}.${method}`);
  return row ? 100 * row.total / report.total : NaN;
};
const page = join(work, "threeway.html");
execFileSync(bin, ["flame", recording, "-o", page]);

const browser = await launchChromium();
try {
  const { tab, errors, refused } = await offlinePage(browser);
  await tab.goto("file://" + page);
  const graphWidth = await tab.$eval("#graph", (g) => g.clientWidth);
  // The frame of a method drawn widest: its share of the graph's width.
  const widthShare = (method) => tab.$$eval(".frame", (frames, name) =>
      Math.max(0, ...frames.filter((f) => f.textContent === name).map((f) => parseFloat(f.style.width))), `${pkg}.${method}`)
      .then((w) => 100 * w / graphWidth);

  check("the page runs without script errors", errors.length === 0, errors.join("; "));
  check("the page asks for nothing from the network", refused.length === 0, refused.join(" "));
  check("the event and metric menus list the recording's kind and its metrics",
        (await tab.$$eval("#kind option", (o) => o.map((x) => x.textContent))).join() === "cpu — CPU time samples" &&
        (await tab.$$eval("#metric option", (o) => o.map((x) => x.value))).length >= 2,
        await tab.$eval("#kind", (k) => k.innerHTML));
  const all = truth.alpha + truth.beta + truth.gamma;
  for (const method of ["alpha", "beta", "gamma"]) {
    const drawn = await widthShare(method);
    // Pixel rounding and the border: within half a point of the report's total share.
    check(`${method}'s frame is as wide as its share in report`, near(drawn, reportShare(method), 0.5),
          `${drawn.toFixed(2)}% drawn, ${reportShare(method).toFixed(2)}% in report`);
    // Ground truth: the workload's own CPU clock, within 5 points of the three methods' shares.
    const ofThree = 100 * drawn / ((await widthShare("alpha")) + (await widthShare("beta")) + (await widthShare("gamma")));
    check(`${method}'s share of the three is its measured CPU share`, near(ofThree, 100 * truth[method] / all, 5),
          `${ofThree.toFixed(1)}% drawn, ${(100 * truth[method] / all).toFixed(1)}% measured`);
  }

  await tab.fill("#search", "ThreeWay\\.(beta|gamma)$");
  const matched = parseFloat((await tab.textContent("#matched")).replace("Matched: ", ""));
  check("search shows the share its matches hold", near(matched, reportShare("beta") + reportShare("gamma"), 0.05),
        `${matched}% matched, ${(reportShare("beta") + reportShare("gamma")).toFixed(2)}% in report`);
  check("search marks the matched frames", (await tab.$$eval(".frame.match", (f) => f.map((x) => x.textContent)))
        .every((name) => /ThreeWay\.(beta|gamma)$/.test(name)) && (await tab.$$(".frame.match")).length >= 2, "");
  await tab.fill("#search", "");

  await tab.click(`.frame:text-is("${pkg}.beta")`);
  check("clicking a frame zooms it to the full width", near(await widthShare("beta"), 100, 0.5),
        `${(await widthShare("beta")).toFixed(1)}% after the click`);
  check("the zoomed frame's callers stay above it", (await tab.$$eval(".frame.ancestor", (f) => f.map((x) => x.textContent)))
        .includes(`${pkg}.main`), "");
  await tab.keyboard.press("Escape");
  check("Esc zooms out", near(await widthShare("beta"), reportShare("beta"), 0.5), "");

  await tab.check("#reversed");
  const topRow = Object.fromEntries(await tab.$$eval(".frame", (frames) =>
      frames.filter((f) => f.style.top === "18px").map((f) => [f.textContent, parseFloat(f.style.width)])));
  const hottest = report.methods.reduce((a, b) => (b.self > a.self ? b : a)).method;
  // main's own code (the clock reads between calls) may hold a sample or two: a sliver at most.
  check("reversed, the functions that ran are the top row",
        topRow[hottest] > 0 && (topRow[`${pkg}.main`] || 0) < 0.02 * graphWidth,
        `${hottest}: ${topRow[hottest]}px, main: ${topRow[`${pkg}.main`]}px of ${graphWidth}`);
  await tab.uncheck("#reversed");

  await tab.selectOption("#metric", { label: "time (ns)" });
  const tooltip = await tab.$eval(`.frame.root`, (f) => f.title);
  check("the time metric is shown in time units", / m?s \(100\.00%\)$/.test(tooltip), tooltip);

  // The differential page of the recording against itself: every frame unchanged, so the
  // palest colour (hsl(0, 85%, 96%)).
  const diffPage = join(work, "diff.html");
  execFileSync(bin, ["flame", recording, "--baseline", recording, "-o", diffPage]);
  const diffTab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  diffTab.on("pageerror", (error) => errors.push(String(error)));
  await diffTab.goto("file://" + diffPage);
  const changes = await diffTab.$$eval(".frame:not(.root)", (f) => f.map((x) => [x.dataset.change, x.style.background]));
  check("the differential page colours every frame by its change: none against itself",
        changes.length > 3 && changes.every(([c, bg]) => c === "0.00" && bg === "rgb(253, 236, 236)"),
        JSON.stringify(changes.slice(0, 3)));
  check("the differential page says what it compares",
        /compared with .*threeway\.ssr.* 0\.00% of its total/.test(await diffTab.textContent("#baseline")),
        await diffTab.textContent("#baseline"));
  await diffTab.check("#reversed");
  check("the differential page reverses without script errors", errors.length === 0, errors.join("; "));
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
finish();
