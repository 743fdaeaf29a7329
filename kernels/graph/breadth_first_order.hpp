#pragma once

// Cuthill-McKee order computed on the device, level by level, for every backend.
//
// Cuthill-McKee numbers a breadth-first search: each agent of a level is claimed by its
// lowest-numbered neighbour in the level before (its parent), and the agents of a level are
// numbered by (parent's number, degree, id). A level's agents can therefore be found by every
// frontier agent at once, each unnumbered neighbour keeping the smallest parent number offered
// (an atomic min, so the outcome does not depend on the order of the offers), and then numbered
// by one sort of (parent's number, rank by degree and id) keys. The result is the same
// permutation on every backend and thread count.
//
// Every connected component starts from its own root, all in the same sweep (a serial search
// would start one component at a time, which costs one pass per component on graphs with many
// isolated agents). The root is pseudo-peripheral (George and Liu): the lowest-degree agent of
// the component's last level in a first sweep from its lowest-degree agent, so that levels are
// narrow and neighbours close.

#include <herd/core/error.hpp>
#include <herd/core/types.hpp>
#include <herd/graph/csr_graph.hpp>

#include "numbering.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace herd::Details {

// Its members are public because CUDA does not allow device lambdas in private member functions.
template <class ExecutionSpace, class WeightStorage>
struct BreadthFirstOrder {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  using index_view = Kokkos::View<agent_index*, memory_space>;
  using number_view = Kokkos::View<std::uint32_t*, memory_space>;
  using key_view = Kokkos::View<std::uint64_t*, memory_space>;
  static constexpr std::uint32_t unset = 0xffffffffu;

  BreadthFirstOrder(ExecutionSpace const& exec, CsrGraph<memory_space, WeightStorage> const& graph)
      : exec_(exec), graph_(graph), n_(graph.num_agents()) {}

  /// The agents in Cuthill-McKee order: sequence(r) is the agent numbered r.
  index_view sequence() {
    if (n_ == 0) return index_view("herd::ordering::sequence", 0);
    rank_by_degree();
    label_components();
    auto roots = lowest_rank_per_component(KOKKOS_LAMBDA(agent_index) { return true; });
    sweep(roots, false);
    auto level = level_;
    auto component = component_;
    number_view deepest("herd::ordering::deepest", n_);
    Kokkos::parallel_for(
        "herd::ordering::deepest", policy(exec_, 0, n_),
        KOKKOS_LAMBDA(agent_index i) { Kokkos::atomic_fetch_max(&deepest(component(i)), level(i)); });
    sweep(lowest_rank_per_component(KOKKOS_LAMBDA(agent_index i) { return level(i) == deepest(component(i)); }), true);
    return sequence_;
  }

  // rank_(i): the place of agent i in ascending (degree, id) order; by_rank_ is its inverse.
  void rank_by_degree() {
    auto offsets = graph_.row_offsets;
    keys_ = key_view(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::keys"), n_);
    auto keys = keys_;
    Kokkos::parallel_for(
        "herd::ordering::degree_keys", policy(exec_, 0, n_), KOKKOS_LAMBDA(agent_index i) {
          keys(i) = (static_cast<std::uint64_t>(offsets(i + 1) - offsets(i)) << 32) | static_cast<std::uint32_t>(i);
        });
    auto by_degree = order_by_keys(exec_, keys);
    rank_ = by_degree.new_of_old;
    by_rank_ = by_degree.old_of_new;
  }

  // component_(i): the lowest id in agent i's connected component. Each round hooks the tree of a
  // larger label under a smaller neighbouring one, then points every agent at its tree's root;
  // labels only decrease and stay within the component, so the lowest id is the fixed point.
  void label_components() {
    auto offsets = graph_.row_offsets;
    auto neighbours = graph_.neighbours;
    component_ = index_view(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::component"), n_);
    auto component = component_;
    Kokkos::parallel_for(
        "herd::ordering::component_init", policy(exec_, 0, n_), KOKKOS_LAMBDA(agent_index i) { component(i) = i; });
    for (;;) {
      std::size_t hooks = 0;
      Kokkos::parallel_reduce(
          "herd::ordering::component_hook", policy(exec_, 0, n_),
          KOKKOS_LAMBDA(agent_index i, std::size_t & count) {
            agent_index const own = component(i);
            agent_index lowest = own;
            for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
              agent_index const other = component(neighbours(e));
              lowest = other < lowest ? other : lowest;
            }
            if (lowest < own) {
              Kokkos::atomic_fetch_min(&component(own), lowest);
              ++count;
            }
          },
          hooks);
      if (hooks == 0) break;
      Kokkos::parallel_for(
          "herd::ordering::component_compress", policy(exec_, 0, n_), KOKKOS_LAMBDA(agent_index i) {
            agent_index root = component(i);
            while (component(root) != root) root = component(root);
            component(i) = root;
          });
    }
  }

  // Per component, the agent of lowest rank among those `eligible` says yes to.
  template <class Eligible>
  index_view lowest_rank_per_component(Eligible eligible) {
    auto component = component_;
    auto rank = rank_;
    auto by_rank = by_rank_;
    number_view lowest(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::lowest"), n_);
    Kokkos::deep_copy(exec_, lowest, unset);
    Kokkos::parallel_for(
        "herd::ordering::lowest_rank", policy(exec_, 0, n_), KOKKOS_LAMBDA(agent_index i) {
          if (eligible(i)) Kokkos::atomic_fetch_min(&lowest(component(i)), static_cast<std::uint32_t>(rank(i)));
        });
    std::size_t count = 0;
    Kokkos::parallel_reduce(
        "herd::ordering::count_roots", policy(exec_, 0, n_),
        KOKKOS_LAMBDA(agent_index i, std::size_t & c) { c += component(i) == i ? 1 : 0; }, count);
    index_view roots(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::roots"), count);
    Kokkos::parallel_scan(
        "herd::ordering::roots", policy(exec_, 0, n_), KOKKOS_LAMBDA(agent_index i, std::size_t & place, bool final) {
          if (component(i) != i) return;
          if (final) roots(place) = by_rank(lowest(i));
          ++place;
        });
    return roots;
  }

  // Numbers every agent breadth-first from `roots` into sequence_, and its depth into level_.
  // A small level offers itself to its neighbours (top-down: it reads only its own rows, but at
  // random); a large one is found by the agents not yet numbered, each reading its row in order
  // (bottom-up, as in direction-optimising breadth-first search). Both give every agent of the
  // next level its lowest-numbered neighbour in this one, so the numbering is the same.
  // Without `ordered` only the depths count (the search for peripheral roots), and they do not
  // depend on the order within a level: each level is numbered in the order found, unsorted.
  void sweep(index_view roots, bool ordered) {
    auto offsets = graph_.row_offsets;
    auto neighbours = graph_.neighbours;
    auto keys = keys_;
    auto rank = rank_;
    auto by_rank = by_rank_;
    // parent(i): the number of agent i's parent (0 for roots); unset until it is reached.
    // number(i): the number of agent i; unset until its level is numbered.
    number_view parent(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::parent"), n_);
    number_view number(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::number"), n_);
    Kokkos::deep_copy(exec_, parent, unset);
    Kokkos::deep_copy(exec_, number, unset);
    sequence_ = index_view(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::sequence"), n_);
    level_ = number_view(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::level"), n_);
    index_view found(Kokkos::ViewAllocateWithoutInitializing("herd::ordering::found"), n_);
    auto sequence = sequence_;
    auto level = level_;

    // Roots form level 0, ordered by rank, all children of number 0.
    std::size_t count = roots.extent(0);
    Kokkos::parallel_for(
        "herd::ordering::root_keys", policy(exec_, 0, count), KOKKOS_LAMBDA(std::size_t k) {
          parent(roots(k)) = 0;
          found(k) = roots(k);
        });
    std::size_t begin = 0, end = 0;
    for (std::uint32_t depth = 0; count > 0; ++depth) {
      // Number the level found: sort by (parent's number, rank), which makes the keys unique.
      if (ordered) {
        Kokkos::parallel_for(
            "herd::ordering::level_keys", policy(exec_, 0, count), KOKKOS_LAMBDA(std::size_t k) {
              agent_index const i = found(k);
              keys(k) = (static_cast<std::uint64_t>(parent(i)) << 32) | static_cast<std::uint32_t>(rank(i));
            });
        exec_.fence();
        Kokkos::sort(Kokkos::subview(keys, std::make_pair(std::size_t(0), count)));
      }
      begin = end;
      end = begin + count;
      auto const first = static_cast<std::uint32_t>(begin);
      Kokkos::parallel_for(
          "herd::ordering::number_level", policy(exec_, 0, count), KOKKOS_LAMBDA(std::size_t k) {
            agent_index const i = ordered ? by_rank(static_cast<std::uint32_t>(keys(k) & 0xffffffffu)) : found(k);
            sequence(first + k) = i;
            number(i) = first + static_cast<std::uint32_t>(k);
            level(i) = depth;
          });
      count = 0;
      if (16 * (end - begin) < static_cast<std::size_t>(n_) - end) {
        Kokkos::parallel_for(
            "herd::ordering::offer_parents", policy(exec_, begin, end), KOKKOS_LAMBDA(std::size_t r) {
              auto const own = static_cast<std::uint32_t>(r);
              agent_index const i = sequence(r);
              for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
                agent_index const j = neighbours(e);
                if (parent(j) > own) Kokkos::atomic_fetch_min(&parent(j), own);
              }
            });
        // Each parent lists the neighbours it kept (a scan: one shared counter would serialise the
        // threads on its cache line).
        Kokkos::parallel_scan(
            "herd::ordering::list_children", policy(exec_, begin, end),
            KOKKOS_LAMBDA(std::size_t r, std::size_t & place, bool final) {
              auto const own = static_cast<std::uint32_t>(r);
              agent_index const i = sequence(r);
              for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
                agent_index const j = neighbours(e);
                // Rows are sorted, so a neighbour listed twice (a multigraph) is listed once here.
                if (parent(j) != own || (e > offsets(i) && neighbours(e - 1) == j)) continue;
                if (final) found(place) = j;
                ++place;
              }
            },
            count);
      } else {
        Kokkos::parallel_for(
            "herd::ordering::find_parents", policy(exec_, 0, n_), KOKKOS_LAMBDA(agent_index j) {
              if (number(j) != unset) return;
              std::uint32_t lowest = unset;
              for (edge_offset e = offsets(j); e < offsets(j + 1); ++e) {
                std::uint32_t const other = number(neighbours(e));
                lowest = other >= first && other < lowest ? other : lowest;
              }
              parent(j) = lowest;
            });
        Kokkos::parallel_scan(
            "herd::ordering::list_found", policy(exec_, 0, n_),
            KOKKOS_LAMBDA(agent_index j, std::size_t & place, bool final) {
              if (number(j) != unset || parent(j) == unset) return;
              if (final) found(place) = j;
              ++place;
            },
            count);
      }
    }
    require(end == static_cast<std::size_t>(n_), "breadth-first ordering reached " + std::to_string(end) + " of " +
                                                     std::to_string(n_) + " agents: the graph is not symmetric");
  }

  ExecutionSpace exec_;
  CsrGraph<memory_space, WeightStorage> graph_;
  agent_index n_;
  key_view keys_;
  index_view rank_;
  index_view by_rank_;
  index_view component_;
  index_view sequence_;
  number_view level_;
};

}  // namespace herd::Details
