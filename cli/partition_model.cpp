#include "partition_model.hpp"
#include "input.hpp"
#include "memory_budget.hpp"

#include <herd/herd.hpp>
#include <herd/mpi/partition_stats.hpp>

#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace herd::cli {

namespace {

// Bytes one step moves, per the models Herd ships (SIR, SEIR, voter, majority): each owned agent
// reads and writes a 1-byte state and a 2-byte timer, reads its row offset and its global id (the
// random-number key); each stored edge reads a 4-byte neighbour index and the neighbour's state.
constexpr double agent_bytes = 2 * (1 + 2) + sizeof(edge_offset) + sizeof(global_id);
constexpr double edge_bytes = sizeof(agent_index) + 1;
// What travels per ghost and exchange: the 1-byte state, the only property neighbours read.
constexpr double ghost_bytes = 1;
// Entries a rank builds by shares per second, generation and routing included: 2.5e7 entries in
// 4.5 s on one core of the 2-core machine of docs/scaling.md.
constexpr double share_entries_per_second = 5.5e6;

struct Row {
  int parts = 0;
  double owned_max = 0, owned_mean = 0;
  double ghosts_max = 0, ghosts_mean = 0;
  double messages_max = 0, messages_mean = 0;
  double bytes_max = 0, bytes_mean = 0;
  double cut_fraction = 0;
  double halo_seconds = 0, compute_seconds = 0;
  double partition_seconds = 0;
  double memory_max = 0;     ///< peak bytes of the rank that holds the most, built by shares
  double build_seconds = 0;  ///< building the shares, for the rank with the most entries
};

// The slowest rank bounds the step: halo and compute are each the worst over ranks.
Row model_row(std::vector<PartStats> const& stats, Options const& o) {
  Row row;
  row.parts = static_cast<int>(stats.size());
  double cut = 0, edges = 0, agents = 0;
  for (auto const& s : stats) agents += static_cast<double>(s.owned);
  for (auto const& s : stats) {
    double const sent = static_cast<double>(s.sends) * ghost_bytes;
    double const received = static_cast<double>(s.ghosts) * ghost_bytes;
    // A rank posts a message to each part it sends to and from each it receives from, at once: on
    // a directed graph the hub's owner sends to many parts and may receive from none.
    double const messages = std::max(s.neighbours, s.send_parts);
    double const halo = messages * o.latency_us * 1e-6 + std::max(sent, received) / (o.network_gbps * 1e9);
    double const compute = (static_cast<double>(s.owned) * agent_bytes + static_cast<double>(s.edges) * edge_bytes) /
                           (o.memory_gbps * 1e9);
    row.memory_max =
        std::max(row.memory_max,
                 share_peak_bytes(static_cast<double>(s.owned), static_cast<double>(s.edges),
                                  static_cast<double>(s.ghosts), agents, o.graph == "power-law", o.stepping == "pull"));
    row.build_seconds = std::max(row.build_seconds, static_cast<double>(s.edges) / share_entries_per_second);
    row.owned_max = std::max(row.owned_max, static_cast<double>(s.owned));
    row.ghosts_max = std::max(row.ghosts_max, static_cast<double>(s.ghosts));
    row.messages_max = std::max(row.messages_max, messages);
    row.bytes_max = std::max(row.bytes_max, sent);
    row.halo_seconds = std::max(row.halo_seconds, halo);
    row.compute_seconds = std::max(row.compute_seconds, compute);
    row.owned_mean += static_cast<double>(s.owned) / row.parts;
    row.ghosts_mean += static_cast<double>(s.ghosts) / row.parts;
    row.messages_mean += messages / row.parts;
    row.bytes_mean += sent / row.parts;
    cut += static_cast<double>(s.cut_edges);
    edges += static_cast<double>(s.edges);
  }
  row.cut_fraction = edges > 0 ? cut / edges : 0.0;
  return row;
}

// printf's text of `values` by `pattern`, however long (a double may take 300 digits).
template <class... T>
std::string format(char const* pattern, T... values) {
  int const size = std::snprintf(nullptr, 0, pattern, values...);
  std::string out(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, pattern, values...);
  return out;
}

}  // namespace

PartitionModel partition_model(Options const& o) {
  Exec exec;
  // Rank 0 alone computes the model: it reads a population file on its own.
#if HERD_ENABLE_MPI
  auto const input = make_graph<float>(o, exec, MPI_COMM_SELF);
#else
  auto const input = make_graph<float>(o, exec, 0);
#endif
  auto const method = parse_partition_method(o.partition);
  auto const degrees = degree_stats(exec, input.graph);
  std::vector<Row> rows;
  // Every count is checked before the first is timed. The default counts stop at the agents',
  // and before the first that leaves a part empty.
  bool const defaults = o.given.count("--parts") == 0;
  std::vector<int> counts = o.parts;
  if (defaults)
    counts.erase(std::remove_if(counts.begin(), counts.end(), [&](int p) { return p > input.graph.num_agents(); }),
                 counts.end());
  require(!counts.empty(), std::to_string(input.graph.num_agents()) +
                               " agents split into none of the default part counts (2 to 1024): give --parts");
  std::string stopped;
  int const most = *std::max_element(counts.begin(), counts.end());
  require(most <= input.graph.num_agents(), "--parts " + std::to_string(most) + ": cannot split " +
                                                std::to_string(input.graph.num_agents()) + " agents into " +
                                                std::to_string(most) + " parts: a part needs at least one agent");
  for (int parts : counts) {
    Kokkos::Timer timer;
    auto const partition = partition_graph(exec, input.graph, parts, method);
    double const seconds = timer.seconds();
    auto const stats = partition_stats(exec, input.graph, partition);
    // A run on as many ranks refuses such a partition: the model does not describe it.
    auto const empty = std::find_if(stats.begin(), stats.end(), [](PartStats const& p) { return p.owned == 0; });
    std::string const refused = to_string(method) + " left part " + std::to_string(empty - stats.begin()) + " of " +
                                std::to_string(parts) + " without agents, which a run on " + std::to_string(parts) +
                                " ranks refuses";
    if (empty != stats.end() && defaults && !rows.empty()) {
      stopped = "\nthe default part counts stop at " + std::to_string(parts) + ": " + refused + "\n";
      break;
    }
    // The first default count already fails: no --parts was given to name.
    require(empty == stats.end(),
            defaults ? "the default part counts start at " + std::to_string(parts) + ", and " + refused +
                           " (another partition)"
                     : "--parts " + std::to_string(parts) + ": " + refused + " (fewer parts, or another partition)");
    rows.push_back(model_row(stats, o));
    rows.back().partition_seconds = seconds;
    // A subnormal bandwidth, or a latency near the largest double, predicts no time a file can hold.
    // A memory bandwidth near the largest double predicts no compute time, and no ratio.
    require(std::isfinite(rows.back().halo_seconds) && std::isfinite(rows.back().compute_seconds) &&
                rows.back().compute_seconds > 0,
            "--parts " + std::to_string(parts) +
                ": the bandwidths and latency given predict times beyond a 64-bit float, or no compute time "
                "(--network-bandwidth, --network-latency, --memory-bandwidth)");
  }

  std::ostringstream text, csv;
  text << "partition model: graph " << input.name << ", " << input.graph.num_agents() << " agents, "
       << input.graph.num_edges() << " directed edges (mean degree " << format("%.3g", degrees.mean_degree) << "), "
       << to_string(method) << " partition\n"
       << "assumed per rank: network " << o.network_gbps << " GB/s, " << o.latency_us << " us per message, memory "
       << o.memory_gbps << " GB/s; a step moves " << agent_bytes << " B per owned agent and " << edge_bytes
       << " B per edge, and sends " << ghost_bytes << " B per ghost; built by shares at "
       << share_entries_per_second / 1e6
       << " M entries/s, holding at most what SIR held per agent, entry and ghost\n\n";
  text << format("%6s %11s %11s %11s %9s %9s %11s %7s %10s %10s %8s %8s %8s\n", "parts", "owned max", "ghosts max",
                 "ghosts mean", "msgs max", "msgs mean", "KB/step max", "cut %", "halo us", "compute us", "ratio",
                 "setup s", "peak GB");
  csv << "parts,method,owned_max,owned_mean,ghosts_max,ghosts_mean,messages_max,messages_mean,bytes_sent_max,"
         "bytes_sent_mean,cut_fraction,halo_seconds,compute_seconds,halo_compute_ratio,partition_seconds,"
         "build_seconds_max,memory_bytes_max\n";
  for (auto const& r : rows) {
    double const ratio = r.halo_seconds / r.compute_seconds;
    text << format("%6d %11.0f %11.0f %11.1f %9.0f %9.1f %11.1f %7.2f %10.2f %10.2f %8.3f %8.3f %8.3f\n", r.parts,
                   r.owned_max, r.ghosts_max, r.ghosts_mean, r.messages_max, r.messages_mean, r.bytes_max / 1e3,
                   100 * r.cut_fraction, r.halo_seconds * 1e6, r.compute_seconds * 1e6, ratio, r.build_seconds,
                   r.memory_max / 1e9);
    csv << r.parts << "," << to_string(method) << "," << r.owned_max << "," << r.owned_mean << "," << r.ghosts_max
        << "," << r.ghosts_mean << "," << r.messages_max << "," << r.messages_mean << "," << r.bytes_max << ","
        << r.bytes_mean << "," << r.cut_fraction << "," << r.halo_seconds << "," << r.compute_seconds << "," << ratio
        << "," << r.partition_seconds << "," << r.build_seconds << "," << r.memory_max << "\n";
  }
  text << stopped
       << "\nratio = halo / compute of the slowest rank; below 1 the halo can hide behind the interior update\n";
  return {text.str(), csv.str()};
}

}  // namespace herd::cli
