#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>

namespace herd::cli {

namespace {

double to_number(std::string const& option, std::string const& text) {
  char* end = nullptr;
  errno = 0;
  double const value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
    throw UsageError{option + ": '" + text + "' is not a number"};
  return value;
}

long long to_count(std::string const& option, std::string const& text, long long max) {
  double const value = to_number(option, text);  // accepts 1e6 as well as 1000000
  if (value != std::floor(value)) throw UsageError{option + ": '" + text + "' is not a whole number"};
  if (value < 0) throw UsageError{option + ": '" + text + "' must not be negative"};
  if (value > static_cast<double>(max))
    throw UsageError{option + ": " + text + " exceeds the largest supported value " + std::to_string(max)};
  return static_cast<long long>(value);
}

std::string one_of(std::string const& option, std::string const& text, std::vector<std::string> const& choices) {
  for (auto const& c : choices)
    if (c == text) return text;
  std::string list;
  for (auto const& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw UsageError{option + ": unknown value '" + text + "' (expected " + list + ")"};
}

}  // namespace

Options parse(std::vector<std::string> const& args) {
  Options o;
  std::size_t i = 0;
  if (!args.empty() && args[0].rfind('-', 0) != 0) {
    o.command = args[0];
    if (o.command != "run" && o.command != "help" && o.command != "version")
      throw UsageError{"unknown command '" + o.command + "' (expected run, help or version)"};
    ++i;
  }
  constexpr long long max_agents = std::numeric_limits<std::int32_t>::max();
  constexpr long long max_int = std::numeric_limits<int>::max();
  using Setter = std::function<void(std::string const&, std::string const&)>;
  std::map<std::string, Setter> const with_value = {
      {"--model",
       [&](auto& k, auto& v) {
         o.model = one_of(k, v, {"sir", "seir", "voter", "majority"});
       }},
      {"--graph", [&](auto&, auto& v) { o.graph = v; }},
      {"--agents", [&](auto& k, auto& v) { o.agents = to_count(k, v, max_agents); }},
      {"--mean-degree", [&](auto& k, auto& v) { o.mean_degree = to_number(k, v); }},
      {"--exponent", [&](auto& k, auto& v) { o.exponent = to_number(k, v); }},
      {"--rewire", [&](auto& k, auto& v) { o.rewire = to_number(k, v); }},
      {"--steps", [&](auto& k, auto& v) { o.steps = static_cast<int>(to_count(k, v, max_int - 1)); }},
      {"--seed", [&](auto& k, auto& v) { o.seed = static_cast<std::uint64_t>(to_count(k, v, (1ll << 53))); }},
      {"--beta", [&](auto& k, auto& v) { o.beta = to_number(k, v); }},
      {"--infectious-steps", [&](auto& k, auto& v) { o.infectious_steps = static_cast<int>(to_count(k, v, max_int)); }},
      {"--gamma", [&](auto& k, auto& v) { o.gamma = to_number(k, v); }},
      {"--latent-steps", [&](auto& k, auto& v) { o.latent_steps = static_cast<int>(to_count(k, v, max_int)); }},
      {"--sigma", [&](auto& k, auto& v) { o.sigma = to_number(k, v); }},
      {"--initial-infected", [&](auto& k, auto& v) { o.initial_infected = to_count(k, v, max_agents); }},
      {"--initial-share", [&](auto& k, auto& v) { o.initial_share = to_number(k, v); }},
      {"--precision",
       [&](auto& k, auto& v) {
         o.precision = one_of(k, v, {"float", "half"});
       }},
      {"--reorder",
       [&](auto& k, auto& v) {
         o.reorder = one_of(k, v, {"none", "rcm", "degree", "random"});
       }},
      {"--schedule",
       [&](auto& k, auto& v) {
         o.schedule = one_of(k, v, {"auto", "thread", "vector", "team", "hybrid"});
       }},
      {"--threads", [&](auto& k, auto& v) { o.threads = static_cast<int>(to_count(k, v, 4096)); }},
      {"--csv", [&](auto&, auto& v) { o.csv = v; }},
      {"--json", [&](auto&, auto& v) { o.json = v; }},
  };
  for (; i < args.size(); ++i) {
    std::string key = args[i], value;
    bool has_value = false;
    if (auto eq = key.find('='); key.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      has_value = true;
    }
    if (key == "--help" || key == "-h") {
      o.command = "help";
      continue;
    }
    if (key == "--version") {
      o.command = "version";
      continue;
    }
    if (key == "--quiet" || key == "--directed") {
      if (has_value) throw UsageError{key + " takes no value"};
      (key == "--quiet" ? o.quiet : o.directed) = true;
      continue;
    }
    auto const setter = with_value.find(key);
    if (setter == with_value.end()) throw UsageError{"unknown option '" + key + "'"};
    if (!has_value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) throw UsageError{key + " needs a value"};
      value = args[++i];
    }
    setter->second(key, value);
  }
  if (o.agents == 0) throw UsageError{"--agents must be positive"};
  if (o.steps == 0 && o.command == "run") throw UsageError{"--steps must be positive"};
  if (o.threads < 0) throw UsageError{"--threads must not be negative"};
  return o;
}

std::string usage() {
  return R"(herd: agent-based simulation on contact graphs (Kokkos)

Usage:
  herd                 run the default job: SEIR on a built-in population of a million agents
  herd run [options]   run a model on a graph
  herd --help | --version

Model:
  --model NAME             sir, seir (default), voter, majority
  --beta P                 transmission probability per contact and step, in [0, 1] (0.08);
                           an edge of weight w transmits with probability beta * w
  --infectious-steps N     fixed infectious period in steps (5)
  --gamma P                geometric infectious period instead: recovery probability per step
  --latent-steps N         fixed latent period of seir (2)
  --sigma P                geometric latent period instead: exit probability per step
  --initial-infected N     agents infectious at the start, chosen by the seed (10)
  --initial-share P        voter/majority: probability of starting with opinion 1 (0.5)

Graph:
  --graph NAME|FILE        population (default: households, schools, workplaces, community),
                           erdos-renyi, power-law, watts-strogatz, or an edge-list file
                           (two ids per line, optional weight, '#' comments, SNAP or .lg style)
  --agents N               agents of a generated graph (1000000)
  --mean-degree C          mean degree of erdos-renyi, power-law, watts-strogatz (16)
  --exponent G             power-law degree exponent, > 2 (2.5)
  --rewire P               watts-strogatz rewiring probability (0.1)
  --directed               keep a file's edges directed (u -> v: v's state affects u)

Run:
  --steps N                steps to run (150)
  --seed S                 seed of the graph, the initial state and every random draw (42)
  --precision float|half   storage of edge weights: 4 or 2 bytes (float)
  --reorder ORDER          none (default), rcm, degree, random: relabel agents for locality;
                           results are the same, reported in the original ids
  --schedule NAME          auto (default), thread, vector, team, hybrid: agents/edges to threads
  --threads N              host threads (default: OpenMP's)
  --csv FILE               write the time series of counts per state
  --json FILE              write a machine-readable summary
  --quiet                  no progress or table, only errors

Exit status: 0 on success, 1 when the run fails (bad file, bad parameter), 2 on a usage error.
)";
}

}  // namespace herd::cli
