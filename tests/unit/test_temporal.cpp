#include "test_common.hpp"

#include <herd/engine/run.hpp>
#include <herd/io/text/timed_contacts_parser.hpp>
#include <herd/models/seir.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <utility>

namespace {

using namespace herd;
using herd::test::to_vector;

// Contacts among `agents` agents at random times in [0, span), with a quiet stretch (no
// contacts at all) in the middle, as nights are in the SocioPatterns files.
TimedContacts random_contacts(agent_index agents, std::size_t count, std::int64_t span, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<agent_index> agent(0, agents - 1);
  std::uniform_int_distribution<std::int64_t> time(0, span - 1);
  TimedContacts c;
  c.num_agents = agents;
  while (c.size() < count) {
    auto const t = time(rng);
    if (t > span / 2 && t < span / 2 + span / 10) continue;
    c.times.push_back(t + 1000);  // times need not start at 0
    c.first.push_back(agent(rng));
    c.second.push_back(agent(rng));
  }
  return c;
}

// The pairs that met in each window of `window` from the earliest contact, self-contacts dropped.
std::vector<std::set<std::pair<agent_index, agent_index>>> windows_of(TimedContacts const& c, std::int64_t window) {
  auto const start = *std::min_element(c.times.begin(), c.times.end());
  auto const end = *std::max_element(c.times.begin(), c.times.end());
  std::vector<std::set<std::pair<agent_index, agent_index>>> w(static_cast<std::size_t>((end - start) / window + 1));
  for (std::size_t k = 0; k < c.size(); ++k) {
    if (c.first[k] == c.second[k]) continue;
    auto& pairs = w[static_cast<std::size_t>((c.times[k] - start) / window)];
    pairs.emplace(c.first[k], c.second[k]);
    pairs.emplace(c.second[k], c.first[k]);
  }
  return w;
}

// The agents reached from `infected` by time-respecting paths, one hop per window (an agent
// infected in a window spreads from the next), for `steps` steps over the windows.
std::vector<bool> reachable(std::vector<std::set<std::pair<agent_index, agent_index>>> const& windows,
                            std::vector<bool> infected, int steps, AfterLastWindow after) {
  for (int t = 0; t < steps; ++t) {
    auto const w = static_cast<std::size_t>(t);
    if (w >= windows.size() && after == AfterLastWindow::stop) break;
    auto next = infected;
    for (auto const& [i, j] : windows[w % windows.size()])
      if (infected[static_cast<std::size_t>(j)]) next[static_cast<std::size_t>(i)] = true;
    infected = std::move(next);
  }
  return infected;
}

// After one step of SIR (beta, infectious from the start for longer) on the first window of
// `contacts`, in which the even agents are infectious and the odd ones susceptible: the share of
// odd agents infected, per group of `per_k` pairs (2p, 2p + 1).
template <class Exec, class WeightStorage>
std::vector<double> infected_shares(TimedContacts const& contacts, SnapshotWeights weights, double beta,
                                    agent_index per_k) {
  Exec exec;
  Simulation<Exec, WeightStorage> sim(
      exec, build_temporal_network<WeightStorage>(exec, contacts, 1000, AfterLastWindow::stop, weights), 31);
  SeirParameters parameters;
  parameters.beta = beta;
  parameters.infectious = Period::fixed(10);
  parameters.initial_infected = 0;
  Seir<typename Exec::memory_space> model(sim.num_agents(), parameters);
  model.initialise(sim, sim.num_agents());
  Kokkos::parallel_for(
      "test::infect_even", Kokkos::RangePolicy<Exec>(exec, 0, sim.num_agents() / 2),
      KOKKOS_LAMBDA(agent_index p) { model.infect(2 * p); });
  exec.fence();
  run(sim, model, 1);
  auto const state = to_vector(model.state.current());
  std::vector<double> share(state.size() / 2 / static_cast<std::size_t>(per_k), 0.0);
  for (std::size_t i = 1; i < state.size(); i += 2)
    if (state[i] != Seir<typename Exec::memory_space>::susceptible)
      share[(i / 2) / static_cast<std::size_t>(per_k)] += 1;
  for (auto& s : share) s /= per_k;
  return share;
}

template <class ExecutionSpace>
class Temporal : public ::testing::Test {};
TYPED_TEST_SUITE(Temporal, herd::test::ExecutionSpaces);

// Each window's snapshot holds exactly the pairs that met in it, both ways; windows without
// contacts share the empty snapshot, and several batches give the same snapshots as one.
TYPED_TEST(Temporal, SnapshotsHoldEachWindowsPairs) {
  using Exec = TypeParam;
  auto const contacts = random_contacts(300, 20000, 50000, 3);
  std::int64_t const window = 97;
  auto const network = build_temporal_network(Exec(), contacts, window);
  auto const expected = windows_of(contacts, window);
  ASSERT_EQ(network.num_windows(), expected.size());
  EXPECT_EQ(network.num_agents(), 300);
  EXPECT_EQ(network.start, 1000);
  std::size_t empty = 0;
  for (std::size_t w = 0; w < expected.size(); ++w) {
    auto const& g = network.graphs[network.window_graph(w)];
    EXPECT_TRUE(g.symmetric);
    auto const offsets = to_vector(g.row_offsets);
    auto const neighbours = to_vector(g.neighbours);
    std::set<std::pair<agent_index, agent_index>> pairs;
    for (agent_index i = 0; i < g.num_agents(); ++i)
      for (auto e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e)
        pairs.emplace(i, neighbours[e]);
    ASSERT_EQ(pairs, expected[w]) << "window " << w;
    ASSERT_EQ(pairs.size(), neighbours.size()) << "window " << w << " has a duplicate";
    if (expected[w].empty()) {
      EXPECT_EQ(network.window_graph(w), 0u);
      ++empty;
    }
  }
  EXPECT_GT(empty, 40u) << "the quiet stretch has empty windows";
  EXPECT_EQ(network.graphs.size(), expected.size() - empty + 1);
}

// Weighted by contacts, each window's snapshot holds the pairs that met in it, both ways, each
// weighing the lines that joined the two in the window, in either order; the empty snapshot and
// the unweighted build stay unweighted.
TYPED_TEST(Temporal, ContactWeightsCountEachPairsContactsInTheWindow) {
  using Exec = TypeParam;
  auto const contacts = random_contacts(60, 20000, 50000, 5);  // few agents: pairs meet often
  std::int64_t const window = 397;
  auto const network =
      build_temporal_network(Exec(), contacts, window, AfterLastWindow::loop, SnapshotWeights::contacts);
  auto const pairs = windows_of(contacts, window);
  std::vector<std::map<std::pair<agent_index, agent_index>, float>> expected(pairs.size());
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    if (contacts.first[k] == contacts.second[k]) continue;
    auto& counts = expected[static_cast<std::size_t>((contacts.times[k] - 1000) / window)];
    counts[{contacts.first[k], contacts.second[k]}] += 1.0f;
    counts[{contacts.second[k], contacts.first[k]}] += 1.0f;
  }
  ASSERT_EQ(network.num_windows(), expected.size());
  EXPECT_FALSE(network.graphs[0].weighted());
  float heaviest = 0.0f;
  for (std::size_t w = 0; w < expected.size(); ++w) {
    auto const& g = network.graphs[network.window_graph(w)];
    auto const offsets = to_vector(g.row_offsets);
    auto const neighbours = to_vector(g.neighbours);
    ASSERT_EQ(g.weighted(), !expected[w].empty()) << "window " << w;
    auto const weights = to_vector(g.weights);
    std::map<std::pair<agent_index, agent_index>, float> found;
    for (agent_index i = 0; i < g.num_agents(); ++i)
      for (auto e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e)
        found[{i, neighbours[e]}] += weights[e];
    ASSERT_EQ(found, expected[w]) << "window " << w;
    ASSERT_EQ(found.size(), neighbours.size()) << "window " << w << " has a duplicate";
    for (auto const& [pair, count] : found) heaviest = std::max(heaviest, count);
  }
  EXPECT_GE(heaviest, 3.0f) << "some pairs meet several times in a window";
  for (auto const& g : build_temporal_network(Exec(), contacts, window).graphs) EXPECT_FALSE(g.weighted());
}

// A susceptible agent whose one infectious neighbour met it k times in the window is infected
// with probability min(1, beta k) with contact weights, and beta without: checked on 10^4 pairs
// per k, within 4 binomial standard deviations, on one process and on half-precision weights.
TYPED_TEST(Temporal, ContactWeightsMakeInfectionFollowTheTimeSpentTogether) {
  using Exec = TypeParam;
  std::vector<int> const meetings = {1, 4, 12, 30};
  agent_index const per_k = 10000;
  double const beta = 0.05;
  TimedContacts contacts;
  contacts.num_agents = 2 * per_k * static_cast<agent_index>(meetings.size());
  // Pair p joins agents 2p (infectious) and 2p + 1 (susceptible), k times in the first window,
  // named in both orders.
  for (std::size_t g = 0; g < meetings.size(); ++g)
    for (agent_index q = 0; q < per_k; ++q) {
      auto const p = static_cast<agent_index>(g) * per_k + q;
      for (int c = 0; c < meetings[g]; ++c) {
        contacts.times.push_back(20 * c);
        contacts.first.push_back(c % 2 == 0 ? 2 * p : 2 * p + 1);
        contacts.second.push_back(c % 2 == 0 ? 2 * p + 1 : 2 * p);
      }
    }
  for (auto weights : {SnapshotWeights::contacts, SnapshotWeights::met}) {
    auto const by_float = infected_shares<Exec, float>(contacts, weights, beta, per_k);
    EXPECT_EQ((infected_shares<Exec, herd::half>(contacts, weights, beta, per_k)), by_float)
        << "counts are exact in half precision";
    for (std::size_t g = 0; g < meetings.size(); ++g) {
      double const p = weights == SnapshotWeights::met ? beta : std::min(1.0, beta * meetings[g]);
      double const tolerance = 4.0 * std::sqrt(p * (1.0 - p) / per_k);
      EXPECT_NEAR(by_float[g], p, tolerance)
          << meetings[g] << " contacts, " << (weights == SnapshotWeights::met ? "met" : "contacts");
    }
  }
}

// With beta 1 and agents infectious for longer than the run, the agents ever infected are exactly those that
// time-respecting paths reach from the first infected, one hop per window: after the windows,
// on again from the first (loop) or with no contacts (stop).
TYPED_TEST(Temporal, InfectionsFollowTimeRespectingPaths) {
  using Exec = TypeParam;
  auto const contacts = random_contacts(400, 500, 20000, 11);
  std::int64_t const window = 100;
  auto const windows = windows_of(contacts, window);
  std::vector<std::size_t> reached_by;
  for (auto after : {AfterLastWindow::loop, AfterLastWindow::stop}) {
    Exec exec;
    Simulation<Exec> sim(exec, build_temporal_network(exec, contacts, window, after), 5);
    SeirParameters p;
    p.beta = 1.0;
    int const steps = static_cast<int>(windows.size()) + 60;  // past the last window
    p.infectious = Period::fixed(steps + 1);
    p.initial_infected = 3;
    Seir<typename Exec::memory_space> model(sim.num_agents(), p);
    model.initialise(sim, sim.num_agents());
    auto const start = to_vector(model.state.current());
    std::vector<bool> seeds;
    for (auto s : start) seeds.push_back(s == Seir<typename Exec::memory_space>::infectious);
    ASSERT_EQ(std::count(seeds.begin(), seeds.end(), true), 3);
    run(sim, model, steps);
    auto const end = to_vector(model.state.current());
    auto const expected = reachable(windows, seeds, steps, after);
    std::size_t reached = 0;
    for (std::size_t i = 0; i < end.size(); ++i) {
      ASSERT_EQ(end[i] != Seir<typename Exec::memory_space>::susceptible, expected[i])
          << "agent " << i << (after == AfterLastWindow::loop ? " (loop)" : " (stop)");
      reached += expected[i] ? 1 : 0;
    }
    // Not a trivial case: paths reach far, but not everyone.
    EXPECT_GT(reached, 20u);
    EXPECT_LT(reached, 400u);
    reached_by.push_back(reached);
  }
  EXPECT_GT(reached_by[0], reached_by[1]) << "looping reaches more than stopping";
}

// Step t (from 1) reads window t - 1; after the last window, the first again or none.
TYPED_TEST(Temporal, StepTReadsWindowTMinusOne) {
  using Exec = TypeParam;
  auto const contacts = random_contacts(100, 400, 5000, 23);
  for (auto after : {AfterLastWindow::loop, AfterLastWindow::stop}) {
    Exec exec;
    auto const network = build_temporal_network(exec, contacts, 50, after);
    Simulation<Exec> sim(exec, network, 1);
    auto const windows = network.num_windows();
    for (std::uint32_t t = 1; t <= 2 * windows + 1; ++t) {
      sim.set_step(t - 1);  // t - 1 steps done: step t is next
      auto const w = (t - 1) % windows;
      auto const expected = t > windows && after == AfterLastWindow::stop ? 0u : network.window_graph(w);
      ASSERT_EQ(sim.graph().neighbours.data(), network.graphs[expected].neighbours.data()) << "step " << t;
      ASSERT_EQ(sim.graph().row_offsets.data(), network.graphs[expected].row_offsets.data()) << "step " << t;
    }
  }
}

// Same seed, same bits: stepped in one run or in pieces, and Stepping::automatic pulls.
TYPED_TEST(Temporal, RunsInPiecesGiveTheSameBits) {
  using Exec = TypeParam;
  auto const contacts = random_contacts(500, 8000, 30000, 17);
  auto const network = build_temporal_network(Exec(), contacts, 60);
  SeirParameters p;
  p.beta = 0.3;
  p.infectious = Period::fixed(20);
  p.initial_infected = 5;
  auto const states = [&](std::vector<int> const& pieces) {
    Exec exec;
    Simulation<Exec> sim(exec, network, 8);
    Seir<typename Exec::memory_space> model(sim.num_agents(), p);
    model.initialise(sim, sim.num_agents());
    for (int steps : pieces) run(sim, model, steps);
    return to_vector(model.state.current());
  };
  auto const whole = states({700});
  EXPECT_EQ(states({123, 400, 177}), whole);
  EXPECT_NE(std::count(whole.begin(), whole.end(), Seir<typename Exec::memory_space>::recovered), 0);
}

TYPED_TEST(Temporal, ActiveSteppingAndBadWindowsAreRefused) {
  using Exec = TypeParam;
  auto const contacts = random_contacts(50, 100, 1000, 1);
  EXPECT_THROW(build_temporal_network(Exec(), contacts, 0), Error);
  auto bad = contacts;
  bad.second[7] = 50;
  EXPECT_THROW(build_temporal_network(Exec(), bad, 10), Error);
  // Times 2^64 - 1 apart: 2^64 windows of 1, a count that wraps to 0 in 64 bits.
  TimedContacts far;
  far.num_agents = 3;
  far.times = {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  far.first = {0, 1};
  far.second = {1, 2};
  try {
    (void)build_temporal_network(Exec(), far, 1);
    ADD_FAILURE() << "2^64 windows were built";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("18446744073709551616 windows of 1"), std::string::npos) << e.what();
  }
  Exec exec;
  EXPECT_THROW(Simulation<Exec>(exec, build_temporal_network(exec, contacts, 10), 1,
                                herd::test::stepping_options(Stepping::active)),
               Error);
}

// Two contacts a million windows apart: the windows between them read the empty snapshot and
// hold nothing, and the fingerprint is still the one taken window by window.
TEST(TemporalNetworkWindows, EmptyWindowsBetweenContactsHoldNothing) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  Exec exec;
  TimedContacts contacts;
  contacts.num_agents = 4;
  std::uint64_t const span = 1000000;
  contacts.times = {0, static_cast<std::int64_t>(span)};
  contacts.first = {1, 2};
  contacts.second = {2, 3};
  auto const network = build_temporal_network(exec, contacts, 1);
  EXPECT_EQ(network.num_windows(), span + 1);
  EXPECT_EQ(network.busy, (std::vector<std::uint64_t>{0, span}));
  ASSERT_EQ(network.graphs.size(), 3u);
  EXPECT_EQ(network.graph_of_step(1), 1u);
  EXPECT_EQ(network.graph_of_step(2), 0u);
  EXPECT_EQ(network.graph_of_step(span), 0u);
  EXPECT_EQ(network.graph_of_step(span + 1), 2u);
  EXPECT_EQ(network.graph_of_step(span + 2), 1u) << "the windows loop";
  std::vector<std::uint64_t> snapshots;
  for (auto const& g : network.graphs) snapshots.push_back(graph_hash(exec, g));
  std::uint64_t expected = Details::mix64((span + 1) << 1);
  for (std::uint64_t w = 0; w <= span; ++w)
    expected = Details::mix64(expected ^ snapshots[w == 0 ? 1 : w == span ? 2 : 0]);
  EXPECT_EQ(graph_hash(exec, network), expected);
}

// A window whose only contacts are of agents with themselves makes no contacts: it is not busy
// and reads the empty snapshot, while the windows still run to the latest contact's, a self-contact.
TEST(TemporalNetworkWindows, WindowsOfSelfContactsAloneAreEmpty) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  Exec exec;
  TimedContacts contacts;
  contacts.num_agents = 8;
  contacts.times = {0, 7, 12, 13, 25, 39};
  contacts.first = {5, 1, 2, 3, 6, 7};
  contacts.second = {5, 2, 3, 6, 7, 7};
  EXPECT_EQ(herd::windows_with_contacts(contacts, 10), 3u);
  auto const network = build_temporal_network(exec, contacts, 10);
  EXPECT_EQ(network.num_windows(), 4u);
  EXPECT_EQ(network.busy, (std::vector<std::uint64_t>{0, 1, 2}));
  ASSERT_EQ(network.graphs.size(), 4u);
  EXPECT_EQ(network.graph_of_step(4), 0u);
  EXPECT_EQ(network.graph_of_step(5), 1u) << "the four windows loop";
  // Self-contacts alone: windows, none busy.
  TimedContacts alone;
  alone.num_agents = 2;
  alone.times = {3, 30};
  alone.first = {0, 1};
  alone.second = {0, 1};
  auto const empty = build_temporal_network(exec, alone, 10);
  EXPECT_EQ(empty.num_windows(), 3u);
  EXPECT_TRUE(empty.busy.empty());
  EXPECT_EQ(empty.graphs.size(), 1u);
}

TEST(TimedContactsFile, ReadsSocioPatternsLines) {
  auto const c = parse_timed_contacts("# t i j\n31220\t1558\t1567\n31240 1560 1570 1B 1B\n\n31220,1567,1558\n", "tij");
  EXPECT_EQ(c.num_agents, 4);
  EXPECT_EQ(c.ids, (std::vector<global_id>{1558, 1560, 1567, 1570}));
  EXPECT_EQ(c.times, (std::vector<std::int64_t>{31220, 31240, 31220}));
  EXPECT_EQ(c.first, (std::vector<agent_index>{0, 1, 2}));
  EXPECT_EQ(c.second, (std::vector<agent_index>{2, 3, 0}));
}

TEST(TimedContactsFile, NamesTheBadLine) {
  auto const message = [](std::string const& text) {
    try {
      parse_timed_contacts(text, "tij.dat");
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("1 2 3\n20 4\n"), "tij.dat:2: expected a time and two agent ids (a line is: time id id)");
  EXPECT_EQ(message("1 2 3\nx 4 5\n"), "tij.dat:2: the time 'x' is not an integer (a line is: time id id)");
  EXPECT_EQ(message("1 -2 3\n"), "tij.dat:1: the agent id '-2' is not a non-negative integer (a line is: time id id)");
  EXPECT_EQ(message("# nothing\n"), "tij.dat: no contacts (a line is: time id id)");
  // Numbers beyond 64 bits are named as such, not as malformed.
  EXPECT_EQ(message("1 2 3\n5 9223372036854775808 1\n"),
            "tij.dat:2: the agent id '9223372036854775808' exceeds the largest id read, 2^63 - 1 (a line is: time id "
            "id)");
  EXPECT_EQ(message("1 2 -9223372036854775809\n"),
            "tij.dat:1: the agent id '-9223372036854775809' is not a non-negative integer (a line is: time id id)");
  EXPECT_EQ(message("99999999999999999999 2 3\n"),
            "tij.dat:1: the time '99999999999999999999' lies outside the times read, -2^63 to 2^63 - 1 (a line is: "
            "time id id)");
  // Lines ended by a carriage return alone would read as one contact with further columns.
  EXPECT_EQ(message("1 2 3\r\n0 1 2\r20 3 4\r40 5 6\r"),
            "tij.dat:2: a carriage return inside the line (lines end with a line feed, or CR LF) (a line is: time id "
            "id)");
  EXPECT_EQ(message("1 2 3\r\n20 3 4\r\n"), "no error");
}

}  // namespace
