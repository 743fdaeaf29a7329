#pragma once

/// \file
/// Where a step loop's time goes, and what it allocates and copies: opt-in, for herd::run.

#include <herd/engine/active_set.hpp>

#include <Kokkos_Timer.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace herd {

namespace Details {
// Seconds a distributed simulation's halo has spent so far, and what it sent (zero on one process).
struct HaloClock {
  double pack = 0.0, wait = 0.0, unpack = 0.0;
  std::int64_t messages = 0, bytes = 0;
};
}  // namespace Details

/// The parts of a step loop that telemetry times separately.
enum class LoopPhase : int {
  step,         ///< the model's step kernels (and their launches)
  reduce,       ///< the observables' reduction after each step, and the final sum over ranks
  active_set,   ///< finding the active agents and clearing their marks (active-set stepping)
  halo_pack,    ///< packing ghost values and posting the messages
  halo_wait,    ///< waiting for other ranks' messages
  halo_unpack,  ///< writing received values into the ghosts
  output        ///< the caller's progress callback: snapshots, checkpoints
};
inline constexpr int loop_phase_count = 7;
char const* to_string(LoopPhase phase);

/// Allocations and deep copies as Kokkos Tools report them.
struct MemoryEvents {
  std::int64_t allocations = 0;
  std::int64_t allocated_bytes = 0;
  std::int64_t deep_copies = 0;
  std::int64_t copied_bytes = 0;
  std::int64_t cross_space_copies = 0;  ///< of which between two different memory spaces (host and device)
  std::int64_t cross_space_bytes = 0;
};
MemoryEvents operator-(MemoryEvents const& later, MemoryEvents const& earlier);
MemoryEvents& operator+=(MemoryEvents& total, MemoryEvents const& more);

/// While one exists, the process counts Kokkos allocations and deep copies through Kokkos Tools
/// callbacks. A tool loaded through KOKKOS_TOOLS_LIBS (or callbacks set by the program) keeps
/// receiving every event: the counting callbacks pass each one on, and the previous callbacks come
/// back when the last counter goes. Host thread only, like Kokkos Tools.
class MemoryEventCounter {
 public:
  MemoryEventCounter();
  ~MemoryEventCounter();
  MemoryEventCounter(MemoryEventCounter const&) = delete;
  MemoryEventCounter& operator=(MemoryEventCounter const&) = delete;
  /// Events since this counter was made.
  MemoryEvents events() const;

 private:
  MemoryEvents start_;
};

/// One step of a loop as Telemetry records it (Telemetry::record_steps): which agents it stepped,
/// and its exclusive time per LoopPhase.
struct StepRecord {
  std::int64_t step = 0;    ///< the simulation's step count after this step
  bool listed = false;      ///< stepped the active list rather than pulling every agent
  agent_index stepped = 0;  ///< agents stepped: the list's length, or every owned agent
  std::array<double, loop_phase_count> seconds{};
  double total_seconds() const;
};

/// Telemetry of step loops: exclusive time per LoopPhase, the steps run, the memory events and
/// halo messages of the loop, and how active-set stepping went. Pass one to herd::run to fill it;
/// runs add up. Timing fences the device at every phase boundary, which serialises work that
/// would otherwise overlap (a GPU's kernels with the host's launches, a halo's messages with the
/// interior step): leave it off to measure the loop as a whole. Without one, run() costs nothing
/// extra.
class Telemetry {
 public:
  /// Seconds spent in `phase`, summed over runs.
  double seconds(LoopPhase phase) const { return seconds_[static_cast<std::size_t>(phase)]; }
  /// Sum over the phases: the wall time of the loops.
  double total_seconds() const;
  std::int64_t steps() const { return steps_; }
  MemoryEvents const& memory() const { return memory_; }
  std::int64_t messages_sent() const { return messages_; }
  std::int64_t bytes_sent() const { return bytes_; }
  /// Active-set stepping over the runs (all zero when the model was always pulled).
  SteppingStats const& stepping() const { return stepping_; }

  /// Asks for a record of every step (off by default): where an epidemic's time goes step by
  /// step, and which steps were listed. The loop reserves a record per step before it starts, so
  /// recording allocates nothing inside it. The records hold the steps only: the observation
  /// before the first step and the final sum over ranks count in the totals above, not in them.
  void record_steps(bool on = true) { record_steps_ = on; }
  bool records_steps() const { return record_steps_; }
  std::vector<StepRecord> const& step_records() const { return records_; }

  /// Starts timing a loop in `phase`: fences, starts counting memory events. `fence` waits for the
  /// loop's work, at this call and at every phase boundary until stop(): herd::run passes one that
  /// fences its simulation's execution space instance only, so that timing one simulation does not
  /// wait for work queued on other instances. Without one, every instance is fenced.
  void start(LoopPhase phase, std::function<void()> fence = {});
  /// Fences and charges the time since the last call to the phase it leaves; returns that phase.
  LoopPhase enter(LoopPhase phase);
  /// Fences and closes the loop; the memory events it counted are added.
  void stop();
  /// Moves halo time spent inside `phase` (the halo times itself) out of it.
  void move_halo_time(LoopPhase phase, double pack, double wait, double unpack);
  void add_messages(std::int64_t messages, std::int64_t bytes);
  void add_steps(std::int64_t steps) { steps_ += steps; }
  void add_stepping(SteppingStats const& before, SteppingStats const& after);
  /// Room for `steps` more records, if steps are recorded (before a loop starts).
  void reserve_steps(std::int64_t steps);
  /// Starts the first step's record at the last enter(): what came before is the loop's, not a
  /// step's.
  void begin_steps();
  /// Closes a step's record at the last enter() (if steps are recorded); the next step's record
  /// starts there.
  void end_step(std::int64_t step, bool listed, agent_index stepped);

 private:
  std::array<double, loop_phase_count> seconds_{};
  LoopPhase current_ = LoopPhase::step;
  Kokkos::Timer timer_;
  std::int64_t steps_ = 0;
  std::int64_t messages_ = 0;
  std::int64_t bytes_ = 0;
  MemoryEvents memory_;
  SteppingStats stepping_;
  std::unique_ptr<MemoryEventCounter> counter_;  ///< while a loop is timed
  std::function<void()> fence_;                  ///< empty: Kokkos::fence()
  bool record_steps_ = false;
  std::vector<StepRecord> records_;
  std::array<double, loop_phase_count> at_step_start_{};  ///< seconds_ when the current step began

  void fence() const;
};

}  // namespace herd
