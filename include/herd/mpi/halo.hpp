#pragma once

// Halo exchange: after a phase writes a neighbour-visible property, the values of boundary agents
// travel to the ranks that hold them as ghosts.
//
// start() packs the values to send with a kernel, waits for it (MPI reads the buffer next), and
// posts non-blocking receives and sends; finish() unpacks each message into its ghost range as it
// arrives. Between the two the engine steps interior agents, which read no ghost. Buffers are
// allocated the first time they are needed and reused; the communicator is a duplicate, so halo
// messages never match a user's.
//
// Sparse messages (HaloField::previous) carry only the values that changed since the last
// exchange, with their slots, where that is shorter than all of them. After a pulled phase the
// changes are found by comparing every value sent; after a listed phase (HaloFields::list) among
// the listed agents only, through each one's send slots.
//
// For active-set stepping the halo can also record which ghosts changed (record_ghost_changes()):
// a sparse message names them, a dense one does not (every ghost then counts as changed), so a
// rank can follow its spreading ghosts in proportion to the changes instead of reading them all.
//
// With GPU-aware MPI (`device_buffers`) device buffers go straight to MPI; otherwise they are
// staged through page-locked host buffers, which works with any MPI. On host backends both are
// the same memory and nothing is staged.

#include <herd/core/kokkos_compat.hpp>
#include <herd/engine/ghost_changes.hpp>
#include <herd/mpi/halo_plan.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace herd::mpi {

/// Time spent in the halo since the simulation started, per rank.
struct HaloTimes {
  double pack = 0.0;    ///< packing kernels, staging to the host, posting messages
  double wait = 0.0;    ///< waiting for messages
  double unpack = 0.0;  ///< staging from the host, unpacking kernels
  long long exchanges = 0;
  long long messages_sent = 0;
  long long sparse_messages = 0;  ///< of which carried only the values that changed
  long long bytes_sent = 0;
};

/// The current buffer of one property, as the halo sees it: bytes per agent and where they are;
/// `previous`, when set, holds the values the last exchange sent and received (the other buffer
/// of a double-buffered property), so that only the values that changed need to travel.
struct HaloField {
  void* data = nullptr;
  int size = 0;
  void const* previous = nullptr;
};

/// The fields of one exchange (at most eight properties at once).
///
/// `list`, when set, says the phase that wrote them stepped only the owned agents list[0 .. listed)
/// (ascending) and committed them in place instead of swapping the buffers: a field's `previous`
/// then holds the values before the phase for those agents only (the others did not change), the
/// ghosts of `data` still hold the values last received, and changes are looked for among the
/// listed agents only.
struct HaloFields {
  std::array<HaloField, 8> field;
  int count = 0;
  agent_index const* list = nullptr;
  agent_index listed = 0;

  void add(HaloField f) {
    require(count < static_cast<int>(field.size()), "a halo exchange carries at most 8 properties at once");
    field[count++] = f;
  }
};

template <class Property>
HaloField halo_field(Property const& property) {
  return {property.current().data(), static_cast<int>(sizeof(typename Property::storage_type))};
}

namespace Details {

// The halo's kernels, outside the class: CUDA allows device lambdas only in functions that are
// not private members.

// out[m] = values[agents[m]] for the slots m in [first, last).
template <class T, class ExecutionSpace, class Agents>
void pack_values(ExecutionSpace const& exec, Agents const& agents, void const* data, unsigned char* buffer,
                 agent_index first, agent_index last) {
  T const* values = static_cast<T const*>(data);
  T* out = reinterpret_cast<T*>(buffer);
  Kokkos::parallel_for(
      "herd::halo::pack", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m) { out[m] = values[agents(m)]; });
}

// Ghost slots [first, last) of a property whose ghosts start at local index `owned`.
template <class T, class ExecutionSpace>
void unpack_values(ExecutionSpace const& exec, agent_index owned, void* data, unsigned char const* buffer,
                   agent_index first, agent_index last) {
  T* values = static_cast<T*>(data) + owned;
  T const* in = reinterpret_cast<T const*>(buffer);
  Kokkos::parallel_for(
      "herd::halo::unpack", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m) { values[m] = in[m]; });
}

// Byte copies: sparse messages are unaligned, whatever the values' size.
KOKKOS_INLINE_FUNCTION void copy_bytes(unsigned char* to, unsigned char const* from, std::size_t bytes) {
  for (std::size_t b = 0; b < bytes; ++b) to[b] = from[b];
}

// pack_values for the values [first, last) to one destination, returning how many of them changed
// (one pass: the count decides between a dense and a sparse message).
template <class T, class ExecutionSpace, class Agents>
agent_index pack_counting_changes(ExecutionSpace const& exec, Agents const& agents, HaloField const& field,
                                  unsigned char* buffer, agent_index first, agent_index last) {
  T const* values = static_cast<T const*>(field.data);
  T const* before = static_cast<T const*>(field.previous);
  T* out = reinterpret_cast<T*>(buffer);
  agent_index changed = 0;
  Kokkos::parallel_reduce(
      "herd::halo::pack_counting_changes", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m, agent_index & sum) {
        agent_index const i = agents(m);
        T const value = values[i];
        out[m] = value;
        sum += value != before[i] ? 1 : 0;
      },
      changed);
  return changed;
}

// Writes change j of a sparse message of `changed` changes: its value among the values, its slot
// (4 bytes, counted from the destination's first) among the slots, byte by byte.
template <class T>
KOKKOS_INLINE_FUNCTION void write_change(unsigned char* message, agent_index changed, agent_index j, T value,
                                         agent_index slot) {
  auto const at = static_cast<std::size_t>(j);
  auto const bits = static_cast<std::uint32_t>(slot);
  copy_bytes(message + at * sizeof(T), reinterpret_cast<unsigned char const*>(&value), sizeof(T));
  copy_bytes(message + static_cast<std::size_t>(changed) * sizeof(T) + at * sizeof(bits),
             reinterpret_cast<unsigned char const*>(&bits), sizeof(bits));
}

// A sparse message for the values [first, last) to one destination: the `changed` values that
// changed, then their slots.
template <class T, class ExecutionSpace, class Agents>
void pack_changes(ExecutionSpace const& exec, Agents const& agents, HaloField const& field, unsigned char* message,
                  agent_index first, agent_index last, agent_index changed) {
  T const* values = static_cast<T const*>(field.data);
  T const* before = static_cast<T const*>(field.previous);
  Kokkos::parallel_scan(
      "herd::halo::pack_changes", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m, agent_index & position, bool final) {
        agent_index const i = agents(m);
        T const value = values[i];
        if (value == before[i]) return;
        if (final) write_change(message, changed, position, value, m - first);
        ++position;
      });
}

// The send slots of each owned agent (HaloPlan::slot_offsets, agent_slots), as kernels read them.
template <class MemorySpace>
struct AgentSlots {
  Kokkos::View<agent_index*, MemorySpace> offsets, slots;

  KOKKOS_INLINE_FUNCTION bool sent(agent_index i) const { return offsets(i) != offsets(i + 1); }
  // The slot agent i is sent in to the destination of slots [first, last), or -1: an agent has few
  // slots (one per destination), ascending.
  KOKKOS_INLINE_FUNCTION agent_index in(agent_index i, agent_index first, agent_index last) const {
    for (agent_index s = offsets(i); s < offsets(i + 1); ++s) {
      if (slots(s) >= last) break;
      if (slots(s) >= first) return slots(s);
    }
    return -1;
  }
};

// After a listed phase (HaloFields::list): the listed agents whose value changed and that some
// rank reads, written to `out` in list order; returns how many. Waits for the device.
template <class T, class ExecutionSpace, class MemorySpace>
agent_index changed_among_listed(ExecutionSpace const& exec, AgentSlots<MemorySpace> const& slots,
                                 HaloField const& field, agent_index const* list, agent_index listed,
                                 agent_index* out) {
  T const* values = static_cast<T const*>(field.data);
  T const* before = static_cast<T const*>(field.previous);
  agent_index changed = 0;
  Kokkos::parallel_scan(
      "herd::halo::changed_among_listed", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, listed),
      KOKKOS_LAMBDA(agent_index k, agent_index & position, bool final) {
        agent_index const i = list[k];
        if (!slots.sent(i) || values[i] == before[i]) return;
        if (final) out[position] = i;
        ++position;
      },
      changed);
  return changed;
}

// The agents changed[0 .. count) whose changes go to the destination of slots [first, last), in
// order. Counts them when `message` is null (waits for the device), else writes their sparse
// message, of `sent` changes.
template <class T, class ExecutionSpace, class MemorySpace>
agent_index listed_changes_to(ExecutionSpace const& exec, AgentSlots<MemorySpace> const& slots, HaloField const& field,
                              agent_index const* changed, agent_index count, agent_index first, agent_index last,
                              unsigned char* message = nullptr, agent_index sent = 0) {
  T const* values = static_cast<T const*>(field.data);
  agent_index total = 0;
  Kokkos::parallel_scan(
      "herd::halo::listed_changes_to", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k, agent_index & position, bool final) {
        agent_index const i = changed[k];
        agent_index const slot = slots.in(i, first, last);
        if (slot < 0) return;
        if (final && message != nullptr) write_change(message, sent, position, values[i], slot - first);
        ++position;
      },
      total);
  return total;
}

// Where a halo records the ghosts that changed: a flag per ghost, so that each is listed once
// however many messages change it, and the list (local indices) with its length. Empty: no record.
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

// Ghost slots [first, last) from a sparse message: the previous values (unless the ghosts still
// hold them, `ghosts_current`: the receiving rank's phase was listed), then the `changed` ones,
// which `record` lists.
template <class T, class ExecutionSpace, class MemorySpace>
void unpack_changes(ExecutionSpace const& exec, agent_index owned, HaloField const& field, bool ghosts_current,
                    unsigned char const* message, agent_index first, agent_index last, agent_index changed,
                    GhostRecord<MemorySpace> const& record) {
  T* values = static_cast<T*>(field.data) + owned;
  T const* before = static_cast<T const*>(field.previous) + owned;
  if (!ghosts_current)
    Kokkos::parallel_for(
        "herd::halo::keep", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
        KOKKOS_LAMBDA(agent_index m) { values[m] = before[m]; });
  Kokkos::parallel_for(
      "herd::halo::unpack_changes", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, changed),
      KOKKOS_LAMBDA(agent_index j) {
        T value;
        std::uint32_t slot = 0;
        auto const k = static_cast<std::size_t>(j);
        copy_bytes(reinterpret_cast<unsigned char*>(&value), message + k * sizeof(T), sizeof(T));
        copy_bytes(reinterpret_cast<unsigned char*>(&slot),
                   message + static_cast<std::size_t>(changed) * sizeof(T) + k * sizeof(slot), sizeof(slot));
        values[first + static_cast<agent_index>(slot)] = value;
        record.changed(owned, first + static_cast<agent_index>(slot));
      });
}

// Clears the flags of the ghosts list(0 .. count) (all the flags set: only listed ghosts have one).
template <class ExecutionSpace, class MemorySpace>
void clear_record(ExecutionSpace const& exec, GhostRecord<MemorySpace> const& record, agent_index owned,
                  agent_index count) {
  Kokkos::parallel_for(
      "herd::halo::clear_record", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k) { record.flags(record.list(k) - owned) = 0; });
}

// Calls f(T{}) with the unsigned integer type of `size` bytes.
template <class F>
void with_value_type(int size, F&& f) {
  switch (size) {
    case 1:
      return f(std::uint8_t{});
    case 2:
      return f(std::uint16_t{});
    case 4:
      return f(std::uint32_t{});
    case 8:
      return f(std::uint64_t{});
    default:
      throw Error("halo: properties of " + std::to_string(size) + " bytes cannot travel (1, 2, 4 or 8)");
  }
}

}  // namespace Details

template <class ExecutionSpace>
class Halo {
 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;

  /// `always_stage` stages through host buffers even where MPI could read the Views, so that a
  /// host build runs the staged path as well.
  Halo(ExecutionSpace const& exec, MPI_Comm comm, HaloPlan<memory_space> plan, bool device_buffers,
       bool always_stage = false)
      : exec_(exec), plan_(std::move(plan)) {
    MPI_Comm_dup(comm, &comm_);
    staged_ =
        always_stage || (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible && !device_buffers);
    message_bytes_.assign(8 * plan_.send_ranks.size(), 0);
    changed_ = Kokkos::View<agent_index*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::halo::changed"),
                                                        plan_.sends());
  }
  Halo(Halo const&) = delete;
  Halo& operator=(Halo const&) = delete;
  ~Halo() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (in_flight_) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm_);
  }

  HaloPlan<memory_space> const& plan() const { return plan_; }
  HaloTimes const& times() const { return times_; }
  bool in_flight() const { return in_flight_; }
  bool staged() const { return staged_; }
  MPI_Comm communicator() const { return comm_; }

  /// Packs `fields` of the agents others read and posts the messages. A rank with no neighbours
  /// (a single rank) has nothing to do.
  void start(HaloFields const& fields) {
    require(!in_flight_, "halo: start() while an exchange is in flight");
    if (plan_.recv_ranks.empty() && plan_.send_ranks.empty()) return;
    Kokkos::Timer timer;
    pack(fields);
    post();
    times_.pack += timer.seconds();
  }

  /// The first half of start(): packs `fields` into the send buffer (and stages it to the host)
  /// and waits for that, without sending. Public to measure packing on its own.
  void pack(HaloFields const& fields) {
    fields_ = fields;
    reserve(fields);
    auto const sends = static_cast<std::size_t>(plan_.sends());
    auto const ranks = plan_.send_ranks.size();
    for (int f = 0; f < fields.count; ++f) {
      auto const& field = fields.field[f];
      for (std::size_t k = 0; k < ranks; ++k)
        message_bytes_[static_cast<std::size_t>(f) * ranks + k] =
            (plan_.send_offsets[k + 1] - plan_.send_offsets[k]) * field.size;
      if (field.previous && fields.list)
        pack_listed_changes(f, field, fields.list, fields.listed);
      else if (field.previous)
        pack_changes(f, field);
      else
        pack_field(field, send_.data() + send_offset_[f], sends);
    }
    exec_.fence();
    if (staged_) {
      Kokkos::deep_copy(exec_, Kokkos::subview(send_host_, std::make_pair(std::size_t{0}, send_bytes_)),
                        Kokkos::subview(send_, std::make_pair(std::size_t{0}, send_bytes_)));
      exec_.fence();
    }
  }

  /// Packs field `f` and, where it is shorter, sends a destination a sparse message instead: the
  /// values that changed since field.previous, and their slots. Waits for the counts.
  void pack_changes(int f, HaloField const& field) {
    auto const ranks = plan_.send_ranks.size();
    for (std::size_t k = 0; k < ranks; ++k) {
      agent_index const first = plan_.send_offsets[k], last = plan_.send_offsets[k + 1];
      unsigned char* buffer = send_.data() + send_offset_[f];
      Details::with_value_type(field.size, [&](auto type) {
        using T = decltype(type);
        agent_index const changed =
            Details::pack_counting_changes<T>(exec_, plan_.send_agents, field, buffer, first, last);
        int const sparse = changed * static_cast<int>(sizeof(T) + sizeof(std::uint32_t));
        int& bytes = message_bytes_[static_cast<std::size_t>(f) * ranks + k];
        if (sparse >= bytes) return;
        bytes = sparse;
        Details::pack_changes<T>(exec_, plan_.send_agents, field, buffer + static_cast<std::size_t>(first) * sizeof(T),
                                 first, last, changed);
      });
    }
  }

  /// As pack_changes, after a phase that stepped the agents list[0 .. listed) only: the values that
  /// changed are found among those, without reading every slot.
  void pack_listed_changes(int f, HaloField const& field, agent_index const* list, agent_index listed) {
    auto const ranks = plan_.send_ranks.size();
    unsigned char* buffer = send_.data() + send_offset_[f];
    Details::with_value_type(field.size, [&](auto type) {
      using T = decltype(type);
      Details::AgentSlots<memory_space> const slots{plan_.slot_offsets, plan_.agent_slots};
      agent_index* changed = changed_.data();
      agent_index const count = Details::changed_among_listed<T>(exec_, slots, field, list, listed, changed);
      for (std::size_t k = 0; k < ranks; ++k) {
        agent_index const first = plan_.send_offsets[k], last = plan_.send_offsets[k + 1];
        agent_index const sent =
            count > 0 ? Details::listed_changes_to<T>(exec_, slots, field, changed, count, first, last) : 0;
        int const sparse = sent * static_cast<int>(sizeof(T) + sizeof(std::uint32_t));
        int& bytes = message_bytes_[static_cast<std::size_t>(f) * ranks + k];
        if (sparse >= bytes) {
          Details::pack_values<T>(exec_, plan_.send_agents, field.data, buffer, first, last);
          continue;
        }
        bytes = sparse;
        if (sent > 0)
          Details::listed_changes_to<T>(exec_, slots, field, changed, count, first, last,
                                        buffer + static_cast<std::size_t>(first) * sizeof(T), sent);
      }
    });
  }

  /// Unpacks every ghost of the fields last packed from the receive buffer and waits for that,
  /// without receiving. Public to measure unpacking on its own.
  void unpack() {
    for (int f = 0; f < fields_.count; ++f)
      for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k)
        unpack_range(fields_.field[f], recv_offset_[f], plan_.recv_offsets[k], plan_.recv_offsets[k + 1]);
    exec_.fence();
  }

  /// Waits for the messages, unpacking each into its ghost range as it arrives.
  void finish() {
    if (!in_flight_) return;
    auto const neighbours = plan_.recv_ranks.size();
    auto const receives = static_cast<int>(neighbours * static_cast<std::size_t>(fields_.count));
    Kokkos::Timer timer;
    for (int done = 0; done < receives; ++done) {
      int index = MPI_UNDEFINED;
      MPI_Status status;
      MPI_Waitany(receives, requests_.data(), &index, &status);
      double const waited = timer.seconds();
      times_.wait += waited;
      auto const f = static_cast<std::size_t>(index) / neighbours, k = static_cast<std::size_t>(index) % neighbours;
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      unpack_message(fields_.field[f], recv_offset_[f], plan_.recv_offsets[k], plan_.recv_offsets[k + 1], bytes);
      times_.unpack += timer.seconds() - waited;
      timer.reset();
    }
    MPI_Waitall(static_cast<int>(requests_.size()) - receives, requests_.data() + receives, MPI_STATUSES_IGNORE);
    times_.wait += timer.seconds();
    timer.reset();
    exec_.fence();
    times_.unpack += timer.seconds();
    in_flight_ = false;
  }

  /// Sizes the buffers for exchanging `fields` (and any subset of them); allocates only when they
  /// grow. start() does it too: calling it before a step loop keeps allocations out of the loop.
  void reserve(HaloFields const& fields) {
    std::size_t send = 0, recv = 0;
    for (int f = 0; f < fields.count; ++f) {
      send_offset_[f] = send;
      recv_offset_[f] = recv;
      send += align(static_cast<std::size_t>(plan_.sends()) * static_cast<std::size_t>(fields.field[f].size));
      recv += align(static_cast<std::size_t>(plan_.receives()) * static_cast<std::size_t>(fields.field[f].size));
    }
    send_bytes_ = send;
    if (send > send_.extent(0)) {
      send_ =
          Kokkos::View<unsigned char*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::halo::send"), send);
      if (staged_)
        send_host_ = Kokkos::View<unsigned char*, compat::HostPinnedSpace>(
            Kokkos::ViewAllocateWithoutInitializing("herd::halo::send_host"), send);
    }
    if (recv > recv_.extent(0)) {
      recv_ =
          Kokkos::View<unsigned char*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::halo::recv"), recv);
      if (staged_)
        recv_host_ = Kokkos::View<unsigned char*, compat::HostPinnedSpace>(
            Kokkos::ViewAllocateWithoutInitializing("herd::halo::recv_host"), recv);
    }
    requests_.reserve(static_cast<std::size_t>(fields.count) * (plan_.recv_ranks.size() + plan_.send_ranks.size()));
  }

  /// start() then finish(): ghosts of `fields` are current when it returns.
  void exchange(HaloFields const& fields) {
    start(fields);
    finish();
  }

  /// Starts (or stops) recording which ghosts the exchanges change, for ghost_changes(). Until the
  /// first report every ghost counts as changed. Allocates; call it before the step loop.
  void record_ghost_changes(bool on) {
    if (!on) {
      record_ = {};
      recording_ = false;
      return;
    }
    if (recording_) return;
    recording_ = true;
    auto const ghosts = static_cast<std::size_t>(plan_.receives());
    record_.flags = Kokkos::View<std::uint32_t*, memory_space>("herd::halo::ghost_flags", ghosts);
    record_.list = Kokkos::View<agent_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::halo::changed_ghosts"), ghosts);
    record_.count = Kokkos::View<agent_index, memory_space>("herd::halo::changed_ghost_count");
    every_ghost_changed_ = true;
    reported_ = 0;
  }

  /// The ghosts that the exchanges completed since the last report changed (when recording, and
  /// when every message since was sparse; else every ghost counts as changed), and starts a new
  /// record. The report stays valid until the next exchange completes. Waits for the device.
  GhostChanges<memory_space> ghost_changes() {
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
  static constexpr std::size_t align(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

  // The flags of the ghosts last reported stay set until the record is next written to (or read):
  // the report's reader looks at them in the meantime.
  void clear_reported() {
    if (reported_ == 0) return;
    Details::clear_record(exec_, record_, plan_.owned, reported_);
    reported_ = 0;
  }

  // Posts the receives and sends of the fields just packed.
  void post() {
    unsigned char* send = staged_ ? send_host_.data() : send_.data();
    unsigned char* recv = staged_ ? recv_host_.data() : recv_.data();
    auto const& fields = fields_;
    requests_.clear();
    for (int f = 0; f < fields.count; ++f) {
      auto const size = static_cast<std::size_t>(fields.field[f].size);
      for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k) {
        requests_.emplace_back();
        auto const first = static_cast<std::size_t>(plan_.recv_offsets[k]) * size;
        int const bytes = static_cast<int>((plan_.recv_offsets[k + 1] - plan_.recv_offsets[k]) * size);
        MPI_Irecv(recv + recv_offset_[f] + first, bytes, MPI_BYTE, plan_.recv_ranks[k], f, comm_, &requests_.back());
      }
    }
    for (int f = 0; f < fields.count; ++f) {
      auto const size = static_cast<std::size_t>(fields.field[f].size);
      for (std::size_t k = 0; k < plan_.send_ranks.size(); ++k) {
        requests_.emplace_back();
        auto const first = static_cast<std::size_t>(plan_.send_offsets[k]) * size;
        int const dense = static_cast<int>((plan_.send_offsets[k + 1] - plan_.send_offsets[k]) * size);
        int const bytes = message_bytes_[static_cast<std::size_t>(f) * plan_.send_ranks.size() + k];
        MPI_Isend(send + send_offset_[f] + first, bytes, MPI_BYTE, plan_.send_ranks[k], f, comm_, &requests_.back());
        times_.bytes_sent += bytes;
        ++times_.messages_sent;
        if (bytes < dense) ++times_.sparse_messages;
      }
    }
    in_flight_ = true;
    ++times_.exchanges;
  }

  void pack_field(HaloField const& field, unsigned char* buffer, std::size_t sends) const {
    Details::with_value_type(field.size, [&](auto type) {
      Details::pack_values<decltype(type)>(exec_, plan_.send_agents, field.data, buffer, 0,
                                           static_cast<agent_index>(sends));
    });
  }

  // Unpacks ghost slots [first, last) of `field` from a message of `bytes` at `offset` (for the
  // whole field) in the receive buffer: dense when it has every value, else sparse.
  void unpack_message(HaloField const& field, std::size_t offset, agent_index first, agent_index last, int bytes) {
    auto const size = static_cast<std::size_t>(field.size);
    if (bytes == static_cast<int>(static_cast<std::size_t>(last - first) * size))
      return unpack_range(field, offset, first, last);
    require(field.previous != nullptr, "halo: a sparse message for a field without previous values");
    auto const start = offset + static_cast<std::size_t>(first) * size;
    auto const range = std::make_pair(start, start + static_cast<std::size_t>(bytes));
    if (staged_) Kokkos::deep_copy(exec_, Kokkos::subview(recv_, range), Kokkos::subview(recv_host_, range));
    auto const changed = static_cast<agent_index>(static_cast<std::size_t>(bytes) / (size + sizeof(std::uint32_t)));
    clear_reported();
    Details::with_value_type(field.size, [&](auto type) {
      Details::unpack_changes<decltype(type)>(exec_, plan_.owned, field, fields_.list != nullptr, recv_.data() + start,
                                              first, last, changed, record_);
    });
  }

  // Unpacks ghost slots [first, last) of `field` from the receive buffer at `offset`.
  void unpack_range(HaloField const& field, std::size_t offset, agent_index first, agent_index last) {
    every_ghost_changed_ = true;  // not known which did
    auto const size = static_cast<std::size_t>(field.size);
    if (staged_) {
      auto const range = std::make_pair(offset + static_cast<std::size_t>(first) * size,
                                        offset + static_cast<std::size_t>(last) * size);
      Kokkos::deep_copy(exec_, Kokkos::subview(recv_, range), Kokkos::subview(recv_host_, range));
    }
    unsigned char const* buffer = recv_.data() + offset;
    Details::with_value_type(field.size, [&](auto type) {
      Details::unpack_values<decltype(type)>(exec_, plan_.owned, field.data, buffer, first, last);
    });
  }

  ExecutionSpace exec_;
  HaloPlan<memory_space> plan_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool staged_ = false;
  bool in_flight_ = false;
  HaloFields fields_;
  std::array<std::size_t, 8> send_offset_{};
  std::array<std::size_t, 8> recv_offset_{};
  std::size_t send_bytes_ = 0;
  Kokkos::View<unsigned char*, memory_space> send_, recv_;
  Kokkos::View<unsigned char*, compat::HostPinnedSpace> send_host_, recv_host_;
  Kokkos::View<agent_index*, memory_space> changed_;  ///< listed agents whose values changed, for one field
  bool recording_ = false;
  Details::GhostRecord<memory_space> record_;  ///< empty unless recording the ghosts that change
  bool every_ghost_changed_ = true;            ///< since the last report (a dense message came)
  agent_index reported_ = 0;                   ///< ghosts listed by the last report, flags still set
  Kokkos::View<agent_index, Kokkos::HostSpace> reported_host_{"herd::halo::reported"};
  std::vector<MPI_Request> requests_;
  std::vector<int> message_bytes_;  ///< of each message in flight, [field][destination]: dense or sparse
  HaloTimes times_;
};

}  // namespace herd::mpi
