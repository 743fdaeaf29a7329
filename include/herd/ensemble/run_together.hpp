#pragma once

// An ensemble's members stepped together on the graph they share: each member's history is the
// one herd::run gives it alone, bit for bit, while members that count their spreaders share each
// step's pass over the graph (herd::SharedSpreaderCounts).

#include <herd/core/error.hpp>
#include <herd/engine/run.hpp>
#include <herd/ensemble/shared_counts.hpp>
#include <herd/graph/build_csr.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace herd {

/// Whether the members of `Model` in `sims` share their passes over the graph in run_together:
/// one process each, stepped by pull, on one unweighted static graph whose largest degree is at most
/// SharedSpreaderCounts::max_degree, of a model that counts its spreaders.
template <class Model, class Simulation>
bool shares_graph_passes(std::vector<Simulation> const& sims) {
  if (sims.empty() || Simulation::distribution_type::has_ghosts) return false;
  auto const& graph = sims.front().graph();
  // A temporal network's members step in turn: the shared counts are built on one window's rows.
  for (auto const& sim : sims)
    if (sim.options().stepping != Stepping::pull || sim.graph().neighbours.data() != graph.neighbours.data() ||
        sim.temporal_network() != nullptr)
      return false;
  using Shared =
      SharedSpreaderCounts<typename Simulation::execution_space, typename Simulation::graph_type::weight_storage>;
  if (!Shared::template applies<Model>(graph.weighted(), 0)) return false;
  return degree_stats(sims.front().execution_space_instance(), graph).max_degree <= Shared::max_degree;
}

/// One step of the members sims[k] with models[k], k < shared.members(), whose spreaders `shared`
/// counts in one pass over their graph (shares_graph_passes must hold). Launches kernels only.
template <class Shared, class Simulation, class Model>
void step_sharing(Shared const& shared, Simulation* sims, Model* models) {
  for (int k = 0; k < shared.members(); ++k) shared.mark(k, models[k]);
  shared.count();
  for (int k = 0; k < shared.members(); ++k) {
    sims[k].before_step(models[k]);
    sims[k].count_spreaders_for_next_phase(shared.counts(k));
    sims[k].run_step(models[k]);
    sims[k].end_step();
  }
}

namespace Details {

// run_together's members that share their passes, their histories appended to `histories`.
template <class Simulation, class Model, class Histories>
void run_sharing(std::vector<Simulation>& sims, std::vector<Model>& models, int steps, Histories& histories) {
  using Shared =
      SharedSpreaderCounts<typename Simulation::execution_space, typename Simulation::graph_type::weight_storage>;
  Details::ProfilingRegion const region("herd::run_together");
  for (std::size_t k = 0; k < sims.size(); ++k) {
    histories.emplace_back("herd::history", steps + 1, models[k].num_observables());
    sims[k].prepare(models[k]);
    sims[k].observe(models[k], Kokkos::subview(histories[k], 0, Kokkos::ALL()));
  }
  for (std::size_t first = 0; first < sims.size(); first += Shared::max_members) {
    std::size_t const group = std::min<std::size_t>(Shared::max_members, sims.size() - first);
    Shared shared(sims[first].execution_space_instance(), sims[first].graph(), sims[first].num_owned(),
                  static_cast<int>(group));
    for (int t = 1; t <= steps; ++t) {
      step_sharing(shared, sims.data() + first, models.data() + first);
      for (std::size_t k = first; k < first + group; ++k)
        sims[k].observe(models[k], Kokkos::subview(histories[k], t, Kokkos::ALL()));
    }
  }
  for (std::size_t k = 0; k < sims.size(); ++k) sims[k].finish(histories[k]);
}

}  // namespace Details

/// Runs `steps` steps of every member, sims[k] with models[k] (each model's state initialised,
/// each simulation on the same execution space instance), and returns each member's history as
/// herd::run(sims[k], models[k], steps) would. Where shares_graph_passes, members step in groups
/// of SharedSpreaderCounts::max_members whose spreaders one pass over the graph counts per step;
/// otherwise one after another. Launches kernels only, like herd::run.
template <class Simulation, class Model>
std::vector<History<typename Simulation::memory_space>> run_together(std::vector<Simulation>& sims,
                                                                     std::vector<Model>& models, int steps) {
  require(sims.size() == models.size(), "run_together: one model per simulation");
  require(steps >= 0, "run_together: the step count must not be negative, got " + std::to_string(steps));
  using Memory = typename Simulation::memory_space;
  std::vector<History<Memory>> histories;
  histories.reserve(sims.size());
  if constexpr (counts_spreaders_v<Model>) {
    if (shares_graph_passes<Model>(sims)) {
      Details::run_sharing(sims, models, steps, histories);
      return histories;
    }
  }
  for (std::size_t k = 0; k < sims.size(); ++k) histories.push_back(run(sims[k], models[k], steps));
  return histories;
}

}  // namespace herd
