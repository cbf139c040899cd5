// The speedscope export read by speedscope itself (npm package speedscope, its web app run
// offline in Debian's Chromium through Playwright) and checked against the file format schema
// that package ships: a real JVM runs ThreeWay, and speedscope's sandwich table must show, for
// each method, the self and total samples `stackscope report` gives. Run by CTest
// (tests/web/CMakeLists.txt); prints "N passed, N failed".
//
// Environment: STACKSCOPE_BIN, WORKLOADS_JAR, JAVA, CHROMIUM (default /usr/bin/chromium),
// WORK_DIR (a scratch directory).
import { check, launchChromium, offlinePage, finish } from "./page_checks.mjs";
import Ajv from "ajv";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = process.env.STACKSCOPE_BIN;
const work = mkdtempSync(join(process.env.WORK_DIR || tmpdir(), "speedscope-"));
const app = join(dirname(fileURLToPath(import.meta.url)), "node_modules/speedscope/dist/release");
const recording = join(work, "threeway.ssr");
execFileSync(bin, ["record", "-e", "cpu", "-i", "5ms", "-o", recording, "--", process.env.JAVA || "java",
                   "-cp", process.env.WORKLOADS_JAR, "io.stackscope.workloads.ThreeWay", "1000"], { encoding: "utf8" });
const exported = join(work, "threeway.speedscope.json");
execFileSync(bin, ["export", recording, "--format", "speedscope", "-o", exported]);
const report = JSON.parse(execFileSync(bin, ["report", recording, "--json", "--no-cache", "--top", "0"], { encoding: "utf8" }));

const validate = new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(app, "file-format-schema.json"), "utf8")));
check("the file follows speedscope's own schema", validate(JSON.parse(readFileSync(exported, "utf8"))),
      JSON.stringify(validate.errors));

// speedscope's command line opens its page with #localProfilePath=SCRIPT, a script that hands
// the file over as base64; the same here, without the command's browser launch.
const script = join(work, "profile.js");
writeFileSync(script, `speedscope.loadFileFromBase64("threeway.speedscope.json", "${readFileSync(exported).toString("base64")}")`);
const browser = await launchChromium();
try {
  const { tab, errors, refused } = await offlinePage(browser);
  await tab.goto(`file://${app}/index.html#localProfilePath=${script}`);
  await tab.waitForFunction(() => document.title.endsWith(" - speedscope"));
  check("speedscope imports the file and names its profile", await tab.title() === "threeway.ssr (cpu, samples) - speedscope",
        await tab.title());
  await tab.getByText("Sandwich").click();
  await tab.waitForSelector("tr");
  // Rows read "TOTAL (T%) SELF (S%) NAME"; the table draws only the rows on the screen.
  const rows = await tab.$$eval("tr", (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, " ").trim()));
  const shown = rows.map((row) => row.match(/^(\d+) \([\d.]+%\) (\d+) \([\d.]+%\) (.+)$/)).filter(Boolean);
  const mismatched = shown.filter(([, total, self, name]) => {
    // Frames are named as the methods view displays them (overloads with their parameters).
    const method = report.methods.find((m) => m.display === name);
    return !method || method.total !== Number(total) || method.self !== Number(self);
  });
  check("speedscope's sandwich table shows each method's self and total samples as report does",
        shown.length >= Math.min(5, report.methods.length) && mismatched.length === 0,
        `${shown.length} rows shown; differing: ${JSON.stringify(mismatched.map((m) => m[0]))}`);
  check("speedscope runs without script errors or network requests", errors.length === 0 && refused.length === 0,
        errors.concat(refused).join("; "));
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
finish();
