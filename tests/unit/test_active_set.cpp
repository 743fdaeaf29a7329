#include "test_common.hpp"

#include <herd/engine/active_set.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>

namespace {

using namespace herd;
using herd::test::to_vector;
using Exec = Kokkos::DefaultExecutionSpace;
using Graph = CsrGraph<Exec::memory_space>;

// Rows of a graph as sorted host vectors, to compare graphs whose rows are in any order.
std::vector<std::vector<agent_index>> rows_of(Graph const& g) {
  auto const offsets = to_vector(g.row_offsets);
  auto const neighbours = to_vector(g.neighbours);
  std::vector<std::vector<agent_index>> rows(static_cast<std::size_t>(g.num_agents()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].assign(neighbours.begin() + static_cast<std::ptrdiff_t>(offsets[i]),
                   neighbours.begin() + static_cast<std::ptrdiff_t>(offsets[i + 1]));
    std::sort(rows[i].begin(), rows[i].end());
  }
  return rows;
}

TEST(ActiveSet, TransposeReversesEveryEdge) {
  BuildOptions directed;
  directed.symmetrise = false;
  auto const g = build_csr(Exec(), herd::test::edge_list<Exec>(5, {0, 0, 1, 3, 4, 4}, {1, 2, 2, 0, 0, 3}), directed);
  auto const rows = rows_of(transpose(Exec(), g));
  std::vector<std::vector<agent_index>> const expected = {{3, 4}, {0}, {0, 1}, {4}, {}};
  EXPECT_EQ(rows, expected);
  // On a larger random directed graph, transposing twice gives the graph back.
  auto const big = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{3000, 7.0}, 4), directed);
  EXPECT_EQ(rows_of(transpose(Exec(), transpose(Exec(), big))), rows_of(big));
}

// A directed graph whose edges carry weights that differ between i -> j and j -> i (some of them 1,
// which the epidemic models treat apart).
Graph weighted_directed_graph(agent_index agents, int edges_per_agent, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<global_id> agent(0, agents - 1);
  std::uniform_int_distribution<int> weight(1, 8);
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  for (agent_index i = 0; i < agents; ++i)
    for (int k = 0; k < edges_per_agent; ++k) {
      sources.push_back(i);
      targets.push_back(agent(random));
      weights.push_back(0.25f * static_cast<float>(weight(random)));
    }
  BuildOptions directed;
  directed.symmetrise = false;
  return build_csr(Exec(), herd::test::edge_list<Exec>(agents, sources, targets, weights), directed);
}

// (row, column, weight) of every edge, sorted; `reversed` swaps row and column.
std::vector<std::tuple<agent_index, agent_index, float>> edges_of(Graph const& g, bool reversed) {
  auto const offsets = to_vector(g.row_offsets);
  auto const neighbours = to_vector(g.neighbours);
  auto const weights = to_vector(g.weights);
  std::vector<std::tuple<agent_index, agent_index, float>> out;
  for (agent_index i = 0; i < g.num_agents(); ++i)
    for (auto e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e) {
      auto const j = neighbours[static_cast<std::size_t>(e)];
      out.emplace_back(reversed ? j : i, reversed ? i : j, weights[static_cast<std::size_t>(e)]);
    }
  std::sort(out.begin(), out.end());
  return out;
}

// The agents that read j over an edge of weight w are found in row j of the transpose with w.
TEST(ActiveSet, TransposeCarriesTheWeights) {
  auto const g = weighted_directed_graph(2000, 6, 1);
  auto const t = transpose(Exec(), g);
  ASSERT_TRUE(t.weighted());
  EXPECT_EQ(edges_of(t, true), edges_of(g, false));
  EXPECT_NE(edges_of(g, true), edges_of(g, false)) << "the weights should not be symmetric";
}

// SIR with a fixed infectious period (the default).
SeirParameters sir(double beta, global_id infected) {
  SeirParameters p;
  p.beta = beta;
  p.initial_infected = infected;
  return p;
}

// Finding the list pushes each infectious agent's hazard into the sums of the susceptible agents
// that read it: for each listed susceptible agent the sum over its row, with its row's weights;
// nothing anywhere else; all cleared when the next step begins.
// The pushed sums, atomic or through bins.
class PushedSums : public ::testing::TestWithParam<BinnedPush> {};

TEST_P(PushedSums, AreTheSumsOverTheRows) {
  auto const g = weighted_directed_graph(3000, 8, 2);
  SeirParameters const p = sir(0.1, 150);
  Seir<> model(g.num_agents(), p);
  Simulation<Exec> sim(Exec(), g, 3);
  model.initialise(sim, g.num_agents());
  ActiveSet<Exec> set(Exec(), transpose(Exec(), g), g.num_agents());
  set.set_binned_push(GetParam());
  EXPECT_EQ(set.bins_pushes(), GetParam() == BinnedPush::on && Details::runs_on_host_v<Exec>);
  set.reserve(model);
  agent_index const listed = set.find(model);
  auto const sums_view = set.sums();
  ASSERT_EQ(sums_view.extent(0), static_cast<std::size_t>(g.num_agents()));
  auto const sums = to_vector(sums_view);
  auto const list = to_vector(set.list());
  std::vector<bool> is_listed(static_cast<std::size_t>(g.num_agents()), false);
  for (agent_index k = 0; k < listed; ++k)
    is_listed[static_cast<std::size_t>(list[static_cast<std::size_t>(k)])] = true;
  auto const state = to_vector(model.state.current());
  auto const offsets = to_vector(g.row_offsets);
  auto const neighbours = to_vector(g.neighbours);
  auto const weights = to_vector(g.weights);
  int receivers = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    std::uint64_t expected = 0;
    for (auto e = offsets[i]; e < offsets[i + 1]; ++e)
      if (state[static_cast<std::size_t>(neighbours[static_cast<std::size_t>(e)])] == Seir<>::infectious)
        expected += Seir<>::edge_hazard_of(p.beta, weights[static_cast<std::size_t>(e)]);
    if (state[i] == Seir<>::susceptible && expected != 0) {
      ++receivers;
      EXPECT_TRUE(is_listed[i]) << "agent " << i;
      EXPECT_EQ(sums[i], expected) << "agent " << i;
    } else {
      EXPECT_EQ(sums[i], 0u) << "agent " << i << " receives nothing";
    }
  }
  EXPECT_GT(receivers, 500);
  set.begin_step();
  auto const cleared = to_vector(sums_view);
  EXPECT_EQ(std::count(cleared.begin(), cleared.end(), 0u), static_cast<std::ptrdiff_t>(cleared.size()));
  EXPECT_EQ(set.sums().extent(0), 0u) << "no sums until the next find()";
}

INSTANTIATE_TEST_SUITE_P(ActiveSet, PushedSums, ::testing::Values(BinnedPush::off, BinnedPush::on));

// On an unweighted graph, where every infectious neighbour adds the same hazard, finding the list
// counts each listed susceptible agent's infectious neighbours in its mark instead of summing:
// the count over its row, with no sums kept; all cleared when the next step begins.
class PushedCounts : public ::testing::TestWithParam<BinnedPush> {};

TEST_P(PushedCounts, AreTheInfectiousNeighboursCounted) {
  auto const g = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{3000, 8.0}, 2));
  Seir<> model(g.num_agents(), sir(0.1, 150));
  Simulation<Exec> sim(Exec(), g, 3);
  model.initialise(sim, g.num_agents());
  ActiveSet<Exec> set(Exec(), g, g.num_agents());
  set.set_binned_push(GetParam());
  ASSERT_TRUE(set.counts_pushes<Seir<>>());
  set.reserve(model);
  agent_index const listed = set.find(model);
  EXPECT_EQ(set.sums().extent(0), 0u) << "counted, not summed";
  auto const counts_view = set.spreader_counts();
  ASSERT_EQ(counts_view.extent(0), static_cast<std::size_t>(g.num_agents()));
  std::vector<std::uint8_t> counts(counts_view.extent(0));
  Kokkos::deep_copy(
      Kokkos::View<std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(counts.data(), counts.size()),
      counts_view);
  auto const list = to_vector(set.list());
  std::vector<bool> is_listed(counts.size(), false);
  for (agent_index k = 0; k < listed; ++k)
    is_listed[static_cast<std::size_t>(list[static_cast<std::size_t>(k)])] = true;
  auto const state = to_vector(model.state.current());
  auto const offsets = to_vector(g.row_offsets);
  auto const neighbours = to_vector(g.neighbours);
  int receivers = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    int infectious = 0;
    for (auto e = offsets[i]; e < offsets[i + 1]; ++e)
      infectious += state[static_cast<std::size_t>(neighbours[static_cast<std::size_t>(e)])] == Seir<>::infectious;
    if (state[i] == Seir<>::susceptible) {
      receivers += infectious > 0;
      EXPECT_EQ(counts[i], infectious) << "agent " << i;
      EXPECT_EQ(is_listed[i], infectious > 0) << "agent " << i;
    } else {
      // A source's own mark; 0 for the recovered.
      EXPECT_EQ(counts[i], state[i] == Seir<>::infectious ? 1 : 0) << "agent " << i;
    }
  }
  EXPECT_GT(receivers, 500);
  set.begin_step();
  EXPECT_EQ(set.spreader_counts().extent(0), 0u) << "no counts until the next find()";
  std::vector<std::uint8_t> cleared(counts.size());
  Kokkos::deep_copy(
      Kokkos::View<std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(cleared.data(), cleared.size()),
      counts_view);
  EXPECT_EQ(std::count(cleared.begin(), cleared.end(), 0), static_cast<std::ptrdiff_t>(cleared.size()));
}

INSTANTIATE_TEST_SUITE_P(ActiveSet, PushedCounts, ::testing::Values(BinnedPush::off, BinnedPush::on));

// Counts are bytes: a push row of 254 readers still counts (with the source's own mark, 255),
// one of 255 sums instead; so do weighted graphs.
TEST(ActiveSet, CountsOnlyWhatFitsAByte) {
  auto counts = [](Graph const& g) {
    ActiveSet<Exec> set(Exec(), g, g.num_agents());
    return set.counts_pushes<Seir<>>();
  };
  auto star = [](global_id leaves) {
    std::vector<global_id> hub(static_cast<std::size_t>(leaves), 0), others(static_cast<std::size_t>(leaves));
    for (global_id k = 0; k < leaves; ++k) others[static_cast<std::size_t>(k)] = k + 1;
    return build_csr(Exec(), herd::test::edge_list<Exec>(static_cast<agent_index>(leaves + 1), hub, others));
  };
  EXPECT_TRUE(counts(star(254)));
  EXPECT_FALSE(counts(star(255)));
  EXPECT_FALSE(counts(weighted_directed_graph(500, 4, 1)));
}

// Pushes from every agent of `g`, a quarter of them infectious, through bins with room for
// `capacity` pushes and atomically: the same marks and sums. Unused on GPU builds, whose test
// below skips.
[[maybe_unused]] void bins_push_as_atomics_do(Graph const& g, std::int64_t capacity) {
  Seir<> model(g.num_agents(), sir(0.1, g.num_agents() / 4));
  Simulation<Exec> sim(Exec(), g, 3);
  model.initialise(sim, g.num_agents());
  auto const push = transpose(Exec(), g);
  agent_index const n = g.num_agents();
  using Memory = Exec::memory_space;
  auto run = [&](bool binned) {
    Kokkos::View<std::uint64_t*, Memory> words("words", (n + 7) / 8);
    Kokkos::View<std::uint64_t*, Memory> sums("sums", n);
    Details::MarkActive<Seir<>, Graph> const mark{model, words, push, sums, n};
    if constexpr (Details::runs_on_host_v<Exec>) {
      bool const values = Details::pushes_values<Seir<>>(push);
      EXPECT_EQ(values, g.weighted());
      if (binned)
        Details::push_binned(Exec(), mark, Details::PushBins<Memory>(n, capacity, 2, values), Details::AgentsFrom{}, n);
    }
    if (!binned) Details::mark_listed(Exec(), "atomic", mark, Details::AgentsFrom{}, n);
    Kokkos::fence();
    return std::make_pair(to_vector(words), to_vector(sums));
  };
  auto const atomic = run(false);
  auto const binned = run(true);
  EXPECT_EQ(binned.first, atomic.first) << "marks";
  EXPECT_EQ(binned.second, atomic.second) << "sums";
  EXPECT_GT(std::count_if(atomic.second.begin(), atomic.second.end(), [](std::uint64_t v) { return v != 0; }), 1000);
  if (g.weighted()) return;
  // Counted in the marks: the same counts either way, and each receiver's the sum over the unit.
  auto count = [&](bool binned) {
    Kokkos::View<std::uint64_t*, Memory> words("words", (n + 7) / 8);
    Details::MarkActive<Seir<>, Graph> const mark{model, words, push, {}, n, true};
    if constexpr (Details::runs_on_host_v<Exec>) {
      if (binned)
        Details::push_binned(Exec(), mark, Details::PushBins<Memory>(n, capacity, 2, false), Details::AgentsFrom{}, n);
    }
    if (!binned) Details::mark_listed(Exec(), "atomic", mark, Details::AgentsFrom{}, n);
    Kokkos::fence();
    return to_vector(words);
  };
  auto const counted = count(false);
  EXPECT_EQ(count(true), counted) << "counts";
  auto const* bytes = reinterpret_cast<std::uint8_t const*>(counted.data());
  auto const state = to_vector(model.state.current());
  for (agent_index i = 0; i < n; ++i) {
    if (state[static_cast<std::size_t>(i)] != Seir<>::susceptible) continue;
    EXPECT_EQ(bytes[i] * model.spreader_contribution(), atomic.second[static_cast<std::size_t>(i)]) << "agent " << i;
  }
}

// Bins with room for one page of pushes, for a few pages (fewer than the chunks of sources times
// the blocks of readers), and for every push: where the pages run out the chunks stop, mid-row
// too, their pushes so far are added, and they go on from there. Each gives the marks and sums of
// the atomic pushes; with their values on a weighted graph, and as readers alone on the same graph
// without weights; on one block of readers and on four.
TEST(ActiveSet, BinsPushInRoundsWhenThePagesRunOut) {
  // The loop in an else branch, not after the skip: on GPU builds the condition is a constant, and
  // nvcc would warn that the loop cannot be reached.
  if constexpr (!Details::runs_on_host_v<Exec>) {
    GTEST_SKIP() << "bins are for host memory; GPUs push atomically";
  } else {
    for (agent_index const n : {5000, 100000}) {
      auto const weighted = weighted_directed_graph(n, 8, 5);
      auto unweighted = weighted;
      unweighted.weights = {};
      auto const edges = static_cast<std::int64_t>(weighted.num_edges());
      ASSERT_GT(edges / 4, 5 * 7 * Details::push_page_max);  // the infectious agents' pushes: rounds
      for (std::int64_t const capacity : {std::int64_t{1}, 7 * Details::push_page_max, edges})
        for (auto const& g : {weighted, unweighted}) {
          SCOPED_TRACE(std::to_string(n) + " agents, room for " + std::to_string(capacity) +
                       (g.weighted() ? " weighted" : " unweighted") + " pushes");
          bins_push_as_atomics_do(g, capacity);
        }
    }
  }
}

// Sets every agent of `model` to a state drawn at random from `seed`; returns the states.
std::vector<std::uint8_t> set_random_states(Seir<>& model, std::uint32_t seed) {
  std::vector<std::uint8_t> states(model.state.current().extent(0));
  std::mt19937 draw(seed);
  for (auto& s : states) s = static_cast<std::uint8_t>(draw() % 4);
  Kokkos::deep_copy(model.state.current(), Kokkos::View<std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                               states.data(), states.size()));
  return states;
}

// The estimate automatic mode decides on, from a pass over every agent: the stepped sources (in
// SEIR, the exposed and infectious agents) plus every spreading agent (ghosts too) times the mean
// readers per agent. The stepped agents end inside a block of the pass, and the agents inside
// another. After a listed step, the same from its list, over the stepped agents, under a bound
// from the list's length alone.
TEST(ActiveSet, PushEstimateCountsChangingAndSpreadingAgents) {
  auto const g = weighted_directed_graph(5000, 8, 7);
  agent_index const stepped = 3333;
  Seir<> model(g.num_agents(), sir(0.1, 0));
  auto const states = set_random_states(model, 11);
  std::int64_t changing = 0;
  std::int64_t spreading = 0;
  std::int64_t ghosts_spreading = 0;
  for (std::size_t i = 0; i < states.size(); ++i) {
    bool const infectious = states[i] == Seir<>::infectious;
    bool const is_stepped = i < static_cast<std::size_t>(stepped);
    if (is_stepped && (infectious || states[i] == Seir<>::exposed)) ++changing;
    if (infectious) ++spreading;
    if (infectious && !is_stepped) ++ghosts_spreading;
  }
  auto const push = transpose(Exec(), g);
  ActiveSet<Exec> set(Exec(), push, stepped);
  double const mean_readers = static_cast<double>(push.num_edges()) / static_cast<double>(push.num_agents());
  EXPECT_FALSE(set.sources_known());
  EXPECT_EQ(set.push_bound(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(set.push_estimate(model), static_cast<double>(changing) + static_cast<double>(spreading) * mean_readers);
  EXPECT_GT(changing, 1000);
  EXPECT_GT(ghosts_spreading, 100);
  agent_index const listed = set.find(model);
  set.begin_step();
  ASSERT_TRUE(set.sources_known());
  double const from_list =
      static_cast<double>(changing) + static_cast<double>(spreading - ghosts_spreading) * mean_readers;
  EXPECT_EQ(set.push_estimate(model), from_list);
  EXPECT_EQ(set.push_bound(), static_cast<double>(listed) * (1.0 + mean_readers));
  EXPECT_GE(set.push_bound(), from_list);
}

// After a pull step the sources are listed by a scan over every agent, in increasing order. The
// agent counts leave a last block part full on CPUs (blocks of 1024) and none full at all.
TEST(ActiveSet, SourcesAreListedInOrderAfterAPullStep) {
  for (agent_index const agents : {agent_index{700}, agent_index{5000}}) {
    Seir<> model(agents, sir(0.1, 0));
    auto const states = set_random_states(model, static_cast<std::uint32_t>(agents));
    std::vector<agent_index> expected;
    for (std::size_t i = 0; i < states.size(); ++i)
      if (states[i] == Seir<>::exposed || states[i] == Seir<>::infectious)
        expected.push_back(static_cast<agent_index>(i));
    Kokkos::View<agent_index*, Exec::memory_space> list("list", agents);
    agent_index const found = Details::list_sources(Exec(), model, agents, list);
    auto listed = to_vector(list);
    listed.resize(static_cast<std::size_t>(found));
    EXPECT_EQ(listed, expected) << agents << " agents";
  }
}

// Every property of every agent (current buffers, as bytes) after each step.
template <class Model>
std::vector<std::vector<std::uint8_t>> trajectory(Graph const& graph, Model model, Stepping stepping, bool symmetric,
                                                  int steps, std::uint64_t seed, double* active_share = nullptr,
                                                  GatherAhead gather = GatherAhead::automatic,
                                                  BinnedPush binned = BinnedPush::automatic) {
  auto options = herd::test::stepping_options(stepping, default_active_threshold());
  options.gather_ahead = gather;
  options.binned_push = binned;
  Simulation<Exec> sim(Exec(), herd::test::said_symmetric(graph, symmetric), seed, options);
  model.initialise(sim, graph.num_agents());
  std::vector<std::vector<std::uint8_t>> out;
  for (int t = 0; t < steps; ++t) {
    sim.before_step(model);
    model.step(sim);
    sim.end_step();
    std::vector<std::uint8_t> bytes;
    model.for_each_property([&](auto const& p) {
      auto const values = to_vector(p.current());
      auto const* first = reinterpret_cast<std::uint8_t const*>(values.data());
      bytes.insert(bytes.end(), first, first + values.size() * sizeof(values[0]));
    });
    out.push_back(std::move(bytes));
  }
  if (active_share != nullptr) *active_share = sim.stepping_stats().mean_active_share();
  return out;
}

struct Case {
  char const* name;
  Graph graph;
};

std::vector<Case> symmetric_graphs() {
  Exec exec;
  LayeredPopulation population;
  population.agents = 30000;
  return {{"erdos-renyi", build_csr(exec, generate_edges(exec, ErdosRenyi{30000, 8.0}, 3))},
          {"power-law", build_csr(exec, generate_edges(exec, PowerLaw{30000, 2.1, 8.0, 0.0}, 3))},
          {"population (weighted)", build_csr(exec, generate_population(exec, population, 3).edges)}};
}

// The whole state after every step is the same, byte for byte, whether a step visits every agent
// or only the active ones, for SIR and SEIR with fixed and geometric periods.
TEST(ActiveSet, EpidemicsAreBitwiseTheSameAsThePullStep) {
  std::vector<std::pair<char const*, SeirParameters>> models;
  SeirParameters sir;
  sir.beta = 0.06;
  sir.initial_infected = 10;
  models.push_back({"sir fixed", sir});
  SeirParameters seir = sir;
  seir.latent = Period::geometric(0.4);
  seir.infectious = Period::geometric(0.2);
  models.push_back({"seir geometric", seir});
  seir.latent = Period::fixed(2);
  seir.infectious = Period::fixed(4);
  models.push_back({"seir fixed", seir});
  for (auto const& [graph_name, graph] : symmetric_graphs()) {
    for (auto const& [model_name, p] : models) {
      Seir<> model(graph.num_agents(), p);
      auto const pull = trajectory(graph, model, Stepping::pull, true, 60, 7);
      double share = 1.0;
      auto const active = trajectory(graph, model, Stepping::active, true, 60, 7, &share);
      EXPECT_EQ(active, pull) << graph_name << ", " << model_name;
      EXPECT_LT(share, 0.9) << graph_name << ", " << model_name << ": steps should have skipped agents";
      // The same graph declared directed: pushes go through its transpose.
      EXPECT_EQ(trajectory(graph, model, Stepping::active, false, 60, 7), pull) << graph_name << ", " << model_name;
      EXPECT_EQ(trajectory(graph, model, Stepping::automatic, true, 60, 7), pull) << graph_name << ", " << model_name;
      // Pushed through bins (forced: these graphs are below the automatic threshold).
      for (bool symmetric : {true, false})
        EXPECT_EQ(trajectory(graph, model, Stepping::active, symmetric, 60, 7, nullptr, GatherAhead::automatic,
                             BinnedPush::on),
                  pull)
            << graph_name << ", " << model_name << ", binned" << (symmetric ? "" : ", transpose");
    }
  }
}

// SEIR at beta 0.06 from 10 infectious seeds, with the given periods.
SeirParameters seir_of(Period latent, Period infectious) {
  SeirParameters p;
  p.beta = 0.06;
  p.initial_infected = 10;
  p.latent = latent;
  p.infectious = infectious;
  return p;
}

// COVID at a high transmission rate from 20 exposed agents.
CovidParameters covid_of() {
  CovidParameters p;
  p.transmission_rate = 10.0;
  p.initial_exposed = 20;
  return p;
}

// Asking for the neighbours' states ahead (forced on, as these graphs are below the automatic
// threshold) reads rows and prefetches only: SEIR and COVID give the same bytes as without, pulled
// and stepped automatically. The sanitizer build checks that those extra reads stay in bounds.
TEST(ActiveSet, AskingAheadLeavesTrajectoriesUnchanged) {
  static_assert(gathers_ahead_v<Seir<>> && gathers_ahead_v<Covid<>>, "the built-in epidemics say what they read");
  SeirParameters const seir = seir_of(Period::fixed(2), Period::geometric(0.2));
  CovidParameters const covid = covid_of();
  for (auto const& [graph_name, graph] : symmetric_graphs()) {
    Seir<> seir_model(graph.num_agents(), seir);
    auto const plain = trajectory(graph, seir_model, Stepping::pull, true, 40, 11, nullptr, GatherAhead::off);
    EXPECT_EQ(trajectory(graph, seir_model, Stepping::pull, true, 40, 11, nullptr, GatherAhead::on), plain)
        << graph_name;
    EXPECT_EQ(trajectory(graph, seir_model, Stepping::automatic, true, 40, 11, nullptr, GatherAhead::on), plain)
        << graph_name;
    Covid<> covid_model(graph.num_agents(), covid);
    EXPECT_EQ(trajectory(graph, covid_model, Stepping::pull, true, 30, 11, nullptr, GatherAhead::on),
              trajectory(graph, covid_model, Stepping::pull, true, 30, 11, nullptr, GatherAhead::off))
        << graph_name;
  }
}

// COVID (seeded with 20 exposed agents) stepped on its active agents, through the transpose of
// `graph`, against the pull step; its steps should visit under `max_share` of the agents.
void expect_covid_matches_pull(Graph const& graph, int steps, std::uint64_t seed, double max_share) {
  Covid<> model(graph.num_agents(), covid_of());
  auto const pull = trajectory(graph, model, Stepping::pull, false, steps, seed);
  double share = 1.0;
  EXPECT_EQ(trajectory(graph, model, Stepping::active, false, steps, seed, &share), pull);
  EXPECT_LT(share, max_share);
}

// On a directed graph whose weights differ between the two directions, each spreading agent
// pushes with the weight its reader reads it with (the transpose's), for SIR and COVID.
TEST(ActiveSet, WeightedDirectedGraphsPushTheReadersWeights) {
  auto const graph = weighted_directed_graph(20000, 6, 4);
  Seir<> seir_model(graph.num_agents(), sir(0.15, 10));
  auto const pull = trajectory(graph, seir_model, Stepping::pull, false, 40, 2);
  double share = 1.0;
  EXPECT_EQ(trajectory(graph, seir_model, Stepping::active, false, 40, 2, &share), pull);
  EXPECT_LT(share, 0.9);
  expect_covid_matches_pull(graph, 40, 2, 0.9);
}

// COVID on a directed graph: exposed and infected agents spread along the transpose.
TEST(ActiveSet, CovidOnADirectedGraphIsBitwiseTheSame) {
  BuildOptions directed;
  directed.symmetrise = false;
  expect_covid_matches_pull(build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{30000, 5.0}, 9), directed), 50, 5, 0.5);
}

// A two-phase epidemic: the first phase infects (from the number of infectious neighbours), the
// second has each agent infected this step record the infectious neighbours it has after the first
// phase, infections of the same step included. The sums pushed before the step are the first
// phase's: the second must sum its row, or it misses those.
struct TwoPhaseEpidemic {
  enum : std::uint8_t { susceptible, infectious, recovered };
  enum : std::uint8_t { infectious_days = 3 };  // an enumerator, usable in device code unlike a static member
  Property<std::uint8_t> state, days;
  Property<std::uint32_t> seen;

  explicit TwoPhaseEpidemic(agent_index agents)
      : state("state", agents), days("days", agents, Visibility::own), seen("seen", agents, Visibility::own) {}

  template <class Sim>
  void initialise(Sim& sim, agent_index agents) {
    auto const s = state.current();
    auto const d = days.current();
    auto const k = seen.current();
    Kokkos::parallel_for(
        Kokkos::RangePolicy<typename Sim::execution_space>(sim.execution_space_instance(), 0, agents),
        KOKKOS_LAMBDA(agent_index i) {
          s(i) = i % 251 == 0 ? infectious : susceptible;
          d(i) = i % 251 == 0 ? infectious_days : 0;
          k(i) = 0;
        });
  }

  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index j, float) const {
    return state(j) == infectious ? 1u : 0u;
  }
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    std::uint8_t const s = state(i);
    return s == susceptible  ? activity::receives
           : s == infectious ? static_cast<std::uint8_t>(activity::changes | activity::spreads)
                             : activity::none;
  }

  template <class Sim>
  void step(Sim& sim);
  template <class F>
  void for_each_property(F&& f) const {
    f(state);
    f(days);
    f(seen);
  }
};

struct TwoPhaseInfect {
  TwoPhaseEpidemic model;
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    agent_index const i = a.index();
    if (model.state(i) == TwoPhaseEpidemic::susceptible) {
      std::uint32_t const k = a.sum_of_contributions(model);
      if (k != 0 && a.random(0) < k * 600000000u) {
        a.set(model.state, TwoPhaseEpidemic::infectious);
        a.set(model.days, TwoPhaseEpidemic::infectious_days);
      }
    } else if (model.state(i) == TwoPhaseEpidemic::infectious) {
      std::uint8_t const d = model.days(i);
      a.set(model.state, d <= 1 ? TwoPhaseEpidemic::recovered : TwoPhaseEpidemic::infectious);
      a.set(model.days, d - 1);
    }
  }
};

struct TwoPhaseRecord {
  TwoPhaseEpidemic model;
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    agent_index const i = a.index();
    if (model.state(i) == TwoPhaseEpidemic::infectious && model.days(i) == TwoPhaseEpidemic::infectious_days)
      a.set(model.seen, a.sum_of_contributions(model));
  }
};

template <class Sim>
void TwoPhaseEpidemic::step(Sim& sim) {
  sim.apply(TwoPhaseInfect{*this}, state, days);
  sim.apply(TwoPhaseRecord{*this}, seen);
}

TEST(ActiveSet, OnlyTheFirstPhaseReadsPushedSums) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 8.0}, 12));
  TwoPhaseEpidemic model(graph.num_agents());
  auto const pull = trajectory(graph, model, Stepping::pull, true, 30, 4);
  double share = 1.0;
  EXPECT_TRUE(trajectory(graph, model, Stepping::active, true, 30, 4, &share) == pull);
  EXPECT_LT(share, 0.9);
  // The last step's bytes: state and days (a byte each per agent), then `seen`.
  auto const agents = static_cast<std::size_t>(graph.num_agents());
  std::vector<std::uint32_t> seen(agents);
  std::memcpy(seen.data(), pull.back().data() + 2 * agents, agents * sizeof(std::uint32_t));
  EXPECT_GT(std::count_if(seen.begin(), seen.end(), [](std::uint32_t k) { return k > 1; }), 100)
      << "infected agents should see infectious neighbours";
}

// The state of the test epidemics below: one byte per agent, every `every`-th agent starting in
// `seeded` and the others in 0.
struct ByteStateEpidemic {
  Property<std::uint8_t> state;

  explicit ByteStateEpidemic(agent_index agents) : state("state", agents) {}

  template <class Sim>
  void seed_every(Sim& sim, agent_index agents, agent_index every, std::uint8_t seeded) {
    auto const s = state.current();
    Kokkos::parallel_for(
        Kokkos::RangePolicy<typename Sim::execution_space>(sim.execution_space_instance(), 0, agents),
        KOKKOS_LAMBDA(agent_index i) { s(i) = i % every == 0 ? seeded : std::uint8_t{0}; });
  }
  template <class F>
  void for_each_property(F&& f) const {
    f(state);
  }
};

// An epidemic with carriers: agents that infect their neighbours for ever and never change (they
// spread, but neither change on their own nor receive). After the first listed step only the
// carriers' own listing keeps them as sources; without it, their neighbours would be left off the
// lists while the pull step goes on infecting them. Recovered agents lose immunity, so the
// carriers' neighbourhoods see infections until the last step.
struct CarrierEpidemic : ByteStateEpidemic {
  enum : std::uint8_t { susceptible, infectious, recovered, carrier };
  using ByteStateEpidemic::ByteStateEpidemic;

  template <class Sim>
  void initialise(Sim& sim, agent_index agents) {
    seed_every(sim, agents, 997, carrier);
  }

  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index j, float) const {
    std::uint8_t const s = state(j);
    return s == carrier ? 2u : s == infectious ? 1u : 0u;
  }
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    std::uint8_t const s = state(i);
    return s == susceptible  ? activity::receives
           : s == infectious ? static_cast<std::uint8_t>(activity::changes | activity::spreads)
           : s == recovered  ? activity::changes
                             : activity::spreads;
  }

  template <class Sim>
  void step(Sim& sim);
};

struct CarrierStep {
  CarrierEpidemic model;
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    std::uint8_t const s = model.state(a.index());
    if (s == CarrierEpidemic::susceptible) {
      std::uint32_t const k = a.sum_of_contributions(model);
      if (k != 0 && a.random(0) < k * 400000000u) a.set(model.state, CarrierEpidemic::infectious);
    } else if (s == CarrierEpidemic::infectious) {
      if (a.random(1) < 1500000000u) a.set(model.state, CarrierEpidemic::recovered);
    } else if (s == CarrierEpidemic::recovered) {
      if (a.random(2) < 800000000u) a.set(model.state, CarrierEpidemic::susceptible);
    }
  }
};

template <class Sim>
void CarrierEpidemic::step(Sim& sim) {
  sim.apply(CarrierStep{*this}, state);
}

// Agents that are sources and receivers at once, whose pushes are counted in the marks: an alert
// agent changes on its own and counts its infectious neighbours, its own mark as a source not
// among them. Each infectious neighbour counts 1.
struct AlertEpidemic : ByteStateEpidemic {
  enum : std::uint8_t { susceptible, alert, infectious, recovered };
  using ByteStateEpidemic::ByteStateEpidemic;

  template <class Sim>
  void initialise(Sim& sim, agent_index agents) {
    seed_every(sim, agents, 211, infectious);
  }

  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index j, float) const {
    return state(j) == infectious ? 1u : 0u;
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t spreader_contribution() const { return 1u; }
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    std::uint8_t const s = state(i);
    return s == susceptible  ? activity::receives
           : s == alert      ? static_cast<std::uint8_t>(activity::receives | activity::changes)
           : s == infectious ? static_cast<std::uint8_t>(activity::changes | activity::spreads)
                             : activity::none;
  }

  template <class Sim>
  void step(Sim& sim);
};

struct AlertStep {
  AlertEpidemic model;
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    std::uint8_t const s = model.state(a.index());
    if (s == AlertEpidemic::susceptible) {
      std::uint32_t const k = a.sum_of_contributions(model);
      if (k != 0 && a.random(0) < k * 700000000u) a.set(model.state, AlertEpidemic::alert);
    } else if (s == AlertEpidemic::alert) {
      // An alert agent with no infectious neighbour calms down; one with more is more likely
      // infected: an own mark taken for a neighbour would change the draws.
      std::uint32_t const k = a.sum_of_contributions(model);
      if (k == 0)
        a.set(model.state, AlertEpidemic::susceptible);
      else if (a.random(1) < k * 250000000u)
        a.set(model.state, AlertEpidemic::infectious);
    } else if (s == AlertEpidemic::infectious) {
      if (a.random(2) < 1200000000u) a.set(model.state, AlertEpidemic::recovered);
    }
  }
};

template <class Sim>
void AlertEpidemic::step(Sim& sim) {
  sim.apply(AlertStep{*this}, state);
}

TEST(ActiveSet, CountedAgentsThatAreSourcesToo) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 6.0}, 17));
  AlertEpidemic model(graph.num_agents());
  ASSERT_TRUE(counts_spreaders_v<AlertEpidemic>);
  int const steps = 30;
  auto const pull = trajectory(graph, model, Stepping::pull, true, steps, 4);
  for (auto binned : {BinnedPush::off, BinnedPush::on}) {
    double share = 1.0;
    EXPECT_TRUE(trajectory(graph, model, Stepping::active, true, steps, 4, &share, GatherAhead::automatic, binned) ==
                pull)
        << (binned == BinnedPush::on ? "binned" : "atomic");
    EXPECT_LT(share, 0.9);
  }
  // Alert agents that counted infectious neighbours all along the run.
  std::size_t alert = 0;
  for (auto const& states : pull) alert += static_cast<std::size_t>(std::count(states.begin(), states.end(), 1));
  EXPECT_GT(alert, 1000u);
}

TEST(ActiveSet, AgentsThatOnlySpreadStaySources) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 3.0}, 21));
  CarrierEpidemic model(graph.num_agents());
  int const steps = 40;
  auto const pull = trajectory(graph, model, Stepping::pull, true, steps, 6);
  double share = 1.0;
  EXPECT_TRUE(trajectory(graph, model, Stepping::active, true, steps, 6, &share) == pull);
  EXPECT_LT(share, 0.5);
  EXPECT_TRUE(trajectory(graph, model, Stepping::automatic, true, steps, 6) == pull);
  // Infections go on near the carriers in the last steps: the test would miss a lost carrier
  // otherwise.
  auto const& before = pull[static_cast<std::size_t>(steps - 2)];
  auto const& last = pull.back();
  std::size_t infected = 0;
  for (std::size_t i = 0; i < last.size(); ++i)
    infected += before[i] == CarrierEpidemic::susceptible && last[i] == CarrierEpidemic::infectious;
  EXPECT_GT(infected, 5u);
}

// Kokkos Tools callbacks that count the active set's scans and reductions: each brings a count back
// to the host, which waits for the device.
namespace waits {
int scans = 0;
int reductions = 0;
bool counted(char const* name) { return std::strncmp(name, "herd::active::", 14) == 0; }
void on_scan(char const* name, std::uint32_t, std::uint64_t*) { scans += counted(name); }
void on_reduce(char const* name, std::uint32_t, std::uint64_t*) { reductions += counted(name); }
}  // namespace waits

// Early in an epidemic a listed step waits for one count, the list's length: its sources come from
// the last list without a scan of their own, and the automatic mode's bound from that length
// settles the choice without an estimate.
TEST(ActiveSet, AnEarlyListedStepWaitsForOneCount) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{50000, 8.0}, 17));
  for (Stepping const stepping : {Stepping::active, Stepping::automatic}) {
    Simulation<Exec> sim(Exec(), graph, 5, herd::test::stepping_options(stepping, default_active_threshold()));
    Seir<> model(graph.num_agents(), sir(0.05, 10));
    model.initialise(sim, graph.num_agents());
    auto one_step = [&] {
      sim.before_step(model);
      model.step(sim);
      sim.end_step();
    };
    one_step();  // finds the sources by a pass over every agent
    namespace tools = Kokkos::Tools::Experimental;
    auto const before = tools::get_callbacks();
    auto counting = before;
    counting.begin_parallel_scan = waits::on_scan;
    counting.begin_parallel_reduce = waits::on_reduce;
    waits::scans = waits::reductions = 0;
    tools::set_callbacks(counting);
    constexpr int steps = 10;
    for (int t = 0; t < steps; ++t) one_step();
    tools::set_callbacks(before);
    EXPECT_EQ(sim.stepping_stats().active_steps, steps + 1);
    EXPECT_EQ(waits::scans, steps) << "one scan a step, the marks' compaction";
    EXPECT_EQ(waits::reductions, 0) << "no estimate while the bound settles the choice";
  }
}

// Infects every 97th agent from outside the steps (as a user or a file would).
void infect_some(Seir<>& model) {
  auto const state = model.state.current();
  auto const timer = model.timer.current();
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, state.extent(0)), KOKKOS_LAMBDA(agent_index i) {
        if (i % 97 == 0 && state(i) == Seir<>::susceptible) {
          state(i) = Seir<>::infectious;
          timer(i) = 3;
        }
      });
}

// herd::run after the state was changed between runs: prepare() makes active stepping find the
// sources again. Stepping on without it would carry the old sources and miss the new infections,
// which this comparison detects.
std::vector<std::uint8_t> final_state(Graph const& graph, Stepping stepping, bool prepare) {
  Simulation<Exec> sim(Exec(), graph, 11, herd::test::stepping_options(stepping, default_active_threshold()));
  SeirParameters p;
  p.beta = 0.05;
  p.initial_infected = 5;
  Seir<> model(graph.num_agents(), p);
  model.initialise(sim, graph.num_agents());
  run(sim, model, 6);
  infect_some(model);
  if (prepare) {
    run(sim, model, 10);
  } else {
    for (int t = 0; t < 10; ++t) {
      sim.before_step(model);
      model.step(sim);
      sim.end_step();
    }
  }
  return to_vector(model.state.current());
}

TEST(ActiveSet, StateSetBetweenRunsIsFoundAgain) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 8.0}, 6));
  auto const pull = final_state(graph, Stepping::pull, true);
  EXPECT_EQ(final_state(graph, Stepping::active, true), pull);
  EXPECT_EQ(final_state(graph, Stepping::automatic, true), pull);
  EXPECT_NE(final_state(graph, Stepping::active, false), pull) << "the comparison should see stale sources";
}

// Counts the launches of the automatic mode's estimate pass (a Kokkos Tools callback).
struct EstimateCounter {
  static inline int passes = 0;
  static void begin_reduce(char const* name, std::uint32_t, std::uint64_t*) {
    if (std::string(name) == "herd::active::estimate") ++passes;
  }
};

// The automatic mode's tests: an Erdős–Rényi graph of 20,000 agents and mean degree 16, SIR with
// an infectious period of 6 steps from 20 seeds, and the history of its pull steps (seed 5).
Graph automatic_mode_graph() { return build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 16.0}, 8)); }
SeirParameters sir_for_automatic_mode(double beta) {
  SeirParameters p;
  p.beta = beta;
  p.infectious = Period::fixed(6);
  p.initial_infected = 20;
  return p;
}
std::vector<std::int64_t> pulled_history(Graph const& graph, Seir<>& model, int steps) {
  Simulation<Exec> sim(Exec(), graph, 5);
  model.initialise(sim, graph.num_agents());
  return to_vector(run(sim, model, steps));
}

// Far above the threshold, automatic mode pulls several steps on one estimate: fewer estimate
// passes than pull steps, and the same trajectory.
TEST(ActiveSet, AutomaticModeSkipsEstimatesFarAboveTheThreshold) {
  namespace tools = Kokkos::Tools::Experimental;
  auto const graph = automatic_mode_graph();
  Seir<> model(graph.num_agents(), sir_for_automatic_mode(0.2));
  auto const pull = pulled_history(graph, model, 40);
  Simulation<Exec> sim(Exec(), graph, 5, herd::test::stepping_options(Stepping::automatic, default_active_threshold()));
  model.initialise(sim, graph.num_agents());
  auto const original = tools::get_callbacks();
  auto counting = original;
  counting.begin_parallel_reduce = EstimateCounter::begin_reduce;
  tools::set_callbacks(counting);
  EstimateCounter::passes = 0;
  auto const automatic = to_vector(run(sim, model, 40));
  tools::set_callbacks(original);
  auto const& stats = sim.stepping_stats();
  auto const pulled = stats.steps - stats.active_steps;
  EXPECT_EQ(automatic, pull);
  EXPECT_GT(stats.active_steps, 0);
  EXPECT_GE(pulled, 8) << "the epidemic should spend steps far above the threshold";
  EXPECT_GT(EstimateCounter::passes, 0);
  EXPECT_LT(EstimateCounter::passes, pulled);
}

// After a step that pushed through bins the automatic mode keeps listing up to Details::Tuning::keep_listing_factor
// times its threshold, so it lists more steps of the same epidemic than with atomic pushes, and
// the history is still the pulled one.
TEST(ActiveSet, AutomaticModeListsLongerAfterBinnedSteps) {
  if (!Details::runs_on_host_v<Exec>) GTEST_SKIP() << "bins are for host memory";
  auto const graph = automatic_mode_graph();
  Seir<> model(graph.num_agents(), sir_for_automatic_mode(0.05));
  auto const pull = pulled_history(graph, model, 60);
  auto listed_steps = [&](BinnedPush binned) {
    auto options = herd::test::stepping_options(Stepping::automatic, default_active_threshold());
    options.binned_push = binned;
    Simulation<Exec> sim(Exec(), graph, 5, options);
    model.initialise(sim, graph.num_agents());
    EXPECT_EQ(to_vector(run(sim, model, 60)), pull);
    return sim.stepping_stats().active_steps;
  };
  auto const atomic = listed_steps(BinnedPush::off);
  auto const binned = listed_steps(BinnedPush::on);
  EXPECT_LT(atomic, 60) << "the epidemic should pull some steps";
  EXPECT_GT(binned, atomic);
}

// Without a threshold, the automatic mode takes Herd's default for the backend, the model's pushes
// and the graph: 0.5 on CPUs; on GPUs none on graphs as small as this one (every step pulls), else
// 2 where pushes are counted and 0.5 where they add sums. A threshold given replaces it, one of 0
// pulls every step, and the history is the pulled one throughout. (The other tests give 0.5, so
// that GPUs list steps of their small graphs too.)
TEST(ActiveSet, AutomaticModeDefaultsFollowBackendAndPushes) {
  constexpr edge_offset large = Details::Tuning::least_listed_edges_on_gpus;
  bool const host = Details::runs_on_host_v<Exec>;
  EXPECT_EQ(default_active_threshold<Exec>(true, large),
            host ? 0.5 : Details::Tuning::counted_active_threshold_on_gpus);
  EXPECT_EQ(default_active_threshold<Exec>(false, large), 0.5);
  EXPECT_EQ(default_active_threshold<Exec>(true, large - 1), host ? 0.5 : 0.0);
  EXPECT_EQ(default_active_threshold<Kokkos::DefaultHostExecutionSpace>(true, 1), 0.5);

  auto const graph = automatic_mode_graph();
  Seir<> model(graph.num_agents(), sir_for_automatic_mode(0.05));
  constexpr int steps = 60;
  auto const pull = pulled_history(graph, model, steps);
  auto stepped = [&](std::optional<double> threshold) {
    Simulation<Exec> sim(Exec(), graph, 5, herd::test::stepping_options(Stepping::automatic, threshold));
    model.initialise(sim, graph.num_agents());
    EXPECT_EQ(to_vector(run(sim, model, steps)), pull);
    EXPECT_TRUE(sim.counts_pushes()) << "SIR on an unweighted graph counts its pushes";
    return std::make_pair(sim.active_threshold(), sim.stepping_stats().active_steps);
  };
  auto const [chosen, listed] = stepped(std::nullopt);
  EXPECT_EQ(chosen, host ? 0.5 : 0.0);
  if (host) {
    EXPECT_GT(listed, 0);
    EXPECT_LT(listed, steps);
  } else {
    EXPECT_EQ(listed, 0);
  }
  EXPECT_EQ(stepped(0.0), std::make_pair(0.0, std::int64_t{0}));
  // Pushes never reach 100 times the agents here: every step is listed.
  EXPECT_EQ(stepped(100.0), std::make_pair(100.0, std::int64_t{steps}));
}

// Counts the observations herd::run makes from the active list alone (a Kokkos Tools callback).
struct ListedObservations {
  static inline int passes = 0;
  static void begin_reduce(char const* name, std::uint32_t, std::uint64_t*) {
    if (std::string(name) == "herd::observe::listed") ++passes;
  }
};

// The history herd::run records, stepping as asked.
template <class Model>
std::vector<std::int64_t> history(Graph const& graph, Model model, Stepping stepping, bool symmetric, int steps) {
  Simulation<Exec> sim(Exec(), herd::test::said_symmetric(graph, symmetric), 11,
                       herd::test::stepping_options(stepping, default_active_threshold()));
  model.initialise(sim, graph.num_agents());
  return to_vector(run(sim, model, steps));
}

// herd::run observes a step on a short list from the listed agents alone (their observations
// before the step out, after it in): every row of the history is the pull step's, for SEIR and
// COVID on every graph family.
TEST(ActiveSet, HistoriesObservedFromTheListAreThoseOfThePullStep) {
  namespace tools = Kokkos::Tools::Experimental;
  auto const original = tools::get_callbacks();
  auto counting = original;
  counting.begin_parallel_reduce = ListedObservations::begin_reduce;
  SeirParameters const seir = seir_of(Period::geometric(0.4), Period::fixed(4));
  CovidParameters const covid = covid_of();
  for (auto const& [graph_name, graph] : symmetric_graphs()) {
    Seir<> seir_model(graph.num_agents(), seir);
    Covid<> covid_model(graph.num_agents(), covid);
    auto const seir_pull = history(graph, seir_model, Stepping::pull, true, 60);
    auto const covid_pull = history(graph, covid_model, Stepping::pull, false, 40);
    tools::set_callbacks(counting);
    ListedObservations::passes = 0;
    for (Stepping stepping : {Stepping::active, Stepping::automatic}) {
      EXPECT_EQ(history(graph, seir_model, stepping, true, 60), seir_pull) << graph_name << " seir";
      EXPECT_EQ(history(graph, covid_model, stepping, false, 40), covid_pull) << graph_name << " covid";
    }
    tools::set_callbacks(original);
    EXPECT_GT(ListedObservations::passes, 40) << graph_name << ": steps should be observed from their lists";
  }
}

// A model that declares no activity is stepped in full whatever is asked.
TEST(ActiveSet, ModelsWithoutActivityAreAlwaysPulled) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{5000, 6.0}, 2));
  Opinion<> model(graph.num_agents(), OpinionParameters{});
  EXPECT_EQ(trajectory(graph, model, Stepping::active, true, 20, 3),
            trajectory(graph, model, Stepping::pull, true, 20, 3));
}

}  // namespace

namespace {

// SI whose activity breaks a rule of active-set stepping (`Lie`), without an error but in
// another epidemic:
// - susceptible_say_none: susceptible agents say they never change, though a spreading neighbour
//   infects them, and active-set stepping leaves them out;
// - infected_say_no_spread: infected agents say they change but not that they spread, while
//   their contribution counts them, so that pulled steps reading who spreads from the bits of
//   `activity` find no spreader, and listed steps push from none.
enum class Lie { susceptible_say_none, infected_say_no_spread };

template <class Memory, Lie lie>
struct BrokenSI {
  Property<std::uint8_t, Memory> infected;
  probability_threshold beta = to_threshold(0.5);

  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, infected);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    auto const& inf = infected;
    if (inf(a.index())) return;
    if (a.sum_of_contributions(*this) > 0 && a.bernoulli(0, beta)) a.set(infected, 1);
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index j, float) const { return infected(j); }
  KOKKOS_INLINE_FUNCTION std::uint32_t spreader_contribution() const { return 1; }
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    if constexpr (lie == Lie::susceptible_say_none) return infected(i) ? activity::spreads : activity::none;
    return infected(i) ? activity::changes : activity::receives;
  }
  static constexpr int num_observables() { return 2; }
  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const { ++totals[infected(i)]; }
  template <class F>
  void for_each_property(F&& f) const {
    f(infected);
  }
};
template <class Memory>
using SusceptibleSayNone = BrokenSI<Memory, Lie::susceptible_say_none>;
template <class Memory>
using InfectedSayNoSpread = BrokenSI<Memory, Lie::infected_say_no_spread>;

// What a run of `steps` under Stepping::verify throws, or "no error".
template <class Model>
std::string verify_error(Graph const& graph, Model& model, int steps) {
  Simulation<Exec> sim(Exec(), graph, 11, herd::test::stepping_options(Stepping::verify));
  return herd::test::error_of([&] { run(sim, model, steps); });
}

// Stepping::verify checks each listed step against the pulled one: a model that keeps the rules
// runs to the pull trajectory, and one that breaks them stops at the first agent that differs.
TEST(ActiveSet, VerifyFindsTheFirstAgentThatDiffers) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 8.0}, 3));
  Seir<> seir(graph.num_agents(), sir(0.05, 10));
  auto const pull = history(graph, seir, Stepping::pull, true, 30);
  EXPECT_EQ(history(graph, seir, Stepping::verify, true, 30), pull);
  EXPECT_EQ(history(graph, seir, Stepping::verify, false, 30), pull);

  SusceptibleSayNone<Exec::memory_space> broken{{"infected", graph.num_agents()}};
  Kokkos::deep_copy(Kokkos::subview(broken.infected.current(), std::make_pair(0, 10)), std::uint8_t{1});
  auto const seeded = [&] {
    Kokkos::deep_copy(broken.infected.current(), std::uint8_t{0});
    Kokkos::deep_copy(Kokkos::subview(broken.infected.current(), std::make_pair(0, 10)), std::uint8_t{1});
  };
  Simulation<Exec> pulled(Exec(), graph, 11);
  auto const right = to_vector(run(pulled, broken, 5));
  seeded();
  Simulation<Exec> active(Exec(), graph, 11, herd::test::stepping_options(Stepping::active));
  EXPECT_NE(to_vector(run(active, broken, 5)), right) << "without verify the broken rule goes unnoticed";
  seeded();
  auto const what = verify_error(graph, broken, 5);
  EXPECT_NE(what.find("stepping verify: step 1, agent "), std::string::npos) << what;
  EXPECT_NE(what.find("'infected' is 0 stepped on the active list but 1 pulled"), std::string::npos) << what;
}

// Verify's pulled run reads each contribution, not who spreads from the bits of `activity`.
TEST(ActiveSet, VerifyReadsEachContributionNotTheBitsOfWhoSpreads) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 8.0}, 3));
  InfectedSayNoSpread<Exec::memory_space> lying{{"infected", graph.num_agents()}};
  auto const seeded = [&] {
    auto host = Kokkos::create_mirror_view(lying.infected.current());
    for (agent_index i = 0; i < graph.num_agents(); ++i) host(i) = i % 2;
    Kokkos::deep_copy(lying.infected.current(), host);
  };
  seeded();
  Simulation<Exec> bits(Exec(), graph, 11, herd::test::stepping_options(Stepping::pull));
  ASSERT_TRUE(bits.reads_spreader_bits(lying));
  EXPECT_EQ(to_vector(run(bits, lying, 3)).back(), graph.num_agents() / 2)
      << "the bits say no one spreads: no infection, without an error";
  seeded();
  auto const what = verify_error(graph, lying, 3);
  EXPECT_NE(what.find("stepping verify: step 1, agent "), std::string::npos) << what;
  EXPECT_NE(what.find("'infected' is 0 stepped on the active list but 1 pulled reading each contribution"),
            std::string::npos)
      << what;
}

// Each agent's pressure, the sum of its weighted contributions; spreader_contribution(w) says
// `factor` times what contribution(j, w) gives for a spreader (1: the rule kept).
template <class Memory, std::uint32_t factor>
struct WeightedPressure {
  Property<std::uint8_t, Memory> infected;
  Property<std::uint32_t, Memory> pressure;

  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, pressure);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    if (!infected(a.index())) a.set(pressure, a.sum_of_contributions(*this));
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index j, float w) const {
    return infected(j) ? static_cast<std::uint32_t>(w * 10.0f) : 0u;
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t spreader_contribution(float w) const {
    return factor * static_cast<std::uint32_t>(w * 10.0f);
  }
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    return infected(i) ? activity::changes | activity::spreads : activity::receives;
  }
  static constexpr int num_observables() { return 1; }
  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const { totals[0] += pressure(i); }
  template <class F>
  void for_each_property(F&& f) const {
    f(infected);
    f(pressure);
  }
};

// On a weighted graph neither the listed step nor a pull reading each contribution reads
// spreader_contribution(w): verify also pulls from the spreader bits, as a pull step does.
template <std::uint32_t factor>
std::string verify_error_of_pressure() {
  auto const graph = build_csr(Exec(), generate_population(Exec(), LayeredPopulation{10000}, 3).edges);
  WeightedPressure<Exec::memory_space, factor> model{{"infected", graph.num_agents()},
                                                     {"pressure", graph.num_agents()}};
  Kokkos::deep_copy(model.pressure.current(), 0u);
  Kokkos::deep_copy(Kokkos::subview(model.infected.current(), std::make_pair(0, 20)), std::uint8_t{1});
  Simulation<Exec> sim(Exec(), graph, 11, herd::test::stepping_options(Stepping::verify));
  auto const what = herd::test::error_of([&] { run(sim, model, 3); });
  EXPECT_TRUE(sim.reads_spreader_bits(model)) << "a pull step reads the bits";
  return what;
}

TEST(ActiveSet, VerifyPullsFromTheSpreaderBitsToo) {
  EXPECT_EQ(verify_error_of_pressure<1>(), "no error");
  auto const what = verify_error_of_pressure<2>();
  EXPECT_NE(what.find("stepping verify: step 1, agent "), std::string::npos) << what;
  EXPECT_NE(what.find("stepped on the active list but"), std::string::npos) << what;
  EXPECT_NE(what.find("pulled from the spreader bits (spreader_contribution)"), std::string::npos) << what;
}

// A phase that counts each agent's visits, with `visits` left out of its apply() (whose sets are
// lost) or out of the model's for_each_property (which verify cannot compare): verify stops both.
enum class LeftOut { from_apply, from_list };

template <class Memory, LeftOut left_out>
struct CountsVisits {
  Property<std::uint8_t, Memory> infected;
  Property<std::int32_t, Memory> visits;

  template <class Sim>
  void step(Sim& sim) {
    if constexpr (left_out == LeftOut::from_apply)
      sim.apply(*this, infected);
    else
      sim.apply(*this, infected, visits);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    a.set(visits, visits(a.index()) + 1);
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index j, float) const { return infected(j); }
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    return infected(i) ? activity::source : activity::receives;
  }
  static constexpr int num_observables() { return 2; }
  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const { ++totals[infected(i)]; }
  template <class F>
  void for_each_property(F&& f) const {
    f(infected);
    if constexpr (left_out == LeftOut::from_apply) {
      auto const copy = visits;  // the same buffers, as a model may pass them
      f(copy);
    }
  }
};

template <LeftOut left_out>
std::string verify_error_of_visits() {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{2000, 8.0}, 3));
  CountsVisits<Exec::memory_space, left_out> model{{"infected", graph.num_agents()}, {"visits", graph.num_agents()}};
  Kokkos::deep_copy(model.visits.current(), 0);
  Kokkos::deep_copy(Kokkos::subview(model.infected.current(), std::make_pair(0, 10)), std::uint8_t{1});
  return verify_error(graph, model, 3);
}

TEST(ActiveSet, VerifyStopsAtASetOfAPropertyTheApplyDoesNotList) {
  auto const what = verify_error_of_visits<LeftOut::from_apply>();
  EXPECT_NE(what.find("step 1: a phase sets 'visits', which its apply() does not list"), std::string::npos) << what;
}

TEST(ActiveSet, VerifyRefusesPhasesThatWriteUnlistedProperties) {
  auto const what = verify_error_of_visits<LeftOut::from_list>();
  EXPECT_NE(what.find("a phase writes 'visits'"), std::string::npos) << what;
}

}  // namespace
