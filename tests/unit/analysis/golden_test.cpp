// Golden files: the exact output of `stackscope report` on the reference recording
// (fixture.h), for every view, as text and as JSON, and of the call graph, the summary, the
// diff and every text export (pprof is binary: go tool pprof reads it in ExportsCli), stored in
// tests/golden and compared byte for byte. After an intended change of the output, regenerate them with
//
//   STACKSCOPE_UPDATE_GOLDEN=1 ctest -R Golden     (or run analysis_tests with that variable)
//
// and review the difference in `git diff tests/golden` before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cli_runner.h"
#include "fixture.h"
#include "kinds_fixture.h"
#include "names_fixture.h"

namespace stackscope::testing {
namespace {

struct GoldenCase {
  const char* golden;               // file name in tests/golden
  const char* args;                 // after `report FILE`
  const char* file = "ref.ssr";     // ref.ssr (fixture.h), names.ssr (names_fixture.h) or kinds.ssr (kinds_fixture.h)
  const char* command = "report";   // the subcommand, given FILE then args
};

// Names the case in test listings (gtest would otherwise print its bytes).
void PrintTo(const GoldenCase& c, std::ostream* out) { *out << c.golden; }

class Golden : public ::testing::TestWithParam<GoldenCase> {};

// Byte counts depend on the zstd version's compression, not on our output: blank them.
std::string withoutByteCounts(std::string text) {
  for (const std::string key : {"\"bytes_read\": ", "\"file_size\": "}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
      const size_t from = at + key.size();
      const size_t to = text.find_first_not_of("0123456789", from);
      text.replace(from, to - from, "\"<bytes>\"");
    }
  }
  return text;
}

TEST_P(Golden, ReportMatches) {
  TempDir dir;
  writeReferenceRecording(dir.file("ref.ssr"));
  writeNamesRecording(dir.file("names.ssr"));
  writeKindsRecording(dir.file("kinds.ssr"));
  CliResult result = runCli(std::string(GetParam().command) + " " + GetParam().file + " " + GetParam().args, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result.out = withoutByteCounts(result.out);
  EXPECT_EQ(result.err, "");
  const std::string golden = std::string(STACKSCOPE_GOLDEN_DIR) + "/" + GetParam().golden;
  const char* update = std::getenv("STACKSCOPE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    writeFile(golden, result.out);
    GTEST_SKIP() << "rewrote " << golden;
  }
  EXPECT_EQ(result.out, readFile(golden)) << "differs from " << golden
                                          << "; if the change is intended, rerun with STACKSCOPE_UPDATE_GOLDEN=1";
}

INSTANTIATE_TEST_SUITE_P(Views, Golden,
                         ::testing::Values(GoldenCase{"report-methods.txt", ""},
                                           GoldenCase{"report-methods.json", "--json"},
                                           GoldenCase{"report-tree.txt", "--view tree"},
                                           GoldenCase{"report-tree.json", "--view tree --json"},
                                           GoldenCase{"report-threads.txt", "--view threads"},
                                           GoldenCase{"report-threads.json", "--view threads --json"},
                                           GoldenCase{"report-methods-window.txt", "--from 20ms --to 50ms"},
                                           GoldenCase{"report-methods-top2.txt", "--top 2"},
                                           GoldenCase{"report-states.txt", "--view states"},
                                           GoldenCase{"report-users.txt", "--view users"},
                                           GoldenCase{"report-requests.json", "--view requests --json"},
                                           GoldenCase{"report-applications.txt", "--view applications"},
                                           GoldenCase{"report-where.txt", "--where 'user=u1 and not state=blocked'"},
                                           GoldenCase{"report-nav-threads.txt", "--view 'methods[app.Work.a]/threads'"},
                                           GoldenCase{"report-nav-deep.txt",
                                                      "--view 'users[u1]/threads[main,worker*]/states[running]/methods[app.Work.*]/methods'"},
                                           GoldenCase{"report-callers.txt", "--view 'methods[app.Work.b]/callers'"},
                                           GoldenCase{"report-callers.json", "--view 'threads[main]/methods[app.Work.a]/callers' --json"},
                                           GoldenCase{"report-snapshot-work.txt", "--snapshot work"},
                                           GoldenCase{"report-snapshot-span.json", "--snapshot a..b --json"},
                                           GoldenCase{"report-snapshot-where.txt", "--snapshot init --where 'thread=main' --view tree"},
                                           GoldenCase{"names-methods.txt", "", "names.ssr"},
                                           GoldenCase{"names-methods.json", "--json", "names.ssr"},
                                           GoldenCase{"names-tree-kinds.txt", "--view tree --kinds", "names.ssr"},
                                           GoldenCase{"names-tree-lines.json", "--view tree --lines --json", "names.ssr"},
                                           GoldenCase{"names-methods-lines.txt", "--lines", "names.ssr"},
                                           GoldenCase{"names-callers-overload.txt", "--view 'methods[app.Main.work(int)]/callers' --lines", "names.ssr"},
                                           GoldenCase{"names-where-overload.txt", "--where 'path~app.Main.work(String) or method=app.Main.work(I)D' --from 10ms", "names.ssr"},
                                           GoldenCase{"kinds-threads-wall-time.txt", "--view threads --event wall --metric time", "kinds.ssr"},
                                           GoldenCase{"kinds-callers-wall-time.json", "--view 'methods[java.lang.Thread.sleep]/callers' --event wall --metric time --json", "kinds.ssr"},
                                           GoldenCase{"kinds-users-cpu.txt", "--view users", "kinds.ssr"},
                                           GoldenCase{"graph-methods.txt", "--view graph"},
                                           GoldenCase{"graph-methods.json", "--view graph --json"},
                                           GoldenCase{"summary.txt", "", "ref.ssr", "summary"},
                                           GoldenCase{"summary-wall.json", "--event wall --metric time --json", "kinds.ssr", "summary"},
                                           GoldenCase{"diff-snapshots.txt", "ref.ssr --base-snapshot init --snapshot work", "ref.ssr", "diff"},
                                           GoldenCase{"diff-tree.json", "ref.ssr --base-snapshot init --snapshot work --view tree --json", "ref.ssr", "diff"},
                                           GoldenCase{"export-collapsed.txt", "--format collapsed -o -", "ref.ssr", "export"},
                                           GoldenCase{"export-speedscope.json", "--format speedscope -o -", "ref.ssr", "export"},
                                           GoldenCase{"export-chrome.json", "--format chrome -o -", "kinds.ssr", "export"},
                                           GoldenCase{"export-profilerj.xml", "--format profilerj-xml -o -", "ref.ssr", "export"}),
                         [](const auto& info) {
                           std::string name = info.param.golden;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace stackscope::testing
