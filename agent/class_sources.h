// Where a class's code comes from, for the libraries a summary names: the named module of a
// JDK or modular class ("java.base", "jdk.compiler"), or else the location of the class's code
// source (the jar's or the class directory's path: "/opt/app/lib/h2.jar"). Asked through JNI
// (Class.getModule, Class.getProtectionDomain), once per class name; "" when neither is
// known (a class of the boot loader's unnamed module, a code source with no location).
// Writer thread only, like the MethodResolver that uses it.
#pragma once

#include <jni.h>

#include <string>
#include <unordered_map>

namespace stackscope::agent {

class ClassSources {
 public:
  // `class_name` is the key of the cache ("java.util.HashMap"): two loaders' classes of one
  // name share the first one's answer.
  const std::string& sourceOf(JNIEnv* jni, jclass klass, const std::string& class_name);
  // Rotation (rotation.h): the cache starts again, so classes of names never seen again (a
  // generated class's name is often unique) do not stay in it for the whole session.
  void forget() { std::unordered_map<std::string, std::string>().swap(by_class_); }

 private:
  bool lookUpMethods(JNIEnv* jni);
  std::string ask(JNIEnv* jni, jclass klass);

  std::unordered_map<std::string, std::string> by_class_;
  enum class Lookup { NotYet, Ready, Failed } lookup_ = Lookup::NotYet;
  jmethodID module_name_ = nullptr;         // Module.getName()
  jmethodID protection_domain_ = nullptr;   // Class.getProtectionDomain()
  jmethodID code_source_ = nullptr;         // ProtectionDomain.getCodeSource()
  jmethodID location_ = nullptr;            // CodeSource.getLocation()
  jmethodID url_path_ = nullptr;            // URL.getPath()
};

}  // namespace stackscope::agent
