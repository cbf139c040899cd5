#include "agent/class_sources.h"

namespace stackscope::agent {

namespace {

// Local references made while asking: the writer thread never returns to Java, so without a
// frame of its own they would pile up for the thread's whole life.
constexpr jint kLocalRefs = 16;

// An exception thrown by one of the calls (a security manager's refusal) means "unknown";
// it must not stay pending on the writer thread.
bool threw(JNIEnv* jni) {
  if (!jni->ExceptionCheck()) return false;
  jni->ExceptionClear();
  return true;
}

jmethodID methodOf(JNIEnv* jni, const char* class_name, const char* name, const char* signature) {
  jclass klass = jni->FindClass(class_name);
  if (threw(jni) || !klass) return nullptr;
  jmethodID method = jni->GetMethodID(klass, name, signature);
  if (threw(jni)) method = nullptr;
  jni->DeleteLocalRef(klass);
  return method;
}

std::string utf8Of(JNIEnv* jni, jobject string) {
  if (!string) return "";
  const char* chars = jni->GetStringUTFChars(static_cast<jstring>(string), nullptr);
  if (!chars) {
    threw(jni);
    return "";
  }
  std::string out(chars);
  jni->ReleaseStringUTFChars(static_cast<jstring>(string), chars);
  return out;
}

}  // namespace

bool ClassSources::lookUpMethods(JNIEnv* jni) {
  if (lookup_ == Lookup::NotYet) {
    module_name_ = methodOf(jni, "java/lang/Module", "getName", "()Ljava/lang/String;");
    protection_domain_ = methodOf(jni, "java/lang/Class", "getProtectionDomain", "()Ljava/security/ProtectionDomain;");
    code_source_ = methodOf(jni, "java/security/ProtectionDomain", "getCodeSource", "()Ljava/security/CodeSource;");
    location_ = methodOf(jni, "java/security/CodeSource", "getLocation", "()Ljava/net/URL;");
    url_path_ = methodOf(jni, "java/net/URL", "getPath", "()Ljava/lang/String;");
    const bool all = module_name_ && protection_domain_ && code_source_ && location_ && url_path_;
    lookup_ = all ? Lookup::Ready : Lookup::Failed;
  }
  return lookup_ == Lookup::Ready;
}

const std::string& ClassSources::sourceOf(JNIEnv* jni, jclass klass, const std::string& class_name) {
  auto [it, inserted] = by_class_.try_emplace(class_name);
  if (inserted && jni && klass && lookUpMethods(jni) && jni->PushLocalFrame(kLocalRefs) == JNI_OK) {
    it->second = ask(jni, klass);
    jni->PopLocalFrame(nullptr);
  }
  return it->second;
}

std::string ClassSources::ask(JNIEnv* jni, jclass klass) {
  // Every call's exception is checked before its result is used: checked JNI (-Xcheck:jni)
  // reports any JNI call made with one pending.
  jobject module = jni->GetModule(klass);
  if (threw(jni)) return "";
  if (module) {
    jobject name = jni->CallObjectMethod(module, module_name_);
    if (threw(jni)) return "";
    std::string named = utf8Of(jni, name);
    if (!named.empty()) return named;  // a named module: the JDK's, or a modular application's
  }
  jobject domain = jni->CallObjectMethod(klass, protection_domain_);
  if (threw(jni) || !domain) return "";
  jobject source = jni->CallObjectMethod(domain, code_source_);
  if (threw(jni) || !source) return "";
  jobject location = jni->CallObjectMethod(source, location_);
  if (threw(jni) || !location) return "";
  jobject path = jni->CallObjectMethod(location, url_path_);
  return threw(jni) ? "" : utf8Of(jni, path);
}

}  // namespace stackscope::agent
