#include "agent/native_frame_addresses.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>

namespace stackscope::agent {

namespace {

// x86-64's kernel half of the address space.
constexpr uintptr_t kKernelStart = 0xffff800000000000;

std::string hex(const unsigned char* bytes, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < size; ++i) {
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 0xf];
  }
  return text;
}

// The GNU build id among a PT_NOTE segment's notes (in the loaded image), empty if none.
std::string buildIdIn(const unsigned char* notes, size_t size) {
  size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= size) {
    ElfW(Nhdr) note;
    std::memcpy(&note, notes + at, sizeof note);
    const size_t name_at = at + sizeof note;
    const size_t desc_at = name_at + ((note.n_namesz + 3) & ~size_t{3});
    const size_t next = desc_at + ((note.n_descsz + 3) & ~size_t{3});
    if (next > size || next <= at) return "";
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(notes + name_at, "GNU", 4) == 0) {
      return hex(notes + desc_at, note.n_descsz);
    }
    at = next;
  }
  return "";
}

std::string executablePath() {
  char path[PATH_MAX];
  const ssize_t size = readlink("/proc/self/exe", path, sizeof path - 1);
  return size > 0 ? std::string(path, static_cast<size_t>(size)) : "";
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void NativeFrameAddresses::readModules() {
  read_ = true;
  read_at_ = std::chrono::steady_clock::now();
  modules_.clear();
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& modules = *static_cast<std::vector<Module>*>(data);
        Module module;
        const char* name = info->dlpi_name ? info->dlpi_name : "";
        // The main program has no name here; the vDSO has one that is no path.
        module.path = name[0] == '\0' ? executablePath() : name[0] == '/' ? name : std::strstr(name, "vdso") ? "[vdso]" : "";
        if (module.path.empty()) return 0;
        module.load_base = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& header = info->dlpi_phdr[i];
          const uintptr_t start = info->dlpi_addr + header.p_vaddr;
          if (header.p_type == PT_LOAD && (header.p_flags & PF_X)) module.segments.push_back({start, start + header.p_memsz});
          if (header.p_type == PT_NOTE && module.build_id.empty()) {
            module.build_id = buildIdIn(reinterpret_cast<const unsigned char*>(start), header.p_memsz);
          }
        }
        if (!module.segments.empty()) modules.push_back(std::move(module));
        return 0;
      },
      &modules_);
}

const NativeFrameAddresses::Module* NativeFrameAddresses::moduleHolding(uintptr_t pc) const {
  for (const Module& module : modules_) {
    for (const auto& [start, end] : module.segments) {
      if (pc >= start && pc < end) return &module;
    }
  }
  return nullptr;
}

NativeFrameAddresses::Location NativeFrameAddresses::locate(uintptr_t pc) {
  if (pc >= kKernelStart) return {"[kernel]", "", pc, "", "[kernel]"};
  const Module* module = moduleHolding(pc);
  if (module == nullptr && (!read_ || std::chrono::steady_clock::now() - read_at_ >= reread_interval_)) {
    readModules();  // maybe a library loaded since
    module = moduleHolding(pc);
  }
  if (module == nullptr) {
    char text[48];
    std::snprintf(text, sizeof text, "[unknown] 0x%" PRIxPTR, pc);
    return {"", "", 0, text, ""};
  }
  return {module->path, module->build_id, pc - module->load_base, "", baseName(module->path)};
}

}  // namespace stackscope::agent
