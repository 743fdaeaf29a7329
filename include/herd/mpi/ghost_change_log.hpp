#pragma once

// Which ghosts the halo's messages changed, for active-set stepping: a sparse message names the
// ghosts it changes, and its unpacking notes each in a flag per ghost (so that each is listed
// once however many messages change it) and a list. A dense message does not say which changed:
// every ghost then counts as changed until the next report.

#include <herd/core/profiling_region.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/ghost_changes.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd::mpi {

namespace Details {

/// What an unpacking kernel notes changed ghosts in. Empty when nothing is recorded.
template <class MemorySpace>
struct GhostRecord {
  Kokkos::View<std::uint32_t*, MemorySpace> flags;
  Kokkos::View<agent_index*, MemorySpace> list;
  Kokkos::View<agent_index, MemorySpace> count;

  KOKKOS_INLINE_FUNCTION void changed(agent_index owned, agent_index ghost) const {
    if (flags.extent(0) == 0 || flags(ghost) != 0) return;
    // Atomics only decide who lists a ghost and where: the set listed does not depend on their order.
    if (Kokkos::atomic_exchange(&flags(ghost), 1u) == 0u) list(Kokkos::atomic_fetch_add(&count(), 1)) = owned + ghost;
  }
};

// Clears the flags of the ghosts record.list(0 .. listed): only listed ghosts have one set.
template <class ExecutionSpace, class MemorySpace>
void clear_flags(ExecutionSpace const& exec, GhostRecord<MemorySpace> const& record, agent_index owned,
                 agent_index listed) {
  Kokkos::parallel_for(
      "herd::halo::clear_ghost_flags", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, listed),
      KOKKOS_LAMBDA(agent_index k) { record.flags(record.list(k) - owned) = 0; });
}

}  // namespace Details

/// The log of one halo's ghosts (slots owned .. owned + ghosts - 1 of its properties).
template <class ExecutionSpace>
class GhostChangeLog {
 public:
  using memory_space = typename ExecutionSpace::memory_space;

  GhostChangeLog(ExecutionSpace const& exec, agent_index owned, agent_index ghosts)
      : exec_(exec), owned_(owned), ghosts_(ghosts) {}

  /// Starts (or stops) recording. Until the first report every ghost counts as changed.
  /// Allocates: call it before the step loop.
  void record(bool on) {
    if (!on) {
      record_ = {};
      recording_ = false;
      return;
    }
    if (recording_) return;
    recording_ = true;
    auto const ghosts = static_cast<std::size_t>(ghosts_);
    record_.flags = Kokkos::View<std::uint32_t*, memory_space>("herd::halo::ghost_flags", ghosts);
    record_.list = Kokkos::View<agent_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::halo::changed_ghosts"), ghosts);
    record_.count = Kokkos::View<agent_index, memory_space>("herd::halo::changed_ghost_count");
    every_ghost_changed_ = true;
    reported_ = 0;
  }

  /// Where a sparse message's unpacking notes the ghosts it changes. The flags of the last report
  /// stay set until then, for the report's reader.
  Details::GhostRecord<memory_space> const& writer() {
    clear_reported();
    return record_;
  }

  /// A dense message arrived: which ghosts it changed is not known.
  void all_changed() { every_ghost_changed_ = true; }

  /// The ghosts changed since the last report (when recording, and when every message since was
  /// sparse; else every ghost counts as changed), and starts a new record. The report stays
  /// valid until the next message is unpacked. Waits for the device.
  GhostChanges<memory_space> report() {
    herd::Details::ProfilingRegion const region("herd::halo::report_ghost_changes");
    GhostChanges<memory_space> changes;
    if (!recording_) return changes;
    clear_reported();
    Kokkos::deep_copy(exec_, reported_host_, record_.count);
    exec_.fence();
    reported_ = reported_host_();
    if (!every_ghost_changed_) {
      changes.known = true;
      changes.list = record_.list;
      changes.count = reported_;
      changes.flags = record_.flags;
    }
    every_ghost_changed_ = false;
    if (reported_ > 0) Kokkos::deep_copy(exec_, record_.count, agent_index{0});
    return changes;
  }

 private:
  void clear_reported() {
    if (reported_ == 0) return;
    Details::clear_flags(exec_, record_, owned_, reported_);
    reported_ = 0;
  }

  ExecutionSpace exec_;
  agent_index owned_ = 0, ghosts_ = 0;
  bool recording_ = false;
  Details::GhostRecord<memory_space> record_;  ///< empty unless recording
  bool every_ghost_changed_ = true;            ///< since the last report (a dense message came)
  agent_index reported_ = 0;                   ///< ghosts listed by the last report, flags still set
  Kokkos::View<agent_index, Kokkos::HostSpace> reported_host_{"herd::halo::reported"};
};

}  // namespace herd::mpi
