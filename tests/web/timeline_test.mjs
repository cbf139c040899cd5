// The timeline page (stackscope timeline -o F.html) in Debian's Chromium, driven by Playwright:
// a real JVM runs PhasesMarked (a CPU-bound "init" and "work" phase, then an "idle" one that
// sleeps, each a begin/end marker pair, with point markers "a" and "b" inside "work"), and the
// page must draw that, as laid out on the screen: the phases' bands as wide as their
// durations, the point markers inside the work band, CPU samples under work and none under
// idle. Run by CTest (tests/web/CMakeLists.txt); prints "N passed, N failed".
//
// Environment: STACKSCOPE_BIN, WORKLOADS_JAR, API_JAR (the workload's Java API), JAVA,
// CHROMIUM (default /usr/bin/chromium), WORK_DIR (a scratch directory).
import { check, near, launchChromium, offlinePage, finish } from "./page_checks.mjs";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.env.STACKSCOPE_BIN;
const work = mkdtempSync(join(process.env.WORK_DIR || tmpdir(), "timeline-"));
const recording = join(work, "phases.ssr");
execFileSync(bin, ["record", "-e", "cpu", "-o", recording, "--", process.env.JAVA || "java",
                   "-cp", `${process.env.WORKLOADS_JAR}:${process.env.API_JAR}`, "io.stackscope.workloads.PhasesMarked",
                   "500", "1500", "1000"], { encoding: "utf8" });
const page = join(work, "phases.html");
execFileSync(bin, ["timeline", recording, "-o", page]);
const model = JSON.parse(execFileSync(bin, ["timeline", recording, "--json"], { encoding: "utf8" }));
const interval = (name) => model.snapshots.find((s) => s.name === name).intervals[0];
const nanos = (name) => interval(name).to_ns - interval(name).from_ns;

const browser = await launchChromium();
try {
  const { tab, errors, refused } = await offlinePage(browser);
  await tab.goto("file://" + page);
  check("the page runs without script errors", errors.length === 0, errors.join("; "));
  check("the page asks for nothing from the network", refused.length === 0, refused.join(" "));
  const svg = await tab.$eval("svg", (s) => [s.getBoundingClientRect().width, s.getBoundingClientRect().height,
                                             Number(s.getAttribute("width")), Number(s.getAttribute("height"))]);
  check("the picture is drawn at its own size", svg[0] === svg[2] && svg[1] === svg[3], JSON.stringify(svg));

  // The phases' bands, as the browser laid them out: [left, right] in pixels.
  const band = (name) => tab.$$eval("rect.snapshot", (rects, n) => {
    const r = rects.find((x) => x.querySelector("title").textContent.startsWith(n + " ")).getBoundingClientRect();
    return [r.left, r.right];
  }, name);
  const [init, workBand, idle] = [await band("init"), await band("work"), await band("idle")];
  const pixelsPerNs = (workBand[1] - workBand[0]) / nanos("work");
  for (const [name, drawn] of [["init", init], ["idle", idle]]) {
    // One pixel of rounding at each end.
    check(`the ${name} band is as wide as the phase lasted, on the work band's scale`,
          near(drawn[1] - drawn[0], nanos(name) * pixelsPerNs, 2),
          `${(drawn[1] - drawn[0]).toFixed(1)} px drawn, ${(nanos(name) * pixelsPerNs).toFixed(1)} px for its duration`);
  }
  check("the bands follow each other in time", init[1] <= workBand[0] + 1 && workBand[1] <= idle[0] + 1,
        JSON.stringify([init, workBand, idle]));

  const markers = await tab.$$eval("line.marker", (lines) => lines.map((l) => [l.querySelector("title").textContent,
                                                                               l.getBoundingClientRect().left]));
  check("a marker for each point marker, with its name in the tooltip",
        markers.length === 2 && markers[0][0].startsWith("a at ") && markers[1][0].startsWith("b at "), JSON.stringify(markers));
  check("the point markers a and b are drawn inside the work band",
        markers.every(([, x]) => x >= workBand[0] - 1 && x <= workBand[1] + 1), JSON.stringify([markers, workBand]));

  // The events track: a point a fifth of the track's height above its bottom, in the middle of
  // a phase, is on a sample series while the program burned a CPU (the track's scale is its
  // busiest bin) and on none while it slept.
  const track = await tab.$eval("rect[fill='#fafafa']", (r) => [r.getBoundingClientRect().top, r.getBoundingClientRect().bottom]);
  const y = track[1] - (track[1] - track[0]) / 5;
  const seriesAt = (x) => tab.evaluate(([px, py]) => document.elementFromPoint(px, py)?.getAttribute("data-series"), [x, y]);
  const middle = (b) => (b[0] + b[1]) / 2;
  check("CPU samples are drawn under the work phase", (await seriesAt(middle(workBand))) === "running",
        `found ${await seriesAt(middle(workBand))}`);
  check("no CPU samples are drawn under the idle phase", (await seriesAt(middle(idle))) == null,
        `found ${await seriesAt(middle(idle))}`);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
finish();
