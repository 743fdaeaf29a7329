#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace {

using namespace herd;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;
using herd::test::to_vector;

template <class ExecutionSpace>
class Graph : public ::testing::Test {};
TYPED_TEST_SUITE(Graph, herd::test::ExecutionSpaces);

TYPED_TEST(Graph, BuildsSortedSymmetricRowsWithoutLoopsOrDuplicates) {
  using Exec = TypeParam;
  // 0-1 twice (once each way), a self-loop on 2, 3 isolated.
  auto edges = herd::test::edge_list<Exec>(4, {0, 1, 2, 2, 1}, {1, 0, 2, 0, 2});
  auto g = build_csr(Exec(), edges);
  EXPECT_EQ(to_vector(g.row_offsets), (std::vector<edge_offset>{0, 2, 4, 6, 6}));
  EXPECT_EQ(to_vector(g.neighbours), (std::vector<agent_index>{1, 2, 0, 2, 0, 1}));
  EXPECT_FALSE(g.weighted());
}

TYPED_TEST(Graph, KeepsDirectionAndLoopsWhenAsked) {
  using Exec = TypeParam;
  auto edges = herd::test::edge_list<Exec>(3, {0, 0, 2, 0}, {1, 1, 2, 2});
  BuildOptions options;
  options.symmetrise = false;
  options.drop_self_loops = false;
  options.drop_duplicates = false;
  auto g = build_csr(Exec(), edges, options);
  EXPECT_EQ(to_vector(g.row_offsets), (std::vector<edge_offset>{0, 3, 3, 4}));
  EXPECT_EQ(to_vector(g.neighbours), (std::vector<agent_index>{1, 1, 2, 2}));
}

TYPED_TEST(Graph, DuplicateKeepsLargestWeightAndHalfWeightsRound) {
  using Exec = TypeParam;
  auto edges = herd::test::edge_list<Exec>(3, {0, 1, 0}, {1, 0, 2}, {0.25f, 0.5f, 0.1f});
  auto g = build_csr(Exec(), edges);
  EXPECT_EQ(to_vector(g.neighbours), (std::vector<agent_index>{1, 2, 0, 0}));
  EXPECT_EQ(to_vector(g.weights), (std::vector<float>{0.5f, 0.1f, 0.5f, 0.1f}));
  auto h = build_csr<half>(Exec(), edges);
  auto hw = to_vector(h.weights);
  EXPECT_EQ(sizeof(hw[0]), 2u);
  EXPECT_EQ(static_cast<float>(hw[1]), static_cast<float>(half(0.1f)));
}

// Many weighted edges with repeats and self-loops, against rows built by hand: on several threads
// construction places entries through each thread's own counters, on one through atomics.
TYPED_TEST(Graph, BuildsWeightedMultigraphsAsSortedRowsBuiltByHand) {
  using Exec = TypeParam;
  agent_index const n = 300;
  std::mt19937 random(4);
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  for (int e = 0; e < 6000; ++e) {
    sources.push_back(static_cast<global_id>(random() % n));
    targets.push_back(static_cast<global_id>(random() % n));
    weights.push_back(0.25f * static_cast<float>(1 + random() % 8));
  }
  for (bool unique : {true, false}) {
    std::vector<std::vector<std::pair<agent_index, float>>> rows(n);
    for (std::size_t e = 0; e < sources.size(); ++e) {
      auto const s = static_cast<agent_index>(sources[e]), t = static_cast<agent_index>(targets[e]);
      if (s == t) continue;
      rows[s].emplace_back(t, weights[e]);
      rows[t].emplace_back(s, weights[e]);
    }
    std::vector<edge_offset> offsets{0};
    std::vector<agent_index> neighbours;
    std::vector<float> row_weights;
    for (auto& row : rows) {
      std::sort(row.begin(), row.end(), [](auto const& a, auto const& b) {
        return a.first < b.first || (a.first == b.first && a.second > b.second);
      });
      for (std::size_t k = 0; k < row.size(); ++k) {
        if (unique && k > 0 && row[k].first == row[k - 1].first) continue;
        neighbours.push_back(row[k].first);
        row_weights.push_back(row[k].second);
      }
      offsets.push_back(neighbours.size());
    }
    BuildOptions options;
    options.drop_duplicates = unique;
    auto g = build_csr(Exec(), herd::test::edge_list<Exec>(n, sources, targets, weights), options);
    EXPECT_EQ(to_vector(g.row_offsets), offsets) << "drop_duplicates " << unique;
    EXPECT_EQ(to_vector(g.neighbours), neighbours) << "drop_duplicates " << unique;
    EXPECT_EQ(to_vector(g.weights), row_weights) << "drop_duplicates " << unique;
  }
}

// (row, column, weight, layer) of every entry of `g`, sorted; `reversed` swaps row and column.
template <class G>
std::vector<std::tuple<agent_index, agent_index, float, int>> entries_of(G const& g, bool reversed) {
  auto const offsets = to_vector(g.row_offsets);
  auto const neighbours = to_vector(g.neighbours);
  auto const weights = to_vector(g.weights);
  auto const layers = to_vector(g.layers);
  std::vector<std::tuple<agent_index, agent_index, float, int>> out;
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    for (auto e = static_cast<std::size_t>(offsets[i]); e < static_cast<std::size_t>(offsets[i + 1]); ++e) {
      auto const r = static_cast<agent_index>(i), c = neighbours[e];
      out.emplace_back(reversed ? c : r, reversed ? r : c, weights[e], layers[e]);
    }
  std::sort(out.begin(), out.end());
  return out;
}

// A rank's rows of a symmetrised multigraph (parallel edges in two layers, self-loops, weights
// that differ by edge) keep the first agents' rows; the others are its ghosts. Inverting only the
// entries that name ghosts gives the transpose's entries, weights and layers, row for row.
TYPED_TEST(Graph, TheTransposeOfMirroredRowsInvertsOnlyTheCut) {
  using Exec = TypeParam;
  agent_index const n = 400;
  std::mt19937 random(5);
  std::uniform_int_distribution<global_id> agent(0, n - 1);
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  std::vector<layer_index> layers;
  for (int k = 0; k < 3000; ++k) {
    sources.push_back(agent(random));
    targets.push_back(k % 50 == 0 ? sources.back() : agent(random));
    weights.push_back(0.125f * static_cast<float>(k % 7 + 1));
    layers.push_back(static_cast<layer_index>(k % 3));
  }
  BuildOptions options;
  options.drop_self_loops = false;
  auto const whole = build_csr(Exec(), herd::test::edge_list<Exec>(n, sources, targets, weights, layers), options);
  ASSERT_TRUE(whole.symmetric);
  for (agent_index rows : {agent_index{0}, agent_index{1}, agent_index{137}, n}) {
    auto share = whole;
    share.row_offsets = Kokkos::subview(whole.row_offsets, std::make_pair(0, rows + 1));
    auto const entries = static_cast<std::size_t>(to_vector(share.row_offsets).back());
    share.neighbours = Kokkos::subview(whole.neighbours, std::make_pair(std::size_t{0}, entries));
    share.weights = Kokkos::subview(whole.weights, std::make_pair(std::size_t{0}, entries));
    share.layers = Kokkos::subview(whole.layers, std::make_pair(std::size_t{0}, entries));
    auto const mirrored = transpose_mirrored(Exec(), share, n);
    auto const inverted = transpose(Exec(), share, n);
    ASSERT_EQ(mirrored.num_agents(), n);
    EXPECT_EQ(to_vector(mirrored.row_offsets), to_vector(inverted.row_offsets)) << rows << " rows";
    EXPECT_EQ(entries_of(mirrored, false), entries_of(inverted, false)) << rows << " rows";
    EXPECT_EQ(entries_of(mirrored, true), entries_of(share, false)) << rows << " rows";
  }
}

TYPED_TEST(Graph, RejectsBadEdgesNamingThem) {
  using Exec = TypeParam;
  auto expect_error = [](auto const& f, std::string const& fragment) {
    try {
      f();
      FAIL() << "expected an error containing '" << fragment << "'";
    } catch (herd::Error const& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error(
      [] {
        build_csr(Exec(), herd::test::edge_list<Exec>(3, {0, 1}, {1, 3}));
      },
      "edge 1 (1 -> 3) has an agent id not below the agent count 3");
  expect_error(
      [] {
        build_csr(Exec(), herd::test::edge_list<Exec>(3, {0, -1}, {1, 2}));
      },
      "edge 1 (-1 -> 2) has a negative agent id");
  expect_error([] { build_csr(Exec(), herd::test::edge_list<Exec>(3, {0}, {1}, {-1.0f})); },
               "weights must be finite and non-negative");
  // The weight as it reads back, not six decimals that show a tiny one as -0.000000.
  expect_error([] { build_csr(Exec(), herd::test::edge_list<Exec>(3, {0}, {1}, {-1e-9f})); },
               "edge 0 (0 -> 1) has weight -1e-09; weights must be finite and non-negative");
  // The largest float is finite: a weight like any other.
  auto const heaviest = build_csr(Exec(), herd::test::edge_list<Exec>(3, {0}, {1}, {herd::largest_float}));
  auto const weights = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), heaviest.weights);
  ASSERT_EQ(weights.extent(0), 2u);
  EXPECT_EQ(weights(0), herd::largest_float);
}

// Regions a Kokkos tool sees, by depth: a region left open by an error misnests every later one.
struct RegionDepth {
  static inline int depth = 0, deepest = 0;
  static void push(char const*) { deepest = std::max(deepest, ++depth); }
  static void pop() { --depth; }
};

// Building from a bad edge list throws from inside the build's profiling region, which must close.
TYPED_TEST(Graph, ErrorsCloseTheirProfilingRegions) {
  using Exec = TypeParam;
  namespace tools = Kokkos::Tools::Experimental;
  auto const original = tools::get_callbacks();
  auto counting = original;
  counting.push_region = RegionDepth::push;
  counting.pop_region = RegionDepth::pop;
  RegionDepth::depth = RegionDepth::deepest = 0;
  tools::set_callbacks(counting);
  EXPECT_THROW(build_csr(Exec(), herd::test::edge_list<Exec>(3, {0, 1}, {1, 3})), herd::Error);
  tools::set_callbacks(original);
  EXPECT_GT(RegionDepth::deepest, 0) << "the build opened no region";
  EXPECT_EQ(RegionDepth::depth, 0);
}

TYPED_TEST(Graph, ValidateFindsBrokenCsr) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  CsrGraph<Mem> g;
  g.row_offsets = Kokkos::View<edge_offset*, Mem>("o", 4);
  g.neighbours = Kokkos::View<agent_index*, Mem>("n", 3);
  auto o = Kokkos::create_mirror_view(g.row_offsets);
  auto n = Kokkos::create_mirror_view(g.neighbours);
  o(0) = 0, o(1) = 2, o(2) = 1, o(3) = 3;
  n(0) = 1, n(1) = 2, n(2) = 0;
  Kokkos::deep_copy(g.row_offsets, o);
  Kokkos::deep_copy(g.neighbours, n);
  EXPECT_THROW(
      {
        try {
          validate(Exec(), g, "g.h5");
        } catch (herd::Error const& e) {
          EXPECT_STREQ(e.what(), "g.h5: row offsets decrease after row 1");
          throw;
        }
      },
      herd::Error);
  o(2) = 2;
  n(2) = 7;
  Kokkos::deep_copy(g.row_offsets, o);
  Kokkos::deep_copy(g.neighbours, n);
  EXPECT_THROW(validate(Exec(), g), herd::Error);
  n(2) = 0;
  Kokkos::deep_copy(g.neighbours, n);
  EXPECT_NO_THROW(validate(Exec(), g));
  o(3) = 2;
  Kokkos::deep_copy(g.row_offsets, o);
  EXPECT_THROW(validate(Exec(), g), herd::Error);
}

// A generated graph is a pure function of the seed: the same on every backend and thread count,
// and every backend here builds it. Checked through a hash of the CSR arrays.
template <class Graph>
std::uint64_t fingerprint(Graph const& g) {
  herd::test::Fingerprint f;
  f.add(to_vector(g.row_offsets));
  f.add(to_vector(g.neighbours));
  return f.value();
}

TYPED_TEST(Graph, GeneratorsAreDeterministicAcrossBackends) {
  using Exec = TypeParam;
  ErdosRenyi const er{20000, 8.0};
  PowerLaw const pl{20000, 2.3, 8.0, 0.0};
  WattsStrogatz const ws{20000, 4, 0.1};
  auto const host_er = herd::test::generated_graph<Kokkos::DefaultHostExecutionSpace>(er, 7);
  EXPECT_EQ(fingerprint(herd::test::generated_graph<Exec>(er, 7)), fingerprint(host_er));
  EXPECT_NE(fingerprint(herd::test::generated_graph<Exec>(er, 8)), fingerprint(host_er));
  EXPECT_EQ(fingerprint(herd::test::generated_graph<Exec>(pl, 7)),
            fingerprint(herd::test::generated_graph<Kokkos::DefaultHostExecutionSpace>(pl, 7)));
  EXPECT_EQ(fingerprint(herd::test::generated_graph<Exec>(ws, 7)),
            fingerprint(herd::test::generated_graph<Kokkos::DefaultHostExecutionSpace>(ws, 7)));
}

TEST(Generators, ErdosRenyiHasPoissonDegrees) {
  agent_index const n = 200000;
  double const c = 10.0;
  auto g = herd::test::generated_graph<Kokkos::DefaultExecutionSpace>(ErdosRenyi{n, c}, 1);
  auto const stats = degree_stats(Kokkos::DefaultExecutionSpace(), g);
  // Self-loops and repeated pairs are dropped: about c^2 / (2n) of the mean degree.
  EXPECT_NEAR(stats.mean_degree, c, 0.01);
  auto offsets = to_vector(g.row_offsets);
  double var = 0;
  for (agent_index i = 0; i < n; ++i) {
    double const d = static_cast<double>(offsets[i + 1] - offsets[i]) - stats.mean_degree;
    var += d * d;
  }
  EXPECT_NEAR(var / n, c, 0.15);  // Poisson: variance = mean
}

TEST(Generators, PowerLawHasHubsAndTheMeanDegree) {
  agent_index const n = 100000;
  auto g = herd::test::generated_graph<Kokkos::DefaultExecutionSpace>(PowerLaw{n, 2.1, 16.0, 0.0}, 3);
  auto const stats = degree_stats(Kokkos::DefaultExecutionSpace(), g);
  EXPECT_NEAR(stats.mean_degree, 16.0, 1.0);
  // The cap is mean * sqrt(n) = 5060: the top agent comes close, far above Poisson tails.
  EXPECT_GT(stats.max_degree, 2500);
  EXPECT_LE(stats.max_degree, 5060 * 1.2);
}

// Where the cap does not bind (a steep tail), agent i expects n c (i + 1)^-alpha / sum_j (j + 1)^-alpha
// neighbours: the first agents follow the law, and agent 0 is no hub at the cap (1581 here).
TEST(Generators, PowerLawBelowTheCapFollowsTheLaw) {
  agent_index const n = 100000;
  double const c = 5.0, alpha = 1.0 / (3.5 - 1.0);
  auto g = herd::test::generated_graph<Kokkos::DefaultExecutionSpace>(PowerLaw{n, 3.5, c, 0.0}, 3);
  auto const offsets = to_vector(g.row_offsets);
  double total = 0.0;
  for (agent_index j = 0; j < n; ++j) total += std::pow(j + 1.0, -alpha);
  for (agent_index i = 0; i < 4; ++i) {
    double const expected = n * c * std::pow(i + 1.0, -alpha) / total;  // 300 for agent 0
    EXPECT_NEAR(static_cast<double>(offsets[i + 1] - offsets[i]), expected, 5.0 * std::sqrt(expected)) << i;
  }
}

TEST(Generators, WattsStrogatzWithoutRewiringIsARing) {
  auto g = herd::test::generated_graph<Kokkos::DefaultExecutionSpace>(WattsStrogatz{10, 2, 0.0}, 3);
  auto offsets = to_vector(g.row_offsets);
  auto neighbours = to_vector(g.neighbours);
  EXPECT_EQ(offsets.back(), 40u);
  EXPECT_EQ(std::vector<agent_index>(neighbours.begin(), neighbours.begin() + 4),
            (std::vector<agent_index>{1, 2, 8, 9}));
}

TEST(Generators, LayeredPopulationHasItsLayers) {
  Kokkos::DefaultExecutionSpace exec;
  LayeredPopulation spec;
  spec.agents = 100000;
  auto pop = generate_population(exec, spec, 11);
  auto g = build_csr(exec, pop.edges);
  auto const stats = degree_stats(exec, g);
  EXPECT_GT(stats.mean_degree, 6.0);
  EXPECT_LT(stats.mean_degree, 20.0);
  auto ages = to_vector(pop.age_group);
  auto homes = to_vector(pop.household);
  std::vector<int> per_age(3, 0);
  for (auto a : ages) ++per_age.at(a);
  EXPECT_GT(per_age[0], 15000);  // children
  EXPECT_GT(per_age[1], 50000);  // adults
  EXPECT_GT(per_age[2], 5000);   // elders
  // Household members are linked in the household layer with its weight (and may meet in other
  // layers too), and households have at most 6.
  auto offsets = to_vector(g.row_offsets);
  auto neighbours = to_vector(g.neighbours);
  auto weights = to_vector(g.weights);
  auto layers = to_vector(g.layers);
  for (agent_index i = 0; i + 1 < 2000; ++i) {
    if (homes[i] != homes[i + 1]) continue;
    bool found = false;
    for (auto e = offsets[i]; e < offsets[i + 1]; ++e)
      found = found || (neighbours[e] == i + 1 && layers[e] == 0 && weights[e] == spec.household_weight);
    EXPECT_TRUE(found) << i;
  }
  std::map<agent_index, int> household_size;
  for (auto h : homes) ++household_size[h];
  for (auto const& [h, size] : household_size) ASSERT_LE(size, 6);
  // The same seed gives the same population on another run.
  auto again = generate_population(exec, spec, 11);
  EXPECT_EQ(to_vector(again.edges.targets), to_vector(pop.edges.targets));
}

TEST(Generators, EveryChildAndWorkerDrawsItsContacts) {
  // With everyone of working age employed, each adult draws workplace_contacts colleagues and each
  // child class_contacts classmates, whatever its id and its group's (agent g in group g included).
  Kokkos::DefaultExecutionSpace exec;
  LayeredPopulation spec;
  spec.agents = 20000;
  spec.employment = 1.0;
  // One workplace for all: agent 0, the head of the first household, is in group 0 when an adult.
  LayeredPopulation one_workplace = spec;
  one_workplace.agents = 100;
  one_workplace.workplace_size = 1000;
  int adult_zero = 0;
  for (auto [population, seed] : {std::pair{spec, 7}, std::pair{spec, 8}, std::pair{one_workplace, 1},
                                  std::pair{one_workplace, 2}, std::pair{one_workplace, 3}}) {
    auto pop = generate_population(exec, population, static_cast<std::uint64_t>(seed));
    auto ages = to_vector(pop.age_group);
    auto sources = to_vector(pop.edges.sources);
    auto weights = to_vector(pop.edges.weights);
    std::vector<int> drawn(ages.size(), 0);
    for (std::size_t e = 0; e < sources.size(); ++e)
      if (weights[e] == spec.workplace_weight || weights[e] == spec.school_weight) ++drawn[sources[e]];
    for (std::size_t a = 0; a < ages.size(); ++a) {
      int const expected = ages[a] == static_cast<std::uint8_t>(AgeGroup::adult)   ? spec.workplace_contacts
                           : ages[a] == static_cast<std::uint8_t>(AgeGroup::child) ? spec.class_contacts
                                                                                   : 0;
      ASSERT_EQ(drawn[a], expected) << "agent " << a << " of " << population.agents << ", seed " << seed;
    }
    adult_zero += population.agents == 100 && ages[0] == static_cast<std::uint8_t>(AgeGroup::adult);
  }
  EXPECT_GT(adult_zero, 0);
}

TEST(Generators, RejectBadParameters) {
  Kokkos::DefaultExecutionSpace exec;
  EXPECT_THROW(generate_edges(exec, ErdosRenyi{0, 4.0}, 1), herd::Error);
  EXPECT_THROW(generate_edges(exec, ErdosRenyi{10, 40.0}, 1), herd::Error);
  EXPECT_THROW(generate_edges(exec, PowerLaw{100, 1.5, 4.0, 0.0}, 1), herd::Error);
  EXPECT_THROW(generate_edges(exec, WattsStrogatz{10, 5, 0.1}, 1), herd::Error);
  EXPECT_THROW(generate_edges(exec, WattsStrogatz{10, 2, 1.5}, 1), herd::Error);
}

TYPED_TEST(Graph, ReorderingIsAPermutationThatImprovesLocality) {
  using Exec = TypeParam;
  Exec exec;
  // A ring lattice shuffled: RCM should bring neighbours back close together.
  auto ring = herd::test::generated_graph<Exec>(WattsStrogatz{5000, 3, 0.0}, 1);
  auto shuffled = permute(exec, ring, compute_ordering(exec, ring, Ordering::random, 9));
  double const span_shuffled = mean_edge_span(exec, shuffled);
  EXPECT_GT(span_shuffled, 1000.0);
  for (Ordering o : {Ordering::none, Ordering::degree, Ordering::rcm, Ordering::bfs}) {
    if (o == Ordering::rcm && !HERD_ENABLE_KOKKOSKERNELS) continue;
    auto p = compute_ordering(exec, shuffled, o);
    auto new_of_old = to_vector(p.new_of_old);
    auto old_of_new = to_vector(p.old_of_new);
    std::set<agent_index> seen(new_of_old.begin(), new_of_old.end());
    ASSERT_EQ(seen.size(), 5000u);
    for (agent_index i = 0; i < 5000; ++i) ASSERT_EQ(old_of_new[new_of_old[i]], i);
    auto g = permute(exec, shuffled, p);
    EXPECT_EQ(g.num_edges(), shuffled.num_edges());
    validate(exec, g);
    if (o == Ordering::rcm || o == Ordering::bfs) {
      EXPECT_LT(mean_edge_span(exec, g), 10.0) << to_string(o);
    }
  }
}

// A model may pick a neighbour by its place in the row (the voter model): relabelling must move
// each row whole, in its order, so that the place names the same agent.
TYPED_TEST(Graph, PermutingKeepsTheOrderOfEachRow) {
  using Exec = TypeParam;
  Exec exec;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{3000, 8.0}, 4);
  auto const p = compute_ordering(exec, graph, Ordering::random, 5);
  auto const g = permute(exec, graph, p);
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  auto const new_offsets = to_vector(g.row_offsets);
  auto const new_neighbours = to_vector(g.neighbours);
  auto const new_of_old = to_vector(p.new_of_old);
  for (agent_index i = 0; i < graph.num_agents(); ++i) {
    auto const r = new_of_old[static_cast<std::size_t>(i)];
    ASSERT_EQ(new_offsets[r + 1] - new_offsets[r], offsets[i + 1] - offsets[i]);
    for (edge_offset k = 0; k < offsets[i + 1] - offsets[i]; ++k)
      ASSERT_EQ(new_neighbours[new_offsets[r] + k], new_of_old[neighbours[offsets[i] + k]]) << "agent " << i;
  }
}

// Checkpoints compare graphs by their hash: the same arrays give the same hash, a changed weight,
// neighbour or row length another.
TYPED_TEST(Graph, HashNamesTheContacts) {
  using Exec = TypeParam;
  Exec exec;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{2000, 6.0}, 4);
  auto const hash = graph_hash(exec, graph);
  EXPECT_EQ(graph_hash(exec, herd::test::generated_graph<Exec>(ErdosRenyi{2000, 6.0}, 4)), hash);
  EXPECT_NE(graph_hash(exec, herd::test::generated_graph<Exec>(ErdosRenyi{2000, 6.0}, 5)), hash);
  // The same contacts relabelled are other arrays.
  EXPECT_NE(graph_hash(exec, permute(exec, graph, compute_ordering(exec, graph, Ordering::random, 1))), hash);
  auto weighted = graph;
  weighted.weights = Kokkos::View<float*, typename Exec::memory_space>("weights", graph.num_edges());
  Kokkos::deep_copy(weighted.weights, 1.0f);
  EXPECT_EQ(graph_hash(exec, weighted), hash) << "weights of 1 are an unweighted graph's";
  Kokkos::deep_copy(Kokkos::subview(weighted.weights, 7), 0.5f);
  EXPECT_NE(graph_hash(exec, weighted), hash);
}

// Cuthill-McKee as a serial queue computes it: each component from a George-Liu root (the
// lowest (degree, id) agent of the last level of a search from the component's lowest (degree, id)
// agent), all roots queued first in (degree, id) order, each agent queueing its unreached
// neighbours in (degree, id) order.
std::vector<agent_index> serial_cuthill_mckee(std::vector<edge_offset> const& offsets,
                                              std::vector<agent_index> const& neighbours) {
  auto const n = static_cast<agent_index>(offsets.size() - 1);
  auto before = [&](agent_index a, agent_index b) {
    auto const da = offsets[a + 1] - offsets[a], db = offsets[b + 1] - offsets[b];
    return da != db ? da < db : a < b;
  };
  auto search = [&](std::vector<agent_index> roots) {
    std::sort(roots.begin(), roots.end(), before);
    std::vector<agent_index> queue = roots;
    std::vector<int> depth(n, -1);
    for (agent_index r : roots) depth[r] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      agent_index const i = queue[head];
      std::vector<agent_index> children;
      for (auto e = offsets[i]; e < offsets[i + 1]; ++e)
        if (depth[neighbours[e]] < 0) {
          depth[neighbours[e]] = depth[i] + 1;
          children.push_back(neighbours[e]);
        }
      std::sort(children.begin(), children.end(), before);
      queue.insert(queue.end(), children.begin(), children.end());
    }
    return std::make_pair(queue, depth);
  };
  std::vector<agent_index> component(n, -1), first;
  for (agent_index i = 0; i < n; ++i) {
    if (component[i] >= 0) continue;
    std::vector<agent_index> members{i};
    component[i] = i;
    for (std::size_t k = 0; k < members.size(); ++k)
      for (auto e = offsets[members[k]]; e < offsets[members[k] + 1]; ++e)
        if (component[neighbours[e]] < 0) {
          component[neighbours[e]] = i;
          members.push_back(neighbours[e]);
        }
    first.push_back(*std::min_element(members.begin(), members.end(), before));
  }
  auto const depth = search(first).second;
  std::map<agent_index, agent_index> peripheral;  // component -> root
  std::map<agent_index, int> deepest;
  for (agent_index i = 0; i < n; ++i) deepest[component[i]] = std::max(deepest[component[i]], depth[i]);
  for (agent_index i = 0; i < n; ++i) {
    if (depth[i] != deepest[component[i]]) continue;
    auto found = peripheral.find(component[i]);
    if (found == peripheral.end() || before(i, found->second)) peripheral[component[i]] = i;
  }
  std::vector<agent_index> roots;
  for (auto const& [c, root] : peripheral) roots.push_back(root);
  return search(roots).first;
}

TYPED_TEST(Graph, BreadthFirstOrderIsCuthillMcKee) {
  using Exec = TypeParam;
  Exec exec;
  // Sparse random graphs: many components, isolated agents, ties in degree.
  for (auto [agents, degree, seed] : {std::tuple{2000, 1.2, 3}, std::tuple{5000, 3.0, 4}, std::tuple{300, 0.5, 5}}) {
    auto g = herd::test::generated_graph<Exec>(ErdosRenyi{agents, degree}, seed);
    auto const expected = serial_cuthill_mckee(to_vector(g.row_offsets), to_vector(g.neighbours));
    auto p = compute_ordering(exec, g, Ordering::bfs);
    EXPECT_EQ(to_vector(p.old_of_new), expected) << agents << " agents, mean degree " << degree;
    auto new_of_old = to_vector(p.new_of_old);
    for (agent_index r = 0; r < agents; ++r) ASSERT_EQ(new_of_old[expected[r]], r);
  }
}

// On a directed graph the order walks each contact both ways, once: the Cuthill-McKee order of
// the graph symmetrised. Random arcs, a tenth of them given both ways, so that a row of the walk
// meets some neighbours twice.
TYPED_TEST(Graph, BreadthFirstOrderOfADirectedGraphIsThatOfItsContacts) {
  using Exec = TypeParam;
  Exec exec;
  agent_index const n = 1000;
  std::mt19937_64 random(7);
  std::vector<global_id> sources, targets;
  for (int k = 0; k < 3000; ++k) {
    sources.push_back(random() % n);
    targets.push_back(random() % n);
  }
  for (std::size_t k = 0; k < 300; ++k) {
    sources.push_back(targets[k]);
    targets.push_back(sources[k]);
  }
  BuildOptions directed;
  directed.symmetrise = false;
  auto const g = build_csr(exec, herd::test::edge_list<Exec>(n, sources, targets), directed);
  auto const contacts = build_csr(exec, herd::test::edge_list<Exec>(n, sources, targets));
  auto const expected = serial_cuthill_mckee(to_vector(contacts.row_offsets), to_vector(contacts.neighbours));
  EXPECT_EQ(to_vector(compute_ordering(exec, g, Ordering::bfs).old_of_new), expected);
}

TYPED_TEST(Graph, RelabellingCarriesEachWeightWithItsEdge) {
  using Exec = TypeParam;
  Exec exec;
  // A hub (row of 59: build_csr sorts it by heap sort) joined to everyone, a ring (rows of 3-4, insertion sort)
  // and one edge given twice with different weights, kept: every weight names its edge.
  agent_index const n = 60;
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  auto link = [&](global_id i, global_id j, float w) {
    sources.push_back(i);
    targets.push_back(j);
    weights.push_back(w);
  };
  for (agent_index j = 1; j < n; ++j) link(0, j, 1.0f + static_cast<float>(j));
  for (agent_index i = 1; i + 1 < n; ++i) link(i, i + 1, 100.0f + static_cast<float>(i));
  link(1, 2, 7.0f);
  BuildOptions options;
  options.drop_duplicates = false;
  auto g = build_csr(exec, herd::test::edge_list<Exec>(n, sources, targets, weights), options);
  auto p = compute_ordering(exec, g, Ordering::random, 5);
  auto h = permute(exec, g, p);
  validate(exec, h);

  auto rows_of = [](auto const& graph, auto const& label) {
    auto offsets = to_vector(graph.row_offsets);
    auto neighbours = to_vector(graph.neighbours);
    auto w = to_vector(graph.weights);
    std::map<agent_index, std::vector<std::pair<agent_index, float>>> rows;
    for (agent_index i = 0; i + 1 < static_cast<agent_index>(offsets.size()); ++i)
      for (auto e = offsets[i]; e < offsets[i + 1]; ++e) rows[label(i)].emplace_back(label(neighbours[e]), w[e]);
    return rows;
  };
  auto old_of_new = to_vector(p.old_of_new);
  auto before = rows_of(g, [](agent_index i) { return i; });
  auto after = rows_of(h, [&](agent_index i) { return old_of_new[i]; });
  for (auto& [agent, row] : before) std::sort(row.begin(), row.end());
  // Rows keep the order build_csr gave them, by the neighbour's original id and, among duplicate
  // edges, by weight descending.
  for (auto& [agent, row] : after) {
    for (std::size_t k = 1; k < row.size(); ++k) {
      auto const a = row[k - 1].first, b = row[k].first;
      EXPECT_TRUE(a < b || (a == b && row[k - 1].second > row[k].second)) << "agent " << agent << " entry " << k;
    }
    std::sort(row.begin(), row.end());
  }
  EXPECT_EQ(after, before);
  EXPECT_EQ(before.at(1).size(), 3u);  // the hub and agent 2, twice
}

TEST(EdgeListReader, ReadsSnapAndLgFiles) {
  herd::test::TemporaryFile const snap_file("snap.txt");
  std::string const& snap = snap_file.path();
  std::ofstream(snap) << "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n\n5 0\n";
  auto e = read_edge_list(snap);
  EXPECT_EQ(e.num_agents, 6);
  EXPECT_EQ(e.sources, (std::vector<global_id>{0, 1, 5}));
  EXPECT_EQ(e.targets, (std::vector<global_id>{1, 2, 0}));
  herd::test::TemporaryFile const lg_file("g.lg.txt");
  std::string const& lg = lg_file.path();
  std::ofstream(lg) << "4,2,u,graph\n1,2\n3,4\n";
  e = read_edge_list(lg);
  EXPECT_EQ(e.num_agents, 4);
  EXPECT_EQ(e.sources, (std::vector<global_id>{0, 2}));
  EXPECT_FALSE(e.directed);
  // ",d," says the edges are one-way.
  std::ofstream(lg) << "4,2,d,graph\n1,2\n3,4\n";
  EXPECT_TRUE(read_edge_list(lg).directed);
  herd::test::TemporaryFile const weighted_file("w.txt");
  std::string const& weighted = weighted_file.path();
  std::ofstream(weighted) << "0 1 0.5\n1 2 2\n";
  e = read_edge_list(weighted);
  EXPECT_EQ(e.weights, (std::vector<float>{0.5f, 2.0f}));
}

// A fourth column names each edge's layer; the layers are numbered in the order of their names,
// whatever order the lines come in, and a graph built from them keeps them.
TEST(EdgeListReader, LayersAreNamedInTheFourthColumn) {
  auto const e = parse_edge_list("0 1 1 work\n1 2 0.5 home\n# a comment\n2 3,2,work\n3 0 1 Home.2\n", "layers.txt");
  EXPECT_EQ(e.layer_names, (std::vector<std::string>{"Home.2", "home", "work"}));
  EXPECT_EQ(e.layers, (std::vector<layer_index>{2, 1, 2, 0}));
  EXPECT_EQ(e.weights, (std::vector<float>{1.0f, 0.5f, 2.0f, 1.0f}));
  Kokkos::DefaultExecutionSpace exec;
  auto const graph = to_host(exec, build_csr<float>(exec, to_device(exec, e)));
  ASSERT_EQ(graph.layers.size(), graph.neighbours.size());
  // Agent 1's row: 0 over work, 2 over home.
  auto const row = static_cast<std::size_t>(graph.row_offsets[1]);
  EXPECT_EQ(graph.neighbours[row], 0);
  EXPECT_EQ(graph.layers[row], 2);
  EXPECT_EQ(graph.neighbours[row + 1], 2);
  EXPECT_EQ(graph.layers[row + 1], 1);
  // As many layers as a graph holds, and one more.
  std::string most;
  for (int l = 0; l < max_layers; ++l) most += "0 1 1 layer" + std::to_string(l) + "\n";
  EXPECT_EQ(parse_edge_list(most, "most.txt").layer_names.size(), static_cast<std::size_t>(max_layers));
  try {
    (void)parse_edge_list(most + "1 2 1 beyond\n", "many.txt");
    ADD_FAILURE() << "129 layers were read";
  } catch (Error const& error) {
    EXPECT_EQ(std::string(error.what()), "many.txt: more than 128 layer names (a graph holds at most 128 layers)");
  }
}

TEST(EdgeListReader, NamesFileLineAndProblem) {
  auto error_of = [](std::string const& content) {
    herd::test::TemporaryFile const file("bad.txt");
    std::string const& path = file.path();
    std::ofstream(path) << content;
    try {
      read_edge_list(path);
    } catch (herd::Error const& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("0 1\n1 x\n"), ":2: 'x' is not an integer agent id");
  EXPECT_EQ(error_of("0 1\n-1 2\n"), ":2: agent id -1 is below the first id 0");
  EXPECT_EQ(error_of("0 1 2 3 4\n"),
            ":1: expected two agent ids, an optional weight and an optional layer, found 5 fields");
  EXPECT_EQ(error_of("0 1 2 3\n"),
            ":1: '3' is not a layer name (a letter, then letters, digits, '_', '-' or '.', at most 64 bytes)");
  EXPECT_EQ(error_of("0 1 school\n"),
            ":1: 'school' is not a non-negative weight (a layer comes fourth, after a weight)");
  EXPECT_EQ(error_of("0 1 1 home\n1 2 0.5\n"), ":2: this line has no layer but earlier lines do");
  EXPECT_EQ(error_of("0 1 1\n1 2 1 home\n"), ":2: a layer appears after lines without layers");
  EXPECT_EQ(error_of("0 1\n1 2 1 home\n"), ":2: a layer appears after lines without layers");
  EXPECT_EQ(error_of("0 1 1 home\n1 2\n"), ":2: this line has no layer but earlier lines do");
  EXPECT_EQ(error_of("0 99999999999\n"), ":1: agent id 99999999999 exceeds the largest supported id 2147483646");
  // Beyond 64 bits: an id too large, not a malformed one.
  EXPECT_EQ(error_of("0 18446744073709551616\n"),
            ":1: agent id 18446744073709551616 exceeds the largest supported id 2147483646");
  EXPECT_EQ(error_of("0 1 -0.5\n"), ":1: '-0.5' is not a non-negative weight");
  EXPECT_EQ(error_of("0 1 1e-50\n"), ":1: '1e-50' lies beyond a 32-bit float's range of weights");
  EXPECT_EQ(error_of("0 1 1e39\n"), ":1: '1e39' lies beyond a 32-bit float's range of weights");
  EXPECT_EQ(error_of("0 1 3.4028235e38\n"), "no error");
  // Lines ended by a carriage return alone: the next line's ids would read as a weight.
  EXPECT_EQ(error_of("0 1\r5\r"), ":1: a carriage return inside the line (lines end with a line feed, or CR LF)");
  EXPECT_EQ(error_of("# ids\r0 1\r"), ":1: a carriage return inside the line (lines end with a line feed, or CR LF)");
  EXPECT_EQ(error_of("0 1\r\n1 2\r\n"), "no error");
  EXPECT_EQ(error_of("0 1 0.5\n1 2\n"), ":2: this line has no weight but earlier lines do");
  EXPECT_EQ(error_of("# nothing\n"), ": the file holds no edges");
  EXPECT_EQ(error_of("3,1,u,graph\n1,4\n"), ":2: agent id 4 exceeds the header's agent count 3");
  EXPECT_EQ(error_of("0,1,u,graph\n"), ":1: the header's agent count '0' is not a positive agent count");
  EXPECT_EQ(error_of("99999999999,1,u,graph\n1,2\n"),
            ":1: the header's agent count '99999999999' exceeds the largest supported count 2147483647");
  // The header's edge count is the file's edge lines: a file cut short, or lines added, is refused.
  EXPECT_EQ(error_of("3,3,u,graph\n1,2\n# a comment\n2,3\n"),
            ": the header declares 3 edges but the file holds 2 edge lines (a truncated or altered file?)");
  EXPECT_EQ(error_of("3,1,d,graph\n1,2\n2,3\n"),
            ": the header declares 1 edge but the file holds 2 edge lines (a truncated or altered file?)");
  EXPECT_EQ(error_of("3,2,d,graph\n1,2\n"),
            ": the header declares 2 edges but the file holds 1 edge line (a truncated or altered file?)");
  // A damaged file's line can be one long field: it is cut in the message, with its length.
  EXPECT_EQ(error_of("0 1\n1 " + std::string(5000, 'x') + "\n"),
            ":2: '" + std::string(40, 'x') + "...' (5000 bytes) is not an integer agent id");
  EXPECT_EQ(error_of("0 1\n-" + std::string(5000, '0') + "1 2\n"), ":2: agent id -1 is below the first id 0");
  EXPECT_EQ(error_of("0 " + std::string(5000, '9') + "\n"),
            ":1: agent id of 5000 digits exceeds the largest supported id 2147483646");
  // Never inside a UTF-8 character: 'é' is two bytes, so 20 of them fill the 40 bytes kept.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
  EXPECT_EQ(error_of("0 1 " + accents + "\n"),
            ":1: '" + accents.substr(0, 40) + "...' (200 bytes) is not a non-negative weight");
  EXPECT_EQ(error_of("0 1 x" + accents + "\n"),
            ":1: 'x" + accents.substr(0, 38) + "...' (201 bytes) is not a non-negative weight");
  EXPECT_EQ(error_of("# x\n3,many,u,graph\n1,2\n"), ":2: the header's edge count 'many' is not a count of edges");
  EXPECT_THROW(read_edge_list("/nonexistent/graph.txt"), herd::Error);
}

}  // namespace
