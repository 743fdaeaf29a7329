#include <herd/mpi/distributed_population.hpp>

#include "blocks.hpp"
#include "exchange.hpp"

#include "../kernels/graph/population_draws.hpp"
#include "../kernels/graph/scan.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/io/device_copy.hpp>
#include <herd/mpi/collective.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace herd::mpi {

// Not an anonymous namespace: CUDA's extended lambdas need enclosing functions with external linkage.
namespace Details {

using herd::Details::HouseholdDraws;
using herd::Details::LayerDraws;
using herd::Details::LayerSpec;

// The members of the groups of one layer whose home is this rank, as a CSR (row = group of the
// rank's block of groups, members ascending), with the layer's contact parameters.
template <class MemorySpace>
struct HomeGroups {
  Kokkos::View<edge_offset*, MemorySpace> offsets;
  Kokkos::View<agent_index*, MemorySpace> members;
  agent_index block = 1;
  std::size_t contacts = 0;
  std::uint32_t stream = 0;
  float weight = 0.0f;
  std::size_t edges() const { return members.extent(0) * contacts; }
};

// What this rank needs to make its edges, any slice of them alone: the households whose first
// member it owns, its home groups, and its range of community contacts. Edges are numbered
// households' pairs first, then school, workplace and community contacts.
template <class MemorySpace>
struct PartMaker {
  global_id agents = 0;
  CounterRng rng{0};
  // Household k's members are [first(k), min(first(k + 1), agents)); its pairs begin at
  // pair_start(k) (both one longer than the households).
  Kokkos::View<global_id*, MemorySpace> first;
  Kokkos::View<edge_offset*, MemorySpace> pair_start;
  float household_weight = 0.0f;
  HomeGroups<MemorySpace> school, work;
  global_id community_first = 0;
  std::size_t community_count = 0;
  float community_weight = 0.0f;
};

// The last k in [0, size) with values(k) <= x, for values ascending from values(0) <= x.
template <class View, class T>
KOKKOS_INLINE_FUNCTION std::size_t last_at_most(View const& values, std::size_t size, T x) {
  std::size_t lo = 0, hi = size;
  while (hi - lo > 1) {
    std::size_t const mid = lo + (hi - lo) / 2;
    if (values(mid) <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

template <class MemorySpace>
KOKKOS_INLINE_FUNCTION void group_edge(HomeGroups<MemorySpace> const& groups, CounterRng const& rng, std::size_t j,
                                       global_id& source, global_id& target) {
  edge_offset const e = j / groups.contacts;
  auto const c = static_cast<std::uint32_t>(j % groups.contacts);
  std::size_t const g = last_at_most(groups.offsets, groups.offsets.extent(0) - 1, e);
  source = groups.members(e);
  target = herd::Details::group_contact(rng, groups.members, groups.offsets(g), groups.offsets(g + 1), e, groups.block,
                                        groups.stream, c);
}

// Edges [first, first + count) of this rank's part.
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> part_edges(ExecutionSpace const& exec,
                                                           PartMaker<typename ExecutionSpace::memory_space> const& make,
                                                           std::size_t homes, std::size_t first, std::size_t count) {
  using memory_space = typename ExecutionSpace::memory_space;
  EdgeList<memory_space> edges;
  edges.num_agents = static_cast<agent_index>(make.agents);
  edges.sources = Kokkos::View<global_id*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::sources"), count);
  edges.targets = Kokkos::View<global_id*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::targets"), count);
  edges.weights = Kokkos::View<float*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::weights"), count);
  edges.layers = Kokkos::View<layer_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::layers"), count);
  auto sources = edges.sources;
  auto targets = edges.targets;
  auto weights = edges.weights;
  auto layers = edges.layers;
  std::size_t const school = make.school.edges(), work = make.work.edges();
  std::size_t const households = make.first.extent(0) - 1;
  auto const n = static_cast<std::uint64_t>(make.agents);
  Kokkos::parallel_for(
      "herd::population_part::edges", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(std::size_t i) {
        std::size_t const j = first + i;
        global_id source = 0, target = 0;
        float weight = 0.0f;
        auto layer = PopulationLayer::household;
        if (j < homes) {
          // Pair p of household k: its members' pairs (a, b), a < b, in order.
          std::size_t const k = last_at_most(make.pair_start, households, j);
          auto p = static_cast<global_id>(j - make.pair_start(k));
          global_id const begin = make.first(k);
          global_id const end = make.first(k + 1) < make.agents ? make.first(k + 1) : make.agents;
          global_id a = 0;
          for (global_id row = end - begin - 1; p >= row; --row, ++a) p -= row;
          source = begin + a;
          target = begin + a + 1 + p;
          weight = make.household_weight;
        } else if (j < homes + school) {
          group_edge(make.school, make.rng, j - homes, source, target);
          weight = make.school.weight;
          layer = PopulationLayer::school;
        } else if (j < homes + school + work) {
          group_edge(make.work, make.rng, j - homes - school, source, target);
          weight = make.work.weight;
          layer = PopulationLayer::workplace;
        } else {
          global_id const id = make.community_first + static_cast<global_id>(j - homes - school - work);
          source = herd::Details::random_end(make.rng, id, herd::Details::community, 0, n);
          target = herd::Details::random_end(make.rng, id, herd::Details::community, 1, n);
          weight = make.community_weight;
          layer = PopulationLayer::community;
        }
        sources(i) = source;
        targets(i) = target;
        weights(i) = weight;
        layers(i) = static_cast<layer_index>(layer);
      });
  return edges;
}

// Scans households [w0, w1), the first beginning at agent `base`, which hold the rank's agents
// [a0, a1). Fills `age` and `household` of those agents, and `make`'s households (those whose first
// member the rank owns).
template <class ExecutionSpace>
void scan_households(ExecutionSpace const& exec, HouseholdDraws const& draws, global_id n, global_id a0, global_id a1,
                     global_id w0, global_id w1, global_id base, PartMaker<typename ExecutionSpace::memory_space>& make,
                     Kokkos::View<std::uint8_t*, typename ExecutionSpace::memory_space> age,
                     Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> household) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const window = static_cast<std::size_t>(w1 - w0);
  Kokkos::View<global_id*, memory_space> start(Kokkos::ViewAllocateWithoutInitializing("herd::population_part::start"),
                                               window + 1);
  Kokkos::parallel_scan(
      "herd::population_part::household_starts", policy(exec, 0, window + 1),
      KOKKOS_LAMBDA(std::size_t i, global_id & partial, bool final) {
        if (final) start(i) = base + partial;
        if (i < window) partial += draws.size(w0 + static_cast<global_id>(i));
      });
  Kokkos::parallel_for(
      "herd::population_part::members", policy(exec, 0, window), KOKKOS_LAMBDA(std::size_t i) {
        global_id const begin = start(i), end = start(i + 1) < n ? start(i + 1) : n;
        for (global_id a = begin > a0 ? begin : a0; a < (end < a1 ? end : a1); ++a) {
          age(a - a0) = draws.age_of(a, a == begin);
          household(a - a0) = static_cast<agent_index>(w0 + static_cast<global_id>(i));
        }
      });
  // The households whose first member is the rank's: a run of the window, as starts ascend.
  std::size_t below = 0, owned = 0;
  Kokkos::parallel_reduce(
      "herd::population_part::households_before", policy(exec, 0, window),
      KOKKOS_LAMBDA(std::size_t i, std::size_t & count) { count += start(i) < a0; }, below);
  Kokkos::parallel_reduce(
      "herd::population_part::own_households", policy(exec, 0, window),
      KOKKOS_LAMBDA(std::size_t i, std::size_t & count) { count += start(i) >= a0 && start(i) < a1; }, owned);
  make.first = Kokkos::View<global_id*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::first"), owned + 1);
  Kokkos::deep_copy(exec, make.first, Kokkos::subview(start, Kokkos::make_pair(below, below + owned + 1)));
  make.pair_start = Kokkos::View<edge_offset*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::pair_start"), owned + 1);
  auto first = make.first;
  auto pair_start = make.pair_start;
  Kokkos::parallel_scan(
      "herd::population_part::household_pairs", policy(exec, 0, owned + 1),
      KOKKOS_LAMBDA(std::size_t k, edge_offset & partial, bool final) {
        if (final) pair_start(k) = partial;
        if (k < owned) {
          auto const members = static_cast<edge_offset>((first(k + 1) < n ? first(k + 1) : n) - first(k));
          partial += members * (members - 1) / 2;
        }
      });
  exec.fence();
}

// The households that hold this rank's agents: every rank sums the sizes of its block of household
// ids (households are numbered 0 ... n - 1, in the same blocks as agents), which places each
// block's first member; the rank then scans the blocks that can hold its agents.
template <class ExecutionSpace>
void households(ExecutionSpace const& exec, MPI_Comm comm, HouseholdDraws const& draws, Blocks const& blocks,
                PartMaker<typename ExecutionSpace::memory_space>& make,
                Kokkos::View<std::uint8_t*, typename ExecutionSpace::memory_space> age,
                Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> household) {
  int const rank = rank_of(comm), parts = size_of(comm);
  global_id const n = blocks.agents, a0 = blocks.begin(rank), a1 = blocks.begin(rank + 1);
  std::uint64_t mine = 0;
  Kokkos::parallel_reduce(
      "herd::population_part::household_sums", Kokkos::RangePolicy<ExecutionSpace>(exec, a0, a1),
      KOKKOS_LAMBDA(global_id h, std::uint64_t & sum) { sum += draws.size(h); }, mine);
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(parts));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, sums.data(), 1, MPI_UINT64_T, comm);
  std::vector<std::uint64_t> before(sums.size() + 1, 0);
  for (std::size_t q = 0; q < sums.size(); ++q) before[q + 1] = before[q] + sums[q];
  // The block q whose households begin at or before a0 and end after it (blocks are never empty:
  // there are no more ranks than agents). Households grow by at least one agent each, so those
  // holding [a0, a1) lie in [begin(q), begin(q + 1) + (a1 - a0)).
  auto const q = static_cast<int>(
      std::upper_bound(before.begin(), before.begin() + parts, static_cast<std::uint64_t>(a0)) - before.begin() - 1);
  global_id const w0 = blocks.begin(q), w1 = std::min(n, blocks.begin(q + 1) + (a1 - a0));
  auto const base = static_cast<global_id>(before[static_cast<std::size_t>(q)]);
  collectively(comm, [&] { scan_households(exec, draws, n, a0, a1, w0, w1, base, make, age, household); });
}

// One member of a layer on its way to its group's home rank.
struct Member {
  agent_index group;
  agent_index agent;
};

// The rank's members of a layer of `groups` groups, grouped by their groups' home ranks (blocks
// of groups), in ascending id within each; `begin` gets where each home's members begin.
template <class ExecutionSpace>
std::vector<Member> members_by_home(ExecutionSpace const& exec, LayerDraws const& draws, agent_index groups, int parts,
                                    global_id a0,
                                    Kokkos::View<std::uint8_t*, typename ExecutionSpace::memory_space> age,
                                    std::vector<std::size_t>& begin) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const owned = age.extent(0);
  Kokkos::View<agent_index*, memory_space> group_of(
      Kokkos::ViewAllocateWithoutInitializing("herd::population_part::group_of"), owned);
  Kokkos::parallel_for(
      "herd::population_part::choose_group", policy(exec, 0, owned), KOKKOS_LAMBDA(std::size_t i) {
        global_id const a = a0 + static_cast<global_id>(i);
        group_of(i) = draws.joins(a, age(i)) ? draws.group_of(a, groups) : -1;
      });
  auto const chosen = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, group_of);
  Blocks const homes{groups, parts};
  std::vector<std::size_t> counts(static_cast<std::size_t>(parts), 0);
  for (std::size_t i = 0; i < owned; ++i)
    if (chosen(i) >= 0) ++counts[static_cast<std::size_t>(homes.owner(chosen(i)))];
  begin = group_begins(counts);
  std::vector<Member> sent(begin.back());
  auto cursor = begin;
  for (std::size_t i = 0; i < owned; ++i)
    if (chosen(i) >= 0)
      sent[cursor[static_cast<std::size_t>(homes.owner(chosen(i)))]++] = {chosen(i), static_cast<agent_index>(a0 + i)};
  return sent;
}

// The home groups [g0, g0 + home_count) of `received` members, by a stable counting sort by group,
// which keeps each group's members in ascending id.
template <class ExecutionSpace>
HomeGroups<typename ExecutionSpace::memory_space> home_csr(ExecutionSpace const& exec,
                                                           std::vector<Member> const& received, global_id g0,
                                                           std::size_t home_count, LayerSpec const& layer) {
  using memory_space = typename ExecutionSpace::memory_space;
  std::vector<edge_offset> offsets(home_count + 1, 0);
  for (auto const& m : received) ++offsets[static_cast<std::size_t>(m.group - g0) + 1];
  for (std::size_t g = 0; g < home_count; ++g) offsets[g + 1] += offsets[g];
  std::vector<agent_index> listed(received.size());
  auto place = offsets;
  for (auto const& m : received) listed[place[static_cast<std::size_t>(m.group - g0)]++] = m.agent;
  HomeGroups<memory_space> home;
  home.offsets = herd::Details::copy_to<memory_space>(exec, offsets, "herd::population_part::group_offsets");
  home.members = herd::Details::copy_to<memory_space>(exec, listed, "herd::population_part::group_members");
  exec.fence();  // before the host vectors go
  home.block = layer.block;
  home.contacts = static_cast<std::size_t>(layer.contacts);
  home.stream = layer.contact_stream;
  home.weight = layer.weight;
  return home;
}

// The members of `layer`'s groups whose home is this rank. Each rank sends its members in
// ascending id to the homes, so a home receives each group's members in ascending id.
template <class ExecutionSpace>
HomeGroups<typename ExecutionSpace::memory_space> home_groups(
    ExecutionSpace const& exec, MPI_Comm comm, std::uint64_t seed, LayerSpec const& layer, global_id a0,
    Kokkos::View<std::uint8_t*, typename ExecutionSpace::memory_space> age) {
  int const rank = rank_of(comm), parts = size_of(comm);
  LayerDraws const draws(seed, layer);
  std::uint64_t members = 0;
  Kokkos::parallel_reduce(
      "herd::population_part::count_members", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, age.extent(0)),
      KOKKOS_LAMBDA(std::size_t i, std::uint64_t & count) {
        count += draws.joins(a0 + static_cast<global_id>(i), age(i));
      },
      members);
  MPI_Allreduce(MPI_IN_PLACE, &members, 1, MPI_UINT64_T, MPI_SUM, comm);
  agent_index const groups = herd::Details::group_count(members, layer.group_size);
  std::vector<std::size_t> begin, from;
  auto const sent = collectively(comm, [&] { return members_by_home(exec, draws, groups, parts, a0, age, begin); });
  auto const received = exchange(comm, sent, begin, from, "population: a layer's members");
  Blocks const homes{groups, parts};
  return collectively(comm, [&] {
    return home_csr(exec, received, homes.begin(rank), static_cast<std::size_t>(homes.size(rank)), layer);
  });
}

}  // namespace Details

template <class ExecutionSpace>
PopulationPart<typename ExecutionSpace::memory_space> population_part(ExecutionSpace const& exec, MPI_Comm comm,
                                                                      LayeredPopulation const& spec,
                                                                      std::uint64_t seed) {
  using memory_space = typename ExecutionSpace::memory_space;
  herd::Details::check_population(spec);
  herd::Details::ProfilingRegion const region("herd::population_part");
  int const rank = rank_of(comm), parts = size_of(comm);
  collectively(comm, [&] {
    require(spec.agents >= parts, "population: cannot split " + std::to_string(spec.agents) + " agents into " +
                                      std::to_string(parts) +
                                      " parts: every rank needs at least one agent (use fewer ranks)");
  });
  Details::Blocks const blocks{spec.agents, parts};
  global_id const a0 = blocks.begin(rank);
  auto const owned = static_cast<std::size_t>(blocks.size(rank));
  PopulationPart<memory_space> part;
  part.first_agent = a0;
  collectively(comm, [&] {
    part.age_group = Kokkos::View<std::uint8_t*, memory_space>("herd::population_part::age_group", owned);
    part.household = Kokkos::View<agent_index*, memory_space>("herd::population_part::household", owned);
  });

  Details::PartMaker<memory_space> make;
  make.agents = spec.agents;
  make.rng = CounterRng{seed};
  make.household_weight = spec.household_weight;
  Details::households(exec, comm, herd::Details::HouseholdDraws(seed), blocks, make, part.age_group, part.household);
  make.school = Details::home_groups(exec, comm, seed, herd::Details::school_layer(spec), a0, part.age_group);
  make.work = Details::home_groups(exec, comm, seed, herd::Details::workplace_layer(spec), a0, part.age_group);
  auto const random_count = static_cast<global_id>(std::llround(spec.agents * spec.community_degree / 2.0));
  Details::Blocks const community{random_count, parts};
  make.community_first = community.begin(rank);
  make.community_count = static_cast<std::size_t>(community.size(rank));
  make.community_weight = spec.community_weight;

  std::size_t const homes = herd::Details::last_entry(exec, make.pair_start);
  part.edges.agents = spec.agents;
  part.edges.edges = homes + make.school.edges() + make.work.edges() + make.community_count;
  part.edges.weighted = true;
  part.edges.layered = true;
  part.edges.slice = [exec, make, homes](std::size_t first, std::size_t count) {
    return Details::part_edges(exec, make, homes, first, count);
  };
  return part;
}

#define HERD_INSTANTIATE_POPULATION_PART(EXEC)                                                                       \
  template PopulationPart<EXEC::memory_space> population_part<EXEC>(EXEC const&, MPI_Comm, LayeredPopulation const&, \
                                                                    std::uint64_t);

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_POPULATION_PART)

}  // namespace herd::mpi
