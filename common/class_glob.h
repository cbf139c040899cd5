// Globs over Java class names as users write them: `com.shop.*`, `byte[]`, `java.lang.Object[][]`.
// `*` matches any run of characters and `?` any one; every other character, brackets included,
// matches itself (fnmatch would read `[]` as a set). Shared by the agent's collection-time class
// filter (classes=) and the front-end's object-class conditions (classes[...], --where class=).
#pragma once

#include <string_view>

namespace stackscope {

bool matchClassGlob(std::string_view pattern, std::string_view class_name);

}  // namespace stackscope
