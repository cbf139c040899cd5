// Turns JVM type signatures into the names people read in reports.
#pragma once

#include <string>
#include <string_view>

namespace stackscope::agent {

// "Lpkg/Outer$Inner;" -> "pkg.Outer$Inner", "[I" -> "int[]", "[[Ljava/lang/String;" ->
// "java.lang.String[][]". Hidden classes keep their suffix ("pkg.Foo$$Lambda$1.0x0800").
// Anything that is not a well-formed signature is returned with '/' turned into '.'.
std::string javaNameFromSignature(std::string_view signature);

}  // namespace stackscope::agent
