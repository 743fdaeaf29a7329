#include "memory_budget.hpp"

#include <herd/core/error.hpp>

#include <sys/resource.h>

#include <fstream>
#include <sstream>

namespace herd::cli {

namespace {

std::uint64_t available_on_node() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kilobytes = 0;
  std::string unit;
  while (meminfo >> key >> kilobytes >> unit)
    if (key == "MemAvailable:") return kilobytes * 1024;
  return 0;
}

std::string gigabytes(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / double(1ull << 30) << " GiB";
  return s.str();
}

// Whether `estimate` bytes fit `budget` (0: no limit).
bool fits(double estimate, std::uint64_t budget) { return budget == 0 || estimate <= static_cast<double>(budget); }

// The end of a refusal: the estimate against the budget.
std::string beyond(double estimate, std::uint64_t budget) {
  return " up to " + gigabytes(estimate) + ", more than the " + gigabytes(static_cast<double>(budget)) +
         " this process may use (--max-memory)";
}

}  // namespace

long long peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
  return static_cast<long long>(usage.ru_maxrss);  // bytes on macOS
#else
  return static_cast<long long>(usage.ru_maxrss) * 1024;  // kilobytes on Linux and the BSDs
#endif
}

std::uint64_t memory_budget(Options const& o, int ranks_on_node) {
  if (o.max_memory > 0) return o.max_memory;
  return available_on_node() / static_cast<std::uint64_t>(ranks_on_node);
}

void check_fits(std::string const& what, double agents, double entries, std::uint64_t budget, double bytes_per_agent,
                double bytes_per_entry, bool edge_list) {
  double const estimate = agents * bytes_per_agent + entries * bytes_per_entry;
  if (fits(estimate, budget)) return;
  std::string message = what + ": " + std::to_string(static_cast<long long>(agents)) + " agents and " +
                        std::to_string(static_cast<long long>(entries)) + " entries need" + beyond(estimate, budget);
  // Ids that reach far beyond the contacts: most agents would have none.
  if (edge_list && agents > 16.0 * (entries + 1.0))
    message += "; its ids are sparse: number them densely with herd convert --relabel";
  throw Error(message);
}

void check_windows_fit(std::string const& what, double agents, double windows, double contacts, std::uint64_t budget) {
  double const estimate = agents * windows * peak_agent_bytes + contacts * peak_contact_bytes;
  if (fits(estimate, budget)) return;
  auto const count = [](double x) { return std::to_string(static_cast<long long>(x)); };
  // Where the contacts alone do not fit, fewer windows cannot help.
  bool const contacts_fit = fits(contacts * peak_contact_bytes, budget);
  throw Error(what + ": " + count(agents) + " agents in " + count(windows) + " windows with contacts need" +
              beyond(estimate, budget) +
              (contacts_fit ? "; a longer --window makes fewer windows"
                            : "; the contacts alone need " + gigabytes(contacts * peak_contact_bytes) +
                                  ": give more memory, or more ranks"));
}

double share_peak_bytes(double owned, double entries, double ghosts, double agents, bool power_law, bool pull) {
  double const fitted = (pull ? 24.0 : 40.0) * owned + (pull ? 4.0 : 8.0) * entries + 36.0 * ghosts + 64e6;
  return 1.1 * fitted + agents * (1.0 / 4 + (power_law ? 8.0 : 0.0));
}

void check_history_fits(long long steps, std::uint64_t budget) {
  // Six observables at most (COVID has five), 8 bytes each, kept on the device and copied to the host.
  double const estimate = static_cast<double>(steps + 1) * 6 * 8 * 2;
  if (fits(estimate, budget)) return;
  throw Error("--steps " + std::to_string(steps) + ": the history of observables needs" + beyond(estimate, budget));
}

void check_scenario_fits(std::string const& path, std::size_t events, long long steps, std::uint64_t budget) {
  // A count per event and step before it, 8 bytes, on the device and in the host's copy.
  double const estimate = static_cast<double>(events) * static_cast<double>(steps + 1) * 8 * 2;
  if (fits(estimate, budget)) return;
  throw Error(path + ": the counts of its " + std::to_string(events) + " events over " + std::to_string(steps) +
              " steps need" + beyond(estimate, budget));
}

void check_ensemble_fits(long long members, long long steps, std::uint64_t budget) {
  // Per member and step on rank 0: the gathered counts, each member's rows (with their vectors'
  // own overhead) and a CSV line, about 250 bytes for six observables.
  double const estimate = static_cast<double>(members) * static_cast<double>(steps + 1) * 250.0;
  if (fits(estimate, budget)) return;
  throw Error("an ensemble of " + std::to_string(members) + " members and " + std::to_string(steps) +
              " steps: their counts on rank 0 need" + beyond(estimate, budget));
}

}  // namespace herd::cli
