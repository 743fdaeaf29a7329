#pragma once

// A Kokkos Tools profiling region that closes when its scope ends, also when an exception leaves
// it: a push left without its pop would misnest every region a tool sees after it. Without a tool
// it does nothing, so that regions inside the step loop cost no string.

#include <Kokkos_Core.hpp>

#include <string>

namespace herd::Details {

class ProfilingRegion {
 public:
  explicit ProfilingRegion(char const* name) : pushed_(Kokkos::Tools::profileLibraryLoaded()) {
    if (pushed_) Kokkos::Tools::pushRegion(name);
  }
  ~ProfilingRegion() {
    if (pushed_) Kokkos::Tools::popRegion();
  }
  ProfilingRegion(ProfilingRegion const&) = delete;
  ProfilingRegion& operator=(ProfilingRegion const&) = delete;

 private:
  bool pushed_;
};

}  // namespace herd::Details
