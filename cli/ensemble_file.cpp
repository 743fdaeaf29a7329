#include "ensemble_file.hpp"
#include "ensemble_report.hpp"

#include <herd/io/hdf5/format.hpp>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace herd::cli {

namespace {

std::string joined(std::vector<std::string> const& parts) {
  std::string text;
  for (auto const& p : parts) text += (text.empty() ? "" : ",") + p;
  return text;
}

template <class T>
void write_whole(io::h5::File& file, std::string const& dataset, std::vector<std::uint64_t> const& extents,
                 std::vector<T> const& values) {
  file.write_all(dataset, io::h5::type_of<T>(), extents, values.data());
}

void write(io::h5::File& f, Options const& o, JobResult const& r) {
  auto const members = static_cast<std::uint64_t>(r.members.size());
  auto const points = static_cast<std::uint64_t>(sweep_points(o));
  auto const rows = static_cast<std::uint64_t>(o.steps) + 1;
  auto const columns = static_cast<std::uint64_t>(r.columns.size());

  f.create_group("/ensemble");
  f.set_attribute("/ensemble", "model", o.model);
  f.set_attribute("/ensemble", "graph", r.graph_name);
  f.set_attribute("/ensemble", "label", o.label);
  f.set_attribute("/ensemble", "agents", static_cast<std::int64_t>(r.agents));
  f.set_attribute("/ensemble", "edges", static_cast<std::int64_t>(r.edges));
  f.set_attribute("/ensemble", "steps", static_cast<std::int64_t>(o.steps));
  f.set_attribute("/ensemble", "seed", static_cast<std::int64_t>(o.seed));
  f.set_attribute("/ensemble", "graph_seed", static_cast<std::int64_t>(o.graph_seed));
  f.set_attribute("/ensemble", "replicates", static_cast<std::int64_t>(o.replicates));
  f.set_attribute("/ensemble", "major_outbreak_share", o.major_outbreak);
  std::vector<std::string> swept;
  for (auto const& a : o.sweep) swept.push_back(a.name);
  f.set_attribute("/ensemble", "parameters", joined(swept));

  std::vector<std::int64_t> counts;
  counts.reserve(members * rows * columns);
  for (auto const& m : r.members)
    for (auto const& row : m.counts) counts.insert(counts.end(), row.begin(), row.end());
  write_whole(f, "/ensemble/counts", {members, rows, columns}, counts);
  f.set_attribute("/ensemble/counts", "columns", joined(r.columns));

  // Per member: seed, point, replicate and the swept parameters' values.
  f.create_group("/members");
  std::vector<std::uint64_t> seeds;
  std::vector<std::int64_t> point, replicate;
  for (auto const& m : r.members) {
    seeds.push_back(m.seed);
    point.push_back(m.member / o.replicates);
    replicate.push_back(m.member % o.replicates);
  }
  write_whole(f, "/members/seed", {members}, seeds);
  write_whole(f, "/members/point", {members}, point);
  write_whole(f, "/members/replicate", {members}, replicate);
  f.create_group("/points");
  std::vector<std::vector<double>> by_parameter(o.sweep.size());
  for (std::uint64_t p = 0; p < points; ++p) {
    auto const values = point_values(o, static_cast<long long>(p));
    for (std::size_t a = 0; a < values.size(); ++a) by_parameter[a].push_back(std::strtod(values[a].c_str(), nullptr));
  }
  for (std::size_t a = 0; a < o.sweep.size(); ++a) {
    write_whole(f, "/points/" + o.sweep[a].name, {points}, by_parameter[a]);
    std::vector<double> of_members(point.size());
    for (std::size_t m = 0; m < point.size(); ++m) of_members[m] = by_parameter[a][static_cast<std::size_t>(point[m])];
    write_whole(f, "/members/" + o.sweep[a].name, {members}, of_members);
  }

  // The summaries, [point, step, observable].
  auto const grouped = by_point(o, r);
  std::vector<double> stats[6];
  for (auto const& group : grouped)
    for (auto const& s : series_spreads(r, group)) {
      stats[0].push_back(s.mean);
      for (std::size_t k = 0; k < 5; ++k) stats[k + 1].push_back(s.quantiles[k]);
    }
  f.create_group("/summary");
  write_whole(f, "/summary/mean", {points, rows, columns}, stats[0]);
  for (std::size_t k = 0; k < 5; ++k)
    write_whole(f, std::string("/summary/") + quantile_names[k], {points, rows, columns}, stats[k + 1]);

  if (!is_epidemic(r)) return;
  // Points hold consecutive members, so their outbreaks joined are in member order.
  std::vector<std::int64_t> ever, peak, major;
  std::vector<double> share;
  for (auto const& group : grouped) {
    auto const b = outbreaks(o, r, group);
    for (std::size_t k = 0; k < group.size(); ++k) {
      ever.push_back(static_cast<std::int64_t>(b.ever_infected[k]));
      peak.push_back(static_cast<std::int64_t>(b.peak_steps[k]));
    }
    major.push_back(b.major);
    share.push_back(static_cast<double>(b.major) / static_cast<double>(group.size()));
  }
  f.create_group("/outbreak");
  write_whole(f, "/outbreak/ever_infected", {members}, ever);
  write_whole(f, "/outbreak/peak_step", {members}, peak);
  write_whole(f, "/outbreak/major_outbreaks", {points}, major);
  write_whole(f, "/outbreak/major_share", {points}, share);
}

}  // namespace

io::WrittenFile write_ensemble_file(Options const& options, JobResult const& result, std::string const& path) {
  auto file = io::create_partial(path, "herd-ensemble", MPI_COMM_SELF);
  try {
    write(file, options, result);
  } catch (...) {
    io::discard_file(file);
    throw;
  }
  return io::finish_file(file, path);
}

}  // namespace herd::cli
