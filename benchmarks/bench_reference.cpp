// Reference kernels on the same graphs as bench_step.cpp: the floor and the yardsticks a step is
// read against.
//   bare_gather: reads the CSR and one state byte per neighbour, sums, writes one byte per agent.
//   bare_gather_bits: the same from one bit per agent, packed from the state bytes first.
//   spmv:        Kokkos Kernels CSR SpMV with double values (what an HPC user would write).
//   stream_triad: a = b + s c over doubles, the bandwidth the memory system really gives.

#include "bench_common.hpp"

#if HERD_ENABLE_KOKKOSKERNELS
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#endif

namespace herd::bench {
namespace {

void bare_gather(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const& g = graph(kind, agents, static_cast<Ordering>(state.range(2)));
  Kokkos::View<std::uint8_t*, Memory> in("herd::bench::in", agents), out("herd::bench::out", agents);
  Kokkos::deep_copy(in, 1);
  auto offsets = g.row_offsets;
  auto neighbours = g.neighbours;
  timed(state, [&] {
    Kokkos::parallel_for(
        "herd::bench::bare_gather", Kokkos::RangePolicy<Exec>(0, agents), KOKKOS_LAMBDA(agent_index i) {
          std::uint32_t sum = 0;
          for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) sum += in(neighbours(e));
          out(i) = static_cast<std::uint8_t>(sum);
        });
  });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 1.0) + edges * (4.0 + 1.0));
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(static_cast<Ordering>(state.range(2))));
}

// The floor of a pull step that reads one bit per neighbour ("spreads") instead of a state byte:
// first packs the bits of the agents whose state is infectious (a tenth, at random), then sums
// each agent's neighbours' bits. At 10^7 agents the bits take 1.25 MB where the states take 10:
// a neighbour read then finds its word in a nearer cache level, a GPU's 32-byte sector holding 256
// agents' flags instead of 32 agents' states.
void bare_gather_bits(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const& g = graph(kind, agents, static_cast<Ordering>(state.range(2)));
  Kokkos::View<std::uint8_t*, Memory> in("herd::bench::in", agents), out("herd::bench::out", agents);
  Kokkos::View<std::uint32_t*, Memory> bits("herd::bench::bits", (agents + 31) / 32);
  CounterRng const rng{5};
  Kokkos::parallel_for(
      "herd::bench::states", Kokkos::RangePolicy<Exec>(0, agents),
      KOKKOS_LAMBDA(agent_index i) { in(i) = uniform_below(rng.bits(i, 0, 0, 0), 10) == 0 ? 2 : 0; });
  auto offsets = g.row_offsets;
  auto neighbours = g.neighbours;
  auto const words = static_cast<agent_index>(bits.extent(0));
  timed(state, [&] {
    Kokkos::parallel_for(
        "herd::bench::pack_bits", Kokkos::RangePolicy<Exec>(0, words), KOKKOS_LAMBDA(agent_index w) {
          std::uint32_t word = 0;
          for (agent_index b = 0; b < 32 && 32 * w + b < agents; ++b)
            word |= static_cast<std::uint32_t>(in(32 * w + b) == 2) << b;
          bits(w) = word;
        });
    Kokkos::parallel_for(
        "herd::bench::bare_gather_bits", Kokkos::RangePolicy<Exec>(0, agents), KOKKOS_LAMBDA(agent_index i) {
          std::uint32_t sum = 0;
          for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
            agent_index const j = neighbours(e);
            sum += (bits(j >> 5) >> (j & 31)) & 1u;
          }
          out(i) = static_cast<std::uint8_t>(sum);
        });
  });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 1.0 + 1.0 + 1.0 / 8) + edges * (4.0 + 1.0 / 8));
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(static_cast<Ordering>(state.range(2))));
}

#if HERD_ENABLE_KOKKOSKERNELS
void spmv(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const& g = graph(kind, agents, static_cast<Ordering>(state.range(2)));
  using device = Kokkos::Device<Exec, Memory>;
  using matrix = KokkosSparse::CrsMatrix<double, agent_index, device, void, edge_offset>;
  Kokkos::View<double*, Memory> values("herd::bench::values", g.num_edges());
  Kokkos::deep_copy(values, 1.0);
  matrix const a("herd::bench::matrix", agents, agents, static_cast<agent_index>(g.num_edges()), values, g.row_offsets,
                 g.neighbours);
  Kokkos::View<double*, Kokkos::LayoutLeft, Memory> x("herd::bench::x", agents), y("herd::bench::y", agents);
  Kokkos::deep_copy(x, 1.0);
  timed(state, [&] { KokkosSparse::spmv("N", 1.0, a, x, 0.0, y); });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 8.0) + edges * (4.0 + 8.0 + 8.0));
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(static_cast<Ordering>(state.range(2))));
}
#endif

void graphs(benchmark::internal::Benchmark* b) {
  for (int kind : {erdos_renyi, power_law})
    for (std::int64_t n : {100000, 1000000, 10000000})
      for (Ordering o : orderings()) b->Args({kind, n, static_cast<std::int64_t>(o)});
}

BENCHMARK(bare_gather)
    ->Apply(graphs)
    ->ArgNames({"graph", "agents", "order"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bare_gather_bits)
    ->Apply(graphs)
    ->ArgNames({"graph", "agents", "order"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
#if HERD_ENABLE_KOKKOSKERNELS
BENCHMARK(spmv)->Apply(graphs)->ArgNames({"graph", "agents", "order"})->UseManualTime()->Unit(benchmark::kMillisecond);
#endif

void stream_triad(benchmark::State& state) {
  auto const n = static_cast<std::size_t>(state.range(0));
  Kokkos::View<double*, Memory> a("herd::bench::a", n), b("herd::bench::b", n), c("herd::bench::c", n);
  Kokkos::deep_copy(b, 1.0);
  Kokkos::deep_copy(c, 2.0);
  double const s = 3.0;
  timed(state, [&] {
    Kokkos::parallel_for(
        "herd::bench::stream_triad", Kokkos::RangePolicy<Exec>(0, n),
        KOKKOS_LAMBDA(std::size_t i) { a(i) = b(i) + s * c(i); });
  });
  state.counters["GB/s"] = benchmark::Counter(24.0 * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(stream_triad)->Arg(1 << 25)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
