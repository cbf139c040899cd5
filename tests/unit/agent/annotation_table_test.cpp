#include "agent/annotation_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace stackscope::agent {
namespace {

constexpr int kUser = 0, kRequest = 2, kComponent = 4;

AnnotationValues user(const std::string& name) {
  AnnotationValues v;
  v.assign(kUser, name);
  return v;
}

TEST(AnnotationTable, NoAnnotationIsIdZero) {
  AnnotationFilter none;
  AnnotationTable table(none);
  EXPECT_EQ(table.lookup(AnnotationValues()).id, 0u);
  EXPECT_TRUE(table.lookup(AnnotationValues()).matches) << "no filter: everything is recorded";
  AnnotationValues out;
  EXPECT_FALSE(table.valuesOf(0, out));
  EXPECT_EQ(table.size(), 0u);
}

TEST(AnnotationTable, EachDistinctCombinationGetsOneDenseId) {
  AnnotationFilter none;
  AnnotationTable table(none);
  const uint32_t u1 = table.lookup(user("u1")).id;
  const uint32_t u2 = table.lookup(user("u2")).id;
  EXPECT_EQ(u1, 1u);
  EXPECT_EQ(u2, 2u);
  EXPECT_EQ(table.lookup(user("u1")).id, u1);

  AnnotationValues with_request = user("u1");
  with_request.assign(kRequest, "r1");
  EXPECT_EQ(table.lookup(with_request).id, 3u);

  // Unset and set-but-empty differ; so does the same text in another field.
  AnnotationValues empty_user = user("");
  EXPECT_EQ(table.lookup(empty_user).id, 4u);
  AnnotationValues in_component;
  in_component.assign(kComponent, "u1");
  EXPECT_EQ(table.lookup(in_component).id, 5u);
  EXPECT_EQ(table.size(), 5u);
}

TEST(AnnotationTable, StaleTextOfUnsetFieldsIsIgnored) {
  AnnotationFilter none;
  AnnotationTable table(none);
  AnnotationValues a = user("u1");
  a.value[kRequest] = "left over";  // not set
  AnnotationValues b = user("u1");
  EXPECT_EQ(table.lookup(a).id, table.lookup(b).id);
  AnnotationValues out;
  ASSERT_TRUE(table.valuesOf(1, out));
  EXPECT_EQ(out.set, 1u);
  EXPECT_EQ(out.value[kRequest], "");
}

TEST(AnnotationTable, ValuesOfAnId) {
  AnnotationFilter none;
  AnnotationTable table(none);
  AnnotationValues v = user("ü 😀");
  v.assign(kComponent, "");
  const uint32_t id = table.lookup(v).id;
  AnnotationValues out;
  ASSERT_TRUE(table.valuesOf(id, out));
  EXPECT_TRUE(out.isSet(kUser));
  EXPECT_TRUE(out.isSet(kComponent));
  EXPECT_FALSE(out.isSet(kRequest));
  EXPECT_EQ(out.value[kUser], "ü 😀");
  EXPECT_FALSE(table.valuesOf(id + 1, out));
}

TEST(AnnotationTable, FilterResultIsKeptWithTheId) {
  AnnotationFilter filter;
  std::string why;
  ASSERT_TRUE(filter.parse("user:u1", why));
  AnnotationTable table(filter);
  EXPECT_FALSE(table.lookup(AnnotationValues()).matches) << "unannotated threads do not match";
  EXPECT_TRUE(table.lookup(user("u1")).matches);
  EXPECT_FALSE(table.lookup(user("u2")).matches);
  EXPECT_TRUE(table.lookup(user("u1")).matches);
  EXPECT_EQ(table.lookup(user("u2")).id, 2u) << "non-matching annotations still get an id";
}

TEST(AnnotationTable, ANewFilterSettlesEveryKnownCombinationAgain) {
  AnnotationFilter u1;
  std::string why;
  ASSERT_TRUE(u1.parse("user:u1", why));
  AnnotationTable table(u1, /*max_annotations=*/2);
  const uint32_t id1 = table.lookup(user("u1")).id;
  const uint32_t id2 = table.lookup(user("u2")).id;
  const uint32_t overflow = table.lookup(user("u3")).id;
  EXPECT_EQ(table.matchesNow(id1), std::optional<bool>(true));
  EXPECT_EQ(table.matchesNow(id2), std::optional<bool>(false));
  EXPECT_EQ(table.matchesNow(0), std::optional<bool>(false)) << "unannotated threads do not match a filter";

  AnnotationFilter u2;
  ASSERT_TRUE(u2.parse("user:u2", why));
  table.setFilter(u2);
  EXPECT_FALSE(table.filterEmpty());
  EXPECT_FALSE(table.lookup(user("u1")).matches);
  EXPECT_TRUE(table.lookup(user("u2")).matches);
  EXPECT_EQ(table.matchesNow(id1), std::optional<bool>(false));
  EXPECT_EQ(table.matchesNow(id2), std::optional<bool>(true));
  EXPECT_EQ(table.matchesNow(overflow), std::nullopt) << "the overflow id's values are not kept";
  EXPECT_EQ(table.matchesNow(99), std::nullopt);

  table.setFilter(AnnotationFilter());  // cleared: everything, unannotated threads too
  EXPECT_TRUE(table.filterEmpty());
  EXPECT_EQ(table.matchesNow(0), std::optional<bool>(true));
  EXPECT_EQ(table.matchesNow(id1), std::optional<bool>(true));
}

TEST(AnnotationTable, BeyondTheCountLimitNewCombinationsShareTheOverflowId) {
  AnnotationFilter filter;
  std::string why;
  ASSERT_TRUE(filter.parse("user:keep*", why));
  AnnotationTable table(filter, /*max_annotations=*/3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(table.lookup(user("u" + std::to_string(i))).id, uint32_t(i + 1));
  EXPECT_EQ(table.overflowId(), 0u);
  const AnnotationTable::Lookup a = table.lookup(user("keep-a"));
  const AnnotationTable::Lookup b = table.lookup(user("b"));
  EXPECT_EQ(a.id, 4u);
  EXPECT_EQ(b.id, 4u);
  EXPECT_TRUE(a.matches) << "the filter still sees the real values";
  EXPECT_FALSE(b.matches);
  EXPECT_EQ(table.lookup(user("u1")).id, 2u) << "known combinations keep their ids";
  EXPECT_EQ(table.overflowCount(), 2u);
  EXPECT_EQ(table.overflowId(), 4u);
  EXPECT_EQ(table.size(), 3u);
  AnnotationValues out;
  ASSERT_TRUE(table.valuesOf(4, out));
  for (int field = 0; field < kAnnotationFields; ++field) {
    EXPECT_TRUE(out.isSet(field));
    EXPECT_EQ(out.value[field], AnnotationTable::kOverflowValue);
  }
}

TEST(AnnotationTable, BeyondTheByteLimitToo) {
  AnnotationFilter none;
  AnnotationTable table(none, 1000, /*max_bytes=*/5000);
  const std::string big(2000, 'x');
  EXPECT_EQ(table.lookup(user(big + "1")).id, 1u);
  EXPECT_EQ(table.lookup(user(big + "2")).id, 2u);
  EXPECT_EQ(table.lookup(user(big + "3")).id, 3u) << "overflow: the third does not fit";
  EXPECT_EQ(table.lookup(user("small")).id, 4u) << "a small one still fits";
  EXPECT_EQ(table.lookup(user(big + "4")).id, 3u);
  EXPECT_EQ(table.overflowCount(), 2u);
}

TEST(AnnotationTable, ConcurrentLookupsAgreeOnIds) {
  AnnotationFilter none;
  AnnotationTable table(none);
  constexpr int kThreads = 4, kNames = 500;
  std::vector<std::vector<uint32_t>> seen(kThreads, std::vector<uint32_t>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread visits every name, in its own order (steps prime to kNames).
      constexpr int kSteps[kThreads] = {1, 3, 7, 11};
      const int step = kSteps[t];
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < kNames; ++i) {
          const int name = (i * step) % kNames;
          seen[t][name] = table.lookup(user("n" + std::to_string(name))).id;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<uint32_t> ids;
  for (int i = 0; i < kNames; ++i) {
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t][i], seen[0][i]) << i;
    ids.insert(seen[0][i]);
  }
  EXPECT_EQ(ids.size(), size_t(kNames));
  EXPECT_EQ(*ids.begin(), 1u);
  EXPECT_EQ(*ids.rbegin(), uint32_t(kNames)) << "dense ids";
}

}  // namespace
}  // namespace stackscope::agent
