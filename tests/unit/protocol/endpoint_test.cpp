#include "protocol/endpoint.h"

#include <gtest/gtest.h>

namespace stackscope::protocol {
namespace {

TEST(Endpoint, PortAloneIsLoopback) {
  Endpoint e;
  std::string why;
  ASSERT_TRUE(parseEndpoint("0", e, why));
  EXPECT_FALSE(e.is_unix);
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 0);
  ASSERT_TRUE(parseEndpoint("10.1.2.3:7000", e, why));
  EXPECT_EQ(e.text(), "10.1.2.3:7000");
  ASSERT_TRUE(parseEndpoint("unix:/tmp/s.sock", e, why));
  EXPECT_TRUE(e.is_unix);
  EXPECT_EQ(e.path, "/tmp/s.sock");
  EXPECT_EQ(e.text(), "unix:/tmp/s.sock");
}

TEST(Endpoint, MistakesAreRefusedWithAReason) {
  for (const char* bad : {"", "65536", "localhost:80", "1.2.3:80", "127.0.0.1:", "127.0.0.1:-1", "127.0.0.1:8x",
                          "unix:", "999999"}) {
    Endpoint e;
    std::string why;
    EXPECT_FALSE(parseEndpoint(bad, e, why)) << bad;
    EXPECT_FALSE(why.empty());
  }
  Endpoint e;
  std::string why;
  EXPECT_FALSE(parseEndpoint("unix:" + std::string(200, 'p'), e, why));  // longer than sun_path
}

}  // namespace
}  // namespace stackscope::protocol
