#pragma once

#include <herd/core/half.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace herd {

/// Whether other agents read a property through the graph. Only neighbour-visible properties
/// need to reach ghost copies of agents on other ranks.
enum class Visibility : std::uint8_t { own, neighbours };

/// A double-buffered agent property: one value of type `Storage` per agent, structure of arrays.
/// A phase reads the current buffer (its own and its neighbours' values) and writes the next one;
/// the engine then swaps the two Views, which copies nothing. `Storage` may be herd::half or
/// herd::bfloat16 to hold a float in 2 bytes; reads and writes then convert to and from float.
template <class Storage, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Property {
  // A bool read back from a checkpoint's byte could hold neither true nor false: flags are uint8.
  static_assert((std::is_arithmetic_v<Storage> && !std::is_same_v<Storage, bool> &&
                 (sizeof(Storage) == 1 || sizeof(Storage) == 2 || sizeof(Storage) == 4 || sizeof(Storage) == 8)) ||
                    std::is_same_v<Storage, half> || std::is_same_v<Storage, bfloat16>,
                "herd::Property: Storage must be an integer of 1, 2, 4 or 8 bytes (not bool: use std::uint8_t), "
                "float, double, herd::half or herd::bfloat16");

 public:
  using storage_type = Storage;
  using value_type = typename storage_traits<Storage>::compute_type;
  using view_type = Kokkos::View<Storage*, MemorySpace>;
  using memory_space = MemorySpace;

  Property() = default;
  Property(std::string const& name, agent_index agents, Visibility visibility = Visibility::neighbours)
      : current_("herd::agents::" + name, agents), next_("herd::agents::" + name, agents), visibility_(visibility) {}

  /// The current value of agent i: the agent's own, or a neighbour's.
  KOKKOS_INLINE_FUNCTION value_type operator()(agent_index i) const {
    return storage_traits<Storage>::load(current_(i));
  }

  /// The stored current value of agent i, unconverted (a herd::half as its bits): for step code
  /// that works on the storage format directly.
  KOKKOS_INLINE_FUNCTION Storage stored(agent_index i) const { return current_(i); }

  /// Where agent i's current value lies: for a model to say what its contributions read (see
  /// Seir::contribution_address), never to write through.
  KOKKOS_INLINE_FUNCTION Storage const* address(agent_index i) const { return current_.data() + i; }

  /// Writes the value agent i takes after this phase. Step code goes through Agent::set, which
  /// also knows which thread of a team may write.
  KOKKOS_INLINE_FUNCTION void store_next(agent_index i, value_type value) const {
    next_(i) = storage_traits<Storage>::store(value);
  }
  /// Overwrites agent i's current value, between the steps (a scenario's event): the phases
  /// write through store_next.
  KOKKOS_INLINE_FUNCTION void overwrite(agent_index i, value_type value) const {
    current_(i) = storage_traits<Storage>::store(value);
  }
  /// Carries agent i's current value into the next buffer.
  KOKKOS_INLINE_FUNCTION void keep(agent_index i) const { next_(i) = current_(i); }
  /// Swaps agent i's two values, making its next value current: for a phase that stepped some
  /// agents only, in place of swap(). As after swap(), the next buffer then holds the value before
  /// the phase, which tells what changed (the distributed simulation's sparse halo messages).
  KOKKOS_INLINE_FUNCTION void commit(agent_index i) const {
    Storage const before = current_(i);
    current_(i) = next_(i);
    next_(i) = before;
  }

  /// Makes the next buffer current. Called by the engine after each phase that writes this property.
  void swap() { std::swap(current_, next_); }

  view_type const& current() const { return current_; }
  view_type const& next() const { return next_; }
  Visibility visibility() const { return visibility_; }
  agent_index size() const { return static_cast<agent_index>(current_.extent(0)); }
  /// The name given at construction; empty for a property default-constructed and never given one.
  std::string name() const {
    std::string const label = current_.label(), prefix = "herd::agents::";
    return label.compare(0, prefix.size(), prefix) == 0 ? label.substr(prefix.size()) : std::string();
  }
  /// Bytes per agent, both buffers counted.
  static constexpr std::size_t bytes_per_agent() { return 2 * sizeof(Storage); }

 private:
  view_type current_;
  view_type next_;
  Visibility visibility_ = Visibility::neighbours;
};

namespace Details {
struct AnyProperty {
  template <class Property>
  void operator()(Property const& /*property*/) const {}
};
template <class Model, class = void>
struct lists_properties : std::false_type {};
template <class Model>
struct lists_properties<Model, std::void_t<decltype(std::declval<Model const&>().for_each_property(AnyProperty{}))>>
    : std::true_type {};
}  // namespace Details

/// Whether a model lists its properties (`model.for_each_property(f)` calls f on each): what
/// checkpoints save and what a distributed simulation sizes its halo for.
template <class Model>
inline constexpr bool lists_properties_v = Details::lists_properties<Model>::value;

}  // namespace herd
