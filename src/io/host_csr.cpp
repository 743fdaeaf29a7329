#include <herd/core/error.hpp>
#include <herd/io/host_csr.hpp>

#include <cmath>
#include <cstring>
#include <limits>

namespace herd {

namespace {

// SplitMix64's finaliser: a bijection of 64-bit words that mixes every bit into every other.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// An entry from -> to of weight bits `w` and layer `l`: the pair of 32-bit ids is one word.
std::uint64_t entry_hash(std::uint64_t from, std::uint64_t to, std::uint64_t weight_and_layer) {
  return mix(mix((from << 32) | to) + weight_and_layer);
}

}  // namespace

MirrorSums mirror_sums(CsrRows const& rows) {
  MirrorSums sums;
  for (std::size_t r = 0; r < rows.count; ++r) {
    auto const i = static_cast<std::uint64_t>(rows.first) + r;
    for (edge_offset e = rows.offsets[r] - rows.offsets[0]; e < rows.offsets[r + 1] - rows.offsets[0]; ++e) {
      auto const j = static_cast<std::uint64_t>(rows.neighbours[e]);
      std::uint32_t bits = 0;
      if (rows.weights != nullptr) std::memcpy(&bits, &rows.weights[e], sizeof bits);
      std::uint64_t const rest = bits | (rows.layers != nullptr ? std::uint64_t{rows.layers[e]} << 32 : 0);
      sums.forward += entry_hash(i, j, rest);
      sums.reversed += entry_hash(j, i, rest);
    }
  }
  return sums;
}

void check_last_offset(edge_offset last, std::uint64_t entries, std::string const& what) {
  require(last == entries, what + ": the last row offset is " + std::to_string(last) + " but there are " +
                               std::to_string(entries) + " neighbour entries");
}

void check_csr(HostCsr const& g, std::string const& what) {
  auto const& offsets = g.row_offsets;
  require(offsets.size() >= 2, what + ": a graph needs at least one agent (row offsets hold " +
                                   std::to_string(offsets.size()) + " entries, need agents + 1)");
  require(offsets.size() - 1 <= static_cast<std::size_t>(std::numeric_limits<agent_index>::max()),
          what + ": " + std::to_string(offsets.size() - 1) + " agents: more than the supported " +
              std::to_string(std::numeric_limits<agent_index>::max()));
  auto const n = static_cast<std::int64_t>(offsets.size() - 1);
  auto const entries = g.neighbours.size();
  require(offsets.front() == 0, what + ": row offsets start at " + std::to_string(offsets.front()) + ", not 0");
  check_last_offset(offsets.back(), entries, what);
  require(g.weights.empty() || g.weights.size() == entries, what + ": " + std::to_string(entries) +
                                                                " neighbour entries but " +
                                                                std::to_string(g.weights.size()) + " weights");
  require(
      g.layers.empty() || g.layers.size() == entries,
      what + ": " + std::to_string(entries) + " neighbour entries but " + std::to_string(g.layers.size()) + " layers");
  require(g.layers.empty() || !g.weights.empty(), what + ": layers without weights (a layered graph has weights)");
  auto const problem =
      first_bad_row({0, static_cast<std::size_t>(n), offsets.data(), g.neighbours.data(),
                     g.weights.empty() ? nullptr : g.weights.data(), g.layers.empty() ? nullptr : g.layers.data()},
                    n, entries, what)
          .second;
  if (!problem.empty()) throw Error(problem);
}

std::pair<std::int64_t, std::string> first_bad_row(CsrRows const& rows, std::int64_t n, std::uint64_t entries,
                                                   std::string const& what) {
  auto const base = rows.offsets[0];
  // Messages are built only on failure: this loop runs over every entry of large graphs.
  for (std::size_t k = 0; k < rows.count; ++k) {
    auto const i = rows.first + static_cast<std::int64_t>(k);
    auto const begin = rows.offsets[k], end = rows.offsets[k + 1];
    if (end < begin) return {i, what + ": row offsets decrease after agent " + std::to_string(i)};
    if (end > entries)
      return {i, what + ": the row of agent " + std::to_string(i) + " ends at entry " + std::to_string(end) +
                     ", past the " + std::to_string(entries) + " neighbour entries"};
    for (auto e = begin; e < end; ++e) {
      auto const j = rows.neighbours[e - base];
      if (j < 0 || j >= n)
        return {i, what + ": agent " + std::to_string(i) + " has neighbour " + std::to_string(j) + ", outside [0, " +
                       std::to_string(n) + ")"};
      // With layers a neighbour may repeat, in increasing layers: the pair meets in each.
      if (e > begin) {
        auto const before = rows.neighbours[e - 1 - base];
        bool const repeat =
            before == j && (rows.layers == nullptr || rows.layers[e - 1 - base] >= rows.layers[e - base]);
        if (before > j || (repeat && rows.layers == nullptr))
          return {i, what + ": the neighbours of agent " + std::to_string(i) +
                         " are not in strictly increasing order (" + std::to_string(before) + " then " +
                         std::to_string(j) + ")"};
        if (repeat)
          return {i, what + ": agent " + std::to_string(i) + " lists neighbour " + std::to_string(j) +
                         " again in layer " + std::to_string(rows.layers[e - base]) + " after layer " +
                         std::to_string(rows.layers[e - 1 - base]) + " (a neighbour's layers must increase)"};
      }
      if (rows.layers != nullptr && rows.layers[e - base] >= max_layers)
        return {i, what + ": the layer of agent " + std::to_string(i) + "'s neighbour " + std::to_string(j) + " is " +
                       std::to_string(rows.layers[e - base]) + ", outside [0, " + std::to_string(max_layers) + ")"};
      if (rows.weights != nullptr && !(std::isfinite(rows.weights[e - base]) && rows.weights[e - base] >= 0.0f))
        return {i, what + ": the weight of agent " + std::to_string(i) + "'s neighbour " + std::to_string(j) + " is " +
                       number_text(rows.weights[e - base]) + "; weights must be finite and non-negative"};
    }
  }
  return {n, {}};
}

}  // namespace herd
