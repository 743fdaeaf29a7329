// Reference kernels on the same graphs as bench_step.cpp: the floor and the yardsticks a step is
// read against.
//   bare_gather: reads the CSR and one state byte per neighbour, sums, writes one byte per agent.
//   bare_gather_bits: the same from one bit per agent, packed from the state bytes first.
//   bare_gather_bits_segmented: the same, the neighbours taken in column segments whose bits fit
//                a cache level, one pass per segment.
//   bare_gather_opinions: reads the CSR and a float or half opinion per neighbour, sums them in
//                fixed point, writes the average: the floor of the DeGroot step.
//   spmv:        Kokkos Kernels CSR SpMV with double values (what an HPC user would write).
//   stream_triad: a = b + s c over doubles, the bandwidth the memory system really gives.

#include "bench_common.hpp"

#include <algorithm>
#include <utility>

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

// A tenth of the agents infectious (state 2), at random: the states the gathers over bits pack.
Kokkos::View<std::uint8_t*, Memory> random_infectious_states(agent_index agents) {
  Kokkos::View<std::uint8_t*, Memory> states("herd::bench::in", agents);
  CounterRng const rng{5};
  Kokkos::parallel_for(
      "herd::bench::states", Kokkos::RangePolicy<Exec>(0, agents),
      KOKKOS_LAMBDA(agent_index i) { states(i) = uniform_below(rng.bits(i, 0, 0, 0), 10) == 0 ? 2 : 0; });
  return states;
}

// Sets each agent's bit where its state is infectious: the first pass of every gather over bits.
void pack_infectious_bits(Kokkos::View<std::uint8_t*, Memory> states, Kokkos::View<std::uint32_t*, Memory> bits) {
  auto const agents = static_cast<agent_index>(states.extent(0));
  Kokkos::parallel_for(
      "herd::bench::pack_bits", Kokkos::RangePolicy<Exec>(0, static_cast<agent_index>(bits.extent(0))),
      KOKKOS_LAMBDA(agent_index w) {
        std::uint32_t word = 0;
        for (agent_index b = 0; b < 32 && 32 * w + b < agents; ++b)
          word |= static_cast<std::uint32_t>(states(32 * w + b) == 2) << b;
        bits(w) = word;
      });
}

// Each agent's count of neighbours whose bit is set, row by row.
void gather_bits(CsrGraph<Memory> const& g, Kokkos::View<std::uint32_t*, Memory> bits,
                 Kokkos::View<std::uint8_t*, Memory> out) {
  auto offsets = g.row_offsets;
  auto neighbours = g.neighbours;
  Kokkos::parallel_for(
      "herd::bench::bare_gather_bits", Kokkos::RangePolicy<Exec>(0, g.num_agents()), KOKKOS_LAMBDA(agent_index i) {
        std::uint32_t sum = 0;
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
          agent_index const j = neighbours(e);
          sum += (bits(j >> 5) >> (j & 31)) & 1u;
        }
        out(i) = static_cast<std::uint8_t>(sum);
      });
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
  auto const in = random_infectious_states(agents);
  Kokkos::View<std::uint8_t*, Memory> out("herd::bench::out", agents);
  Kokkos::View<std::uint32_t*, Memory> bits("herd::bench::bits", (agents + 31) / 32);
  timed(state, [&] {
    pack_infectious_bits(in, bits);
    gather_bits(g, bits, out);
  });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 1.0 + 1.0 + 1.0 / 8) + edges * (4.0 + 1.0 / 8));
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(static_cast<Ordering>(state.range(2))));
}

// A random graph's neighbour reads miss every cache that the bits do not fit: on an H100 the
// gather is bound by L2 throughput at 10^7 agents (1.25 MB of bits, more than an SM's L1), on a
// CPU by L3 latency. Taking the columns in segments whose bits fit the nearer level, one pass over
// the rows per segment, turns those reads into hits, at the price of a row offset and a partial
// sum per agent and segment. This is the floor of a counting pull step laid out that way.
struct SegmentedRows {
  int segments = 0;
  // Row i's neighbours in segment s are neighbours(offsets(s * (n + 1) + i)) up to the next offset
  // (n agents): segment after segment, rows in order within each.
  Kokkos::View<std::uint32_t*, Memory> offsets;
  Kokkos::View<agent_index*, Memory> neighbours;
};

SegmentedRows segment_columns(CsrGraph<Memory> const& g, agent_index width) {
  agent_index const n = g.num_agents();
  SegmentedRows r;
  r.segments = static_cast<int>((n + width - 1) / width);
  std::size_t const stride = static_cast<std::size_t>(n) + 1;
  r.offsets = Kokkos::View<std::uint32_t*, Memory>("herd::bench::segment_offsets", r.segments * stride);
  r.neighbours = Kokkos::View<agent_index*, Memory>("herd::bench::segment_neighbours", g.num_edges());
  auto offsets = r.offsets;
  auto row_offsets = g.row_offsets;
  auto neighbours = g.neighbours;
  // Count each row's neighbours per segment at (s, i + 1); (s, 0) stays 0.
  Kokkos::parallel_for(
      "herd::bench::segment_count", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(agent_index i) {
        for (edge_offset e = row_offsets(i); e < row_offsets(i + 1); ++e)
          ++offsets(static_cast<std::size_t>(neighbours(e) / width) * stride + i + 1);
      });
  // One inclusive scan over all segments makes (s, i) the start of row i in segment s.
  Kokkos::parallel_scan(
      "herd::bench::segment_scan", Kokkos::RangePolicy<Exec>(0, offsets.extent(0)),
      KOKKOS_LAMBDA(std::size_t k, std::uint32_t & sum, bool final) {
        sum += offsets(k);
        if (final) offsets(k) = sum;
      });
  auto out = r.neighbours;
  // Rows are sorted, so a row's neighbours arrive segment by segment.
  Kokkos::parallel_for(
      "herd::bench::segment_fill", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(agent_index i) {
        agent_index segment = -1;
        std::uint32_t at = 0;
        for (edge_offset e = row_offsets(i); e < row_offsets(i + 1); ++e) {
          agent_index const j = neighbours(e);
          if (j / width != segment) {
            segment = j / width;
            at = offsets(static_cast<std::size_t>(segment) * stride + i);
          }
          out(at++) = j;
        }
      });
  return r;
}

void bare_gather_bits_segmented(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const& g = graph(kind, agents, static_cast<Ordering>(state.range(2)));
  auto const segment_bytes = static_cast<agent_index>(state.range(3)) * 1024;
  if (g.num_edges() >= (edge_offset{1} << 32)) {
    state.SkipWithError("the segment offsets are 32-bit");
    return;
  }
  SegmentedRows const rows = segment_columns(g, std::min(8 * segment_bytes, agents));
  auto const in = random_infectious_states(agents);
  Kokkos::View<std::uint8_t*, Memory> out("herd::bench::out", agents), by_rows("herd::bench::by_rows", agents);
  Kokkos::View<std::uint32_t*, Memory> bits("herd::bench::bits", (agents + 31) / 32);
  auto offsets = rows.offsets;
  auto neighbours = rows.neighbours;
  std::size_t const stride = static_cast<std::size_t>(agents) + 1;
  auto gather = [&] {
    for (int s = 0; s < rows.segments; ++s) {
      std::size_t const base = static_cast<std::size_t>(s) * stride;
      bool const first = s == 0;
      Kokkos::parallel_for(
          "herd::bench::bare_gather_bits_segmented", Kokkos::RangePolicy<Exec>(0, agents),
          KOKKOS_LAMBDA(agent_index i) {
            std::uint32_t sum = first ? 0u : out(i);
            for (std::uint32_t e = offsets(base + i); e < offsets(base + i + 1); ++e) {
              agent_index const j = neighbours(e);
              sum += (bits(j >> 5) >> (j & 31)) & 1u;
            }
            out(i) = static_cast<std::uint8_t>(sum);
          });
    }
  };
  // The same sums as the row gather, or the figure means nothing.
  pack_infectious_bits(in, bits);
  gather();
  gather_bits(g, bits, by_rows);
  std::size_t differences = 0;
  Kokkos::parallel_reduce(
      "herd::bench::segmented_check", Kokkos::RangePolicy<Exec>(0, agents),
      KOKKOS_LAMBDA(agent_index i, std::size_t & wrong) { wrong += out(i) != by_rows(i) ? 1 : 0; }, differences);
  if (differences != 0) {
    state.SkipWithError("the segmented sums differ from the row sums");
    return;
  }
  timed(state, [&] {
    pack_infectious_bits(in, bits);
    gather();
  });
  double const edges = static_cast<double>(g.num_edges());
  double const per_agent_and_segment = 4.0 + 2.0;  // an offset, the partial sum read and written
  set_rates(state, agents, edges,
            agents * (1.0 + 1.0 / 8 + per_agent_and_segment * rows.segments) + edges * (4.0 + 1.0 / 8));
  state.counters["segments"] = rows.segments;
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(static_cast<Ordering>(state.range(2))));
}

// The floor of a DeGroot step (`consensus_step`): each neighbour's opinion read, converted to
// 2^-24 fixed point and added to the agent's own, the average stored; none of the engine around
// it (an agent's context, the schedule, the model's branches). With `ahead`, a CPU first asks for
// the opinions the agent 16 places ahead will read, as the pull step does; GPUs hide the latency
// with other warps and ignore it. A functor, not a lambda: the host pass alone names `ahead`'s
// prefetches (see device_pass.hpp).
template <class Storage>
struct OpinionGather {
  Kokkos::View<edge_offset const*, Memory> offsets;
  Kokkos::View<agent_index const*, Memory> neighbours;
  Kokkos::View<Storage const*, Memory> in;
  Kokkos::View<Storage*, Memory> out;
  bool ahead;

  // The model's own conversion: on builds without F16C a half converts with integer operations.
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t fixed(Storage x) { return Consensus<Storage, Memory>::fixed(x); }
  KOKKOS_INLINE_FUNCTION void operator()(agent_index i) const {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
    agent_index const next = i + 16;
    if (ahead && next < static_cast<agent_index>(out.extent(0)))
      for (edge_offset e = offsets(next); e < offsets(next + 1); ++e) __builtin_prefetch(in.data() + neighbours(e));
#endif
    if (offsets(i + 1) == offsets(i)) {  // as the step: an agent without neighbours keeps its opinion
      out(i) = in(i);
      return;
    }
    std::int64_t sum = fixed(in(i));
    for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) sum += fixed(in(neighbours(e)));
    double const count = static_cast<double>(offsets(i + 1) - offsets(i) + 1);
    out(i) = storage_traits<Storage>::store(static_cast<float>(static_cast<double>(sum) / count * 0x1p-24));
  }
};

// The floor's opinions, double-buffered as a property is, and its step.
template <class Storage>
struct OpinionFloor {
  CsrGraph<Memory> csr;  // shares the Views of the graph it copies
  bool ahead;
  Kokkos::View<Storage*, Memory> current, next;

  OpinionFloor(CsrGraph<Memory> const& g, bool ask_ahead)
      : csr(g),
        ahead(ask_ahead),
        current("herd::bench::opinions", g.num_agents()),
        next("herd::bench::opinions_next", g.num_agents()) {}

  // Each step reads what the last one wrote.
  void step() {
    Kokkos::parallel_for("herd::bench::bare_gather_opinions", Kokkos::RangePolicy<Exec>(0, csr.num_agents()),
                         OpinionGather<Storage>{csr.row_offsets, csr.neighbours, current, next, ahead});
    std::swap(current, next);
  }

  // Whether, from the opinions herd::Consensus starts with, one step gives the bits of its DeGroot
  // step; if not, this is not that step's floor. The floor then holds that step's opinions.
  bool matches_degroot() {
    agent_index const agents = csr.num_agents();
    Exec exec;
    Simulation<Exec> sim(exec, csr, 7);
    Consensus<Storage, Memory> model(agents, ConsensusParameters{});
    model.initialise(sim, agents);
    Kokkos::deep_copy(current, model.opinion.current());
    step();
    model.step(sim);
    auto const expected = model.opinion.current();
    auto const got = current;
    std::size_t differences = 0;
    Kokkos::parallel_reduce(
        "herd::bench::opinions_check", Kokkos::RangePolicy<Exec>(0, agents),
        KOKKOS_LAMBDA(agent_index i, std::size_t & wrong) {
          wrong += storage_traits<Storage>::load(got(i)) != storage_traits<Storage>::load(expected(i)) ? 1 : 0;
        },
        differences);
    return differences == 0;
  }
};

template <class Storage>
void bare_gather_opinions(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  OpinionFloor<Storage> floor(g, state.range(1) != 0);
  if (!floor.matches_degroot()) {
    state.SkipWithError("the floor's opinions differ from the DeGroot step's");
    return;
  }
  timed(state, [&] { floor.step(); });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 2.0 * sizeof(Storage)) + edges * (4.0 + sizeof(Storage)));
  state.SetLabel(std::string("erdos-renyi storage=") + (sizeof(Storage) == 2 ? "half" : "float"));
}

// The floor with float and with half opinions, stepped in pairs (timed_pairs), asking ahead as the
// step does on CPUs: what halving the bytes gathered gains without the engine, measured as
// `consensus_half_against_float` measures the step.
void bare_gather_opinions_half_against_float(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  OpinionFloor<float> as_float(g, true);
  OpinionFloor<half> as_half(g, true);
  if (!as_float.matches_degroot() || !as_half.matches_degroot()) {
    state.SkipWithError("the floor's opinions differ from the DeGroot step's");
    return;
  }
  timed_pairs(
      state, "float", [&] { as_float.step(); }, "half", [&] { as_half.step(); });
  state.SetLabel("erdos-renyi");
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
// Fourth argument: KiB of bits per column segment. An H100 SM has up to 256 KB of L1; a core of
// the CPU in docs/benchmarks.md has 512 KB of L2.
BENCHMARK(bare_gather_bits_segmented)
    ->ArgsProduct({{erdos_renyi}, {1000000, 10000000}, {static_cast<std::int64_t>(Ordering::none)}, {32, 64, 128, 256}})
    ->ArgNames({"graph", "agents", "order", "segment_kib"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
// Second argument: 1 asks ahead for the neighbours' opinions (CPUs).
BENCHMARK_TEMPLATE(bare_gather_opinions, float)
    ->ArgsProduct({{1000000, 10000000}, {0, 1}})
    ->ArgNames({"agents", "ahead"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bare_gather_opinions, half)
    ->ArgsProduct({{1000000, 10000000}, {0, 1}})
    ->ArgNames({"agents", "ahead"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
// Ten pairs: a pair of steps of 10^7 agents takes more than a second on a CPU.
BENCHMARK(bare_gather_opinions_half_against_float)
    ->Arg(1000000)
    ->Arg(10000000)
    ->ArgName("agents")
    ->Iterations(10)
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
