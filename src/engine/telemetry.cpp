#include <herd/engine/telemetry.hpp>

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstring>
#include <numeric>
#include <utility>

namespace herd {

char const* to_string(LoopPhase phase) {
  switch (phase) {
    case LoopPhase::step:
      return "step";
    case LoopPhase::reduce:
      return "reduce";
    case LoopPhase::active_set:
      return "active_set";
    case LoopPhase::halo_pack:
      return "halo_pack";
    case LoopPhase::halo_wait:
      return "halo_wait";
    case LoopPhase::halo_unpack:
      return "halo_unpack";
    case LoopPhase::output:
      return "output";
  }
  return "unknown";
}

MemoryEvents& operator+=(MemoryEvents& total, MemoryEvents const& more) {
  total.allocations += more.allocations;
  total.allocated_bytes += more.allocated_bytes;
  total.deep_copies += more.deep_copies;
  total.copied_bytes += more.copied_bytes;
  total.cross_space_copies += more.cross_space_copies;
  total.cross_space_bytes += more.cross_space_bytes;
  return total;
}

MemoryEvents operator-(MemoryEvents const& later, MemoryEvents const& earlier) {
  MemoryEvents d = later;
  d.allocations -= earlier.allocations;
  d.allocated_bytes -= earlier.allocated_bytes;
  d.deep_copies -= earlier.deep_copies;
  d.copied_bytes -= earlier.copied_bytes;
  d.cross_space_copies -= earlier.cross_space_copies;
  d.cross_space_bytes -= earlier.cross_space_bytes;
  return d;
}

namespace {

namespace tools = Kokkos::Tools::Experimental;
using SpaceHandle = Kokkos::Profiling::SpaceHandle;

// Kokkos Tools callbacks are plain function pointers: the counts and the callbacks they replaced
// are process-wide. Atomics because nothing forbids allocating from several host threads.
struct Counts {
  std::atomic<std::int64_t> allocations{0}, allocated_bytes{0}, deep_copies{0}, copied_bytes{0}, cross_space_copies{0},
      cross_space_bytes{0};
};
Counts counts;
int installed = 0;  // counters alive
tools::EventSet replaced;

void on_allocate(SpaceHandle space, char const* label, void const* ptr, std::uint64_t size) {
  counts.allocations.fetch_add(1, std::memory_order_relaxed);
  counts.allocated_bytes.fetch_add(static_cast<std::int64_t>(size), std::memory_order_relaxed);
  if (replaced.allocate_data) replaced.allocate_data(space, label, ptr, size);
}

void on_deep_copy(SpaceHandle dst_space, char const* dst_label, void const* dst, SpaceHandle src_space,
                  char const* src_label, void const* src, std::uint64_t size) {
  auto const bytes = static_cast<std::int64_t>(size);
  counts.deep_copies.fetch_add(1, std::memory_order_relaxed);
  counts.copied_bytes.fetch_add(bytes, std::memory_order_relaxed);
  // Spaces are told apart by name ("Host", "Cuda", "HIP", ...): on a CPU-only build every View
  // lives in "Host" and nothing crosses.
  if (std::strncmp(dst_space.name, src_space.name, sizeof(dst_space.name)) != 0) {
    counts.cross_space_copies.fetch_add(1, std::memory_order_relaxed);
    counts.cross_space_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  if (replaced.begin_deep_copy) replaced.begin_deep_copy(dst_space, dst_label, dst, src_space, src_label, src, size);
}

MemoryEvents current_counts() {
  MemoryEvents e;
  e.allocations = counts.allocations.load();
  e.allocated_bytes = counts.allocated_bytes.load();
  e.deep_copies = counts.deep_copies.load();
  e.copied_bytes = counts.copied_bytes.load();
  e.cross_space_copies = counts.cross_space_copies.load();
  e.cross_space_bytes = counts.cross_space_bytes.load();
  return e;
}

}  // namespace

MemoryEventCounter::MemoryEventCounter() {
  if (installed++ == 0) {
    auto events = tools::get_callbacks();
    replaced = events;
    events.allocate_data = on_allocate;
    events.begin_deep_copy = on_deep_copy;
    tools::set_callbacks(events);
  }
  start_ = current_counts();
}

MemoryEventCounter::~MemoryEventCounter() {
  if (--installed == 0) {
    // Only the two callbacks set here go back: anything else changed meanwhile stays.
    auto events = tools::get_callbacks();
    events.allocate_data = replaced.allocate_data;
    events.begin_deep_copy = replaced.begin_deep_copy;
    tools::set_callbacks(events);
  }
}

MemoryEvents MemoryEventCounter::events() const { return current_counts() - start_; }

double StepRecord::total_seconds() const { return std::accumulate(seconds.begin(), seconds.end(), 0.0); }

double Telemetry::total_seconds() const { return std::accumulate(seconds_.begin(), seconds_.end(), 0.0); }

void Telemetry::fence() const {
  if (fence_) {
    fence_();
  } else {
    Kokkos::fence();
  }
}

void Telemetry::start(LoopPhase phase, std::function<void()> fence) {
  fence_ = std::move(fence);
  this->fence();
  counter_ = std::make_unique<MemoryEventCounter>();
  current_ = phase;
  timer_.reset();
}

LoopPhase Telemetry::enter(LoopPhase phase) {
  fence();
  seconds_[static_cast<std::size_t>(current_)] += timer_.seconds();
  timer_.reset();
  auto const left = current_;
  current_ = phase;
  return left;
}

void Telemetry::stop() {
  enter(current_);
  fence_ = nullptr;
  if (counter_) {
    memory_ += counter_->events();
    counter_.reset();
  }
}

void Telemetry::move_halo_time(LoopPhase phase, double pack, double wait, double unpack) {
  seconds_[static_cast<std::size_t>(phase)] -= pack + wait + unpack;
  seconds_[static_cast<std::size_t>(LoopPhase::halo_pack)] += pack;
  seconds_[static_cast<std::size_t>(LoopPhase::halo_wait)] += wait;
  seconds_[static_cast<std::size_t>(LoopPhase::halo_unpack)] += unpack;
}

void Telemetry::reserve_steps(std::int64_t steps) {
  if (record_steps_) records_.reserve(records_.size() + static_cast<std::size_t>(steps));
}

void Telemetry::begin_steps() { at_step_start_ = seconds_; }

void Telemetry::end_step(std::int64_t step, bool listed, agent_index stepped) {
  if (record_steps_) {
    StepRecord r;
    r.step = step;
    r.listed = listed;
    r.stepped = stepped;
    for (std::size_t p = 0; p < seconds_.size(); ++p) r.seconds[p] = seconds_[p] - at_step_start_[p];
    records_.push_back(r);
  }
  at_step_start_ = seconds_;
}

void Telemetry::add_messages(std::int64_t messages, std::int64_t bytes) {
  messages_ += messages;
  bytes_ += bytes;
}

void Telemetry::add_stepping(SteppingStats const& before, SteppingStats const& after) {
  stepping_.steps += after.steps - before.steps;
  stepping_.active_steps += after.active_steps - before.active_steps;
  stepping_.active_share_sum += after.active_share_sum - before.active_share_sum;
}

}  // namespace herd
