// Any bytes as a CSR graph (the form population files hold): check_csr either throws herd::Error
// or accepts a graph that a step can walk. The walk below reads every row as a step would; the
// sanitizers catch any read outside the arrays that check_csr let through.
//
// Input layout: byte 0 = agents (0-31), byte 1 bit 0 = weighted, bit 1 = layered, then agents + 1
// row offsets of one byte each, then per entry a neighbour (signed byte), if weighted a weight byte
// (255: NaN, 254: -1, else value / 16), and if layered a layer byte.

#include <herd/core/error.hpp>
#include <herd/io/host_csr.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size < 2) return 0;
  std::size_t const agents = data[0] % 32;
  bool const weighted = (data[1] & 1) != 0, layered = (data[1] & 2) != 0;
  std::size_t at = 2;
  herd::HostCsr g;
  for (std::size_t i = 0; i <= agents && at < size; ++i) g.row_offsets.push_back(data[at++]);
  while (at < size) {
    g.neighbours.push_back(static_cast<std::int8_t>(data[at++]));
    if (weighted && at < size) {
      std::uint8_t const w = data[at++];
      g.weights.push_back(w == 255 ? std::numeric_limits<float>::quiet_NaN() : w == 254 ? -1.0f : w / 16.0f);
    }
    if (layered && at < size) g.layers.push_back(data[at++]);
  }
  try {
    herd::check_csr(g, "fuzz");
  } catch (herd::Error const&) {
    return 0;
  }
  // Accepted: walk it. A layered graph has weights and a layer per entry, and a row lists a
  // neighbour again only in a higher layer.
  auto const n = g.num_agents();
  if (!g.layers.empty() && (g.weights.empty() || g.layers.size() != g.neighbours.size())) std::abort();
  for (auto layer : g.layers)
    if (layer >= herd::max_layers) std::abort();
  for (herd::agent_index i = 0; i < n; ++i) {
    double pressure = 0.0;
    for (auto e = g.row_offsets[static_cast<std::size_t>(i)]; e < g.row_offsets[static_cast<std::size_t>(i) + 1]; ++e) {
      auto const j = g.neighbours[e];
      if (j < 0 || j >= n) std::abort();
      pressure += g.weights.empty() ? 1.0 : g.weights[e];
      if (e > g.row_offsets[static_cast<std::size_t>(i)] && g.neighbours[e - 1] == j &&
          (g.layers.empty() || g.layers[e - 1] >= g.layers[e]))
        std::abort();
    }
    if (!std::isfinite(pressure) || pressure < 0.0) std::abort();
  }
  return 0;
}
