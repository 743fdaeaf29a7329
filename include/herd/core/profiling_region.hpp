#pragma once

// A Kokkos Tools profiling region that closes when its scope ends, also when an exception leaves
// it: a push left without its pop would misnest every region a tool sees after it.

#include <Kokkos_Core.hpp>

#include <string>

namespace herd::Details {

class ProfilingRegion {
 public:
  explicit ProfilingRegion(std::string const& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(ProfilingRegion const&) = delete;
  ProfilingRegion& operator=(ProfilingRegion const&) = delete;
};

}  // namespace herd::Details
