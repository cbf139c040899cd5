// `stackscope timeline`: the data (--json, by a JSON parser) on the reference recording
// (fixture.h), whose samples per bin, status reports, markers and snapshots are known by
// construction, and the picture read back by an XML parser (tinyxml2).
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {
namespace {

using tinyxml2::XMLElement;
using Values = std::vector<uint64_t>;

class TimelineCli : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }
  nlohmann::json data(const std::string& args) {
    const CliResult r = run("timeline ref.ssr --json " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static std::map<std::string, Values> series(const nlohmann::json& j) {
    std::map<std::string, Values> out;
    for (const auto& s : j["series"]) out[s["name"]] = s["values"].get<Values>();
    return out;
  }
  // The elements of `tag` under the <g> of id `group`, with the attribute `attr` ("" = any).
  static std::vector<const XMLElement*> elements(const XMLElement* svg, const char* group, const char* tag) {
    std::vector<const XMLElement*> out;
    for (const XMLElement* g = svg->FirstChildElement("g"); g; g = g->NextSiblingElement("g")) {
      if (std::string(g->Attribute("id")) != group) continue;
      for (const XMLElement* e = g->FirstChildElement(tag); e; e = e->NextSiblingElement(tag)) out.push_back(e);
    }
    return out;
  }
  TempDir dir_;
};

// Bins of 10 ms over the 70 ms: main runs at 0-20 and 40-60 ms and is blocked at 30 ms, the
// worker runs at 5 (1) and 15 ms (2), the sleeper sleeps at 0-30 ms.
TEST_F(TimelineCli, SamplesPerBinByStateAndByThread) {
  const nlohmann::json j = data("--bins 7");
  EXPECT_EQ(j["event"], "wall");
  EXPECT_EQ(j["metric"], "samples");
  EXPECT_EQ(j["bin_ns"], 10 * kMs);
  EXPECT_EQ(j["from_ns"], 0);
  EXPECT_EQ(j["to_ns"], 70 * kMs);
  EXPECT_EQ(series(j), (std::map<std::string, Values>{{"running", {2, 3, 1, 0, 1, 1, 1}},
                                                     {"sleeping", {1, 1, 1, 1, 0, 0, 0}},
                                                     {"blocked", {0, 0, 0, 1, 0, 0, 0}}}));
  EXPECT_EQ(j["series"][0]["name"], "running") << "largest first";
  EXPECT_EQ(series(data("--bins 7 --by thread")), (std::map<std::string, Values>{{"main", {1, 1, 1, 1, 1, 1, 1}},
                                                                                 {"sleeper", {1, 1, 1, 1, 0, 0, 0}},
                                                                                 {"worker-1", {1, 2, 0, 0, 0, 0, 0}}}));
  // Two series at most: the thread with most samples, then the rest.
  EXPECT_EQ(series(data("--bins 7 --by thread --series 2")),
            (std::map<std::string, Values>{{"main", {1, 1, 1, 1, 1, 1, 1}}, {"other", {2, 3, 1, 1, 0, 0, 0}}}));
}

TEST_F(TimelineCli, StatusMarkersAndSnapshotsAreOnTheSameAxis) {
  const nlohmann::json j = data("--bins 7");
  ASSERT_EQ(j["status"].size(), 2u);
  EXPECT_EQ(j["status"][0]["time_ns"], 30 * kMs);
  EXPECT_EQ(j["status"][0]["heap_used"], 10u << 20);
  EXPECT_EQ(j["status"][1]["gc_time_ns"], 12 * kMs);
  EXPECT_DOUBLE_EQ(j["status"][1]["process_cpu_pct"].get<double>(), 75.0);
  ASSERT_EQ(j["snapshots"].size(), 2u);
  EXPECT_EQ(j["snapshots"][0]["name"], "init");
  EXPECT_EQ(j["snapshots"][0]["intervals"][0]["to_ns"], 25 * kMs);
  EXPECT_EQ(j["snapshots"][1]["name"], "work");
  EXPECT_EQ(j["snapshots"][1]["intervals"][0]["from_ns"], 35 * kMs);
  ASSERT_EQ(j["markers"].size(), 2u);
  EXPECT_EQ(j["markers"][1]["name"], "b");
  EXPECT_EQ(j["markers"][1]["time_ns"], 55 * kMs);
  EXPECT_TRUE(j["gc_pauses"].empty()) << "no gc trace";
}

TEST_F(TimelineCli, SelectionNarrowsTheAxisAndTheEvents) {
  const nlohmann::json j = data("--bins 3 --snapshot work --where 'thread=main'");
  EXPECT_EQ(j["from_ns"], 35 * kMs);
  EXPECT_EQ(j["to_ns"], 65 * kMs);
  EXPECT_EQ(j["bin_ns"], 20 * kMs);  // 10 ms would need 4 bins from 30 ms
  EXPECT_EQ(j["bin_from_ns"], 20 * kMs);
  EXPECT_EQ(series(j), (std::map<std::string, Values>{{"running", {0, 2, 1}}}));  // [20, 40) | 40, 50 | 60
  EXPECT_EQ(j["status"].size(), 1u);  // the report at 60 ms
}

TEST_F(TimelineCli, SvgHasEveryTrackAndReadsAsXml) {
  const CliResult r = run("timeline ref.ssr -o t.svg --bins 7");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(dir_.file("t.svg").c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr();
  const XMLElement* svg = doc.FirstChildElement("svg");
  ASSERT_NE(svg, nullptr);
  EXPECT_STREQ(svg->Attribute("xmlns"), "http://www.w3.org/2000/svg");
  std::vector<std::string> names;
  for (const XMLElement* p : elements(svg, "events", "polygon")) names.push_back(p->Attribute("data-series"));
  EXPECT_EQ(names, (std::vector<std::string>{"running", "sleeping", "blocked"}));
  EXPECT_EQ(elements(svg, "cpu", "polyline").size(), 1u) << "process load; the fixture has no machine load";
  EXPECT_EQ(elements(svg, "heap", "polyline").size(), 2u);
  // GC: 10 ms of the 30 ms between the two reports.
  const auto gc = elements(svg, "gc", "rect");
  ASSERT_EQ(gc.size(), 1u);
  EXPECT_STREQ(gc[0]->FirstChildElement("title")->GetText(), "33.3% in GC (2 collections)");
  EXPECT_EQ(elements(svg, "markers", "line").size(), 2u);
  EXPECT_EQ(elements(svg, "snapshots", "rect").size(), 2u);
}

TEST_F(TimelineCli, GcPausesOfTheGcTraceAreBars) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir_.file("gc.ssr")));
  writeTestInfo(w, "cpu,gc", 0, 1);
  w.writeGc({10 * kMs, 3 * kMs, w.internString("G1 Young Generation"), w.internString("G1 Evacuation Pause")});
  w.writeGc({40 * kMs, 6 * kMs, w.internString("G1 Old Generation"), w.internString("System.gc()")});
  ASSERT_TRUE(w.finish(50 * kMs));
  const CliResult r = run("timeline gc.ssr --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["gc_pauses"].size(), 2u);
  EXPECT_EQ(j["gc_pauses"][1]["duration_ns"], 6 * kMs);
  EXPECT_EQ(j["gc_pauses"][1]["collector"], "G1 Old Generation");
  const CliResult svg = run("timeline gc.ssr -o gc.svg");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(dir_.file("gc.svg").c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr();
  const auto bars = elements(doc.FirstChildElement("svg"), "gc", "rect");
  ASSERT_EQ(bars.size(), 2u);
  // The longest fills the track; the other is half as tall.
  EXPECT_NEAR(bars[0]->DoubleAttribute("height") * 2, bars[1]->DoubleAttribute("height"), 0.2);
}

TEST_F(TimelineCli, ClassHistogramPausesHaveATrackOfTheirOwn) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir_.file("histo.ssr")));
  writeTestInfo(w, "cpu", 0, 1);
  w.writeMethod({1, w.internString("byte[]"), w.internString(""), w.internString(""), 0, {}});
  const format::Frame cls{1, 0};
  const uint32_t stack = w.internStack(&cls, 1);
  w.writeClassHistogram({10 * kMs, 2 * kMs, {{stack, 10, 160}}});
  w.writeClassHistogram({30 * kMs, 8 * kMs, {{stack, 20, 320}}});
  ASSERT_TRUE(w.finish(50 * kMs));
  const CliResult r = run("timeline histo.ssr --json --from 20ms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["histogram_pauses"].size(), 1u) << "the one in the window";
  EXPECT_EQ(j["histogram_pauses"][0]["pause_ns"], 8 * kMs);
  ASSERT_EQ(run("timeline histo.ssr -o h.svg").exit_code, 0);
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(dir_.file("h.svg").c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr();
  const auto bars = elements(doc.FirstChildElement("svg"), "histograms", "rect");
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_NEAR(bars[0]->DoubleAttribute("height") * 4, bars[1]->DoubleAttribute("height"), 0.2) << "2 ms against 8 ms";
}

TEST_F(TimelineCli, HtmlHoldsThePictureAndBadOutputsAreRefused) {
  ASSERT_EQ(run("timeline ref.ssr -o t.html").exit_code, 0);
  const std::string html = readFile(dir_.file("t.html"));
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  const CliResult bad = run("timeline ref.ssr -o t.png");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("name a .svg or a .html file"), std::string::npos) << bad.err;
  EXPECT_EQ(run("timeline ref.ssr -o t.svg --by color").exit_code, 1);
}

}  // namespace
}  // namespace stackscope::testing
