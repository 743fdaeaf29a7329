// Any bytes as an edge-list file: the parser either throws herd::Error or returns a list whose
// ids are all valid agents and whose layers are named, in both id modes.

#include <herd/core/error.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {

void check(herd::HostEdgeList const& edges) {
  if (edges.sources.size() != edges.targets.size() || edges.sources.empty()) std::abort();
  if (!edges.weights.empty() && edges.weights.size() != edges.sources.size()) std::abort();
  for (std::size_t e = 0; e < edges.sources.size(); ++e)
    if (edges.sources[e] < 0 || edges.sources[e] >= edges.num_agents || edges.targets[e] < 0 ||
        edges.targets[e] >= edges.num_agents)
      std::abort();
  for (float w : edges.weights)
    if (!(w >= 0.0f && w <= herd::largest_float)) std::abort();
  // Layers come with weights, one per edge, numbered by the sorted names, which are valid.
  if (!edges.layers.empty() && (edges.layers.size() != edges.sources.size() || edges.weights.empty())) std::abort();
  auto const& names = edges.layer_names;
  if (names.size() > static_cast<std::size_t>(herd::max_layers) || names.empty() != edges.layers.empty()) std::abort();
  for (std::size_t l = 0; l < names.size(); ++l)
    if (!herd::Details::is_layer_name(names[l]) || (l > 0 && !(names[l - 1] < names[l]))) std::abort();
  for (auto layer : edges.layers)
    if (layer >= names.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const text(reinterpret_cast<char const*>(data), size);
  try {
    check(herd::parse_edge_list(text, "fuzz"));
  } catch (herd::Error const&) {
  }
  try {
    auto edges = herd::parse_edge_list(text, "fuzz", herd::EdgeIds::any);
    auto const originals = herd::compact_ids(edges, {0, 7});
    if (originals.size() != static_cast<std::size_t>(edges.num_agents)) std::abort();
    check(edges);
  } catch (herd::Error const&) {
  }
  return 0;
}
