// A minimal Kokkos Tools library: follows the bytes Kokkos holds allocated, in every memory space
// together, and writes into the file named by HERD_MEMORY_LOG how many were held when the first
// `herd::run` region began, the most held from then on, and the most held at any time (setup
// included). Under mpiexec each rank writes its own
// file, the name followed by a dot and the rank (as Open MPI, MPICH and Slurm give it). Loaded by
// Kokkos through KOKKOS_PROFILE_LIBRARY (Kokkos 3) or KOKKOS_TOOLS_LIBS (Kokkos 4), as any Kokkos
// Tool is.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {
std::mutex lock;
long long held = 0;
long long at_run = -1;  // -1: no herd::run region yet
long long most_in_run = 0;
long long most = 0;
}  // namespace

extern "C" {
// How Kokkos Tools names a memory space: passed by value.
struct SpaceHandle {
  char name[64];
};

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}
void kokkosp_finalize_library() {
  char const* log = std::getenv("HERD_MEMORY_LOG");
  if (!log) return;
  std::string path = log;
  for (char const* rank : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (char const* value = std::getenv(rank)) {
      path += std::string(".") + value;
      break;
    }
  if (FILE* out = std::fopen(path.c_str(), "w")) {
    std::fprintf(out, "at_run %lld\nmost_in_run %lld\nmost %lld\n", at_run, most_in_run, most);
    std::fclose(out);
  }
}
void kokkosp_allocate_data(SpaceHandle, char const*, void const*, std::uint64_t size) {
  std::lock_guard<std::mutex> guard(lock);
  held += static_cast<long long>(size);
  if (at_run >= 0 && held > most_in_run) most_in_run = held;
  if (held > most) most = held;
}
void kokkosp_deallocate_data(SpaceHandle, char const*, void const*, std::uint64_t size) {
  std::lock_guard<std::mutex> guard(lock);
  held -= static_cast<long long>(size);
}
void kokkosp_push_profile_region(char const* name) {
  std::lock_guard<std::mutex> guard(lock);
  if (at_run < 0 && std::strcmp(name, "herd::run") == 0) at_run = most_in_run = held;
}
void kokkosp_pop_profile_region() {}
}
