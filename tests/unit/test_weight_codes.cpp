#include "test_common.hpp"

#include <herd/engine/weight_codes.hpp>

#include <cmath>
#include <cstring>

namespace {

using namespace herd;
using herd::test::to_vector;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;

// A directed graph of `agents` rows whose edge e weighs weights[e % weights.size()].
template <class WeightStorage = float>
CsrGraph<Kokkos::DefaultExecutionSpace::memory_space, WeightStorage> graph_weighing(std::vector<float> const& weights,
                                                                                    agent_index agents = 400) {
  using Exec = Kokkos::DefaultExecutionSpace;
  std::vector<global_id> sources, targets;
  std::vector<float> w;
  for (global_id i = 0; i < agents; ++i)
    for (global_id k = 1; k <= 5; ++k) {
      sources.push_back(i);
      targets.push_back((i + 7 * k) % agents);
      w.push_back(weights[w.size() % weights.size()]);
    }
  BuildOptions options;
  options.symmetrise = false;
  return build_csr<WeightStorage>(Exec(), herd::test::edge_list<Exec>(agents, sources, targets, w), options);
}

std::uint32_t bits_of(float x) {
  std::uint32_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Every edge's code stands for its weight, to the bit; the palette holds each weight once, in
// ascending order.
template <class Graph>
void expect_codes_stand_for_the_weights(Graph const& graph, std::size_t distinct) {
  using Exec = Kokkos::DefaultExecutionSpace;
  auto const coded = Details::make_weight_codes(Exec(), graph);
  ASSERT_FALSE(coded.empty());
  auto const palette = to_vector(coded.palette);
  auto const codes = to_vector(coded.codes);
  ASSERT_EQ(palette.size(), distinct);
  ASSERT_EQ(codes.size(), static_cast<std::size_t>(graph.num_edges()));
  for (std::size_t c = 1; c < palette.size(); ++c) EXPECT_LT(palette[c - 1], palette[c]) << "code " << c;
  Kokkos::View<float*, Exec::memory_space> weights("weights", graph.num_edges());
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, graph.num_edges()), KOKKOS_LAMBDA(edge_offset e) { weights(e) = graph.weight(e); });
  auto const w = to_vector(weights);
  for (std::size_t e = 0; e < codes.size(); ++e)
    ASSERT_EQ(bits_of(palette[codes[e]]), bits_of(w[e])) << "edge " << e << " weighs " << w[e];
}

TEST(WeightCodes, StandForEachEdgesWeight) {
  // Layer weights, 1 among them, and two that differ in the last bit of a float.
  float const nudged = std::nextafter(0.3f, 1.0f);
  expect_codes_stand_for_the_weights(graph_weighing({0.6f, 1.0f, 0.1f, 0.3f, nudged, 0.4f, 0.1f}), 6);
}

TEST(WeightCodes, StandForHalfWeightsAsTheyAreRead) {
  // 0.25 and 0.25001 are one binary16 value: one code.
  expect_codes_stand_for_the_weights(graph_weighing<half>({0.6f, 1.0f, 0.25f, 0.25001f, 0.1f}), 4);
}

TEST(WeightCodes, TakeUpTo256Weights) {
  std::vector<float> weights;
  for (int k = 0; k < 256; ++k) weights.push_back(0.5f + static_cast<float>(k) / 1024.0f);
  expect_codes_stand_for_the_weights(graph_weighing(weights, 1000), 256);
  weights.push_back(0.25f);
  auto const too_many = Details::make_weight_codes(Kokkos::DefaultExecutionSpace(), graph_weighing(weights, 1000));
  EXPECT_TRUE(too_many.empty()) << "257 distinct weights";
  EXPECT_EQ(too_many.codes.extent(0), 0u);
}

// On a layered graph a code stands for a (weight, layer) pair: one weight in two layers has two
// codes, and a code's weight times its layer's factor is, to the bit, what the edge's weight()
// reads (weights and factors whose products round).

Kokkos::View<float*, Kokkos::DefaultExecutionSpace::memory_space> weights_read(
    CsrGraph<Kokkos::DefaultExecutionSpace::memory_space> const& graph,
    Details::WeightCodes<Kokkos::DefaultExecutionSpace::memory_space> const& coded) {
  using Exec = Kokkos::DefaultExecutionSpace;
  Kokkos::View<float*, Exec::memory_space> mismatch("mismatch", graph.num_edges());
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, graph.num_edges()),
      KOKKOS_LAMBDA(edge_offset e) { mismatch(e) = coded.weight(coded.codes(e)) - graph.weight(e); });
  return mismatch;
}

TEST(WeightCodes, StandForWeightAndLayerPairs) {
  using Exec = Kokkos::DefaultExecutionSpace;
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  std::vector<layer_index> layers;
  for (global_id i = 0; i < 300; ++i)
    for (global_id k = 1; k <= 4; ++k) {
      sources.push_back(i);
      targets.push_back((i + 11 * k) % 300);
      weights.push_back(k % 2 ? 0.7f : 0.3f);
      layers.push_back(static_cast<layer_index>(k == 4 ? 100 : k));
    }
  auto graph = build_csr(Exec(), herd::test::edge_list<Exec>(300, sources, targets, weights, layers));
  graph.layer_factors = Kokkos::View<float*, Exec::memory_space>("factors", max_layers);
  auto factors = Kokkos::create_mirror_view(graph.layer_factors);
  for (int l = 0; l < max_layers; ++l) factors(l) = 1.0f / static_cast<float>(l + 1);
  Kokkos::deep_copy(graph.layer_factors, factors);
  auto const coded = Details::make_weight_codes(Exec(), graph);
  ASSERT_FALSE(coded.empty());
  EXPECT_EQ(to_vector(coded.palette), (std::vector<float>{0.3f, 0.3f, 0.7f, 0.7f}));
  EXPECT_EQ(to_vector(coded.layers), (std::vector<layer_index>{2, 100, 1, 3}));
  for (float m : to_vector(weights_read(graph, coded))) ASSERT_EQ(m, 0.0f);
}

TEST(WeightCodes, NoneWithoutWeights) {
  using Exec = Kokkos::DefaultExecutionSpace;
  auto graph = graph_weighing({0.5f});
  graph.weights = {};
  EXPECT_TRUE(Details::make_weight_codes(Exec(), graph).empty());
}

}  // namespace
