#pragma once

// One simulation: where its agents live (its Distribution), the seed of its random stream, the
// step and phase counters, the scheduling plans and how its steps run (StepOptions). Models run
// unchanged on every distribution: SingleProcess holds every agent; mpi::Ghosts holds one rank's
// share with ghost copies of the agents it reads, which the halo keeps current.
//
// A phase on one rank, with overlap (one process: the interior is every agent, nothing waits):
//
//   step the interior agents | wait for the ghosts written by the last phase | step the boundary
//   swap the written buffers, then send what neighbours read of them to the ranks that read it
//
// Random draws are keyed on global ids and neighbour sums are integers, so the trajectory is the
// same, bit for bit, on any number of ranks and with any of the options.

#include <herd/agents/property.hpp>
#include <herd/core/error.hpp>
#include <herd/core/random.hpp>
#include <herd/detail/tuning.hpp>
#include <herd/engine/active_stepping.hpp>
#include <herd/engine/agent.hpp>
#include <herd/engine/closed_contacts.hpp>
#include <herd/engine/model_contract.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/phase_kernel.hpp>
#include <herd/engine/single_process.hpp>
#include <herd/engine/spreader_bits.hpp>
#include <herd/engine/step_options.hpp>
#include <herd/engine/step_plan.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/temporal_network.hpp>
#include <herd/graph/transpose.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace herd {

namespace Details {
// The first of `count` values of `size` bytes each that differ between `a` and `b`, or `count`.
template <class ExecutionSpace, class A, class B>
agent_index first_difference(ExecutionSpace const& exec, A const& a, B const& b, agent_index count, std::size_t size) {
  agent_index first = count;
  Kokkos::parallel_reduce(
      "herd::verify::compare", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index i, agent_index & found) {
        for (std::size_t k = 0; k < size; ++k)
          if (a(static_cast<std::size_t>(i) * size + k) != b(static_cast<std::size_t>(i) * size + k) && i < found)
            found = i;
      },
      Kokkos::Min<agent_index>(first));
  return first < count ? first : count;  // the reducer starts from its identity, the largest index
}
}  // namespace Details

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class WeightStorage = float,
          class Distribution = SingleProcess<ExecutionSpace, WeightStorage>>
class Simulation {
 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;
  using distribution_type = Distribution;

  /// One process holding every agent of `graph`; `ids(i)` is the global id of agent i (leave it
  /// empty when global ids are the indices: no reordering). The steps trust the graph's rows: one
  /// made without build_csr (read from elsewhere) should pass herd::validate first.
  template <class D = Distribution,
            std::enable_if_t<std::is_same_v<D, SingleProcess<ExecutionSpace, WeightStorage>>, int> = 0>
  Simulation(ExecutionSpace const& exec, graph_type graph, std::uint64_t seed, StepOptions const& options = {},
             Kokkos::View<global_id*, memory_space> ids = {})
      : Simulation(exec, D(std::move(graph), std::move(ids)), seed, options) {
    // A graph made without build_csr: a 16-bit weight above 65504 is infinite, and a closed contact NaN.
    check_weights_fit(exec, this->graph(), "the simulation's graph");
  }

  /// One process on a temporal network: step t reads the snapshot network.graph_of_step(t).
  /// Every step pulls (Stepping::automatic does too): a new snapshot changes the neighbours of
  /// every agent, so there is no active set to carry over. Global ids are the indices.
  template <class D = Distribution,
            std::enable_if_t<std::is_same_v<D, SingleProcess<ExecutionSpace, WeightStorage>>, int> = 0>
  Simulation(ExecutionSpace const& exec, TemporalNetwork<memory_space, WeightStorage> const& network,
             std::uint64_t seed, StepOptions const& options = {})
      : Simulation(exec, D(first_snapshot(network)), network, seed, options) {
    for (auto const& g : network.graphs) check_weights_fit(exec, g, "the simulation's temporal network");
  }

  /// The agents that `distribution` places, on a temporal network whose snapshots hold the rows
  /// of the owned agents in the distribution's numbering (mpi::local_snapshots makes a rank's):
  /// step t reads network.graph_of_step(t), pulled, as on one process.
  Simulation(ExecutionSpace const& exec, Distribution distribution,
             TemporalNetwork<memory_space, WeightStorage> network, std::uint64_t seed, StepOptions const& options = {})
      : Simulation(exec, std::move(distribution), seed, pulled(options)) {
    for (auto const& g : network.graphs)
      require(g.num_agents() == num_owned(), "temporal network: every snapshot holds the rows of the owned agents");
    // The steps index graphs by the busy windows unchecked: a network filled by hand is checked here.
    auto const& busy = network.busy;
    require(!network.graphs.empty() && busy.size() + 1 == network.graphs.size(),
            "temporal network: " + std::to_string(busy.size()) + " busy windows for " +
                std::to_string(network.graphs.size()) + " snapshots (the empty one, then one per busy window)");
    for (std::size_t s = 0; s < busy.size(); ++s)
      require(busy[s] < network.windows && (s == 0 || busy[s - 1] < busy[s]),
              "temporal network: busy window " + std::to_string(busy[s]) + " (entry " + std::to_string(s) +
                  "): the busy windows must ascend, each below the network's " + std::to_string(network.windows) +
                  " windows");
    // Bits for weighted sums where the snapshots are weighted (the first is the empty one).
    spreaders_ = Details::SpreaderBits<ExecutionSpace>(network.weighted_snapshot(), num_agents());
    spreaders_.set_enabled(options_.spreader_bits);
    spreaders_.set_weight_codes(options_.weight_codes);
    timeline_.emplace();
    timeline_->network = std::move(network);
    make_plans(options_.schedule);
  }

  /// The agents that `distribution` places (mpi::Ghosts: this rank's share of a distributed
  /// simulation). `exec` must be the instance the distribution was made with: a rank's halo packs
  /// on it what the phase kernels wrote.
  Simulation(ExecutionSpace const& exec, Distribution distribution, std::uint64_t seed, StepOptions const& options = {})
      : exec_(exec), where_(std::move(distribution)), rng_{seed} {
    // Ranks of other seeds would each step their own run: results no rank count gives.
    check_agreed("Simulation", {{"seeds", static_cast<std::int64_t>(seed)}});
    own_layer_factors();
    spreaders_ = Details::SpreaderBits<ExecutionSpace>(graph(), num_agents());
    apply_options(options, true);
  }

  ExecutionSpace const& execution_space_instance() const { return exec_; }
  Distribution const& distribution() const { return where_; }
  graph_type const& graph() const { return where_.graph(); }
  /// Agents whose properties this process stores (size properties with this): its own, then a
  /// rank's ghosts.
  agent_index num_agents() const { return where_.stored(); }
  /// Agents this process steps.
  agent_index num_owned() const { return where_.owned(); }
  /// Agents in the whole simulation.
  global_id num_global() const { return where_.global(); }

  /// Throws herd::Error unless `property` holds one value for each agent this process stores
  /// (num_agents(): on a rank, its own agents and then its ghosts), as a model's properties must:
  /// the steps index them by agent.
  template <class Property>
  void check_size(Property const& property) const {
    auto const failure = size_failure(property);
    if (!failure.empty()) throw Error(failure);
  }
  /// On a rank, throws a CollectiveError on every rank unless they all give the same `values`
  /// (mpi::require_same), named in the message; nothing on one process. What the ranks must agree
  /// on: a run's step count, its scenario. Collective on a rank.
  void check_agreed(std::string const& where, std::vector<std::pair<std::string, std::int64_t>> const& values) const {
    if constexpr (Distribution::has_ghosts)
      where_.agree(where, values);
    else
      (void)where, (void)values;
  }
  /// Throws on every rank when any rank gives a non-empty `failure` (a check of the rank's own
  /// agents), with the lowest failing rank's message (mpi::raise_if_any_failed); on one process,
  /// throws `failure`. Collective on a rank.
  void require_everywhere(std::string const& failure) const {
    if constexpr (Distribution::has_ghosts)
      where_.require_everywhere(failure);
    else if (!failure.empty())
      throw Error(failure);
  }
  /// check_size of every property `model` lists (for_each_property), on every rank at once: a rank
  /// whose sizes differ (its ghosts) fails them all, rather than leaving them waiting in the steps.
  /// Nothing for a model that lists none. Collective on a rank.
  template <class Model>
  void check_sizes(Model const& model) const {
    std::string failure;
    if constexpr (lists_properties_v<Model>)
      model.for_each_property([&](auto const& p) {
        if (failure.empty()) failure = size_failure(p);
      });
    require_everywhere(failure);
  }
  std::uint64_t seed() const { return rng_.seed; }
  CounterRng rng() const { return rng_; }
  /// The plan of the agents that read no ghosts: every agent on one process.
  StepPlan<memory_space> const& plan() const { return interior_; }
  /// Each stored agent's global id, on a rank; empty on one process, whose agent i is global agent
  /// i (id_map() gives both).
  Kokkos::View<global_id*, memory_space> const& global_ids() const { return where_.global_ids(); }
  /// Device-side map from local index to global id.
  Details::IdMap<memory_space> id_map() const { return {global_ids()}; }

  /// How the steps run. set_options allocates what they need (the push graph of active-set
  /// stepping, the plans of another schedule): call it before a step loop.
  StepOptions const& options() const { return options_; }
  void set_options(StepOptions const& options) { apply_options(options, false); }

  /// Steps completed so far.
  std::uint32_t step() const { return step_; }
  /// Marks the end of a step: the step counter moves on and phase numbering starts again.
  void end_step() {
    active_.end_step();
    ++step_;
    phase_ = 0;
    follow_timeline();
  }
  /// Sets the step counter (restarting from a saved state).
  void set_step(std::uint32_t step) {
    step_ = step;
    follow_timeline();
  }
  /// Sets the factor that multiplies the weights of each layer's edges from the next step on:
  /// factors[l] for layer l, 1 for layers past the end. The graph must have layers (a rank whose
  /// rows hold no entry has none to weigh: nothing to do). Copies the table to the device (at most
  /// max_layers floats) and waits for it; allocates nothing. The steps' active set is not told:
  /// call prepare() before the next step, as run_scenario does after an event.
  void set_layer_factors(std::vector<float> const& factors) {
    if (!graph().layered()) {
      require(graph().num_edges() == 0, "layer factors: the graph has no layers");
      return;
    }
    require(factors.size() <= static_cast<std::size_t>(max_layers), "layer factors: " + std::to_string(factors.size()) +
                                                                        " factors for at most " +
                                                                        std::to_string(max_layers) + " layers");
    for (std::size_t l = 0; l < host_factors_.extent(0); ++l) {
      float const f = l < factors.size() ? factors[l] : 1.0f;
      require(f >= 0.0f && f <= largest_float, "layer factors: layer " + std::to_string(l) + "'s factor " +
                                                   number_text(f) + " is negative or not finite");
      host_factors_(l) = f;
    }
    // The slots of closed entries, past max_layers, stay 0.
    Kokkos::deep_copy(exec_, Kokkos::subview(graph().layer_factors, std::make_pair(0, max_layers)), host_factors_);
    exec_.fence();
  }

  /// Readies the graph for isolation (herd::Interventions): its entries may then be closed and
  /// reopened by close_contacts, and the weights' codes come in open and closed twins. The
  /// simulation takes layer bytes of its own, every entry open (one byte an entry: another
  /// simulation on the same graph keeps its own contacts), and makes its push graph again. On a
  /// graph that is not symmetric (a rank's rows), keeps a transpose to find the rows that name an
  /// agent, unless listed steps push along one. Needs a layered graph (a rank whose rows hold no
  /// entry has nothing to close). Allocates and waits: call it before the step loop.
  void allow_closed_contacts() {
    require(graph().layered() || graph().num_edges() == 0,
            "isolation closes contacts by their layer, and the graph has no layers");
    require(!timeline_, "isolation closes contacts of a static graph, not of a temporal network's snapshots");
    if (closable_) return;
    closable_ = true;
    spreaders_.set_closable(true);
    if (!graph().layered()) return;
    auto g = graph();
    auto const shared = g.layers;
    g.layers = Kokkos::View<layer_index*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::layers::closable"), shared.extent(0));
    auto const own = g.layers;
    Kokkos::parallel_for(
        "herd::layers::open", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, own.extent(0)),
        KOKKOS_LAMBDA(std::size_t e) { own(e) = open_layer(shared(e)); });
    exec_.fence();
    where_.use_graph(g);
    apply_options(options_, true);  // the push graph holds the layers it pushes with
    closing_readers();
  }

  /// Closes the contacts of the agents that `isolation` flags now (its views are kept: pass the
  /// same each time). Where the steps' sums add by code from the spreader bits, those read who is
  /// isolated beside who spreads, and no entry is written. Entries are closed where a sum reads
  /// them: a listed step's pushes, or a phase that does not sum by code. Once they are, the
  /// entries that the changes touch are closed and reopened in this simulation's graph, its
  /// weight codes and its push graph (see Details::close_contacts), until a few steps in a row
  /// sum by code alone, which then reopen every entry. Launches kernels (a host backend writing
  /// entries first reads the count of changes; it allocates where allow_closed_contacts was
  /// followed by a change to pull stepping).
  void close_contacts(Details::Isolation<memory_space> const& isolation) {
    require(closable_, "close_contacts: call allow_closed_contacts before the step loop");
    if (!graph().layered()) return;
    isolation_ = isolation;
    spreaders_.isolate_by(isolation.flags, isolation.keeps);
    rounds_by_code_ = round_reads_entries_ ? 0 : rounds_by_code_ + 1;
    round_reads_entries_ = false;
    if (!closed_in_entries_) return;
    if (rounds_by_code_ >= Details::Tuning::rounds_before_reopening) {
      Details::open_every_contact(exec_, graph(), spreaders_.codes());
      if (pushes_through_copy()) Details::open_every_contact(exec_, active_.push_graph(), {});
      closed_in_entries_ = false;
      return;
    }
    graph_type const& readers = closing_readers();
    // A host backend reads how many changed (its kernels have finished when they return); a GPU
    // launches a thread per agent rather than wait for the count.
    agent_index launch = num_agents();
    if constexpr (Details::runs_on_host_v<ExecutionSpace>) {
      exec_.fence();
      Kokkos::deep_copy(launch, isolation.count);
    }
    Details::close_contacts(exec_, graph(), readers, isolation, launch, spreaders_.codes());
    if (pushes_through_copy()) Details::close_contacts(exec_, active_.push_graph(), graph(), isolation, launch, {});
  }
  /// Whether the entries' layer bytes say which contacts isolation closed now; if not, every
  /// entry is open, and the pulled sums by code read who is isolated from the spreader bits (see
  /// close_contacts).
  bool closes_in_entries() const { return closed_in_entries_; }

  /// Each layer's factor now (max_layers of them; empty on a graph without layers).
  std::vector<float> layer_factors() const {
    return std::vector<float>(host_factors_.data(), host_factors_.data() + host_factors_.extent(0));
  }

  /// The temporal network the steps read, if the simulation was made on one.
  TemporalNetwork<memory_space, WeightStorage> const* temporal_network() const {
    return timeline_ ? &timeline_->network : nullptr;
  }

  /// Runs one phase over every owned agent (or the step's active list): each reads current
  /// buffers and writes the next buffers of `written` (which keep their value for agents the
  /// phase does not set), then those swap. Phases of one step draw from separate random streams,
  /// numbered in the order they are applied. On a rank, what the phase wrote of properties that
  /// neighbours read then travels to the ghosts of other ranks.
  template <class Phase, class... Written>
  void apply(Phase const& phase, Written&... written) {
    (check_size(written), ...);  // on the host, a comparison each: a model that lists no properties
    check_distinct(written...);
    if (!verified_.empty()) (check_verified(written), ...);
    std::vector<std::size_t> left_out;  // Stepping::verify's: listed properties this apply() leaves out
    if (left_out_) left_out_(true, {static_cast<void const*>(written.current().data())...}, left_out);
    auto kernel = phase_kernel(phase, written...);
    bool const listed = !pulling_ && active_.listed() >= 0;
    given_counts_ = {};  // for this phase alone
    bool const marked_ahead = std::exchange(marked_ahead_, nullptr) == static_cast<void const*>(&phase);
    if (closable_ && (listed || kernel.counted.extent(0) != 0 || !spreaders_.template sums_by_code<Phase>()))
      close_in_entries();
    if (listed) {
      // A listed phase commits its agents in place: nothing to swap.
      where_.wait();
      Details::launch_listed(exec_, active_.list(), active_.listed(), kernel);
    } else {
      pull(phase, kernel, marked_ahead);
      (written.swap(), ...);
    }
    where_.after_phase(step_, active_.list(), listed ? active_.listed() : -1, written...);
    if (left_out_) left_out_(false, {}, left_out);
    ++phase_;
  }

  /// Runs one step of `model` (herd::run calls it between before_step and end_step). Under
  /// Stepping::verify a step on the active list runs twice from the same state, on the list and
  /// pulled, each neighbour's contribution read (not who spreads from the bits of `activity`),
  /// and every property the model lists (for_each_property) must come out the same, bit for bit;
  /// else it throws herd::Error naming the step, the first agent that differs (by global id) and
  /// the property: the model's activity or contributions break a rule of active-set stepping. A
  /// phase that sets a listed property its apply() does not list throws too. Verifying allocates
  /// and waits for the device every step. One process only.
  template <class Model>
  void run_step(Model& model) {
    if (options_.stepping != Stepping::verify || active_.listed() < 0) {
      model.step(*this);
      return;
    }
    if constexpr (lists_properties_v<Model>) {
      std::vector<Bytes> before, listed;
      save(model, before);
      verified_.clear();
      model.for_each_property([&](auto const& p) {
        verified_.push_back(p.current().data());
        verified_.push_back(p.next().data());
      });
      left_out_ = [this, &model](bool before, std::vector<void const*> const& written,
                                 std::vector<std::size_t>& left_out) {
        check_left_out(model, before, written, left_out);
      };
      std::uint32_t const first_phase = phase_;
      // Whatever stops the check, the simulation is left at the start of the step, not halfway.
      auto const restart = [&] {
        std::size_t k = 0;
        model.for_each_property([&](auto const& p) { restore(p, before[k++]); });
        phase_ = first_phase;
      };
      try {
        model.step(*this);
        save(model, listed);
        restart();
        // Pulled, each neighbour's contribution read: what the bits of `activity` stand for.
        pulling_ = true;
        spreaders_.set_enabled(false);
        model.step(*this);
        spreaders_.set_enabled(options_.spreader_bits);
        pulling_ = false;
        std::size_t k = 0;
        model.for_each_property([&](auto const& p) { compare(p, listed[k++], "pulled reading each contribution"); });
        // Pulled as a pull step is, from the spreader bits: what spreader_contribution(w) stands
        // for, which neither run above reads on a weighted graph.
        if (reads_spreader_bits(model)) {
          restart();
          pulling_ = true;
          model.step(*this);
          pulling_ = false;
          k = 0;
          model.for_each_property(
              [&](auto const& p) { compare(p, listed[k++], "pulled from the spreader bits (spreader_contribution)"); });
        }
      } catch (...) {
        pulling_ = false;
        spreaders_.set_enabled(options_.spreader_bits);
        verified_.clear();
        left_out_ = nullptr;
        restart();
        throw;
      }
      verified_.clear();
      left_out_ = nullptr;
    } else {
      throw Error("stepping verify: the model must list its properties (for_each_property) to be compared");
    }
  }

  /// Readies the step loop of `model` (herd::run calls it before its loop): active-set stepping
  /// forgets what it knew of the agents, whose state may have been set since the last step, and
  /// allocates its pushed sums; a weighted graph's weights are coded for the model once; a rank
  /// sizes its halo's buffers for the properties neighbours read. Call it after changing the
  /// model's state outside the steps when stepping them one by one.
  template <class Model>
  void prepare(Model const& model) {
    if (options_.stepping == Stepping::verify)
      require(lists_properties_v<Model>, "stepping verify: the model must list its properties (for_each_property)");
    check_sizes(model);
    phase_ = 0;
    active_.prepare(model);
    spreaders_.prepare(exec_, model, graph());
    where_.prepare(model);
  }

  /// Called before each step (herd::run does): finds the agents that may change this step and,
  /// when few enough, restricts the step's phases to them. Waits for the device (the counts of
  /// the sources and of the list) and, on a rank that lists, for its ghosts.
  template <class Model>
  void before_step(Model const& model) {
    // A listed step pushes along entries, which must then say which contacts are closed.
    auto const listing = [this] {
      if (closable_) close_in_entries();
    };
    if constexpr (Distribution::has_ghosts) {
      active_.before_step(
          model, num_owned(),
          [this] {
            where_.wait();
            return where_.ghost_changes();
          },
          listing);
    } else {
      active_.before_step(
          model, num_owned(), [] {}, listing);
    }
  }

  /// Gives the next phase every owned agent's spreading neighbours, counted outside the
  /// simulation, plus one where the agent itself is a source (activity::source), one byte per
  /// agent: the phase reads them instead of its rows (herd::SharedSpreaderCounts counts an
  /// ensemble's members in one pass). For a model that counts its spreaders
  /// (counts_spreaders_v) on an unweighted graph, stepped by pull on one process; `counts` must
  /// stay valid until the phase has run.
  void count_spreaders_for_next_phase(
      Kokkos::View<std::uint8_t const*, memory_space, Kokkos::MemoryUnmanaged> const& counts) {
    require(!Distribution::has_ghosts && options_.stepping == Stepping::pull && !graph().weighted(),
            "count_spreaders_for_next_phase: pull steps of one process on an unweighted graph only");
    require(static_cast<agent_index>(counts.extent(0)) == num_owned(),
            "count_spreaders_for_next_phase: one count per owned agent");
    given_counts_ = counts;
  }

  /// The three maps of who spreads, who spreads free and who is isolated (Details::spreader_maps)
  /// that the next pulled phase of `model` reads, where a pass over the agents before it reads
  /// their states and isolation flags anyway and may mark them instead (herd::Interventions'
  /// detections): a host backend on one process, the phase adding its sums by code on a graph
  /// whose contacts may close. Empty where the phase marks them itself.
  template <class Model>
  Kokkos::View<std::uint32_t*, memory_space> spreader_maps_ahead(Model const& /*model*/) const {
    if constexpr (Details::runs_on_host_v<ExecutionSpace> && !Distribution::has_ghosts) {
      if (spreaders_.template marks_isolation<Model>()) return spreaders_.bits();
    }
    return {};
  }
  /// Says that every word of spreader_maps_ahead(model) holds the agents' states and the flags of
  /// close_contacts now: the next phase, if `model` is the phase applied, reads them unmarked.
  /// No state may change before it.
  template <class Model>
  void spreaders_marked_ahead(Model const& model) {
    marked_ahead_ = &model;
  }

  /// Makes the ghost copies of `properties` current, after their owned values were set outside
  /// the steps (collective on a rank; nothing to do on one process).
  template <class... Properties>
  void update_ghosts(Properties&... properties) {
    if constexpr (Distribution::has_ghosts) {
      // The ghosts are written past the owned values: a property of another size on any rank
      // fails every rank before anything is written.
      std::string failure;
      ((failure = failure.empty() ? size_failure(properties) : failure), ...);
      require_everywhere(failure);
    }
    where_.update_ghosts(properties...);
  }
  /// update_ghosts of properties whose sizes every rank has agreed on already (check_sizes before
  /// the steps, or sized by Herd itself), without agreeing again: for what changes between steps
  /// (a scenario's events), where another exchange over every rank would wait each step. A size
  /// found wrong here still throws, on this rank, before any ghost is written. Collective on a rank.
  template <class... Properties>
  void update_agreed_ghosts(Properties&... properties) {
    (check_size(properties), ...);
    where_.update_ghosts(properties...);
  }
  /// Completes the exchange of ghosts in flight, if any; the next phase would otherwise do it.
  void wait_for_ghosts() { where_.wait(); }

  /// Adds up `model.observe(i, totals)` over the owned agents into `row` (a device View of
  /// model.num_observables() entries) without waiting for the result.
  template <class Model, class Row>
  void observe(Model const& model, Row const& row) const {
    Details::observe_agents(exec_, "herd::observe", model, Details::EveryAgent{}, num_owned(), row);
  }
  /// Adds up `model.observe` over the first `count` agents of the active list into `row`, without
  /// waiting: what the step on the list changes, observed before and after it.
  template <class Model, class Row>
  void observe_listed(Model const& model, agent_index count, Row const& row) const {
    Details::observe_list(exec_, active_.list(), count, model, row);
  }

  /// Completes a run whose observables went into `history`: a rank completes its last exchange
  /// and sums the history over ranks, in place (integer sums: the same on any rank count).
  template <class History>
  void finish(History const& history) {
    where_.finish(exec_, history);
  }

  /// Owned agents the phases of the step under way run on (the first of the active list), or -1
  /// when they run on every owned agent. Known from before_step until end_step.
  agent_index listed_agents() const { return active_.listed(); }
  /// The stepping choices made so far (a rank's own).
  SteppingStats const& stepping_stats() const { return active_.stats(); }
  /// The threshold of Stepping::automatic, once prepare() knows the model; the default follows
  /// the graph's edges (a rank's own).
  double active_threshold() const { return active_.threshold(); }
  /// Whether listed steps push sums through bins (CPUs; a rank's own).
  bool bins_pushes() const { return active_.bins_pushes(); }
  /// Whether listed steps count pushes instead of summing them (ActiveSet::counts_pushes()), for
  /// the model of the last step loop.
  bool counts_pushes() const { return active_.counts_pushes(); }
  /// Whether the pull steps of `model` read spreader bits (see Details::SpreaderBits::reads_bits),
  /// and not its neighbours' states, which they then do not ask for ahead either.
  template <class Model>
  bool reads_spreader_bits(Model const& /*model*/) const {
    return spreaders_.template reads_bits<Model>();
  }
  /// Whether its pull steps for `model` gather ahead: on a CPU execution space, for a model that
  /// says where it reads, as StepOptions::gather_ahead says for the bytes of those values (counted
  /// over the stored agents, a rank's ghosts included).
  template <class Model>
  bool gathers_ahead_for(Model const& /*model*/) const {
    return Details::runs_on_host_v<ExecutionSpace> && gathers_ahead_v<Model> &&
           herd::gathers_ahead(options_.gather_ahead, num_agents(), gathered_bytes_v<Model>);
  }
  /// Bytes per edge the weights' codes take: 1 once prepare() made them, else 0.
  double code_bytes_per_edge() const { return spreaders_.code_bytes_per_edge(); }

  /// What a step loop of `model` holds, per owned agent and per edge: the model's properties (as
  /// its for_each_property lists them), the graph, the global ids, the plans, a spreader bit per
  /// agent, the weights' codes, and what active-set stepping keeps (its marks, lists and sums,
  /// bins, and a transpose where the graph is not symmetric, or one kept for isolation's closed
  /// contacts: Simulation::allow_closed_contacts). A rank counts its agents and edges
  /// once, as one process holds them: its ghosts and halo buffers are left out. Parts are
  /// allocated for the model: call it after prepare(model) or a step loop.
  template <class Model>
  Footprint footprint(Model const& model) const {
    Footprint f;
    if constexpr (lists_properties_v<Model>)
      model.for_each_property([&](auto const& p) { f.bytes_per_agent += static_cast<double>(p.bytes_per_agent()); });
    auto const agents = static_cast<double>(num_owned() > 0 ? num_owned() : 1);
    std::size_t const plans = interior_.bytes() + (boundary_ ? boundary_->bytes() : 0);
    f.bytes_per_agent += static_cast<double>(sizeof(edge_offset)) + static_cast<double>(plans) / agents +
                         spreaders_.bits_per_agent() / 8.0;
    if (global_ids().extent(0) != 0) f.bytes_per_agent += sizeof(global_id);
    bool const weighted = timeline_ ? timeline_->network.weighted() : graph().weighted();
    double const edge = static_cast<double>(sizeof(agent_index) + (weighted ? sizeof(WeightStorage) : 0) +
                                            (graph().layered() ? sizeof(layer_index) : 0));
    f.bytes_per_edge = edge + code_bytes_per_edge();
    if constexpr (declares_activity_v<Model>) {
      if (options_.stepping != Stepping::pull) {
        f.bytes_per_agent += ActiveSet<ExecutionSpace, WeightStorage>::bytes_per_agent(
            declares_contribution_v<Model>, bins_pushes(), Details::pushes_values<Model>(graph()), !counts_pushes());
        if (!where_.pushes_along_rows()) {
          f.bytes_per_agent += sizeof(edge_offset);
          f.bytes_per_edge += edge;
        }
      }
    }
    if (readers_.num_agents() != 0) {  // the rows that name each agent, kept for closing contacts
      f.bytes_per_agent += sizeof(edge_offset);
      f.bytes_per_edge += edge;
    }
    return f;
  }

 private:
  // check_size's message for `property`, empty where it holds one value for each stored agent.
  template <class Property>
  std::string size_failure(Property const& property) const {
    if (property.size() == num_agents()) return {};
    auto const name = property.name();
    return (name.empty() ? std::string("a property without a name (default-constructed?)")
                         : "property '" + name + "'") +
           " holds " + std::to_string(property.size()) + " values for the " + std::to_string(num_agents()) +
           " agents the simulation stores (a model's properties hold one per agent, num_agents())";
  }

  // Refuses a property given twice to one apply(): its buffers would swap twice, and the phase's
  // writes be lost. Compares addresses; the names are made only for the message.
  template <class... Written>
  static void check_distinct(Written const&... written) {
    if constexpr (sizeof...(Written) > 1) {
      void const* const data[] = {static_cast<void const*>(written.current().data())...};
      for (std::size_t a = 0; a < sizeof...(Written); ++a)
        for (std::size_t b = a + 1; b < sizeof...(Written); ++b)
          if (data[a] == data[b] && data[a] != nullptr) {
            std::string const names[] = {written.name()...};
            throw Error("apply: property '" + names[a] +
                        "' is given twice among the properties a phase writes: its buffers would swap twice, and "
                        "the phase's writes be lost");
          }
    }
  }
  // Rows [0, interior) read no ghosts and step while the ghosts are in flight; the boundary rows
  // after them once the ghosts arrived. On one process every row is interior.
  void make_plans(Schedule schedule) {
    agent_index const interior = where_.interior();
    if (timeline_) {
      // Plans per snapshot, made once: switching snapshots allocates nothing. A snapshot's rows
      // read no more ghosts than the whole network's, whose interior the distribution knows.
      timeline_->interior.clear();
      timeline_->boundary.clear();
      for (auto const& g : timeline_->network.graphs) {
        timeline_->interior.push_back(make_step_plan(exec_, g, schedule, default_hub_threshold(), {0, interior}));
        if (interior < num_owned())
          timeline_->boundary.push_back(
              make_step_plan(exec_, g, schedule, default_hub_threshold(), {interior, num_owned() - interior}));
      }
      timeline_->current = static_cast<std::uint32_t>(-1);
      follow_timeline();
      return;
    }
    interior_ = make_step_plan(exec_, graph(), schedule, default_hub_threshold(), {0, interior});
    boundary_.reset();
    if (interior < num_owned())
      boundary_ = make_step_plan(exec_, graph(), schedule, default_hub_threshold(), {interior, num_owned() - interior});
  }

  // Whether listed steps push along a graph of their own (a transpose), with layers of its own.
  bool pushes_through_copy() const {
    auto const& push = active_.push_graph();
    return push.num_agents() > 0 && push.layers.data() != graph().layers.data();
  }

  // The graph whose row a lists the rows of graph() that name agent a, for close_contacts: the
  // graph itself when symmetric, else the push transpose of listed steps, else a transpose kept
  // for it (made on first use).
  graph_type const& closing_readers() {
    if (where_.pushes_along_rows()) return graph();
    if (pushes_through_copy()) return active_.push_graph();
    if (readers_.num_agents() == 0) readers_ = where_.transposed(exec_);
    return readers_;
  }

  // A layered graph's layer factors, 1 to start with, of this simulation's own: another one on the
  // same graph (an ensemble's next member) sets its own. Before the plans, the codes and the push
  // graph are made, which copy the graph with them.
  void own_layer_factors() {
    if (!graph().layered()) return;
    auto g = graph();
    // A graph made by hand may hold layer bytes that build_csr and the readers refuse: from
    // max_layers up a byte marks a closed entry.
    int const highest = Details::highest_layer_byte(exec_, g.layers);
    require(highest < max_layers,
            "graph: layer " + std::to_string(highest) + ", outside [0, " + std::to_string(max_layers) + ")");
    g.layer_factors = Kokkos::View<float*, memory_space>("herd::layer_factors", layer_factor_slots);
    host_factors_ = Kokkos::View<float*, Kokkos::HostSpace>("herd::layer_factors::host", max_layers);
    Kokkos::deep_copy(host_factors_, 1.0f);
    Kokkos::deep_copy(exec_, Kokkos::subview(g.layer_factors, std::make_pair(0, max_layers)), host_factors_);
    exec_.fence();
    where_.use_graph(g);
  }

  // Moves to the snapshot of the step under way (step_ + 1) on a temporal network: two Views and
  // a plan change hands, on the host.
  void follow_timeline() {
    if (!timeline_) return;
    auto const k = timeline_->network.graph_of_step(std::uint64_t{step_} + 1);
    if (k == timeline_->current) return;
    where_.use_graph(timeline_->network.graphs[k]);
    interior_ = timeline_->interior[k];
    if (!timeline_->boundary.empty()) boundary_ = timeline_->boundary[k];
    timeline_->current = k;
  }
  static graph_type first_snapshot(TemporalNetwork<memory_space, WeightStorage> const& network) {
    require(!network.graphs.empty(), "temporal network: no snapshots");
    return network.graphs.front();
  }
  static StepOptions pulled(StepOptions options) {
    require(
        options.stepping == Stepping::pull || options.stepping == Stepping::automatic,
        std::string("a temporal network is stepped by pull (each snapshot changes every agent's neighbours), not ") +
            (options.stepping == Stepping::active ? "active" : "verify"));
    options.stepping = Stepping::pull;
    // Weighted snapshots are summed edge by edge: codes are made once, of one graph's weights.
    options.weight_codes = false;
    return options;
  }

  void apply_options(StepOptions const& given, bool first) {
    StepOptions const options = timeline_ ? pulled(given) : given;
    require(!Distribution::has_ghosts || options.stepping != Stepping::verify,
            "stepping verify: runs on one process (it steps each step twice, and a rank's ghosts would travel twice)");
    // NaN compares false both ways: Stepping::automatic would list every step, whatever it costs.
    require(!options.active_threshold || !std::isnan(*options.active_threshold),
            "StepOptions::active_threshold: NaN is not a threshold (leave it empty for the default)");
    if (first || options.schedule != options_.schedule) make_plans(options.schedule);
    spreaders_.set_enabled(options.spreader_bits);
    spreaders_.set_weight_codes(options.weight_codes);
    active_.set_binned_push(options.binned_push);
    bool const pulls = options.stepping == Stepping::pull;
    if (first || pulls != (options_.stepping == Stepping::pull)) {
      using Set = ActiveSet<ExecutionSpace, WeightStorage>;
      // The push graph lists for each agent the agents that read it.
      active_.set(options.stepping, options.active_threshold,
                  options.stepping == Stepping::pull ? Set()
                  : where_.pushes_along_rows()       ? Set(exec_, graph(), num_owned())
                                                     : Set(exec_, push_transpose(), num_owned()));
      where_.record_ghost_changes(options.stepping != Stepping::pull);
    } else {
      active_.choose(options.stepping, options.active_threshold);
    }
    options_ = options;
  }

  // The transpose of graph() that listed steps push through: the one the distribution shares,
  // with this simulation's layer factors, or one of its own.
  graph_type push_transpose() const {
    if (auto const* shared = where_.shared_transpose()) {
      graph_type t = *shared;
      t.layer_factors = graph().layer_factors;
      return t;
    }
    return where_.transposed(exec_);
  }

  // The kernel of the phase under way, reading the sums the active set pushed for it, if any.
  template <class Phase, class... Written>
  auto phase_kernel(Phase const& phase, Written&... written) const {
    static_assert(Details::check_model_hooks<Phase>());
    // Each phase draws from a stream of its own, and the counter holds CounterRng::max_streams.
    if (streams::first_model_stream + phase_ >= CounterRng::max_streams)
      throw Error("a step runs more phases than the random streams allow (" +
                  std::to_string(CounterRng::max_streams - streams::first_model_stream) + ")");
    Details::PhaseKernel<Phase, graph_type, Written...> kernel(
        phase, graph(), id_map(), rng_, step_, streams::first_model_stream + phase_, Details::make_carry(written...));
    kernel.gather_ahead = gathers_ahead_for(phase);
    if (!pulling_) {
      kernel.pushed = active_.pushed_sums(phase_);
      kernel.counted = active_.pushed_counts(phase_);
    }
    if (given_counts_.extent(0) != 0) kernel.counted = given_counts_;
    return kernel;
  }

  // Stepping::verify compares what the model lists: a phase that writes anything else would run
  // twice unnoticed.
  template <class Property>
  void check_verified(Property const& property) const {
    for (void const* buffer : verified_)
      if (buffer == property.current().data()) return;
    throw Error("stepping verify: a phase writes '" + property.name() +
                "', which the model's for_each_property does not list");
  }

  // Stepping::verify: a listed property that a phase's apply() leaves out, and that the phase sets
  // all the same, loses what was set. Before the phase (`before`), its next buffer is made its
  // current one and `left_out` takes its place among the model's properties; after the phase the
  // two must still agree. Enumerated anew each time: a model may pass copies of its properties.
  template <class Model>
  void check_left_out(Model const& model, bool before, std::vector<void const*> const& written,
                      std::vector<std::size_t>& left_out) const {
    std::size_t k = 0;
    model.for_each_property([&](auto const& p) {
      std::size_t const at = k++;
      if (before) {
        if (std::find(written.begin(), written.end(), static_cast<void const*>(p.current().data())) != written.end())
          return;
        Kokkos::deep_copy(exec_, p.next(), p.current());
        left_out.push_back(at);
        return;
      }
      if (std::find(left_out.begin(), left_out.end(), at) == left_out.end()) return;
      using Storage = typename std::decay_t<decltype(p)>::storage_type;
      Kokkos::View<unsigned char const*, memory_space, Kokkos::MemoryUnmanaged> const next(
          reinterpret_cast<unsigned char const*>(p.next().data()), p.next().span() * sizeof(Storage));
      if (Details::first_difference(exec_, next, bytes_of(p), num_owned(), sizeof(Storage)) != num_owned())
        throw Error("stepping verify: step " + std::to_string(step_ + 1) + ": a phase sets '" + p.name() +
                    "', which its apply() does not list among the properties it writes: the values set are lost "
                    "(docs/model-guide.md)");
    });
  }

  // Stepping::verify: the current buffers of a model's properties, as bytes.
  using Bytes = Kokkos::View<unsigned char*, memory_space>;
  template <class Property>
  static Kokkos::View<unsigned char*, memory_space, Kokkos::MemoryUnmanaged> bytes_of(Property const& p) {
    return Kokkos::View<unsigned char*, memory_space, Kokkos::MemoryUnmanaged>(
        reinterpret_cast<unsigned char*>(p.current().data()),
        p.current().span() * sizeof(typename Property::storage_type));
  }
  template <class Model>
  void save(Model const& model, std::vector<Bytes>& to) const {
    model.for_each_property([&](auto const& p) {
      auto const from = bytes_of(p);
      Bytes copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::verify::" + p.name()), from.extent(0));
      Kokkos::deep_copy(exec_, copy, from);
      to.push_back(copy);
    });
  }
  template <class Property>
  void restore(Property const& p, Bytes const& from) const {
    Kokkos::deep_copy(exec_, bytes_of(p), from);
  }
  // Throws at the first agent whose value of `p` differs from `listed`, its value after the step
  // on the active list; `pulled_how` says how the step it was compared with ran.
  template <class Property>
  void compare(Property const& p, Bytes const& listed, char const* pulled_how) const {
    using Storage = typename Property::storage_type;
    auto const pulled = bytes_of(p);
    constexpr std::size_t size = sizeof(Storage);
    agent_index const first = Details::first_difference(exec_, listed, pulled, num_owned(), size);
    if (first == num_owned()) return;
    Storage on_list, on_pull;
    Kokkos::View<Storage*, memory_space, Kokkos::MemoryUnmanaged> const listed_values(
        reinterpret_cast<Storage*>(listed.data()), p.current().extent(0));
    Kokkos::deep_copy(on_list, Kokkos::subview(listed_values, first));
    Kokkos::deep_copy(on_pull, Kokkos::subview(p.current(), first));
    global_id id = first;
    if (global_ids().extent(0) != 0) Kokkos::deep_copy(id, Kokkos::subview(global_ids(), first));
    auto const text = [](Storage v) { return number_text(static_cast<double>(storage_traits<Storage>::load(v))); };
    throw Error("stepping verify: step " + std::to_string(step_ + 1) + ", agent " + std::to_string(id) + ": '" +
                p.name() + "' is " + text(on_list) + " stepped on the active list but " + text(on_pull) + " " +
                pulled_how +
                "; the model's activity or contributions break a rule of active-set stepping "
                "(docs/model-guide.md)");
  }

  // Pulls every owned agent: with overlap, the interior while the ghosts are on their way (their
  // spreader bits are marked once they arrived), then the boundary.
  template <class Phase, class Kernel>
  void pull(Phase const& phase, Kernel& kernel, bool marked_ahead) {
    if (kernel.counted.extent(0) != 0) {
      // Counted outside (count_spreaders_for_next_phase), on one process: no bits to mark.
      Details::launch_phase(exec_, interior_, kernel);
    } else if (where_.overlaps()) {
      kernel.spreading = spreaders_.mark(exec_, phase, 0, num_owned());
      Details::launch_phase(exec_, interior_, kernel);
      where_.wait();
      spreaders_.mark(exec_, phase, num_owned(), num_agents());
    } else {
      where_.wait();
      kernel.spreading = spreaders_.mark(exec_, phase, 0, num_agents(), marked_ahead);
      Details::launch_phase(exec_, interior_, kernel);
    }
    if (boundary_) Details::launch_phase(exec_, *boundary_, kernel);
  }

  // Before a sum that reads the entries' layer bytes: closes the entries that the isolation flags
  // say are closed, if they were left open.
  void close_in_entries() {
    round_reads_entries_ = true;
    if (closed_in_entries_ || !graph().layered()) return;
    closed_in_entries_ = true;
    if (isolation_.flags.extent(0) == 0) return;  // no one was isolated yet
    Details::close_every_contact(exec_, graph(), isolation_, spreaders_.codes());
    if (pushes_through_copy()) Details::close_every_contact(exec_, active_.push_graph(), isolation_, {});
  }

  ExecutionSpace exec_;
  Distribution where_;
  CounterRng rng_;
  StepOptions options_;
  StepPlan<memory_space> interior_;
  std::optional<StepPlan<memory_space>> boundary_;
  Details::ActiveStepping<ExecutionSpace, WeightStorage> active_;
  Details::SpreaderBits<ExecutionSpace> spreaders_;
  Kokkos::View<float*, Kokkos::HostSpace> host_factors_;  ///< the layer factors set last (a layered graph)
  bool closable_ = false;                                 ///< allow_closed_contacts was called
  Details::Isolation<memory_space> isolation_;            ///< the flags close_contacts was given last (or none yet)
  bool closed_in_entries_ = false;                        ///< see closes_in_entries()
  bool round_reads_entries_ = false;                      ///< a sum read the entries since the last close_contacts
  int rounds_by_code_ = 0;  ///< calls of close_contacts in a row whose steps before summed by code alone
  graph_type readers_;      ///< where isolation finds the rows naming an agent in neither the graph nor the push graph
  std::uint32_t step_ = 0;
  std::uint32_t phase_ = 0;
  bool pulling_ = false;  // Stepping::verify's second run of a step
  // The next phase's spreader counts, given by count_spreaders_for_next_phase; empty: none.
  Kokkos::View<std::uint8_t const*, memory_space, Kokkos::MemoryUnmanaged> given_counts_;
  // The phase whose spreader maps were marked ahead (spreaders_marked_ahead), if the next applied.
  void const* marked_ahead_ = nullptr;
  std::vector<void const*> verified_;  // the buffers of the properties Stepping::verify compares
  // During a step Stepping::verify checks: check_left_out of its model.
  std::function<void(bool, std::vector<void const*> const&, std::vector<std::size_t>&)> left_out_;
  // A temporal network's snapshots, their plans, and the snapshot in use.
  struct Timeline {
    TemporalNetwork<memory_space, WeightStorage> network;
    std::vector<StepPlan<memory_space>> interior, boundary;  // each snapshot's plans
    std::uint32_t current = static_cast<std::uint32_t>(-1);
  };
  std::optional<Timeline> timeline_;
};

}  // namespace herd
