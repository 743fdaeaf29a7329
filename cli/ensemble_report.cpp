#include "ensemble_report.hpp"
#include "report.hpp"

#include <herd/config.hpp>
#include <herd/ensemble/summary.hpp>

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace herd::cli {

namespace {

using Json = nlohmann::ordered_json;

// An observable's column, or -1.
int column_of(JobResult const& r, std::string const& name) {
  auto const at = std::find(r.columns.begin(), r.columns.end(), name);
  return at == r.columns.end() ? -1 : static_cast<int>(at - r.columns.begin());
}

// An epidemic's outcome in one member: agents ever infected (all but the final susceptibles and
// those a vaccination protected, the initially infected included) and the first step at which the
// infectious count peaked.
struct Outbreak {
  double ever_infected = 0.0;
  double peak_step = 0.0;
};

Outbreak outbreak_of(JobResult const& r, MemberRun const& m) {
  auto const s = static_cast<std::size_t>(column_of(r, "S")), i = static_cast<std::size_t>(column_of(r, "I"));
  // Agents a vaccination protected left S without an infection.
  long long protected_agents = 0;
  for (std::size_t k = 0; k < std::min(r.events.size(), m.event_agents.size()); ++k)
    if (r.events[k].kind == "vaccinate") protected_agents += m.event_agents[k];
  Outbreak b;
  b.ever_infected = static_cast<double>(r.agents - m.counts.back()[s] - protected_agents);
  long long peak = -1;
  for (std::size_t t = 0; t < m.counts.size(); ++t)
    if (m.counts[t][i] > peak) {
      peak = m.counts[t][i];
      b.peak_step = static_cast<double>(t);
    }
  return b;
}

// The values of a member's column at step t, over the point's members.
std::vector<double> over_members(std::vector<MemberRun const*> const& members, std::size_t t, std::size_t c) {
  std::vector<double> values;
  values.reserve(members.size());
  for (auto const* m : members) values.push_back(static_cast<double>(m->counts[t][c]));
  return values;
}

Json spread_json(Spread const& s) {
  Json j;
  j["mean"] = s.mean;
  for (std::size_t k = 0; k < 5; ++k) j[quantile_names[k]] = s.quantiles[k];
  return j;
}

std::string point_label(Options const& o, long long point) {
  std::string label;
  auto const values = point_values(o, point);
  for (std::size_t a = 0; a < values.size(); ++a)
    label += (label.empty() ? "" : " ") + o.sweep[a].name + "=" + values[a];
  return label.empty() ? "all members" : label;
}

// Seconds per member-step on a rank: the busiest rank's time over the members it ran (rank 0's,
// the most under mpiexec), each one's simulation and initial state included.
double per_member_step(Options const& o, JobResult const& r) {
  auto const members = static_cast<long long>(r.members.size());
  long long const busiest = (members + r.member_ranks - 1) / r.member_ranks;  // members on rank 0
  double const steps = r.member_steps >= 0 ? static_cast<double>(r.member_steps)
                                           : static_cast<double>(busiest) * static_cast<double>(o.steps);
  return steps > 0 ? r.step_seconds / steps : 0.0;
}

std::string fixed(double value, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value;
  return s.str();
}

// Event k's agents in each of the point's members.
std::vector<double> event_agents(std::vector<MemberRun const*> const& members, std::size_t k) {
  std::vector<double> values;
  values.reserve(members.size());
  for (auto const* m : members) values.push_back(k < m->event_agents.size() ? m->event_agents[k] : 0.0);
  return values;
}

}  // namespace

std::vector<std::vector<MemberRun const*>> by_point(Options const& o, JobResult const& r) {
  std::vector<std::vector<MemberRun const*>> points(static_cast<std::size_t>(sweep_points(o)));
  for (auto const& m : r.members) points[static_cast<std::size_t>(m.member / o.replicates)].push_back(&m);
  return points;
}

bool is_epidemic(JobResult const& r) { return column_of(r, "S") >= 0 && column_of(r, "I") >= 0; }

std::vector<Spread> series_spreads(JobResult const& r, std::vector<MemberRun const*> const& members) {
  std::size_t const steps = members.front()->counts.size(), columns = r.columns.size();
  std::vector<Spread> spreads;
  spreads.reserve(steps * columns);
  for (std::size_t t = 0; t < steps; ++t)
    for (std::size_t c = 0; c < columns; ++c) spreads.push_back(spread(over_members(members, t, c)));
  return spreads;
}

Outbreaks outbreaks(Options const& o, JobResult const& r, std::vector<MemberRun const*> const& members) {
  Outbreaks all;
  all.ever_infected.reserve(members.size());
  all.peak_steps.reserve(members.size());
  for (auto const* m : members) {
    auto const b = outbreak_of(r, *m);
    all.ever_infected.push_back(b.ever_infected);
    all.peak_steps.push_back(b.peak_step);
    // The share, not F times the agents: 0.5085 * 2000 rounds below 1017, and 1017 / 2000 rounds
    // to the same double as 0.5085, so a member exactly at the threshold does not exceed it.
    all.major += b.ever_infected / static_cast<double>(r.agents) > o.major_outbreak ? 1 : 0;
  }
  return all;
}

std::string ensemble_table(Options const& o, JobResult const& r) {
  std::ostringstream s;
  s << "Herd " << HERD_VERSION_STRING << " | model " << o.model << " | " << r.backend << ", " << r.threads << " thread"
    << (r.threads == 1 ? "" : "s") << " | ensemble of " << r.members.size() << " members (" << sweep_points(o)
    << " point" << (sweep_points(o) == 1 ? "" : "s") << " x " << o.replicates << " replicate"
    << (o.replicates == 1 ? "" : "s") << ", seeds " << o.seed << ".."
    << o.seed + static_cast<std::uint64_t>(o.replicates - 1) << ")\n";
  s << "graph " << r.graph_name << ": " << r.agents << " agents, " << r.edges << " directed edges\n";
  auto const points = by_point(o, r);
  for (std::size_t p = 0; p < points.size(); ++p) {
    s << "\n"
      << point_label(o, static_cast<long long>(p)) << ": final counts over " << points[p].size()
      << " members (mean, 5 / 50 / 95 %)\n";
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      auto const f = spread(over_members(points[p], static_cast<std::size_t>(o.steps), c));
      s << "  " << std::setw(4) << r.columns[c] << std::setw(14) << fixed(f.mean, 1) << std::setw(12)
        << fixed(f.quantiles[0], 0) << std::setw(12) << fixed(f.quantiles[2], 0) << std::setw(12)
        << fixed(f.quantiles[4], 0) << "\n";
    }
    if (is_epidemic(r)) {
      auto const [ever, peaks, major] = outbreaks(o, r, points[p]);
      s << "  ever infected: median " << fixed(quantile(ever, 0.5), 0) << ", peak at step "
        << fixed(quantile(peaks, 0.5), 0) << " (median); major outbreaks (> " << o.major_outbreak * 100
        << " % of agents): " << major << " of " << points[p].size() << "\n";
    }
    if (!r.events.empty()) {
      s << "  scenario (agents per member: mean, 5 / 50 / 95 %):\n";
      auto const lines = events_table(
          r.events,
          [&](std::size_t k) {
            auto const f = spread(event_agents(points[p], k));
            return fixed(f.mean, 1) + " (" + fixed(f.quantiles[0], 0) + " / " + fixed(f.quantiles[2], 0) + " / " +
                   fixed(f.quantiles[4], 0) + ")";
          },
          o.steps);
      std::istringstream in(lines);
      for (std::string line; std::getline(in, line);) s << "  " << line << "\n";
    }
  }
  s << "\nsetup " << std::setprecision(3) << r.setup_seconds << " s (the graph, once); " << r.members.size()
    << " members x " << o.steps << " steps in " << r.step_seconds << " s"
    << (r.member_ranks > 1 ? " on the busiest of " + std::to_string(r.member_ranks) + " ranks" : "")
    << (r.graph_ranks > 1 ? " with the graph over " + std::to_string(r.graph_ranks) + " ranks" : "") << ": "
    << per_member_step(o, r) * 1e3 << " ms per member-step"
    << (r.shared_passes ? " (groups of up to 32 members sharing each pass over the graph)" : "") << "\n";
  return s.str();
}

std::string ensemble_csv(Options const& o, JobResult const& r) {
  std::ostringstream s;
  s << "member,point,replicate,seed";
  for (auto const& a : o.sweep) s << "," << a.name;
  s << ",step";
  for (auto const& c : r.columns) s << "," << c;
  s << "\n";
  for (auto const& m : r.members) {
    std::string prefix = std::to_string(m.member) + "," + std::to_string(m.member / o.replicates) + "," +
                         std::to_string(m.member % o.replicates) + "," + std::to_string(m.seed);
    for (auto const& v : point_values(o, m.member / o.replicates)) prefix += "," + v;
    for (std::size_t t = 0; t < m.counts.size(); ++t) {
      s << prefix << "," << t;
      for (long long v : m.counts[t]) s << "," << v;
      s << "\n";
    }
  }
  return s.str();
}

std::string ensemble_json(Options const& o, JobResult const& r, std::string const& kokkos_configuration) {
  Json d;
  d["herd_version"] = HERD_VERSION_STRING;
  d["label"] = o.label;
  d["model"] = o.model;
  d["graph"] = r.graph_name;
  d["agents"] = r.agents;
  d["edges"] = r.edges;
  d["steps"] = o.steps;
  d["seed"] = o.seed;
  d["graph_seed"] = o.graph_seed;
  d["replicates"] = o.replicates;
  d["members"] = r.members.size();
  d["sweep"] = Json::array();
  for (auto const& a : o.sweep) {
    Json values = Json::array();
    for (auto const& v : a.values) values.push_back(std::strtod(v.c_str(), nullptr));
    d["sweep"].push_back({{"parameter", a.name}, {"values", values}});
  }
  d["major_outbreak_share"] = o.major_outbreak;
  d["observables"] = r.columns;
  d["points"] = Json::array();
  auto const points = by_point(o, r);
  for (std::size_t p = 0; p < points.size(); ++p) {
    Json point;
    point["point"] = p;
    Json parameters = Json::object();
    auto const values = point_values(o, static_cast<long long>(p));
    for (std::size_t a = 0; a < values.size(); ++a)
      parameters[o.sweep[a].name] = std::strtod(values[a].c_str(), nullptr);
    point["parameters"] = parameters;
    Json ids = Json::array(), seeds = Json::array();
    for (auto const* m : points[p]) {
      ids.push_back(m->member);
      seeds.push_back(m->seed);
    }
    point["members"] = ids;
    point["seeds"] = seeds;
    Json series = Json::object(), final_counts = Json::object();
    auto const spreads = series_spreads(r, points[p]);
    std::size_t const columns = r.columns.size();
    for (std::size_t c = 0; c < columns; ++c) {
      Json by_level = Json::object();
      by_level["mean"] = Json::array();
      for (auto const* n : quantile_names) by_level[n] = Json::array();
      for (std::size_t t = 0; t <= static_cast<std::size_t>(o.steps); ++t) {
        auto const& f = spreads[t * columns + c];
        by_level["mean"].push_back(f.mean);
        for (std::size_t k = 0; k < 5; ++k) by_level[quantile_names[k]].push_back(f.quantiles[k]);
      }
      series[r.columns[c]] = by_level;
      final_counts[r.columns[c]] = spread_json(spreads[static_cast<std::size_t>(o.steps) * columns + c]);
    }
    point["series"] = series;
    point["final"] = final_counts;
    if (is_epidemic(r)) {
      auto const [ever, peaks, major] = outbreaks(o, r, points[p]);
      Json outbreak;
      outbreak["ever_infected"] = spread_json(spread(ever));
      outbreak["ever_infected"]["values"] = ever;
      outbreak["peak_step"] = spread_json(spread(peaks));
      outbreak["peak_step"]["values"] = peaks;
      outbreak["major_outbreaks"] = major;
      outbreak["major_share"] = static_cast<double>(major) / static_cast<double>(points[p].size());
      point["outbreak"] = outbreak;
    }
    if (!r.events.empty()) {
      // As a run lists its events, with each counting event's agents per member and their spread.
      auto events = events_json(r.events);
      for (std::size_t k = 0; k < r.events.size(); ++k) {
        if (!events[k].contains("agents")) continue;
        auto const values = event_agents(points[p], k);
        events[k]["agents"] = spread_json(spread(values));
        events[k]["agents"]["values"] = values;
      }
      point["events"] = events;
    }
    d["points"].push_back(point);
  }
  d["setup_seconds"] = r.setup_seconds;
  d["step_loop_seconds"] = r.step_seconds;
  d["seconds_per_member_step"] = per_member_step(o, r);
  d["shared_passes"] = r.shared_passes;
  d["backend"] = r.backend;
  d["threads"] = r.threads;
  d["ranks"] = r.member_ranks * r.graph_ranks;  // one of them is 1
  d["graph_over_ranks"] = r.graph_ranks > 1;
  d["kokkos_version"] = KOKKOS_VERSION;
  d["kokkos_configuration"] = kokkos_configuration;
  return json_text(d, 2) + "\n";
}

}  // namespace herd::cli
