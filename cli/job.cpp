#include "job_runs.hpp"

namespace herd::cli::detail {

namespace {

// Every step's record, the slowest rank's phases and the agents of all ranks (collective when
// distributed: every rank ran the same steps).
std::vector<StepProfile> step_profiles(Telemetry const& t, bool distributed) {
  auto const& records = t.step_records();
  constexpr int timed = loop_phase_count + 1;  // the phases, then the step's total
  std::vector<double> seconds;
  std::vector<long long> counts;  // ranks listed, agents stepped
  seconds.reserve(records.size() * timed);
  counts.reserve(records.size() * 2);
  for (auto const& r : records) {
    seconds.insert(seconds.end(), r.seconds.begin(), r.seconds.end());
    seconds.push_back(r.total_seconds());
    counts.push_back(r.listed ? 1 : 0);
    counts.push_back(r.stepped);
  }
#if HERD_ENABLE_MPI
  if (distributed && !records.empty()) {
    auto const comm = world();
    MPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG, MPI_SUM, comm);
  }
#else
  (void)distributed;
#endif
  std::vector<StepProfile> steps(records.size());
  for (std::size_t k = 0; k < records.size(); ++k) {
    auto& s = steps[k];
    s.step = records[k].step;
    s.listed_ranks = static_cast<int>(counts[2 * k]);
    s.stepped = counts[2 * k + 1];
    auto const first = seconds.begin() + static_cast<std::ptrdiff_t>(k * timed);
    s.slowest_seconds.assign(first, first + loop_phase_count);
    s.slowest_total = first[loop_phase_count];
  }
  return steps;
}

}  // namespace

// The loop's telemetry as the report shows it; over ranks when distributed (collective).
LoopProfile summarise(Telemetry const& t, bool distributed) {
  LoopProfile p;
  p.enabled = true;
  for (int k = 0; k < loop_phase_count; ++k) {
    p.phases.emplace_back(to_string(static_cast<LoopPhase>(k)));
    p.mean_seconds.push_back(t.seconds(static_cast<LoopPhase>(k)));
  }
  p.slowest_seconds = p.mean_seconds;
  auto const& m = t.memory();
  std::vector<long long> counts = {m.allocations,        m.allocated_bytes,   m.deep_copies,     m.copied_bytes,
                                   m.cross_space_copies, m.cross_space_bytes, t.messages_sent(), t.bytes_sent()};
#if HERD_ENABLE_MPI
  if (distributed) {
    auto const comm = world();
    MPI_Allreduce(MPI_IN_PLACE, p.slowest_seconds.data(), loop_phase_count, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, p.mean_seconds.data(), loop_phase_count, MPI_DOUBLE, MPI_SUM, comm);
    for (auto& s : p.mean_seconds) s /= mpi::size_of(comm);
    MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG, MPI_SUM, comm);
  }
#else
  (void)distributed;
#endif
  p.allocations = counts[0];
  p.allocated_bytes = counts[1];
  p.deep_copies = counts[2];
  p.copied_bytes = counts[3];
  p.cross_space_copies = counts[4];
  p.cross_space_bytes = counts[5];
  p.messages_sent = counts[6];
  p.bytes_sent = counts[7];
  p.steps = step_profiles(t, distributed);
  return p;
}

// Sets result's columns and counts to the `shown` observables of `all`, a history of every
// observable in `names`, row after row.
void take_counts(JobResult& result, std::vector<std::string> const& names, std::vector<int> const& shown,
                 std::vector<std::int64_t> const& all) {
  auto const columns = names.size();
  result.columns.clear();
  for (int c : shown) result.columns.push_back(names[static_cast<std::size_t>(c)]);
  result.counts.clear();
  result.counts.reserve(all.size() / columns);
  for (std::size_t t = 0; t < all.size() / columns; ++t) {
    std::vector<long long> row;
    row.reserve(shown.size());
    for (int c : shown) row.push_back(all[t * columns + static_cast<std::size_t>(c)]);
    result.counts.push_back(row);
  }
}

BinnedPush binned_push(Options const& o) {
  return o.binned_push == "on" ? BinnedPush::on : o.binned_push == "off" ? BinnedPush::off : BinnedPush::automatic;
}

void describe(JobResult& result, GraphFacts const& graph, Exec const& exec, std::string const& schedule) {
  result.graph_name = graph.name;
  result.agents = graph.agents;
  result.edges = graph.edges;
  result.mean_degree = graph.mean_degree;
  result.max_degree = graph.max_degree;
  result.weighted = graph.weighted;
  result.schedule = schedule;
  result.backend = Exec::name();
  result.threads = compat::concurrency(exec);
}

Stepping parse_stepping(std::string const& stepping) {
  return stepping == "pull"     ? Stepping::pull
         : stepping == "active" ? Stepping::active
         : stepping == "verify" ? Stepping::verify
                                : Stepping::automatic;
}

}  // namespace herd::cli::detail

namespace herd::cli {

std::vector<long long> event_totals(std::vector<EventRun> const& events) {
  std::vector<long long> totals;
  totals.reserve(events.size());
  for (auto const& e : events) {
    long long total = 0;
    for (long long a : e.agents) total += a;
    totals.push_back(total);
  }
  return totals;
}

std::vector<EventRun> event_schedule(std::vector<EventRun> events) {
  for (auto& e : events) e.agents.clear();
  return events;
}

JobResult run_job(Options const& o, std::function<void(int, int)> const& progress) {
  return visit_model(o.model, [&](auto entry) { return run_entry<decltype(entry)>(o, progress); });
}

}  // namespace herd::cli
