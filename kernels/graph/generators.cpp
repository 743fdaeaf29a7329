#include <herd/graph/generators.hpp>

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/portable_math.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/core/random.hpp>
#include <herd/detail/select.hpp>
#include <herd/graph/build_csr.hpp>

#include "population_draws.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace herd {

namespace Details {

inline std::size_t edge_count(agent_index agents, double mean_degree, char const* generator) {
  require(mean_degree > 0.0 && mean_degree <= agents - 1.0,
          std::string(generator) + ": mean degree must lie in (0, agents - 1], got " + number_text(mean_degree));
  return static_cast<std::size_t>(std::llround(agents * mean_degree / 2.0));
}

template <class MemorySpace>
EdgeList<MemorySpace> allocate_edges(agent_index agents, std::size_t count, bool weighted, char const* label) {
  EdgeList<MemorySpace> edges;
  edges.num_agents = agents;
  std::string const prefix = std::string("herd::generate::") + label;
  edges.sources =
      Kokkos::View<global_id*, MemorySpace>(Kokkos::ViewAllocateWithoutInitializing(prefix + "::sources"), count);
  edges.targets =
      Kokkos::View<global_id*, MemorySpace>(Kokkos::ViewAllocateWithoutInitializing(prefix + "::targets"), count);
  if (weighted)
    edges.weights =
        Kokkos::View<float*, MemorySpace>(Kokkos::ViewAllocateWithoutInitializing(prefix + "::weights"), count);
  return edges;
}

// `count` uniformly random pairs, the pairs of ids first_id ... first_id + count - 1, written at
// `first` onwards of `edges` (with `weight` if weighted).
template <class ExecutionSpace>
void random_pairs(ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges,
                  std::size_t first, std::size_t count, std::uint64_t seed, std::uint32_t stream, float weight,
                  std::size_t first_id = 0) {
  CounterRng const rng{seed};
  auto const n = static_cast<std::uint64_t>(edges.num_agents);
  auto sources = edges.sources;
  auto targets = edges.targets;
  auto weights = edges.weights;
  bool const weighted = weights.extent(0) != 0;
  Kokkos::parallel_for(
      "herd::generate::random_pairs", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(std::size_t e) {
        auto const id = static_cast<global_id>(first_id + e);
        sources(first + e) = random_end(rng, id, stream, 0, n);
        targets(first + e) = random_end(rng, id, stream, 1, n);
        if (weighted) weights(first + e) = weight;
      });
}

// Shift that caps the largest expected Chung-Lu degree: with weights (i + shift)^-alpha, agent 0
// expects n c shift^-alpha / sum_i (i + shift)^-alpha neighbours. Shift 1 (weights i^-alpha from
// i = 1, the static model) where its top degree is within the cap: a shift below 1 would make
// agent 0 a hub far above the power law's tail. Else solved by bisection on the host.
inline double power_law_shift(double n, double alpha, double mean_degree, double max_degree) {
  auto expected_top = [&](double shift) {
    double const total = alpha == 1.0
                             ? std::log((n + shift) / shift)
                             : (std::pow(n + shift, 1.0 - alpha) - std::pow(shift, 1.0 - alpha)) / (1.0 - alpha);
    return n * mean_degree * std::pow(shift, -alpha) / (total + 0.5 * std::pow(shift, -alpha));
  };
  if (expected_top(1.0) <= max_degree) return 1.0;
  double lo = 1e-3, hi = 1e12;
  for (int iteration = 0; iteration < 200; ++iteration) {
    double const mid = std::sqrt(lo * hi);
    (expected_top(mid) > max_degree ? lo : hi) = mid;
  }
  // Rounded to 1/1024 so that a last-bit difference between libm versions cannot change the graph.
  return std::round(hi * 1024.0) / 1024.0;
}

// Groups given as a CSR (row = group, entries = members in ascending id): every member links to
// `contacts` random members of its own block of `block` consecutive entries (a class in a school,
// or the whole workplace). Draws that hit the member itself become self-loops, which build_csr
// drops. Writes members * contacts edges from `first` onwards.
template <class ExecutionSpace>
void group_contacts(ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space> const& groups,
                    agent_index block, int contacts, EdgeList<typename ExecutionSpace::memory_space> const& edges,
                    std::size_t first, std::uint64_t seed, std::uint32_t stream, float weight) {
  CounterRng const rng{seed};
  auto offsets = groups.row_offsets;
  auto members = groups.neighbours;
  auto sources = edges.sources;
  auto targets = edges.targets;
  auto weights = edges.weights;
  auto const k = static_cast<edge_offset>(contacts);
  Kokkos::parallel_for(
      "herd::generate::group_contacts", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, groups.num_agents()),
      KOKKOS_LAMBDA(agent_index g) {
        edge_offset const begin = offsets(g), end = offsets(g + 1);
        for (edge_offset e = begin; e < end; ++e) {
          for (edge_offset c = 0; c < k; ++c) {
            edge_offset const slot = first + e * k + c;
            sources(slot) = members(e);
            targets(slot) = group_contact(rng, members, begin, end, e, block, stream, static_cast<std::uint32_t>(c));
            weights(slot) = weight;
          }
        }
      });
}

// Membership CSR of agents flagged in `group_of` (negative: not a member) over `groups` groups.
template <class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space> memberships(
    ExecutionSpace const& exec, Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> group_of,
    agent_index groups) {
  using memory_space = typename ExecutionSpace::memory_space;
  auto const n = static_cast<agent_index>(group_of.extent(0));
  auto const members = select_indices(
      exec, n, KOKKOS_LAMBDA(agent_index a) { return group_of(a) >= 0; }, "herd::generate::members");
  auto const count = members.extent(0);
  auto list = allocate_edges<memory_space>(groups > n ? groups : n, count, false, "memberships");
  auto sources = list.sources;
  auto targets = list.targets;
  Kokkos::parallel_for(
      "herd::generate::member_list", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count), KOKKOS_LAMBDA(std::size_t k) {
        sources(k) = group_of(members(k));
        targets(k) = members(k);
      });
  // Rows are groups and entries agents: group g listing agent g is a member, not a self-loop.
  BuildOptions options;
  options.symmetrise = false;
  options.drop_self_loops = false;
  auto graph = build_csr<float>(exec, list, options);
  // Keep only the group rows: offsets past `groups` are all equal to the entry count.
  graph.row_offsets = Kokkos::subview(graph.row_offsets, Kokkos::make_pair(agent_index{0}, groups + 1));
  return graph;
}

// The parts' edges one after the other, part p's in layer p.
template <class MemorySpace>
EdgeList<MemorySpace> concatenate(agent_index agents, EdgeList<MemorySpace> const* parts, int count) {
  std::size_t total = 0;
  for (int p = 0; p < count; ++p) total += parts[p].size();
  auto all = allocate_edges<MemorySpace>(agents, total, true, "population");
  all.layers = Kokkos::View<layer_index*, MemorySpace>(
      Kokkos::ViewAllocateWithoutInitializing("herd::population::layers"), total);
  std::size_t at = 0;
  for (int p = 0; p < count; ++p) {
    auto const range = Kokkos::make_pair(at, at + parts[p].size());
    Kokkos::deep_copy(Kokkos::subview(all.sources, range), parts[p].sources);
    Kokkos::deep_copy(Kokkos::subview(all.targets, range), parts[p].targets);
    Kokkos::deep_copy(Kokkos::subview(all.weights, range), parts[p].weights);
    Kokkos::deep_copy(Kokkos::subview(all.layers, range), static_cast<layer_index>(p));
    at += parts[p].size();
  }
  return all;
}

// The edges of one contact layer (population_draws.hpp).
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> layer(
    ExecutionSpace const& exec, Kokkos::View<std::uint8_t*, typename ExecutionSpace::memory_space> age,
    std::uint64_t seed, LayerSpec const& spec) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const n = static_cast<agent_index>(age.extent(0));
  LayerDraws const draws(seed, spec);
  agent_index members = 0;
  Kokkos::parallel_reduce(
      "herd::generate::count_members", policy(exec, 0, n),
      KOKKOS_LAMBDA(agent_index a, agent_index & count) {
        if (draws.joins(a, age(a))) ++count;
      },
      members);
  agent_index const groups = group_count(static_cast<std::uint64_t>(members), spec.group_size);
  Kokkos::View<agent_index*, memory_space> group_of(Kokkos::ViewAllocateWithoutInitializing("herd::population::group"),
                                                    n);
  Kokkos::parallel_for(
      "herd::generate::choose_group", policy(exec, 0, n),
      KOKKOS_LAMBDA(agent_index a) { group_of(a) = draws.joins(a, age(a)) ? draws.group_of(a, groups) : -1; });
  auto const member_csr = Details::memberships(exec, group_of, groups);
  auto contacts_list = Details::allocate_edges<memory_space>(
      n, member_csr.num_edges() * static_cast<std::size_t>(spec.contacts), true, "group_contacts");
  Details::group_contacts(exec, member_csr, spec.block, spec.contacts, contacts_list, 0, seed, spec.contact_stream,
                          spec.weight);
  return contacts_list;
}

}  // namespace Details

namespace Details {

// Power-law edges [first, first + count): each end the first agent whose cumulative weight
// exceeds a uniform draw in [0, total).
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> power_law_edges(
    ExecutionSpace const& exec, Kokkos::View<std::uint64_t const*, typename ExecutionSpace::memory_space> cumulative,
    std::uint64_t seed, std::size_t first, std::size_t count) {
  auto const agents = static_cast<agent_index>(cumulative.extent(0));
  auto edges = allocate_edges<typename ExecutionSpace::memory_space>(agents, count, false, "power_law");
  auto sources = edges.sources;
  auto targets = edges.targets;
  CounterRng const rng{seed};
  auto const last = static_cast<std::size_t>(agents - 1);
  std::uint64_t total = 0;
  Kokkos::deep_copy(total, Kokkos::subview(cumulative, last));
  Kokkos::parallel_for(
      "herd::generate::power_law::edges", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(std::size_t k) {
        auto const e = static_cast<global_id>(first + k);
        for (std::uint32_t end = 0; end < 2; ++end) {
          std::uint64_t const u = uniform_below64(rng.bits64(e, 0, random_edges, end), total);
          std::size_t lo = 0, hi = last;
          while (lo < hi) {
            std::size_t const mid = lo + (hi - lo) / 2;
            if (cumulative(mid) > u)
              hi = mid;
            else
              lo = mid + 1;
          }
          (end == 0 ? sources : targets)(k) = static_cast<global_id>(lo);
        }
      });
  return edges;
}

// Watts-Strogatz edges [first, first + count): edge e joins agent e / k to its (e % k + 1)-th
// neighbour on the ring, or to a random agent when rewired.
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> watts_strogatz_edges(ExecutionSpace const& exec,
                                                                     WattsStrogatz const& spec, std::uint64_t seed,
                                                                     std::size_t first, std::size_t count) {
  auto edges = allocate_edges<typename ExecutionSpace::memory_space>(spec.agents, count, false, "watts_strogatz");
  auto sources = edges.sources;
  auto targets = edges.targets;
  CounterRng const rng{seed};
  auto const rewire = to_threshold(spec.rewire);
  auto const n = static_cast<std::uint64_t>(spec.agents);
  auto const k = static_cast<std::size_t>(spec.neighbours_each_side);
  Kokkos::parallel_for(
      "herd::generate::watts_strogatz", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(std::size_t slot) {
        std::size_t const e = first + slot;
        auto const id = static_cast<global_id>(e);
        auto const u = static_cast<std::uint64_t>(e / k);
        std::uint64_t v = (u + e % k + 1) % n;
        if (happens(rng.bits(id, 0, random_edges, 0), rewire))
          v = uniform_below64(rng.bits64(id, 0, random_edges, 1), n);
        sources(slot) = static_cast<global_id>(u);
        targets(slot) = static_cast<global_id>(v);
      });
  return edges;
}

// Erdos-Renyi edges [first, first + count).
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> erdos_renyi_edges(ExecutionSpace const& exec, agent_index agents,
                                                                  std::uint64_t seed, std::size_t first,
                                                                  std::size_t count) {
  auto edges = allocate_edges<typename ExecutionSpace::memory_space>(agents, count, false, "erdos_renyi");
  random_pairs(exec, edges, 0, count, seed, random_edges, 1.0f, first);
  return edges;
}

}  // namespace Details

template <class ExecutionSpace>
EdgeSource<typename ExecutionSpace::memory_space> edge_source(ExecutionSpace const& exec, ErdosRenyi const& spec,
                                                              std::uint64_t seed) {
  Details::check_agents(spec.agents, "erdos-renyi");
  EdgeSource<typename ExecutionSpace::memory_space> source;
  source.agents = spec.agents;
  source.edges = Details::edge_count(spec.agents, spec.mean_degree, "erdos-renyi");
  source.slice = [exec, agents = spec.agents, seed](std::size_t first, std::size_t count) {
    return Details::erdos_renyi_edges(exec, agents, seed, first, count);
  };
  return source;
}

template <class ExecutionSpace>
EdgeSource<typename ExecutionSpace::memory_space> edge_source(ExecutionSpace const& exec, PowerLaw const& spec,
                                                              std::uint64_t seed) {
  using memory_space = typename ExecutionSpace::memory_space;
  Details::check_agents(spec.agents, "power-law");
  auto const m = Details::edge_count(spec.agents, spec.mean_degree, "power-law");
  require(spec.exponent > 2.0 && spec.exponent <= 10.0,
          "power-law: the exponent must lie in (2, 10], got " + number_text(spec.exponent));
  double const n = spec.agents;
  double max_degree = spec.max_degree > 0.0 ? spec.max_degree : std::min(spec.mean_degree * std::sqrt(n), n / 4.0);
  require(max_degree <= n - 1.0, "power-law: max degree " + number_text(max_degree) + " exceeds agents - 1");
  max_degree = std::max(max_degree, spec.mean_degree);
  double const alpha = 1.0 / (spec.exponent - 1.0);
  double const shift = Details::power_law_shift(n, alpha, spec.mean_degree, max_degree);
  double const log_shift = portable::log(shift);

  // Cumulative weights in 32.32 fixed point: an integer scan gives the same sums in any order.
  // Every slice searches them all, so they are kept (8 bytes per agent) while the source lives.
  Kokkos::View<std::uint64_t*, memory_space> cumulative(
      Kokkos::ViewAllocateWithoutInitializing("herd::generate::power_law::cumulative"), spec.agents);
  Kokkos::parallel_scan(
      "herd::generate::power_law::weights", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, spec.agents),
      KOKKOS_LAMBDA(agent_index i, std::uint64_t & partial, bool final) {
        double const relative = portable::exp_neg(alpha * (portable::log(i + shift) - log_shift));
        partial += static_cast<std::uint64_t>(relative * 4294967296.0) + 1;
        if (final) cumulative(i) = partial;
      });
  exec.fence();
  EdgeSource<memory_space> source;
  source.agents = spec.agents;
  source.edges = m;
  source.slice = [exec, cumulative, seed](std::size_t first, std::size_t count) {
    return Details::power_law_edges(exec, Kokkos::View<std::uint64_t const*, memory_space>(cumulative), seed, first,
                                    count);
  };
  return source;
}

template <class ExecutionSpace>
EdgeSource<typename ExecutionSpace::memory_space> edge_source(ExecutionSpace const& exec, WattsStrogatz const& spec,
                                                              std::uint64_t seed) {
  Details::check_agents(spec.agents, "watts-strogatz");
  auto const k = spec.neighbours_each_side;
  require(k >= 1 && 2.0 * k < spec.agents,
          "watts-strogatz: neighbours on each side must lie in [1, agents / 2), got " + std::to_string(k));
  require(spec.rewire >= 0.0 && spec.rewire <= 1.0,
          "watts-strogatz: the rewiring probability must lie in [0, 1], got " + number_text(spec.rewire));
  EdgeSource<typename ExecutionSpace::memory_space> source;
  source.agents = spec.agents;
  source.edges = static_cast<std::size_t>(spec.agents) * static_cast<std::size_t>(k);
  source.slice = [exec, spec, seed](std::size_t first, std::size_t count) {
    return Details::watts_strogatz_edges(exec, spec, seed, first, count);
  };
  return source;
}

template <class ExecutionSpace, class Spec>
EdgeList<typename ExecutionSpace::memory_space> generate_edges(ExecutionSpace const& exec, Spec const& spec,
                                                               std::uint64_t seed) {
  auto const source = edge_source(exec, spec, seed);
  Details::ProfilingRegion const region("herd::generate::edges");
  return source.slice(0, source.edges);
}

template <class ExecutionSpace>
Population<typename ExecutionSpace::memory_space> generate_population(ExecutionSpace const& exec,
                                                                      LayeredPopulation const& spec,
                                                                      std::uint64_t seed) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  Details::check_population(spec);
  Details::ProfilingRegion const region("herd::generate::population");
  agent_index const n = spec.agents;
  Population<memory_space> population;
  population.age_group = Kokkos::View<std::uint8_t*, memory_space>("herd::population::age_group", n);
  population.household = Kokkos::View<agent_index*, memory_space>("herd::population::household", n);
  auto age = population.age_group;
  auto household = population.household;

  // Households in agent order; there are at most n households.
  Kokkos::View<edge_offset*, memory_space> start(Kokkos::ViewAllocateWithoutInitializing("herd::population::start"),
                                                 n + 1);
  Kokkos::View<edge_offset*, memory_space> pair_start(
      Kokkos::ViewAllocateWithoutInitializing("herd::population::pair_start"), n + 1);
  Details::HouseholdDraws const draws(seed);
  Kokkos::View<std::uint8_t*, memory_space> sizes(Kokkos::ViewAllocateWithoutInitializing("herd::population::sizes"),
                                                  n);
  Kokkos::parallel_for(
      "herd::generate::household_sizes", policy(exec, 0, n),
      KOKKOS_LAMBDA(agent_index h) { sizes(h) = draws.size(h); });
  Kokkos::parallel_scan(
      "herd::generate::household_starts", policy(exec, 0, n + 1),
      KOKKOS_LAMBDA(agent_index h, edge_offset & partial, bool final) {
        if (final) start(h) = partial;
        if (h < n) partial += sizes(h);
      });
  Kokkos::parallel_scan(
      "herd::generate::household_pairs", policy(exec, 0, n + 1),
      KOKKOS_LAMBDA(agent_index h, edge_offset & partial, bool final) {
        if (final) pair_start(h) = partial;
        if (h < n && start(h) < static_cast<edge_offset>(n)) {
          edge_offset const end = start(h) + sizes(h) < static_cast<edge_offset>(n) ? start(h) + sizes(h) : n;
          edge_offset const members = end - start(h);
          partial += members * (members - 1) / 2;
        }
      });
  edge_offset household_pairs = 0;
  exec.fence();
  Kokkos::deep_copy(household_pairs, Kokkos::subview(pair_start, n));
  auto homes = Details::allocate_edges<memory_space>(n, household_pairs, true, "households");
  {
    auto sources = homes.sources;
    auto targets = homes.targets;
    auto weights = homes.weights;
    float const weight = spec.household_weight;
    Kokkos::parallel_for(
        "herd::generate::households", policy(exec, 0, n), KOKKOS_LAMBDA(agent_index h) {
          if (start(h) >= static_cast<edge_offset>(n)) return;
          auto const first = static_cast<agent_index>(start(h));
          auto const end =
              static_cast<agent_index>(start(h) + sizes(h) < static_cast<edge_offset>(n) ? start(h) + sizes(h) : n);
          edge_offset slot = pair_start(h);
          for (agent_index a = first; a < end; ++a) {
            household(a) = h;
            age(a) = draws.age_of(a, a == first);
            for (agent_index b = a + 1; b < end; ++b, ++slot) {
              sources(slot) = a;
              targets(slot) = b;
              weights(slot) = weight;
            }
          }
        });
  }

  auto school = Details::layer(exec, age, seed, Details::school_layer(spec));
  auto work = Details::layer(exec, age, seed, Details::workplace_layer(spec));

  auto const random_count = static_cast<std::size_t>(std::llround(n * spec.community_degree / 2.0));
  auto community = Details::allocate_edges<memory_space>(n, random_count, true, "community");
  Details::random_pairs(exec, community, 0, random_count, seed, Details::community, spec.community_weight);

  EdgeList<memory_space> const parts[4] = {homes, school, work, community};
  population.edges = Details::concatenate(n, parts, 4);
  exec.fence();
  return population;
}

#define HERD_INSTANTIATE_GENERATOR(EXEC, SPEC)                                                        \
  template EdgeSource<EXEC::memory_space> edge_source<EXEC>(EXEC const&, SPEC const&, std::uint64_t); \
  template EdgeList<EXEC::memory_space> generate_edges<EXEC, SPEC>(EXEC const&, SPEC const&, std::uint64_t);
#define HERD_INSTANTIATE_GENERATORS(EXEC)                                                                  \
  HERD_INSTANTIATE_GENERATOR(EXEC, ErdosRenyi)                                                             \
  HERD_INSTANTIATE_GENERATOR(EXEC, PowerLaw)                                                               \
  HERD_INSTANTIATE_GENERATOR(EXEC, WattsStrogatz)                                                          \
  template Population<EXEC::memory_space> generate_population<EXEC>(EXEC const&, LayeredPopulation const&, \
                                                                    std::uint64_t);

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_GENERATORS)

}  // namespace herd
