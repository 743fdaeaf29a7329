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
  typename Kokkos::View<edge_offset*, MemorySpace>::HostMirror pair_start_host;  ///< where a slice's households begin
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

// The contacts of `groups` numbered [from, to) in this layer, into `out` from index `at` on: a
// thread per member, which finds its group once for its contacts.
template <class ExecutionSpace, class Out>
void group_edges(ExecutionSpace const& exec, HomeGroups<typename ExecutionSpace::memory_space> const& groups,
                 CounterRng const& rng, std::size_t from, std::size_t to, std::size_t at, Out const& out,
                 layer_index layer) {
  if (from >= to) return;
  std::size_t const contacts = groups.contacts;
  auto const offsets = groups.offsets;
  auto const members = groups.members;
  auto const block = groups.block;
  auto const stream = groups.stream;
  float const weight = groups.weight;
  std::size_t const group_count = offsets.extent(0) - 1;
  Kokkos::parallel_for(
      "herd::population_part::group_edges",
      Kokkos::RangePolicy<ExecutionSpace>(exec, from / contacts, (to - 1) / contacts + 1),
      KOKKOS_LAMBDA(std::size_t m) {
        auto const e = static_cast<edge_offset>(m);
        std::size_t const g = last_at_most(offsets, group_count, e);
        std::size_t const j0 = m * contacts > from ? m * contacts : from;
        std::size_t const j1 = (m + 1) * contacts < to ? (m + 1) * contacts : to;
        for (std::size_t j = j0; j < j1; ++j) {
          auto const c = static_cast<std::uint32_t>(j - m * contacts);
          out.put(at + (j - from), members(e),
                  herd::Details::group_contact(rng, members, offsets(g), offsets(g + 1), e, block, stream, c), weight,
                  layer);
        }
      });
}

// Where part_edges writes: edge i of the slice.
template <class MemorySpace>
struct SliceOut {
  Kokkos::View<global_id*, MemorySpace> sources, targets;
  Kokkos::View<float*, MemorySpace> weights;
  Kokkos::View<layer_index*, MemorySpace> layers;
  KOKKOS_INLINE_FUNCTION void put(std::size_t i, global_id source, global_id target, float weight,
                                  layer_index layer) const {
    sources(i) = source;
    targets(i) = target;
    weights(i) = weight;
    layers(i) = layer;
  }
};

// Edges [first, first + count) of this rank's part. Each kernel takes a unit whose edges are
// consecutive (a household, a group member), so that a thread finds its unit once, not per edge.
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> part_edges(ExecutionSpace const& exec,
                                                           PartMaker<typename ExecutionSpace::memory_space> const& make,
                                                           std::size_t homes, std::size_t first, std::size_t count) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
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
  if (count == 0) return edges;
  SliceOut<memory_space> const out{edges.sources, edges.targets, edges.weights, edges.layers};
  std::size_t const end = first + count;
  std::size_t const school = make.school.edges(), work = make.work.edges();
  std::size_t const households = make.first.extent(0) - 1;
  // Households' pairs: those of the households from the one holding pair `first` on.
  if (first < homes) {
    std::size_t const last = end < homes ? end : homes;
    auto const& starts = make.pair_start_host;
    std::size_t const k0 = last_at_most(starts, households, first), k1 = last_at_most(starts, households, last - 1);
    auto const pair_start = make.pair_start;
    auto const begins = make.first;
    auto const n = make.agents;
    float const weight = make.household_weight;
    Kokkos::parallel_for(
        "herd::population_part::household_edges", policy(exec, k0, k1 + 1), KOKKOS_LAMBDA(std::size_t k) {
          global_id const begin = begins(k), stop = begins(k + 1) < n ? begins(k + 1) : n;
          // Its members' pairs (a, b), a < b, in order.
          auto j = static_cast<std::size_t>(pair_start(k));
          for (global_id a = begin; a < stop && j < last; ++a)
            for (global_id b = a + 1; b < stop && j < last; ++b, ++j)
              if (j >= first) out.put(j - first, a, b, weight, static_cast<layer_index>(PopulationLayer::household));
        });
  }
  auto const clip = [&](std::size_t from, std::size_t size) {
    return std::make_pair(first > from ? first - from : 0, end - from < size ? end - from : size);
  };
  if (first < homes + school && end > homes) {
    auto const range = clip(homes, school);
    std::size_t const from = range.first, to = range.second;
    group_edges(exec, make.school, make.rng, from, to, homes + from - first, out,
                static_cast<layer_index>(PopulationLayer::school));
  }
  if (first < homes + school + work && end > homes + school) {
    auto const range = clip(homes + school, work);
    std::size_t const from = range.first, to = range.second;
    group_edges(exec, make.work, make.rng, from, to, homes + school + from - first, out,
                static_cast<layer_index>(PopulationLayer::workplace));
  }
  std::size_t const before = homes + school + work;
  if (end > before) {
    auto const range = clip(before, make.community_count);
    std::size_t const from = range.first, to = range.second;
    auto const rng = make.rng;
    auto const n = static_cast<std::uint64_t>(make.agents);
    global_id const community_first = make.community_first;
    float const weight = make.community_weight;
    std::size_t const at = before + from - first;
    Kokkos::parallel_for(
        "herd::population_part::community_edges", policy(exec, from, to), KOKKOS_LAMBDA(std::size_t c) {
          global_id const id = community_first + static_cast<global_id>(c);
          out.put(at + (c - from), herd::Details::random_end(rng, id, herd::Details::community, 0, n),
                  herd::Details::random_end(rng, id, herd::Details::community, 1, n), weight,
                  static_cast<layer_index>(PopulationLayer::community));
        });
  }
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

  make.pair_start_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), make.pair_start);
  std::size_t const homes = make.pair_start_host(make.pair_start_host.extent(0) - 1);
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
