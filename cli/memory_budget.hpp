#pragma once

// Refusing a run that cannot fit before it allocates: a tiny input (an edge list whose ids reach
// 2^31, --agents 1e9) must end with one line giving the estimate, not with the machine's
// out-of-memory killer.

#include "options.hpp"

#include <cstdint>
#include <string>

namespace herd::cli {

/// The bytes this process may use: --max-memory, else the node's available memory shared by the
/// `ranks_on_node` ranks on it; 0 where neither is known.
std::uint64_t memory_budget(Options const& options, int ranks_on_node);

/// What an agent and a stored entry hold at the peak of a one-process build and run (check_fits).
inline constexpr double peak_agent_bytes = 32.0, peak_entry_bytes = 20.0;
/// What a contact of a timed-contact file holds at the peak of a temporal network's build: its
/// line's text, its parsed and its renumbered copy, and its two entries in its window's snapshot
/// and in the graph of pairs that met (76 bytes measured, docs/scenarios.md).
inline constexpr double peak_contact_bytes = 80.0;

/// Throws herd::Error naming `what` when a graph of `agents` agents and `entries` stored entries
/// would not fit `budget` (0: no limit), with the estimate in the message. `bytes_per_agent`: what
/// an agent holds besides its entries (the built-in population's generator holds more);
/// `bytes_per_entry`: what an entry holds at the peak of construction and run (by default the peak
/// resident size measured for generated graphs built by one process, 15.5 B, and a quarter more).
/// `edge_list`: the graph comes from an edge-list file, whose sparse ids herd convert --relabel
/// numbers densely (the message suggests it where the ids reach far beyond the contacts).
void check_fits(std::string const& what, double agents, double entries, std::uint64_t budget,
                double bytes_per_agent = peak_agent_bytes, double bytes_per_entry = peak_entry_bytes,
                bool edge_list = false);

/// The same for a temporal network of `agents` agents whose `contacts` fall in `windows` windows
/// (those with contacts): a row per agent and such window (peak_agent_bytes), and
/// peak_contact_bytes a contact. The message counts the agents and windows apart, and asks for a
/// longer window.
void check_windows_fit(std::string const& what, double agents, double windows, double contacts, std::uint64_t budget);

/// The peak resident bytes of one rank of a run whose graph of `agents` agents is built by shares:
/// `owned` agents, `entries` stored entries in their rows, `ghosts` ghosts. A tenth above the peaks
/// measured for SIR (docs/scaling.md): 40 bytes an owned agent and 8 an entry (24 and 4 with
/// `pull` stepping, which keeps no transpose or active set), 36 a ghost, 64 MB of runtime; and,
/// held while building, a bit per agent of the graph with a count per 32 (N/4 bytes) and a
/// power-law source's 8 bytes per agent.
double share_peak_bytes(double owned, double entries, double ghosts, double agents, bool power_law, bool pull);

/// The peak resident memory of this process so far, in bytes (getrusage; 0 if it fails).
long long peak_resident_bytes();

/// Throws herd::Error when the history of a run of `steps` steps (a row of observables per step,
/// on the device and on the host) would not fit `budget` (0: no limit).
void check_history_fits(long long steps, std::uint64_t budget);

/// Throws herd::Error naming `path` when the counts of a scenario's `events` events over a run of
/// `steps` steps (herd::EventCounts, on the device and on the host) would not fit `budget` (0: no
/// limit).
void check_scenario_fits(std::string const& path, std::size_t events, long long steps, std::uint64_t budget);

/// Throws herd::Error when the counts of an ensemble of `members` members of `steps` steps, which
/// rank 0 gathers and writes, would not fit `budget` (0: no limit).
void check_ensemble_fits(long long members, long long steps, std::uint64_t budget);

}  // namespace herd::cli
