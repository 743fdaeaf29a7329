#pragma once

#include <herd/core/types.hpp>

#include <cstdint>
#include <vector>

namespace herd {

/// Timestamped contacts in host memory: contact k joins agents first[k] and second[k] at
/// times[k] (any integer unit; SocioPatterns files count seconds). Agents are 0..num_agents-1;
/// `ids` keeps the id each had in its file, where it came from one.
struct TimedContacts {
  agent_index num_agents = 0;
  std::vector<std::int64_t> times;
  std::vector<agent_index> first;
  std::vector<agent_index> second;
  std::vector<global_id> ids;  ///< empty, or the file's id of each agent

  std::size_t size() const { return times.size(); }
};

}  // namespace herd
