#include "test_common.hpp"

#include <impl/Kokkos_Profiling.hpp>

namespace {

using namespace herd;
using herd::test::to_vector;

// Runs SEIR on `graph` and returns the final state of every agent in original ids, followed by
// the whole history: everything a trajectory consists of.
template <class Exec>
std::vector<std::int64_t> seir_trajectory(CsrGraph<typename Exec::memory_space> const& graph, Schedule schedule,
                                          Ordering ordering = Ordering::none, int steps = 30, bool spreader_bits = true,
                                          bool weight_codes = true) {
  Exec exec;
  auto g = graph;
  Kokkos::View<global_id*, typename Exec::memory_space> ids;
  Permutation<typename Exec::memory_space> p;
  if (ordering != Ordering::none) {
    p = compute_ordering(exec, graph, ordering, 5);
    g = permute(exec, graph, p);
    ids = global_ids_of(exec, p);
  }
  StepOptions options;
  options.schedule = schedule;
  options.spreader_bits = spreader_bits;
  options.weight_codes = weight_codes;
  Simulation<Exec> sim(exec, g, 1234, options, ids);
  SeirParameters params;
  params.beta = 0.2;
  params.latent = Period::geometric(0.5);
  params.infectious = Period::fixed(3);
  params.initial_infected = 20;
  Seir<typename Exec::memory_space> model(g.num_agents(), params);
  model.initialise(sim, g.num_agents());
  auto history = run(sim, model, steps);
  auto state = to_vector(model.state.current());
  std::vector<std::int64_t> out(state.size());
  std::vector<agent_index> old_of_new(state.size());
  if (ordering != Ordering::none) old_of_new = to_vector(p.old_of_new);
  for (std::size_t i = 0; i < state.size(); ++i) out[ordering != Ordering::none ? old_of_new[i] : i] = state[i];
  for (auto c : to_vector(history)) out.push_back(c);
  return out;
}

template <class ExecutionSpace>
class Engine : public ::testing::Test {};
TYPED_TEST_SUITE(Engine, herd::test::ExecutionSpaces);

// The promise: one seed, one trajectory, whatever backend, thread count or schedule.
TYPED_TEST(Engine, TrajectoryIsIdenticalForEveryScheduleAndBackend) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{20000, 2.2, 8.0, 3000.0}, 3);
  auto const reference = seir_trajectory<Kokkos::DefaultHostExecutionSpace>(
      herd::test::generated_graph<Kokkos::DefaultHostExecutionSpace>(PowerLaw{20000, 2.2, 8.0, 3000.0}, 3),
      Schedule::thread);
  // The epidemic took off: otherwise the comparison would prove little.
  std::int64_t infected = 0;
  for (std::size_t i = 0; i < 20000; ++i) infected += reference[i] != Seir<>::susceptible;
  EXPECT_GT(infected, 2000);
  for (Schedule s :
       {Schedule::thread, Schedule::vector, Schedule::team, Schedule::hybrid, Schedule::edge, Schedule::automatic})
    EXPECT_EQ(seir_trajectory<Exec>(graph, s), reference) << to_string(s);
}

// What each neighbour adds, different for every neighbour and weight, so that a sum missing or
// doubling one edge shows.
struct EdgeContribution {
  template <class Weight>
  KOKKOS_INLINE_FUNCTION std::uint64_t contribution(agent_index j, Weight const& weight) const {
    float const w = weight;
    return static_cast<std::uint64_t>(j + 1) * 1000 + static_cast<std::uint64_t>(w * 8.0f);
  }
};

// The edge schedule's sums are every row's, exactly: rows split over many chunks (a hub), rows
// ending where a chunk ends, empty rows (also at the range's ends), for chunks of one edge up to
// chunks longer than the graph, over the whole graph and over a range of its rows.
TYPED_TEST(Engine, EdgeScheduleSumsEveryRowWhateverItsChunks) {
  using Exec = TypeParam;
  Exec exec;
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  auto const edge = [&](global_id i, global_id j) {
    sources.push_back(i);
    targets.push_back(j);
    weights.push_back(static_cast<float>((i * 7 + j) % 5) + 0.5f);
  };
  // A hub, short rows with some empty, and runs of empty rows (as Cuthill-McKee gathers isolated
  // agents) longer than a share.
  constexpr agent_index agents = 1200;
  for (global_id j = 1; j < 45; ++j) edge(20, j);
  for (global_id i = 30; i < 50; ++i)
    for (global_id k = 1; k <= i % 4; ++k) edge(i, (i + k) % 60);
  edge(58, 3);
  edge(600, 5);
  edge(601, 1199);
  BuildOptions options;
  options.symmetrise = false;
  auto const graph = build_csr(exec, herd::test::edge_list<Exec>(agents, sources, targets, weights), options);
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  auto const stored = to_vector(graph.weights);
  EdgeContribution const phase;
  for (RowRange rows : {RowRange{}, RowRange{15, 40}, RowRange{21, 9}, RowRange{55, 1000}}) {
    agent_index const last = rows.count < 0 ? agents : rows.first + rows.count;
    edge_offset const edges = offsets[last] - offsets[rows.first];
    for (edge_offset chunk : {1, 3, 7, 44, 1000}) {
      auto plan = make_step_plan(exec, graph, Schedule::edge, default_hub_threshold(), rows);
      ASSERT_EQ(plan.schedule, Schedule::edge);
      Details::cut_edge_shares(exec, graph, plan, chunk);
      ASSERT_EQ(plan.carried.extent(0), Details::edge_chunk_count(last - rows.first, edges, chunk));
      Kokkos::deep_copy(plan.sums, std::uint64_t{12345});  // stale values must not survive
      Details::sum_by_edges(exec, plan, phase, graph);
      auto const sums = to_vector(plan.sums);
      for (agent_index r = rows.first; r < last; ++r) {
        std::uint64_t want = 0;
        for (edge_offset e = offsets[r]; e < offsets[r + 1]; ++e)
          want += phase.contribution(neighbours[e], static_cast<float>(stored[e]));
        EXPECT_EQ(sums[r], want) << "row " << r << " of [" << rows.first << ", " << last << "), chunks of " << chunk;
      }
    }
  }
}

// The merge path of the edge schedule: at every point of the sequence of row ends and edges, the
// rows ended are those a sequential walk has passed, so that equal shares of the sequence take
// equal work whatever the rows' lengths.
TEST(EdgeSchedule, SharesFollowTheRowsAndEdgesInOrder) {
  // Rows of lengths 3, 0, 0, 5, 1, then 9 empty rows, then 2 (edges counted from offset 4).
  std::vector<edge_offset> lengths = {3, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  auto const rows = static_cast<agent_index>(lengths.size());
  Kokkos::View<edge_offset*, Kokkos::HostSpace> at("offsets", lengths.size() + 1);
  at(0) = 4;
  for (agent_index r = 0; r < rows; ++r) at(r + 1) = at(r) + lengths[static_cast<std::size_t>(r)];
  edge_offset const edges = at(rows) - at(0);
  // The walk: before each edge, the rows that end at or before it.
  std::vector<agent_index> ended_after = {0};
  agent_index r = 0;
  for (edge_offset e = 0; e <= edges; ++e) {
    while (r < rows && at(r + 1) - at(0) <= e) ended_after.push_back(++r);
    if (e < edges) ended_after.push_back(r);
  }
  ASSERT_EQ(ended_after.size(), static_cast<std::size_t>(rows) + edges + 1);
  for (edge_offset d = 0; d < ended_after.size(); ++d)
    EXPECT_EQ(Details::rows_ended_at(at, 0, rows, at(0), edges, d), ended_after[d]) << "after " << d;
}

// Each row's sum of contributions computed every way a step may sum it: edge by edge, the
// spreading neighbours first (GPUs, weighted graphs) from the states and from the spreader bits,
// and from the bits and the weights' codes, on the default backend.
template <class Model, class Graph>
std::vector<std::uint64_t> row_sums_every_way(Model const& model, Graph const& graph) {
  using Exec = Kokkos::DefaultExecutionSpace;
  Kokkos::View<std::uint32_t*, Exec::memory_space> bits("bits", (graph.num_agents() + 31) / 32);
  Details::mark_spreaders(Exec(), model, 0, graph.num_agents(), graph.num_agents(), bits);
  auto const coded = Details::make_weight_codes(Exec(), graph);
  EXPECT_FALSE(coded.empty());
  Kokkos::View<std::uint64_t*, Exec::memory_space> by_code("by_code", Details::max_weight_codes);
  Details::fill_contribution_by_code(Exec(), model, coded, by_code);
  Details::SpreaderViews<Exec::memory_space> const counts{bits, coded.codes, by_code};
  // Row by row in memory, as the caller reads them, on every backend.
  Kokkos::View<std::uint64_t* [4], Kokkos::LayoutRight, Exec::memory_space> sums("sums", graph.num_agents());
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, graph.num_agents()), KOKKOS_LAMBDA(agent_index i) {
        edge_offset const from = graph.row_offsets(i), to = graph.row_offsets(i + 1);
        sums(i, 0) = Details::sum_each_contribution<std::uint64_t>(model, graph, from, to);
        sums(i, 1) = Details::sum_spreading_contributions<std::uint64_t>(model, graph, from, to);
        sums(i, 2) = Details::sum_marked_contributions<std::uint64_t>(model, graph, bits.data(), from, to);
        sums(i, 3) = Details::sum_row_contributions<std::uint64_t>(model, graph, counts.pointers(), i, from, to);
      });
  return to_vector(sums);
}

// Finding the spreading neighbours first, 32 edges at a time, from their states or their bits,
// and adding the contributions of the weights' codes where the bits are set, give every row's sum
// edge by edge:
// rows shorter than a batch, of one batch, and over one or two batches, empty rows, a weight that
// differs along each row, neighbours in every state.
TEST(ContributionSum, SpreadingNeighboursFirstGiveTheSumOfEveryEdge) {
  using Exec = Kokkos::DefaultExecutionSpace;
  constexpr agent_index agents = 700;
  std::vector<global_id> sources, targets;
  std::vector<float> weights;
  for (global_id i = 0; i < agents; ++i)
    for (global_id k = 1; k <= i % 70; ++k) {
      sources.push_back(i);
      targets.push_back((i + 13 * k) % agents);
      weights.push_back(0.25f + static_cast<float>((i + k) % 7) * 0.125f);
    }
  BuildOptions options;
  options.symmetrise = false;
  auto const graph = build_csr(Exec(), herd::test::edge_list<Exec>(agents, sources, targets, weights), options);
  ASSERT_EQ(graph.num_edges(), sources.size());
  SeirParameters p;
  p.beta = 0.3;
  p.latent = Period::fixed(2);
  Seir<Exec::memory_space> model(agents, p);
  auto const state = model.state.current();
  Kokkos::deep_copy(state, std::uint8_t{Seir<>::susceptible});
  auto host = Kokkos::create_mirror_view(state);
  for (agent_index i = 0; i < agents; ++i) host(i) = static_cast<std::uint8_t>((i * 7 / 3) % 4);
  Kokkos::deep_copy(state, host);
  auto const sums = row_sums_every_way(model, graph);
  agent_index exposed_rows = 0;
  for (agent_index i = 0; i < agents; ++i) {
    auto const row = 4 * static_cast<std::size_t>(i);
    auto const each = sums[row];
    EXPECT_EQ(sums[row + 1], each) << "row " << i << " of " << i % 70 << " edges, from the states";
    EXPECT_EQ(sums[row + 2], each) << "row " << i << " of " << i % 70 << " edges, from the bits";
    EXPECT_EQ(sums[row + 3], each) << "row " << i << " of " << i % 70 << " edges, from the bits and codes";
    exposed_rows += each != 0;
  }
  // Most rows hold an infectious neighbour (a quarter of the agents): the sums are not trivially 0.
  EXPECT_GT(exposed_rows, agents / 2);
}

TYPED_TEST(Engine, HybridScheduleSplitsHubsFromLightAgents) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{20000, 2.2, 8.0, 3000.0}, 3);
  auto plan = make_step_plan(Exec(), graph, Schedule::hybrid, 500);
  EXPECT_GT(plan.hubs.extent(0), 0u);
  EXPECT_EQ(plan.light.extent(0) + plan.hubs.extent(0), 20000u);
  auto offsets = to_vector(graph.row_offsets);
  for (auto h : to_vector(plan.hubs)) EXPECT_GE(offsets[h + 1] - offsets[h], 500u);
  for (auto l : to_vector(plan.light)) EXPECT_LT(offsets[l + 1] - offsets[l], 500u);
  EXPECT_EQ(make_step_plan(Exec(), graph, Schedule::automatic).schedule, Schedule::thread);
  EXPECT_EQ(make_step_plan(Exec(), graph, Schedule::automatic, 1000).schedule,
            Details::runs_on_host_v<Exec> ? Schedule::hybrid : Schedule::edge);
}

TYPED_TEST(Engine, ReorderingDoesNotChangeTheTrajectory) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{20000, 6.0}, 8);
  auto const reference = seir_trajectory<Exec>(graph, Schedule::thread);
  EXPECT_EQ(seir_trajectory<Exec>(graph, Schedule::thread, Ordering::random), reference);
  EXPECT_EQ(seir_trajectory<Exec>(graph, Schedule::thread, Ordering::degree), reference);
  if (HERD_ENABLE_KOKKOSKERNELS) {
    EXPECT_EQ(seir_trajectory<Exec>(graph, Schedule::thread, Ordering::rcm), reference);
  }
}

// A model that sets a property for some agents only, in two phases: the others keep their value,
// and the second phase sees what the first wrote.
template <class MemorySpace>
struct TwoPhases {
  Property<std::int32_t, MemorySpace> value;
  Property<std::int32_t, MemorySpace> copy;

  struct AddOneToEven {
    Property<std::int32_t, MemorySpace> value;
    template <class Agent>
    KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
      if (a.index() % 2 == 0) a.set(value, value(a.index()) + 1);
    }
  };
  struct CopyNeighbourSum {
    Property<std::int32_t, MemorySpace> value, copy;
    template <class Agent>
    KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
      auto const v = value;
      a.set(copy, a.template sum_over_neighbours<std::int32_t>([&](agent_index j, float) { return v(j); }));
    }
  };
  template <class Sim>
  void step(Sim& sim) {
    sim.apply(AddOneToEven{value}, value);
    sim.apply(CopyNeighbourSum{value, copy}, copy);
  }
};

TYPED_TEST(Engine, UnwrittenAgentsKeepTheirValueAndPhasesSeeEachOther) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  auto graph = build_csr(Exec(), herd::test::edge_list<Exec>(4, {0, 1, 2}, {1, 2, 3}));
  for (Schedule s : {Schedule::thread, Schedule::vector, Schedule::team}) {
    StepOptions options;
    options.schedule = s;
    Simulation<Exec> sim(Exec(), graph, 1, options);
    TwoPhases<Mem> model{Property<std::int32_t, Mem>("value", 4), Property<std::int32_t, Mem>("copy", 4)};
    Kokkos::deep_copy(model.value.current(), 10);
    for (int t = 0; t < 3; ++t) {
      model.step(sim);
      sim.end_step();
    }
    EXPECT_EQ(to_vector(model.value.current()), (std::vector<std::int32_t>{13, 10, 13, 10})) << to_string(s);
    // Path 0-1-2-3: sums of neighbours' values after the third step's first phase.
    EXPECT_EQ(to_vector(model.copy.current()), (std::vector<std::int32_t>{10, 26, 20, 13})) << to_string(s);
  }
}

// Each phase of a step draws from a random stream of its own, and the counter holds
// CounterRng::max_streams of them: a step with more phases is refused, not given shared draws.
TYPED_TEST(Engine, AStepWithMorePhasesThanRandomStreamsIsRefused) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  auto graph = build_csr(Exec(), herd::test::edge_list<Exec>(4, {0, 1, 2}, {1, 2, 3}));
  Simulation<Exec> sim(Exec(), graph, 1);
  TwoPhases<Mem> model{Property<std::int32_t, Mem>("value", 4), Property<std::int32_t, Mem>("copy", 4)};
  typename TwoPhases<Mem>::AddOneToEven phase{model.value};
  int const phases = static_cast<int>(CounterRng::max_streams - streams::first_model_stream);
  for (int k = 0; k < phases; ++k) sim.apply(phase, model.value);
  EXPECT_THROW(sim.apply(phase, model.value), herd::Error);
}

// Counting the spreading neighbours' bits gives the sums of the neighbours' states, so the same
// trajectory, on every schedule: rows shorter and longer than a word of bits, hubs summed by teams
// and by edge shares, agents in every SEIR state.
TYPED_TEST(Engine, SpreaderBitsGiveTheTrajectoryOfTheStates) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{20011, 2.2, 8.0, 3000.0}, 5);
  for (Schedule s :
       {Schedule::thread, Schedule::vector, Schedule::team, Schedule::hybrid, Schedule::edge, Schedule::automatic})
    EXPECT_EQ(seir_trajectory<Exec>(graph, s, Ordering::none, 30, true),
              seir_trajectory<Exec>(graph, s, Ordering::none, 30, false))
        << to_string(s);
}

// `graph` with the weights of a layered network: each edge one of four, at random.
template <class Exec>
CsrGraph<typename Exec::memory_space> with_layer_weights(CsrGraph<typename Exec::memory_space> graph) {
  graph.weights = Kokkos::View<float*, typename Exec::memory_space>("weights", graph.num_edges());
  auto const weights = graph.weights;
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, graph.num_edges()), KOKKOS_LAMBDA(edge_offset e) {
        auto const layer = (static_cast<std::uint64_t>(e) * 0x9e3779b97f4a7c15u) >> 62;
        weights(e) = layer == 0 ? 1.0f : layer == 1 ? 0.6f : layer == 2 ? 0.4f : 0.1f;
      });
  return graph;
}

// Adding each edge's contribution from its weight's code, masked by the neighbour's spreader bit,
// gives the sums of the neighbours' states and weights, so the same trajectory, on every schedule.
TYPED_TEST(Engine, WeightCodesGiveTheTrajectoryOfTheWeights) {
  using Exec = TypeParam;
  auto const graph = with_layer_weights<Exec>(herd::test::generated_graph<Exec>(PowerLaw{20011, 2.2, 8.0, 3000.0}, 5));
  auto const reference = seir_trajectory<Exec>(graph, Schedule::thread, Ordering::none, 30, false, false);
  std::int64_t infected = 0;
  for (std::size_t i = 0; i < 20011; ++i) infected += reference[i] != Seir<>::susceptible;
  EXPECT_GT(infected, 2000) << "the epidemic took off";
  for (Schedule s :
       {Schedule::thread, Schedule::vector, Schedule::team, Schedule::hybrid, Schedule::edge, Schedule::automatic}) {
    EXPECT_EQ(seir_trajectory<Exec>(graph, s, Ordering::none, 30, true, true), reference) << to_string(s);
    EXPECT_EQ(seir_trajectory<Exec>(graph, s, Ordering::none, 30, true, false), reference) << to_string(s);
  }
}

// Kernels launched under a name, counted through Kokkos Tools.
namespace launches {
std::string name;
int count = 0;
void on_parallel_for(char const* kernel, std::uint32_t, std::uint64_t*) { count += name == kernel; }
}  // namespace launches

// How many times `steps` SIR steps on `graph` launch `kernel` (by default, marking the spreaders),
// the loop prepared as herd::run does.
template <class Graph>
int spreader_marks(Graph const& graph, bool spreader_bits, int steps, bool weight_codes = true,
                   char const* kernel = "herd::step::spreaders") {
  using Exec = Kokkos::DefaultExecutionSpace;
  StepOptions options;
  options.spreader_bits = spreader_bits;
  options.weight_codes = weight_codes;
  Simulation<Exec, typename Graph::weight_storage> sim(Exec(), graph, 7, options);
  SeirParameters params;
  params.initial_infected = 1;
  Seir<> model(graph.num_agents(), params);
  model.initialise(sim, graph.num_agents());
  sim.prepare(model);
  namespace tools = Kokkos::Tools::Experimental;
  auto const before = tools::get_callbacks();
  auto counting = before;
  counting.begin_parallel_for = launches::on_parallel_for;
  launches::name = kernel;
  launches::count = 0;
  tools::set_callbacks(counting);
  for (int t = 0; t < steps; ++t) {
    model.step(sim);
    sim.end_step();
  }
  tools::set_callbacks(before);
  return launches::count;
}

// A pull step of SIR marks the spreaders once on an unweighted graph, and on a weighted one whose
// weights it codes (with the table of each code's contribution); with the codes off, on a weighted
// graph only on a GPU; not when told to read the states.
TEST(Engine, PullStepsMarkSpreadersOncePerStep) {
  using Exec = Kokkos::DefaultExecutionSpace;
  auto const unweighted = herd::test::generated_graph<Exec>(ErdosRenyi{5000, 8.0}, 2);
  EXPECT_EQ(spreader_marks(unweighted, true, 6), 6);
  EXPECT_EQ(spreader_marks(unweighted, false, 6), 0);
  EXPECT_EQ(spreader_marks(unweighted, true, 6, true, "herd::step::contribution_by_code"), 0);
  auto const weighted = build_csr(Exec(), herd::test::edge_list<Exec>(3, {0, 1}, {1, 2}, {0.5f, 0.25f}));
  EXPECT_EQ(spreader_marks(weighted, true, 6), 6);
  EXPECT_EQ(spreader_marks(weighted, true, 6, true, "herd::step::contribution_by_code"), 6);
  EXPECT_EQ(spreader_marks(weighted, true, 6, false), Details::runs_on_host_v<Exec> ? 0 : 6);
  EXPECT_EQ(spreader_marks(weighted, true, 6, false, "herd::step::contribution_by_code"), 0);
  EXPECT_EQ(spreader_marks(weighted, false, 6), 0);
}

// Spreads where a View says so; each spreading neighbour contributes 1.
template <class MemorySpace>
struct MarkedSpreaders {
  Kokkos::View<std::uint8_t*, MemorySpace> spreads;
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    return spreads(i) ? activity::spreads : activity::receives;
  }
  template <class Weight>
  KOKKOS_INLINE_FUNCTION std::uint64_t contribution(agent_index j, Weight const&) const {
    return spreads(j);
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t spreader_contribution() const { return 1; }
};

// Marking a range of agents sets their bits and rewrites whole words: marking the owned agents,
// then the ghosts after them (as a distributed step does), gives every agent's bit, where the two
// ranges share a word and in the last, partial word.
TYPED_TEST(Engine, SpreaderBitsMarkedInTwoRangesHoldEveryAgent) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  constexpr agent_index agents = 1000, owned = 517;  // neither a multiple of 32
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 4.0}, 3);
  MarkedSpreaders<Mem> const phase{Kokkos::View<std::uint8_t*, Mem>("spreads", agents)};
  auto host = Kokkos::create_mirror_view(phase.spreads);
  for (agent_index i = 0; i < agents; ++i) host(i) = (i * 7919) % 3 == 0;
  Kokkos::deep_copy(phase.spreads, host);
  Details::SpreaderBits<Exec> bits(graph, agents);
  ASSERT_TRUE(bits.template reads_bits<MarkedSpreaders<Mem>>());
  bits.mark(Exec(), phase, 0, owned);
  auto const words = to_vector(bits.mark(Exec(), phase, owned, agents).bits);
  ASSERT_EQ(words.size(), std::size_t{(agents + 31) / 32});
  for (agent_index i = 0; i < agents; ++i) EXPECT_EQ(Details::spreads_bit(words.data(), i), host(i)) << "agent " << i;
  EXPECT_EQ(words.back() >> (agents % 32), 0u) << "no bits past the last agent";
}

// Adds two values an agent's index picks, into rows of `Values` entries.
template <int Values>
struct IndexedObservables {
  static constexpr int num_observables() { return Values; }
  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const {
    totals[i % Values] += 1;
    totals[(i * 7) % Values] += i % 5;
  }
};

template <int Values>
std::vector<std::int64_t> expected_observables(std::vector<agent_index> const& agents) {
  std::vector<std::int64_t> totals(Values, 0);
  for (agent_index const i : agents) {
    totals[static_cast<std::size_t>(i % Values)] += 1;
    totals[static_cast<std::size_t>((i * 7) % Values)] += i % 5;
  }
  return totals;
}

// Observables add up over every agent and over a list, in rows that CPUs keep in per-item lanes
// (3 values) and in rows too long for them (11), for counts that fill no block or lane of agents.
template <class Exec, int Values>
void check_observables() {
  using Mem = typename Exec::memory_space;
  Kokkos::View<std::int64_t*, Mem> row("row", Values);
  for (agent_index const count : {agent_index{0}, agent_index{3}, agent_index{1023}, agent_index{5001}}) {
    std::vector<agent_index> every(static_cast<std::size_t>(count));
    for (agent_index i = 0; i < count; ++i) every[static_cast<std::size_t>(i)] = i;
    Details::observe_agents(Exec(), "observe", IndexedObservables<Values>{}, Details::EveryAgent{}, count, row);
    EXPECT_EQ(to_vector(row), expected_observables<Values>(every)) << count << " agents, " << Values << " values";
    std::vector<agent_index> some;
    for (agent_index i = 0; i < 3 * count; i += 3) some.push_back(i);
    Kokkos::View<agent_index*, Mem> list("list", some.size());
    Kokkos::deep_copy(list,
                      Kokkos::View<agent_index*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(some.data(), some.size()));
    Details::observe_list(Exec(), list, count, IndexedObservables<Values>{}, row);
    EXPECT_EQ(to_vector(row), expected_observables<Values>(some)) << count << " listed, " << Values << " values";
  }
}

TYPED_TEST(Engine, ObservablesAddUpOverEveryAgentAndAList) {
  check_observables<TypeParam, 3>();
  check_observables<TypeParam, 11>();
}

// Kokkos Tools callbacks count allocations and deep copies made while the step loop runs.
TEST(Engine, StepLoopAllocatesAndCopiesNothing) {
  using Exec = Kokkos::DefaultExecutionSpace;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{10000, 8.0}, 2);
  Simulation<Exec> sim(Exec(), graph, 3);
  SeirParameters params;
  Seir<> model(graph.num_agents(), params);
  model.initialise(sim, graph.num_agents());
  History<Exec::memory_space> history("history", 51, model.num_observables());
  MemoryEventCounter counter;
  for (int t = 1; t <= 50; ++t) {
    model.step(sim);
    sim.end_step();
    sim.observe(model, Kokkos::subview(history, t, Kokkos::ALL()));
  }
  Kokkos::fence();
  EXPECT_EQ(counter.events().allocations, 0);
  EXPECT_EQ(counter.events().deep_copies, 0);
}

}  // namespace
