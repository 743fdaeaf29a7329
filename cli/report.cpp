#include "report.hpp"

#include <herd/config.hpp>
#include <herd/core/error.hpp>

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <sys/stat.h>

namespace herd::cli {

std::string with_commas(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

namespace {

// Keys in the order written, as a reader of the file expects them.
using Json = nlohmann::ordered_json;

std::string engineering(double value) {
  std::ostringstream s;
  s << std::setprecision(3) << value;
  return s.str();
}

double per_second(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

// The steps this run made: a resumed run's begin after its checkpoint's.
int steps_run(Options const& o, JobResult const& r) { return o.steps - static_cast<int>(r.first_step); }

// Entries the steps read: the graph's at every step, or what a temporal network's snapshots held.
double edges_read(JobResult const& r, double steps) {
  return r.edges_read >= 0 ? r.edges_read : static_cast<double>(r.edges) * steps;
}

double cut_fraction(JobResult const& r) {
  unsigned long long cut = 0;
  for (auto const& rank : r.ranks) cut += rank.cut_edges;
  return r.edges > 0 ? static_cast<double>(cut) / static_cast<double>(r.edges) : 0.0;
}

// The rank the run waited for.
RankStats const& slowest(JobResult const& r) {
  return *std::max_element(r.ranks.begin(), r.ranks.end(),
                           [](auto const& a, auto const& b) { return a.step_seconds < b.step_seconds; });
}

double compute_seconds(RankStats const& s) {
  return std::max(0.0, s.step_seconds - s.pack_seconds - s.wait_seconds - s.unpack_seconds);
}

// The largest value of `field` over the ranks.
template <class Field>
double most_over_ranks(JobResult const& r, Field RankStats::*field) {
  double most = 0.0;
  for (auto const& q : r.ranks) most = std::max(most, static_cast<double>(q.*field));
  return most;
}

// The setup phases a rank timed (the model's initial state is not among them).
double setup_seconds(RankStats const& s) {
  return s.graph_seconds + s.partition_seconds + s.local_graph_seconds + s.halo_plan_seconds + s.simulation_seconds;
}

std::string rank_table(JobResult const& r, int steps) {
  std::ostringstream s;
  char line[256];
  std::snprintf(line, sizeof line, "%5s %12s %10s %13s %7s %5s %10s %10s %10s %10s %8s %8s\n", "rank", "owned",
                "ghosts", "edges", "cut %", "nbrs", "ms/step", "pack ms", "wait ms", "unpack ms", "setup s", "peak GB");
  s << line;
  // Per step, or 0 where no step was made (a resume at its checkpoint's step).
  double const per_step = steps > 0 ? 1e3 / steps : 0.0;
  for (std::size_t k = 0; k < r.ranks.size(); ++k) {
    auto const& q = r.ranks[k];
    double const cut = q.edges > 0 ? 100.0 * static_cast<double>(q.cut_edges) / static_cast<double>(q.edges) : 0.0;
    std::snprintf(line, sizeof line, "%5zu %12s %10s %13s %7.2f %5d %10.3f %10.3f %10.3f %10.3f %8.2f %8.2f\n", k,
                  with_commas(q.owned).c_str(), with_commas(q.ghosts).c_str(),
                  with_commas(static_cast<long long>(q.edges)).c_str(), cut, q.neighbours, q.step_seconds * per_step,
                  q.pack_seconds * per_step, q.wait_seconds * per_step, q.unpack_seconds * per_step, setup_seconds(q),
                  static_cast<double>(q.peak_memory_bytes) / 1e9);
    s << line;
  }
  return s.str();
}

Json rank_json(RankStats const& q) {
  return {{"owned", q.owned},
          {"ghosts", q.ghosts},
          {"edges", q.edges},
          {"cut_edges", q.cut_edges},
          {"neighbour_ranks", q.neighbours},
          {"step_loop_seconds", q.step_seconds},
          {"compute_seconds", compute_seconds(q)},
          {"pack_seconds", q.pack_seconds},
          {"wait_seconds", q.wait_seconds},
          {"unpack_seconds", q.unpack_seconds},
          {"messages_sent", q.messages_sent},
          {"bytes_sent", q.bytes_sent},
          {"setup",
           {{"graph_seconds", q.graph_seconds},
            {"partition_seconds", q.partition_seconds},
            {"local_graph_seconds", q.local_graph_seconds},
            {"halo_plan_seconds", q.halo_plan_seconds},
            {"simulation_seconds", q.simulation_seconds}}},
          {"peak_memory_bytes", q.peak_memory_bytes}};
}

// Bytes in B, kB, MB, GB (powers of 1000, three digits).
std::string bytes_text(long long bytes) {
  char const* units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000.0 && unit < 4) {
    value /= 1000.0;
    ++unit;
  }
  return engineering(value) + " " + units[unit];
}

std::string profile_table(JobResult const& r, int steps) {
  auto const& p = r.profile;
  bool const ranks = r.ranks.size() > 1;
  double total = 0.0;
  for (double seconds : p.mean_seconds) total += seconds;
  std::ostringstream s;
  char line[256];
  s << "\nprofile of the step loop (exclusive time per phase; the device is fenced between phases)\n";
  std::snprintf(line, sizeof line, "%-12s %11s %8s %10s%s\n", "phase", ranks ? "mean s" : "seconds", "share", "ms/step",
                ranks ? "  slowest rank s" : "");
  s << line;
  for (std::size_t k = 0; k < p.phases.size(); ++k) {
    double const seconds = p.mean_seconds[k];
    std::snprintf(line, sizeof line, "%-12s %11.4f %7.1f%% %10.4f", p.phases[k].c_str(), seconds,
                  total > 0 ? 100.0 * seconds / total : 0.0, steps > 0 ? seconds / steps * 1e3 : 0.0);
    s << line;
    if (ranks) {
      std::snprintf(line, sizeof line, "  %15.4f", p.slowest_seconds[k]);
      s << line;
    }
    s << "\n";
  }
  std::snprintf(line, sizeof line, "%-12s %11.4f %7.1f%% %10.4f\n", "total", total, 100.0,
                steps > 0 ? total / steps * 1e3 : 0.0);
  s << line;
  s << "in the loop: " << with_commas(p.allocations) << " allocations (" << bytes_text(p.allocated_bytes) << "), "
    << with_commas(p.deep_copies) << " deep copies (" << bytes_text(p.copied_bytes) << ", "
    << bytes_text(p.cross_space_bytes) << " between host and device), " << with_commas(p.messages_sent)
    << " halo messages (" << bytes_text(p.bytes_sent) << ")";
  if (!r.stepping.empty()) s << ", " << engineering(100 * r.mean_active_share) << " % of agents stepped per step";
  s << "\n";
  return s.str();
}

Json profile_json(LoopProfile const& p) {
  Json mean = Json::object(), slowest_rank = Json::object();
  for (std::size_t k = 0; k < p.phases.size(); ++k) {
    mean[p.phases[k]] = p.mean_seconds[k];
    slowest_rank[p.phases[k]] = p.slowest_seconds[k];
  }
  return {{"phase_seconds", mean},
          {"slowest_rank_phase_seconds", slowest_rank},
          {"allocations", p.allocations},
          {"allocated_bytes", p.allocated_bytes},
          {"deep_copies", p.deep_copies},
          {"copied_bytes", p.copied_bytes},
          {"host_device_copies", p.cross_space_copies},
          {"host_device_bytes", p.cross_space_bytes},
          {"messages_sent", p.messages_sent},
          {"bytes_sent", p.bytes_sent}};
}

}  // namespace

void Progress::operator()(int step, int steps) {
  // A count told twice (an ensemble's last member, then its gathered end) is shown once.
  if (!enabled_ || step == last_step_) return;
  last_step_ = step;
  int const percent = static_cast<int>(100.0 * step / steps);
  if (terminal_) {
    if (percent == last_shown_ && step != steps) return;
    last_shown_ = percent;
    int const width = 40, filled = width * step / steps;
    double const elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r[%s%s] %3d%%  %s %d/%d  %.1f s", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), percent, unit_, step, steps, elapsed);
    if (step == steps) std::fputc('\n', stderr);
    std::fflush(stderr);
  } else if (percent / 10 != last_shown_ / 10 || step == steps) {
    last_shown_ = percent;
    std::fprintf(stderr, "herd: %s %d/%d\n", unit_, step, steps);
  }
}

std::string events_table(std::vector<EventRun> const& events,
                         std::function<std::string(std::size_t)> const& agents_text, int last_step) {
  std::ostringstream s;
  for (std::size_t k = 0; k < events.size(); ++k) {
    auto const& e = events[k];
    s << "  " << e.name << ", step" << (e.first == e.last ? " " : "s ") << e.first;
    if (e.first != e.last) s << "-" << e.last;
    s << ": ";
    if (e.first > last_step) {
      s << "after the run's last step, " << last_step << " (for a run resumed beyond it)\n";
      continue;
    }
    if (e.kind == "set") {
      s << e.parameter << " = " << number_text(e.value) << (e.reverts ? ", then as before" : "") << "\n";
      continue;
    }
    if (e.kind == "layer") {
      for (std::size_t l = 0; l < e.layers.size(); ++l)
        s << (l ? ", " : "") << e.layers[l].first << " weights x " << number_text(e.layers[l].second);
      if (e.cycle > 0) {
        s << " on days";
        for (std::size_t d = 0; d < e.days.size(); ++d) s << (d ? "," : " ") << e.days[d];
        s << " of each " << e.cycle;
      }
      s << "\n";
      continue;
    }
    if (e.kind == "isolate") {
      s << agents_text(k) << " agents isolated for " << e.duration << " steps (detected with probability "
        << number_text(e.probability) << "), keeping ";
      for (std::size_t l = 0; l < e.keeps.size(); ++l) s << (l ? ", " : "") << e.keeps[l];
      s << (e.keeps.empty() ? "no contacts\n" : " contacts\n");
      continue;
    }
    s << agents_text(k) << " agents " << (e.kind == "import" ? "infected" : "immunised") << "\n";
  }
  return s.str();
}

Json events_json(std::vector<EventRun> const& events) {
  Json list = Json::array();
  for (auto const& e : events) {
    Json j = {{"name", e.name}, {"kind", e.kind}, {"first", e.first}, {"last", e.last}};
    if (e.kind == "set") {
      j["parameter"] = e.parameter;
      j["value"] = e.value;
      j["reverts"] = e.reverts;
    } else if (e.kind == "layer") {
      j["layers"] = Json::object();
      for (auto const& [layer, factor] : e.layers) j["layers"][layer] = factor;
      if (e.cycle > 0) {
        j["cycle"] = e.cycle;
        j["days"] = e.days;
      }
    } else {
      j["agents"] = e.agents;
      if (e.kind == "isolate") {
        j["probability"] = e.probability;
        j["duration"] = e.duration;
        j["keeps"] = e.keeps;
      }
    }
    list.push_back(j);
  }
  return list;
}

std::string summary_table(Options const& o, JobResult const& r) {
  std::ostringstream s;
  s << "Herd " << HERD_VERSION_STRING << " | model " << o.model << " | " << r.backend << ", "
    << (r.ranks.size() > 1 ? std::to_string(r.ranks.size()) + " ranks x " : "") << r.threads << " thread"
    << (r.threads == 1 ? "" : "s") << " | schedule " << r.schedule << "\n";
  s << "graph " << r.graph_name << ": " << with_commas(r.agents) << " agents, " << with_commas(r.edges)
    << " directed edges (mean degree " << engineering(r.mean_degree) << ", max " << r.max_degree << ")"
    << (r.weighted ? ", weighted (" + o.precision + ")" : "") << "\n\n";
  // The time series, thinned to at most 10 rows, then the final state.
  std::size_t const rows = r.counts.size(), stride = rows > 31 ? (rows - 1 + 9) / 10 : 1;
  s << std::setw(8) << "step";
  for (auto const& c : r.columns) s << std::setw(13) << c;
  s << "\n";
  for (std::size_t t = 0; t < rows; t += stride) {
    if (t + stride >= rows) t = rows - 1;
    s << std::setw(8) << t;
    for (long long v : r.counts[t]) s << std::setw(13) << with_commas(v);
    s << "\n";
  }
  int const made = steps_run(o, r);
  double const steps = made;
  s << "\nsetup " << engineering(r.setup_seconds) << " s, ";
  if (made > 0)
    s << made << " steps in " << engineering(r.step_seconds) << " s: " << engineering(r.step_seconds / steps * 1e3)
      << " ms/step, " << engineering(per_second(r.agents * steps, r.step_seconds)) << " agent-updates/s, "
      << engineering(per_second(edges_read(r, steps), r.step_seconds)) << " edges/s\n";
  else
    s << "no steps run (the checkpoint was at step " << r.first_step << ")\n";
  auto const peak = static_cast<long long>(most_over_ranks(r, &RankStats::peak_memory_bytes));
  s << "memory: " << engineering(r.bytes_per_agent) << " bytes/agent, " << engineering(r.bytes_per_edge)
    << " bytes/edge; peak resident " << bytes_text(peak) << (r.ranks.size() > 1 ? " on the largest rank" : "") << "\n";
  if (!r.stepping.empty() && r.stepping != "pull")
    s << "stepping " << r.stepping << ": " << r.active_steps << " of " << r.steps_counted
      << " steps on the active agents only, " << engineering(100 * r.mean_active_share)
      << " % of the agents stepped on average\n";
  if (r.gather_ahead) s << "gather ahead: pull steps ask for the values of the neighbours of agents ahead\n";
  if (r.spreader_bits) s << "spreader bits: pull steps read one bit per neighbour, not its state\n";
  if (r.weight_codes) s << "weight codes: pull steps add each edge's contribution from a one-byte code of its weight\n";
  if (r.binned_push && r.active_steps > 0) s << "binned pushes: active steps push sums through bins\n";
  if (!r.events.empty()) {
    auto const totals = event_totals(r.events);
    s << "\nscenario:\n"
      << events_table(
             r.events, [&](std::size_t k) { return with_commas(totals[k]); }, o.steps);
  }
  if (r.ranks.size() > 1) {
    s << "\n"
      << r.ranks.size() << " ranks, " << o.partition << " partition, " << engineering(100 * cut_fraction(r))
      << " % of edges cut, halo " << (o.overlap ? "overlapped" : "not overlapped") << ", exchanged every "
      << o.exchange_every << " step" << (o.exchange_every == 1 ? "" : "s (stale ghosts in between)") << "\n"
      << rank_table(r, made);
  }
  if (r.profile.enabled) s << profile_table(r, made);
  return s.str();
}

std::string csv(JobResult const& r) {
  std::ostringstream s;
  s << "step";
  for (auto const& c : r.columns) s << "," << c;
  s << "\n";
  for (std::size_t t = 0; t < r.counts.size(); ++t) {
    s << t;
    for (long long v : r.counts[t]) s << "," << v;
    s << "\n";
  }
  return s.str();
}

namespace {
// The counts after the last step, by observable: the JSON summary's and the record's alike.
Json final_counts_of(JobResult const& r) {
  Json counts = Json::object();
  for (std::size_t c = 0; c < r.columns.size(); ++c) counts[r.columns[c]] = r.counts.back()[c];
  return counts;
}

// `seconds` over `steps`, or null where no step was made (a resume at its checkpoint's step).
Json per_step_of(double seconds, double steps) { return steps > 0 ? Json(seconds / steps) : Json(nullptr); }
}  // namespace

std::string json(Options const& o, JobResult const& r, std::string const& kokkos_configuration) {
  double const steps = steps_run(o, r);
  Json d;
  d["herd_version"] = HERD_VERSION_STRING;
  d["label"] = o.label;
  d["model"] = o.model;
  d["graph"] = r.graph_name;
  d["agents"] = r.agents;
  d["edges"] = r.edges;
  d["mean_degree"] = r.mean_degree;
  d["max_degree"] = r.max_degree;
  d["weighted"] = r.weighted;
  d["steps"] = o.steps;
  d["first_step"] = r.first_step;
  d["seed"] = o.seed;
  d["graph_seed"] = o.graph_seed;
  d["parameters"] = {{"beta", o.beta},
                     {"infectious_steps", o.infectious_steps},
                     {"gamma", o.gamma},
                     {"latent_steps", o.latent_steps},
                     {"sigma", o.sigma},
                     {"initial_infected", o.initial_infected},
                     {"initial_share", o.initial_share},
                     {"confidence", o.confidence},
                     {"transmission_rate", o.transmission_rate},
                     {"mortality", o.mortality},
                     {"age_reading", o.age_reading},
                     {"precision", o.precision},
                     {"reorder", o.reorder},
                     {"schedule", r.schedule}};
  d["final"] = final_counts_of(r);
  if (!o.scenario.empty()) {
    d["scenario"] = o.scenario;
    d["events"] = events_json(r.events);
  }
  d["setup_seconds"] = r.setup_seconds;
  d["step_loop_seconds"] = r.step_seconds;
  // A resume that makes no step has no time per step, and no rates.
  auto const rate = [&](double count) { return steps > 0 ? Json(per_second(count, r.step_seconds)) : Json(nullptr); };
  d["seconds_per_step"] = per_step_of(r.step_seconds, steps);
  d["agent_updates_per_second"] = rate(static_cast<double>(r.agents) * steps);
  d["edges_per_second"] = rate(edges_read(r, steps));
  d["bytes_per_agent"] = r.bytes_per_agent;
  d["bytes_per_edge"] = r.bytes_per_edge;
  if (!r.stepping.empty())
    d["stepping"] = {{"mode", r.stepping},
                     {"steps", r.steps_counted},
                     {"active_steps", r.active_steps},
                     {"mean_active_share", r.mean_active_share},
                     {"threshold", r.active_threshold},
                     {"gather_ahead", r.gather_ahead},
                     {"binned_push", r.binned_push},
                     {"spreader_bits", r.spreader_bits},
                     {"weight_codes", r.weight_codes}};
  if (r.profile.enabled) d["profile"] = profile_json(r.profile);
  d["backend"] = r.backend;
  d["threads"] = r.threads;
  d["partition"] = o.partition;
  d["overlap"] = o.overlap;
  d["exchange_every"] = o.exchange_every;
  d["cut_fraction"] = cut_fraction(r);
  d["ranks"] = Json::array();
  for (auto const& q : r.ranks) d["ranks"].push_back(rank_json(q));
  d["kokkos_version"] = KOKKOS_VERSION;
  d["kokkos_configuration"] = kokkos_configuration;
  return json_text(d, 2) + "\n";
}

std::string record(Options const& o, JobResult const& r) {
  auto const& worst = slowest(r);
  double const steps = steps_run(o, r);
  long long ghosts = 0;
  for (auto const& q : r.ranks) ghosts += q.ghosts;
  Json d;
  d["label"] = o.label;
  d["ranks"] = r.ranks.size();
  d["threads"] = r.threads;
  d["backend"] = r.backend;
  d["model"] = o.model;
  d["graph"] = r.graph_name;
  d["agents"] = r.agents;
  d["edges"] = r.edges;
  d["partition"] = o.partition;
  d["overlap"] = o.overlap;
  d["exchange_every"] = o.exchange_every;
  d["ghosts"] = ghosts;
  d["cut_fraction"] = cut_fraction(r);
  d["steps"] = o.steps;
  d["first_step"] = r.first_step;
  d["seconds_per_step"] = per_step_of(r.step_seconds, steps);
  d["compute_seconds_per_step"] = per_step_of(compute_seconds(worst), steps);
  d["pack_seconds_per_step"] = per_step_of(worst.pack_seconds, steps);
  d["wait_seconds_per_step"] = per_step_of(worst.wait_seconds, steps);
  d["unpack_seconds_per_step"] = per_step_of(worst.unpack_seconds, steps);
  // Setup phases and memory on the rank that spent or held the most.
  d["setup_seconds"] = r.setup_seconds;
  d["graph_seconds"] = most_over_ranks(r, &RankStats::graph_seconds);
  d["partition_seconds"] = most_over_ranks(r, &RankStats::partition_seconds);
  d["local_graph_seconds"] = most_over_ranks(r, &RankStats::local_graph_seconds);
  d["halo_plan_seconds"] = most_over_ranks(r, &RankStats::halo_plan_seconds);
  d["simulation_seconds"] = most_over_ranks(r, &RankStats::simulation_seconds);
  d["peak_memory_bytes"] = static_cast<long long>(most_over_ranks(r, &RankStats::peak_memory_bytes));
  d["final"] = final_counts_of(r);
  d["herd_version"] = HERD_VERSION_STRING;
  return json_text(d, -1);
}

std::string profile_steps_csv(JobResult const& r) {
  auto const& p = r.profile;
  std::ostringstream s;
  s << std::setprecision(6) << "step,listed_ranks,stepped_agents";
  for (auto const& phase : p.phases) s << "," << phase << "_s";
  s << ",total_s\n";
  for (auto const& step : p.steps) {
    s << step.step << "," << step.listed_ranks << "," << step.stepped;
    for (double seconds : step.slowest_seconds) s << "," << seconds;
    s << "," << step.slowest_total << "\n";
  }
  return s.str();
}

std::string json_text(nlohmann::ordered_json const& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace herd::cli
