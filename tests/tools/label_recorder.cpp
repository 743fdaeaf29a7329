// A minimal Kokkos Tools library: records the name of every kernel and profiling region the
// program launches, one per line, into the file named by HERD_LABEL_LOG. Loaded by Kokkos through
// KOKKOS_PROFILE_LIBRARY (Kokkos 3) or KOKKOS_TOOLS_LIBS (Kokkos 4), as any Kokkos Tool is.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace {
std::mutex lock;
std::set<std::string>& names() {
  static std::set<std::string> seen;
  return seen;
}
void record(char const* kind, char const* name) {
  std::lock_guard<std::mutex> guard(lock);
  names().insert(std::string(kind) + " " + name);
}
}  // namespace

extern "C" {
void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}
void kokkosp_finalize_library() {
  char const* path = std::getenv("HERD_LABEL_LOG");
  if (!path) return;
  if (FILE* out = std::fopen(path, "w")) {
    for (auto const& n : names()) std::fprintf(out, "%s\n", n.c_str());
    std::fclose(out);
  }
}
void kokkosp_begin_parallel_for(char const* name, std::uint32_t, std::uint64_t* id) { *id = 0, record("kernel", name); }
void kokkosp_end_parallel_for(std::uint64_t) {}
void kokkosp_begin_parallel_reduce(char const* name, std::uint32_t, std::uint64_t* id) {
  *id = 0, record("kernel", name);
}
void kokkosp_end_parallel_reduce(std::uint64_t) {}
void kokkosp_begin_parallel_scan(char const* name, std::uint32_t, std::uint64_t* id) {
  *id = 0, record("kernel", name);
}
void kokkosp_end_parallel_scan(std::uint64_t) {}
void kokkosp_push_profile_region(char const* name) { record("region", name); }
void kokkosp_pop_profile_region() {}
}
