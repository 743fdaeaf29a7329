#include <herd/engine/schedule.hpp>

namespace herd {

Schedule parse_schedule(std::string const& name) {
  if (name == "auto" || name == "automatic") return Schedule::automatic;
  if (name == "thread") return Schedule::thread;
  if (name == "vector") return Schedule::vector;
  if (name == "team") return Schedule::team;
  if (name == "hybrid") return Schedule::hybrid;
  if (name == "edge") return Schedule::edge;
  throw Error("unknown schedule '" + name + "' (expected auto, thread, vector, team, hybrid or edge)");
}

GatherAhead parse_gather_ahead(std::string const& name) {
  if (name == "auto" || name == "automatic") return GatherAhead::automatic;
  if (name == "on") return GatherAhead::on;
  if (name == "off") return GatherAhead::off;
  throw Error("unknown gather-ahead choice '" + name + "' (expected auto, on or off)");
}

std::string to_string(Schedule schedule) {
  switch (schedule) {
    case Schedule::automatic:
      return "auto";
    case Schedule::thread:
      return "thread";
    case Schedule::vector:
      return "vector";
    case Schedule::team:
      return "team";
    case Schedule::hybrid:
      return "hybrid";
    case Schedule::edge:
      return "edge";
  }
  return "?";
}

}  // namespace herd
