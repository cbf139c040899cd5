#include "agent/java_names.h"

namespace stackscope::agent {

namespace {

const char* primitiveName(char code) {
  switch (code) {
    case 'B': return "byte";
    case 'C': return "char";
    case 'D': return "double";
    case 'F': return "float";
    case 'I': return "int";
    case 'J': return "long";
    case 'S': return "short";
    case 'Z': return "boolean";
    case 'V': return "void";
    default: return nullptr;
  }
}

std::string slashesToDots(std::string_view text) {
  std::string name(text);
  for (char& c : name) {
    if (c == '/') c = '.';
  }
  return name;
}

}  // namespace

std::string javaNameFromSignature(std::string_view signature) {
  size_t dims = 0;
  while (dims < signature.size() && signature[dims] == '[') ++dims;
  const std::string_view element = signature.substr(dims);

  std::string name;
  if (element.size() >= 2 && element.front() == 'L' && element.back() == ';') {
    name = slashesToDots(element.substr(1, element.size() - 2));
  } else if (element.size() == 1 && primitiveName(element[0])) {
    name = primitiveName(element[0]);
  } else {
    return slashesToDots(signature);
  }
  for (size_t i = 0; i < dims; ++i) name += "[]";
  return name;
}

}  // namespace stackscope::agent
