// Parallel HDF5 I/O: checkpoints (every SEIR property of every agent, 3 bytes per agent) and
// population files (the layered population's CSR: 8 bytes per agent, 4 + 4 per weighted entry),
// written and read at 10^6 and 10^7 agents. Run under mpiexec at 1, 2 and 4 ranks.
//
// Agents are dealt to ranks round-robin, as a METIS partition scatters them: every value crosses
// the Alltoallv that brings it to the rank whose block of rows holds it. The reference is POSIX:
// the same bytes written by one process in one write() and fsync'd, or read with read() into new
// memory (zeroed, as std::vector gives it).
// Files go to $HERD_IO_DIR (default: the working directory); a second read of a file just written
// comes from the page cache, so reads measure the I/O stack, not the disk.

#include "bench_mpi_common.hpp"

#include <herd/io/hdf5/checkpoint.hpp>
#include <herd/io/hdf5/population.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace herd::bench {
namespace {

constexpr int iterations = 5;

std::string scratch(std::string const& name) {
  char const* dir = std::getenv("HERD_IO_DIR");
  return std::string(dir != nullptr ? dir : ".") + "/herd_bench_io_" + name;
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int ranks() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// What write_properties and read_properties need of a simulation: this rank's agents (every
// ranks-th agent of the population) and their global ids.
struct DealtAgents {
  agent_index owned = 0;
  global_id global = 0;
  Kokkos::View<global_id*, Memory> ids;

  explicit DealtAgents(global_id agents) : global(agents) {
    auto const r = rank(), p = ranks();
    owned = static_cast<agent_index>((agents - r + p - 1) / p);
    ids = Kokkos::View<global_id*, Memory>("herd::bench::ids", static_cast<std::size_t>(owned));
    auto out = ids;
    Kokkos::parallel_for(
        "herd::bench::deal", Kokkos::RangePolicy<Exec>(0, owned),
        KOKKOS_LAMBDA(agent_index i) { out(i) = r + static_cast<global_id>(i) * p; });
    Kokkos::fence();
  }
  agent_index num_owned() const { return owned; }
  agent_index num_agents() const { return owned; }
  global_id num_global() const { return global; }
  Kokkos::View<global_id*, Memory> const& global_ids() const { return ids; }
};

io::RunRecord record_of(DealtAgents const& agents) {
  io::RunRecord record;
  record.model = "seir";
  record.agents = static_cast<std::uint64_t>(agents.global);
  record.observables = {"S", "E", "I", "R"};
  record.history.assign(4, 0);
  return record;
}

void remove_file(std::string const& path) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) std::remove(path.c_str());
}

void set_bytes(benchmark::State& state, double bytes) {
  state.counters["bytes"] = bytes;
  state.counters["GB/s"] = benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["ranks"] = ranks();
}

void checkpoint_write(benchmark::State& state) {
  DealtAgents const agents(state.range(0));
  Seir<Memory> const model(agents.owned, SeirParameters{});
  auto const path = scratch("checkpoint.h5");
  timed_slowest(state, [&] {
    auto file = io::begin_file(path, "herd-checkpoint", record_of(agents), MPI_COMM_WORLD);
    io::write_properties(file, "/agents", agents, model);
    io::commit_file(file, path);
  });
  remove_file(path);
  set_bytes(state, 3.0 * static_cast<double>(agents.global));
}

void checkpoint_read(benchmark::State& state) {
  DealtAgents const agents(state.range(0));
  Seir<Memory> model(agents.owned, SeirParameters{});
  auto const path = scratch("checkpoint.h5");
  {
    auto file = io::begin_file(path, "herd-checkpoint", record_of(agents), MPI_COMM_WORLD);
    io::write_properties(file, "/agents", agents, model);
    io::commit_file(file, path);
  }
  timed_slowest(state, [&] {
    auto const file = io::h5::File::open(path, MPI_COMM_WORLD);
    auto const record = io::read_record(file, "herd-checkpoint");
    benchmark::DoNotOptimize(record.step);
    io::read_properties(file, "/agents", agents, model);
  });
  remove_file(path);
  set_bytes(state, 3.0 * static_cast<double>(agents.global));
}

double population_bytes(HostCsr const& g) {
  return 8.0 * static_cast<double>(g.row_offsets.size()) + 4.0 * static_cast<double>(g.neighbours.size()) +
         4.0 * static_cast<double>(g.weights.size());
}

void population_write(benchmark::State& state) {
  auto const g = to_host(Exec(), graph(population, static_cast<agent_index>(state.range(0)), Ordering::none));
  auto const path = scratch("population.h5");
  timed_slowest(state, [&] { io::write_population(path, g, io::PopulationInfo{}, MPI_COMM_WORLD); });
  remove_file(path);
  set_bytes(state, population_bytes(g));
}

void population_read(benchmark::State& state) {
  auto const g = to_host(Exec(), graph(population, static_cast<agent_index>(state.range(0)), Ordering::none));
  auto const path = scratch("population.h5");
  io::write_population(path, g, io::PopulationInfo{}, MPI_COMM_WORLD);
  timed_slowest(state, [&] { benchmark::DoNotOptimize(io::read_population_graph(path, MPI_COMM_WORLD)); });
  remove_file(path);
  set_bytes(state, population_bytes(g));
}

// The same bytes as population_write through POSIX on rank 0: write() + fsync, or read().
void posix_reference(benchmark::State& state) {
  auto const g = to_host(Exec(), graph(population, static_cast<agent_index>(state.range(0)), Ordering::none));
  std::vector<char> buffer(static_cast<std::size_t>(population_bytes(g)), 1);
  auto const path = scratch("posix.bin");
  bool const reading = state.range(1) != 0;
  auto const transfer = [&](int fd, bool read) {
    std::size_t done = 0;
    while (done < buffer.size()) {
      auto const n = read ? ::read(fd, buffer.data() + done, buffer.size() - done)
                          : ::write(fd, buffer.data() + done, buffer.size() - done);
      if (n <= 0) {
        state.SkipWithError("POSIX I/O failed");
        return;
      }
      done += static_cast<std::size_t>(n);
    }
  };
  if (rank() == 0 && reading) {
    int const fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    transfer(fd, false);
    ::close(fd);
  }
  timed_slowest(state, [&] {
    if (rank() != 0) return;
    // A reader returns new memory, as read_population_graph does: the page faults count.
    if (reading) std::vector<char>(buffer.size()).swap(buffer);
    int const fd = reading ? ::open(path.c_str(), O_RDONLY) : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    transfer(fd, reading);
    if (!reading) ::fsync(fd);
    ::close(fd);
  });
  if (rank() == 0) std::remove(path.c_str());
  state.SetLabel(reading ? "read" : "write+fsync");
  set_bytes(state, static_cast<double>(buffer.size()));
}

void sizes(benchmark::internal::Benchmark* b) { b->Arg(1000000)->Arg(10000000); }

BENCHMARK(checkpoint_write)->Apply(sizes)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(checkpoint_read)->Apply(sizes)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(population_write)->Apply(sizes)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(population_read)->Apply(sizes)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(posix_reference)
    ->ArgsProduct({{1000000, 10000000}, {0, 1}})
    ->Iterations(iterations)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
