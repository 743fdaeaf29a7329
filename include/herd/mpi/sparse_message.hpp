#pragma once

// The sparse encoding of a halo message: the values that changed since the last exchange, then
// their slots (4 bytes each, counted from the destination's first), byte by byte since such a
// message is not aligned. A halo sends one where it is shorter than every value.
//
// After a pulled phase the changes are found by comparing every value sent; after a listed phase
// (the phase stepped a list of owned agents and committed them in place) among the listed agents
// only, through each one's send slots.

#include <herd/core/types.hpp>
#include <herd/mpi/halo_field.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace herd::mpi::Details {

// The kernels are free functions: CUDA allows device lambdas only in functions that are not
// private members.

/// Bytes a sparse message of `changed` values of type T takes.
template <class T>
constexpr std::size_t sparse_bytes(agent_index changed) {
  return static_cast<std::size_t>(changed) * (sizeof(T) + sizeof(std::uint32_t));
}

KOKKOS_INLINE_FUNCTION void copy_bytes(unsigned char* to, unsigned char const* from, std::size_t bytes) {
  for (std::size_t b = 0; b < bytes; ++b) to[b] = from[b];
}

// Writes change j of a sparse message of `changed` changes: its value among the values, its slot
// among the slots.
template <class Bits>
KOKKOS_INLINE_FUNCTION void write_change(unsigned char* message, agent_index changed, agent_index j, Bits value,
                                         agent_index slot) {
  auto const at = static_cast<std::size_t>(j);
  auto const bits = static_cast<std::uint32_t>(slot);
  copy_bytes(message + at * sizeof(Bits), reinterpret_cast<unsigned char const*>(&value), sizeof(Bits));
  copy_bytes(message + static_cast<std::size_t>(changed) * sizeof(Bits) + at * sizeof(bits),
             reinterpret_cast<unsigned char const*>(&bits), sizeof(bits));
}

/// Packs every value sent to one destination, slots [first, last) of `agents`, densely into
/// `buffer` and returns how many changed since field.previous: one pass, since the count decides
/// between the dense and the sparse message.
template <class ExecutionSpace, class Agents, class T, class MemorySpace>
agent_index pack_counting_changes(ExecutionSpace const& exec, Agents const& agents,
                                  HaloField<T, MemorySpace> const& field, unsigned char* buffer, agent_index first,
                                  agent_index last) {
  using Bits = bits_t<T>;
  Bits const* values = value_bits(field);
  Bits const* before = previous_bits(field);
  auto* out = reinterpret_cast<Bits*>(buffer);
  agent_index changed = 0;
  Kokkos::parallel_reduce(
      "herd::halo::pack_counting_changes", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m, agent_index & sum) {
        agent_index const i = agents(m);
        Bits const value = values[i];
        out[m] = value;
        sum += value != before[i] ? 1 : 0;
      },
      changed);
  return changed;
}

/// Writes the sparse message of the `changed` values of slots [first, last) that differ from
/// field.previous.
template <class ExecutionSpace, class Agents, class T, class MemorySpace>
void pack_changes(ExecutionSpace const& exec, Agents const& agents, HaloField<T, MemorySpace> const& field,
                  unsigned char* message, agent_index first, agent_index last, agent_index changed) {
  using Bits = bits_t<T>;
  Bits const* values = value_bits(field);
  Bits const* before = previous_bits(field);
  Kokkos::parallel_scan(
      "herd::halo::pack_changes", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m, agent_index & position, bool final) {
        agent_index const i = agents(m);
        Bits const value = values[i];
        if (value == before[i]) return;
        if (final) write_change(message, changed, position, value, m - first);
        ++position;
      });
}

/// The send slots of each owned agent (HaloPlan::slot_offsets, agent_slots), as kernels read them.
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

/// After a listed phase: writes to `out`, in list order, the agents of list[0 .. listed) whose
/// value changed and that some rank reads; returns how many. Waits for the device.
template <class ExecutionSpace, class MemorySpace, class T>
agent_index changed_among_listed(ExecutionSpace const& exec, AgentSlots<MemorySpace> const& slots,
                                 HaloField<T, MemorySpace> const& field, agent_index const* list, agent_index listed,
                                 agent_index* out) {
  using Bits = bits_t<T>;
  Bits const* values = value_bits(field);
  Bits const* before = previous_bits(field);
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

/// The agents changed[0 .. count) whose changes go to the destination of slots [first, last), in
/// order. Counts them when `message` is null (waits for the device), else writes their sparse
/// message, of `sent` changes.
template <class ExecutionSpace, class MemorySpace, class T>
agent_index listed_changes_to(ExecutionSpace const& exec, AgentSlots<MemorySpace> const& slots,
                              HaloField<T, MemorySpace> const& field, agent_index const* changed, agent_index count,
                              agent_index first, agent_index last, unsigned char* message = nullptr,
                              agent_index sent = 0) {
  using Bits = bits_t<T>;
  Bits const* values = value_bits(field);
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

/// Ghost slots [first, last) (ghost k is local index owned + k) from a sparse message of
/// `changed` changes: first the previous values, unless the ghosts still hold them
/// (`ghosts_current`: the receiving rank's phase was listed), then the changes, each of which
/// `log.changed(owned, ghost)` notes.
template <class ExecutionSpace, class T, class MemorySpace, class Log>
void unpack_changes(ExecutionSpace const& exec, agent_index owned, HaloField<T, MemorySpace> const& field,
                    bool ghosts_current, unsigned char const* message, agent_index first, agent_index last,
                    agent_index changed, Log const& log) {
  using Bits = bits_t<T>;
  Bits* values = value_bits(field) + owned;
  Bits const* before = previous_bits(field) + owned;
  if (!ghosts_current)
    Kokkos::parallel_for(
        "herd::halo::keep", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
        KOKKOS_LAMBDA(agent_index m) { values[m] = before[m]; });
  Kokkos::parallel_for(
      "herd::halo::unpack_changes", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, changed),
      KOKKOS_LAMBDA(agent_index j) {
        Bits value;
        std::uint32_t slot = 0;
        auto const k = static_cast<std::size_t>(j);
        copy_bytes(reinterpret_cast<unsigned char*>(&value), message + k * sizeof(Bits), sizeof(Bits));
        copy_bytes(reinterpret_cast<unsigned char*>(&slot),
                   message + static_cast<std::size_t>(changed) * sizeof(Bits) + k * sizeof(slot), sizeof(slot));
        values[first + static_cast<agent_index>(slot)] = value;
        log.changed(owned, first + static_cast<agent_index>(slot));
      });
}

}  // namespace herd::mpi::Details
