#pragma once

// Count, scan, fill: the one way Herd inverts rows, turning "row r lists column c" into "column c
// lists row r" (a graph's transpose, the halo's send slots of each agent).

#include <herd/detail/counters.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace herd::Details {

// The count and fill of invert_rows, with counters shared between threads or not (counters.hpp).
template <bool Shared, class Offset, class ExecutionSpace, class Begin, class Column, class Place>
void count_and_fill(ExecutionSpace const& exec, Offset rows, Offset entries,
                    Kokkos::View<Offset*, typename ExecutionSpace::memory_space> const& offsets, Begin const& begin,
                    Column const& column, Place const& place, std::string const& label) {
  Kokkos::parallel_for(
      label + "::count", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, entries),
      KOKKOS_LAMBDA(Offset e) { fetch_add<Shared>(offsets(column(e) + 1), Offset{1}); });
  auto const cursor = counts_to_offsets(exec, offsets, (label + "::cursor").c_str());
  Kokkos::parallel_for(
      label + "::fill", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, rows), KOKKOS_LAMBDA(Offset r) {
        for (Offset e = begin(r); e < begin(r + 1); ++e) place(fetch_add<Shared>(cursor(column(e)), Offset{1}), r, e);
      });
}

/// Inverts `rows` rows over `columns` columns: row r holds entries [begin(r), begin(r + 1)), entry
/// e in column column(e). Returns the inverse's offsets (columns + 1 of them) and calls place(at, r,
/// e) to put entry e of row r at position `at` of the inverse. Entries of one column come in no
/// particular order. `begin` and `column` are device functions (KOKKOS_LAMBDA); `place` too.
template <class Offset, class ExecutionSpace, class Begin, class Column, class Place>
Kokkos::View<Offset*, typename ExecutionSpace::memory_space> invert_rows(ExecutionSpace const& exec, Offset rows,
                                                                         Offset entries, Offset columns,
                                                                         Begin const& begin, Column const& column,
                                                                         Place const& place, std::string const& label) {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<Offset*, memory_space> offsets(label + "::offsets", columns + 1);
  if (shared_counters(exec))
    count_and_fill<true>(exec, rows, entries, offsets, begin, column, place, label);
  else
    count_and_fill<false>(exec, rows, entries, offsets, begin, column, place, label);
  return offsets;
}

}  // namespace herd::Details
