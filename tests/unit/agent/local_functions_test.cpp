// Functions a module keeps to itself, found by name in its .symtab (agent/local_functions.h):
// a static function of this test program, which has no dynamic symbol, is found at its
// address; names it does not have, and files that are not ELF, give null.
#include "agent/local_functions.h"

#include <gtest/gtest.h>

extern "C" {
// noinline and used: the function must exist, with its own symbol, to be found.
__attribute__((noinline, used)) static int stackscopeLocalProbe(int x) { return 3 * x + 1; }
}

namespace stackscope::agent {
namespace {

TEST(LocalFunctions, AStaticFunctionIsFoundAtItsAddress) {
  EXPECT_EQ(stackscopeLocalProbe(2), 7);
  void* self = reinterpret_cast<void*>(&stackscopeLocalProbe);
  EXPECT_EQ(localFunction(self, "stackscopeLocalProbe"), self);
}

TEST(LocalFunctions, ANameTheModuleLacksGivesNull) {
  void* self = reinterpret_cast<void*>(&stackscopeLocalProbe);
  EXPECT_EQ(localFunction(self, "stackscopeNoSuchFunction"), nullptr);
  // A prefix of a name is not the name.
  EXPECT_EQ(localFunction(self, "stackscopeLocal"), nullptr);
}

TEST(LocalFunctions, AFileThatIsNotElfGivesNothing) {
  EXPECT_EQ(localFunctionInFile("/proc/self/status", 0, "stackscopeLocalProbe"), 0u);
  EXPECT_EQ(localFunctionInFile("/nonexistent/file", 0, "stackscopeLocalProbe"), 0u);
}

}  // namespace
}  // namespace stackscope::agent
