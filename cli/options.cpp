#include "options.hpp"
#include "models.hpp"

#include <herd/core/error.hpp>
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/population.hpp>
#endif
#include <herd/ensemble/summary.hpp>
#include <herd/models/period.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

namespace herd::cli {

namespace {

using Setter = std::function<void(std::string const&, std::string const&)>;

// Decimal notation only: strtod's hexadecimal ("0x10"), infinities and leading blanks are refused.
double to_number(std::string const& option, std::string const& text) {
  bool const decimal = !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
  char* end = nullptr;
  errno = 0;
  double const value = decimal ? std::strtod(text.c_str(), &end) : 0.0;
  bool const whole_text = decimal && *end == '\0';
  // A number a 64-bit float does not hold: beyond its range, or so small it reads as 0 (strtod
  // also flags the subnormal numbers, which it holds).
  if (whole_text && errno == ERANGE && (value == 0.0 || !std::isfinite(value)))
    throw UsageError{option + ": '" + text + "' lies " +
                     (std::fabs(value) >= 1.0 ? "beyond the range" : "below the smallest magnitude") +
                     " of a 64-bit float"};
  if (!whole_text || !std::isfinite(value)) throw UsageError{option + ": '" + text + "' is not a number"};
  return value;
}

long long to_count(std::string const& option, std::string const& text, long long max) {
  // Digits alone are read exactly: a double holds integers up to 2^53 only.
  std::string_view const digits = std::string_view(text).substr(!text.empty() && text[0] == '+' ? 1 : 0);
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    long long exact = 0;
    auto const [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), exact);
    if (error == std::errc() && end == digits.data() + digits.size() && exact <= max) return exact;
    throw UsageError{option + ": " + text + " exceeds the largest supported value " + std::to_string(max)};
  }
  double const value = to_number(option, text);  // accepts 1e6 as well as 1000000
  if (value != std::floor(value)) throw UsageError{option + ": '" + text + "' is not a whole number"};
  if (value < 0) throw UsageError{option + ": '" + text + "' must not be negative"};
  if (value > static_cast<double>(max))
    throw UsageError{option + ": " + text + " exceeds the largest supported value " + std::to_string(max)};
  if (value >= 9007199254740992.0)  // 2^53: 2^53 + 1 reads as 2^53
    throw UsageError{option + ": '" + text + "' is beyond the integers this notation holds exactly: write its digits"};
  return static_cast<long long>(value);
}

double to_positive(std::string const& option, std::string const& text) {
  double const value = to_number(option, text);
  if (value <= 0) throw UsageError{option + ": '" + text + "' must be positive"};
  return value;
}

double to_non_negative(std::string const& option, std::string const& text) {
  double const value = to_number(option, text);
  if (value < 0) throw UsageError{option + ": '" + text + "' must not be negative"};
  return value;
}

// A value in [low, high] (or (low, high] when `open_low`): out of range is a command-line mistake.
double to_range(std::string const& option, std::string const& text, double low, double high, bool open_low = false) {
  double const value = to_number(option, text);
  if (value < low || (open_low && value == low) || value > high) {
    std::ostringstream range;
    range << (open_low ? "(" : "[") << low << ", " << high << "]";
    throw UsageError{option + ": '" + text + "' must lie in " + range.str()};
  }
  return value;
}

// Every K steps: 0 would write nothing more than leaving the option out, so it is refused as a
// likely mistake, except in a checkpoint's stored arguments (`stored`), taken as they were written.
int to_period(std::string const& option, std::string const& text, bool stored) {
  auto const steps = to_count(option, text, std::numeric_limits<int>::max());
  if (steps == 0 && !stored) throw UsageError{option + " must be positive: leave it out to write only at the end"};
  return static_cast<int>(steps);
}

// "16G", "512M", "2e9": bytes, with an optional binary suffix K, M, G or T.
std::uint64_t to_bytes(std::string const& option, std::string const& text) {
  static constexpr char suffixes[] = "KMGT";
  std::string number = text;
  double scale = 1.0;
  if (!number.empty())
    if (char const* s = std::strchr(suffixes, std::toupper(static_cast<unsigned char>(number.back())));
        s != nullptr && *s != '\0') {
      scale = std::ldexp(1.0, 10 * static_cast<int>(s - suffixes + 1));
      number.pop_back();
    }
  double value = 0.0;
  try {
    value = to_number(option, number) * scale;
  } catch (UsageError const&) {  // named as given, suffix and all
    throw UsageError{option + ": '" + text + "' is not a size in bytes (say 16G)"};
  }
  if (value > 1e18) throw UsageError{option + ": '" + text + "' exceeds the largest size, 1e18 bytes"};
  if (value < 1) throw UsageError{option + ": '" + text + "' is not a size in bytes (say 16G)"};
  return static_cast<std::uint64_t>(value);
}

// "20s", "5min", "2h", "1d" or a plain count: a temporal network's window, in the file's time units
// (seconds for a unit given).
long long to_duration(std::string const& option, std::string const& text) {
  static std::pair<char const*, long long> const units[] = {{"min", 60}, {"s", 1}, {"h", 3600}, {"d", 86400}};
  UsageError const bad{option + ": '" + text + "' is not a positive duration (say 20s, 5min, 2h, 1d or 300)"};
  std::string number = text;
  long long scale = 1;
  for (auto const& [unit, factor] : units) {
    std::string const suffix = unit;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number = text.substr(0, text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  long long value = 0;
  try {
    value = to_count(option, number, (1ll << 62) / scale);
  } catch (UsageError const&) {
    // A whole number too large says so; anything else is no duration.
    double count = 0.0;
    try {
      count = to_number(option, number);
    } catch (UsageError const&) {
    }
    double const magnitude = count * static_cast<double>(scale);
    if (magnitude >= std::ldexp(1.0, 62) && magnitude == std::floor(magnitude))
      throw UsageError{option + ": '" + text + "' is longer than 2^62, the longest window"};
    // A whole count within the range that the notation does not hold exactly (1e16).
    if (count >= 9007199254740992.0 && count == std::floor(count))
      throw UsageError{option + ": '" + text +
                       "' is beyond the integers this notation holds exactly: write its digits"};
    // A fraction of a unit that makes whole seconds (0.07h: 252.00000000000003 in binary): the
    // same duration in seconds is the remedy.
    double const seconds = std::round(magnitude);
    if (scale > 1 && seconds >= 1.0 && seconds < std::ldexp(1.0, 62) && std::abs(magnitude - seconds) <= 1e-9 * seconds)
      throw UsageError{option + ": '" + text + "': a duration is a whole number of its unit; say " +
                       std::to_string(static_cast<long long>(seconds)) + "s"};
    throw bad;
  }
  if (value < 1) throw bad;
  return value * scale;
}

// "2,4,8": part counts of the partition model.
std::vector<int> to_list(std::string const& option, std::string const& text) {
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto const comma = std::min(text.find(',', start), text.size());
    auto const value = to_count(option, text.substr(start, comma - start), std::numeric_limits<int>::max());
    if (value < 1) throw UsageError{option + ": part counts must be positive"};
    // Each count is one row of the model's table: a repeat is a typing slip.
    if (std::find(values.begin(), values.end(), value) != values.end())
      throw UsageError{option + ": " + std::to_string(value) + " is given twice"};
    values.push_back(static_cast<int>(value));
    start = comma + 1;
  }
  return values;
}

// Sets a model parameter (--beta, ...), the options an ensemble may sweep; false for another option.
bool set_parameter(Options& o, std::string const& option, std::string const& text) {
  constexpr long long max_agents = std::numeric_limits<std::int32_t>::max();
  auto const steps = [&] {
    auto const value = static_cast<int>(to_count(option, text, Period::longest));
    if (value == 0) throw UsageError{option + " must be positive"};
    return value;
  };
  if (option == "--beta")
    o.beta = to_range(option, text, 0, 1);
  else if (option == "--infectious-steps")
    o.infectious_steps = steps();
  else if (option == "--gamma")
    o.gamma = to_range(option, text, 0, 1, true);
  else if (option == "--latent-steps")
    o.latent_steps = steps();
  else if (option == "--sigma")
    o.sigma = to_range(option, text, 0, 1, true);
  else if (option == "--initial-infected")
    o.initial_infected = to_count(option, text, max_agents);
  else if (option == "--initial-share")
    o.initial_share = to_range(option, text, 0, 1);
  else if (option == "--confidence")
    o.confidence = to_positive(option, text);
  else if (option == "--transmission-rate")
    o.transmission_rate = to_non_negative(option, text);
  else if (option == "--mortality")
    o.mortality = to_range(option, text, 0, 1);
  else
    return false;
  return true;
}

// The parameters whose values are whole numbers.
bool whole_parameter(std::string const& name) {
  return name == "infectious-steps" || name == "latent-steps" || name == "initial-infected";
}

// "beta=0.02:0.1:5,infectious-steps=3:7:5": each parameter's N values, LOW to HIGH evenly
// spaced, checked as the option itself would check them on --model's model.
std::vector<SweepAxis> parse_sweep(Options const& o, std::string const& text) {
  auto const fail = [&](std::string const& what) { throw UsageError{"--sweep " + text + ": " + what}; };
  if (text.empty()) throw UsageError{"--sweep: needs NAME=LOW:HIGH:N"};
  auto const reads = model_parameters(o.model);
  std::vector<SweepAxis> axes;
  double points = 1.0;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto const comma = std::min(text.find(',', start), text.size());
    std::string const item = text.substr(start, comma - start);
    start = comma + 1;
    auto const equals = item.find('=');
    auto const colon = item.find(':', equals == std::string::npos ? 0 : equals);
    auto const second = colon == std::string::npos ? colon : item.find(':', colon + 1);
    if (equals == std::string::npos || second == std::string::npos || item.find(':', second + 1) != std::string::npos)
      fail("'" + item + "' is not NAME=LOW:HIGH:N");
    SweepAxis axis;
    axis.name = item.substr(0, equals);
    if (std::find(reads.begin(), reads.end(), axis.name) == reads.end()) {
      std::string list;
      for (auto const& r : reads) list += (list.empty() ? "" : ", ") + r;
      fail("--model " + o.model + " has no parameter '" + axis.name + "'" +
           (list.empty() ? std::string(" (it has none to sweep)") : " (it has " + list + ")"));
    }
    for (auto const& a : axes)
      if (a.name == axis.name) fail(axis.name + " is swept twice");
    if (o.given.count("--" + axis.name)) fail(axis.name + " is also given as --" + axis.name + ": give one");
    // The bounds and the count, each named in the sweep's message when it is not a number.
    auto const read = [&](auto convert) {
      try {
        return convert();
      } catch (UsageError const& e) {
        fail(e.message);
      }
      return decltype(convert()){};
    };
    double const low = read([&] { return to_number(axis.name, item.substr(equals + 1, colon - equals - 1)); });
    double const high = read([&] { return to_number(axis.name, item.substr(colon + 1, second - colon - 1)); });
    auto const n = read([&] { return to_count(axis.name + " N", item.substr(second + 1), 1000000); });
    if (n == 0) fail(axis.name + " has an empty range (N = 0)");
    if (high < low) fail(axis.name + " has its bounds reversed (LOW > HIGH)");
    if (n == 1 && high != low) fail(axis.name + ": one point needs LOW = HIGH");
    if (n > 1 && high == low) fail(axis.name + ": " + std::to_string(n) + " points need LOW < HIGH");
    for (long long k = 0; k < n; ++k) {
      double const value = n == 1 ? low : low + (high - low) * static_cast<double>(k) / static_cast<double>(n - 1);
      char buffer[64];
      if (whole_parameter(axis.name)) {
        if (std::abs(value - std::round(value)) > 1e-9 * std::max(1.0, std::abs(value)))
          fail(axis.name + " takes whole numbers, and " + number_text(value) + " is not one");
        std::snprintf(buffer, sizeof buffer, "%.0f", std::round(value));
      } else {
        std::snprintf(buffer, sizeof buffer, "%.12g", value);
      }
      // Distinct bounds a hair apart round to one text: two points that are one run.
      if (!axis.values.empty() && axis.values.back() == buffer)
        fail(axis.name + ": points " + std::to_string(k - 1) + " and " + std::to_string(k) + " both read " + buffer +
             " (" + (whole_parameter(axis.name) ? "whole numbers" : "12 significant digits") +
             "): widen the range or take fewer points");
      Options check = o;
      try {
        set_parameter(check, "--" + axis.name, buffer);
      } catch (UsageError const& e) {
        fail(e.message);
      }
      axis.values.emplace_back(buffer);
    }
    axes.push_back(axis);
    points *= static_cast<double>(n);
    if (points > 1e6) fail("more than a million points");
  }
  // Two parameters that set one period.
  auto const sets = [&](char const* name) {
    if (o.given.count(std::string("--") + name)) return true;
    for (auto const& a : axes)
      if (a.name == name) return true;
    return false;
  };
  for (auto const& [a, b] : {std::pair{"gamma", "infectious-steps"}, std::pair{"sigma", "latent-steps"}})
    if (sets(a) && sets(b)) fail(std::string(a) + " and " + b + " both set the period: give one");
  return axes;
}

// A file name: never empty, which would silently mean "no file".
std::string to_path(std::string const& option, std::string const& text) {
  if (text.empty()) throw UsageError{option + ": needs a file name"};
  return text;
}

std::string one_of(std::string const& option, std::string const& text, std::vector<std::string> const& choices) {
  for (auto const& c : choices)
    if (c == text) return text;
  std::string list;
  for (auto const& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw UsageError{option + ": unknown value '" + text + "' (expected " + list + ")"};
}

// Where reading must stop, and why: the first argument that is not an option herd knows (a stray
// word, an unknown option, a short option other than -o and -h, a flag given a value), or an
// option whose value is missing or empty. CLI11 reads the arguments before it, so the first
// mistake on the line is the one reported; the tokens CLI11 never sees cannot be read its own way
// (-ofile, "--steps= 5").
struct Mistake {
  std::size_t at;
  std::string message;
};

Mistake first_mistake(std::vector<std::string>& arguments, std::map<std::string, Setter> const& with_value,
                      std::map<std::string, std::function<void()>> const& flags) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    std::string const& argument = arguments[i];
    auto const eq = argument.find('=');
    bool const long_option = argument.rfind("--", 0) == 0;
    std::string const key = long_option && eq != std::string::npos ? argument.substr(0, eq) : argument;
    if (key == "--help" || key == "--version" || key == "-h") {
      arguments[i] = key;  // a value after them is ignored, as it always was
    } else if (with_value.count(key) != 0 && long_option && eq != std::string::npos) {
      if (eq + 1 == argument.size()) return {i, key + " needs a value"};
    } else if (with_value.count(key) != 0 || key == "-o") {
      // A value that is the next option means the value was left out.
      if (i + 1 == arguments.size() || arguments[i + 1].rfind("--", 0) == 0) return {i, key + " needs a value"};
      ++i;
    } else if (flags.count(key) != 0) {
      if (eq != std::string::npos) return {i, key + " takes no value"};
    } else if (key.rfind("--kokkos-", 0) == 0) {
      return {i, "unknown option '" + key +
                     "': herd sets Kokkos' threads with --threads and gives each rank of a node its own GPU"};
    } else if (key.empty() || key[0] != '-') {
      return {i, "unexpected argument '" + key + "': not an option, nor the value of one"};
    } else {
      return {i, "unknown option '" + key + "'"};
    }
  }
  return {arguments.size(), {}};
}

// Reads the options after the command with CLI11, in command-line order: each option's setter
// runs as CLI11 meets it (trigger_on_parse), up to the first mistake, which is reported then.
void parse_options(Options& o, std::map<std::string, Setter> const& with_value,
                   std::map<std::string, std::function<void()>> const& flags, bool later_wins) {
  CLI::App app{"herd"};
  app.set_help_flag();
  app.add_flag_callback("-h,--help", [&] { o.command = "help"; })->trigger_on_parse();
  app.add_flag_callback("--version", [&] { o.command = "version"; })->trigger_on_parse();
  for (auto const& [name, set] : with_value) {
    std::string const names = name == "--output" ? "-o,--output" : name;
    app.add_option(names,
                   [&o, &set = set, name = name, later_wins](CLI::results_t const& values) {
                     std::string const& value = values.front();
                     // The same option twice with two values is a mistake to point out, not to settle
                     // silently; one value written two ways (--agents 1e3 and 1000) is not.
                     if (auto const [seen, first] = o.given.emplace(name, value);
                         !first && !same_value(name, seen->second, value)) {
                       if (!later_wins) {
                         std::string message = name;
                         message.append(" is given twice, as ").append(seen->second).append(" and ").append(value);
                         throw UsageError{message};
                       }
                       seen->second = value;
                     }
                     set(name, value);
                     return true;
                   })
        ->expected(1)
        ->allow_extra_args(false)
        ->trigger_on_parse();
  }
  for (auto const& [name, set] : flags)
    app.add_flag_callback(name,
                          [&o, &set = set, name = name] {
                            set();
                            o.given.emplace(name, "");
                          })
        ->trigger_on_parse();
  std::vector<std::string> arguments = o.arguments;
  auto const mistake = first_mistake(arguments, with_value, flags);
  std::vector<std::string> reversed(arguments.rend() - static_cast<std::ptrdiff_t>(mistake.at), arguments.rend());
  try {
    app.parse(reversed);
  } catch (CLI::ArgumentMismatch const& e) {
    // "NAME: 1 required ... missing"
    std::string const what = e.what();
    std::string const name = what.substr(0, what.find(':'));
    if (with_value.count(name) != 0) throw UsageError{name + " needs a value"};
    throw UsageError{what};
  } catch (CLI::ParseError const& e) {
    throw UsageError{e.what()};
  }
  if (mistake.at < arguments.size()) throw UsageError{mistake.message};
}

}  // namespace

bool same_value(std::string const& option, std::string const& a, std::string const& b) {
  if (a == b) return true;
  // Two names of files are two values, however alike (1e3 and 1000).
  static std::set<std::string> const files = {"--graph",  "--csv",           "--json",
                                              "--record", "--profile-steps", "--checkpoint",
                                              "--output", "--attributes",    "--scenario"};
  if (files.count(option) != 0) return false;
  try {
    if (option == "--window") return to_duration(option, a) == to_duration(option, b);
    if (option == "--max-memory") return to_bytes(option, a) == to_bytes(option, b);
    // Digits are compared exactly (seeds above 2^53), other notations as the doubles they read as:
    // a count beyond 2^53 in another notation is refused when parsed.
    auto const digits = [](std::string const& t) {
      std::string_view d = std::string_view(t).substr(!t.empty() && t[0] == '+' ? 1 : 0);
      if (d.empty() || d.find_first_not_of("0123456789") != std::string_view::npos) return std::string();
      auto const first = d.find_first_not_of('0');
      return std::string(first == std::string_view::npos ? std::string_view("0") : d.substr(first));
    };
    auto const da = digits(a), db = digits(b);
    if (!da.empty() && !db.empty()) return da == db;
    double const x = to_number(option, a), y = to_number(option, b);
    return x == y && std::signbit(x) == std::signbit(y);
  } catch (UsageError const&) {
    return false;  // not numbers: different text is a different value
  }
}

bool same_setting(std::string const& option, Options const& a, Options const& b) {
  using Compare = std::function<bool(Options const&, Options const&)>;
  auto const field = [](auto Options::*member) -> Compare {
    return [member](Options const& x, Options const& y) { return x.*member == y.*member; };
  };
  // The options whose setting lies in one field; any other compares as different.
  static std::map<std::string, Compare> const fields = {
      {"--model", field(&Options::model)},
      {"--graph", field(&Options::graph)},
      {"--agents", field(&Options::agents)},
      {"--mean-degree", field(&Options::mean_degree)},
      {"--exponent", field(&Options::exponent)},
      {"--rewire", field(&Options::rewire)},
      {"--directed", field(&Options::directed)},
      {"--transpose", field(&Options::transpose)},
      {"--seed", field(&Options::seed)},
      {"--graph-seed", field(&Options::graph_seed)},
      {"--beta", field(&Options::beta)},
      {"--infectious-steps", field(&Options::infectious_steps)},
      {"--gamma", field(&Options::gamma)},
      {"--latent-steps", field(&Options::latent_steps)},
      {"--sigma", field(&Options::sigma)},
      {"--initial-infected", field(&Options::initial_infected)},
      {"--initial-share", field(&Options::initial_share)},
      {"--confidence", field(&Options::confidence)},
      {"--transmission-rate", field(&Options::transmission_rate)},
      {"--mortality", field(&Options::mortality)},
      {"--age-reading", field(&Options::age_reading)},
      {"--precision", field(&Options::precision)},
      {"--replicates", field(&Options::replicates)},
      {"--sweep", field(&Options::sweep)},
      {"--major-outbreak", field(&Options::major_outbreak)},
      {"--scenario", field(&Options::scenario)},
      {"--window", field(&Options::window)},
      {"--after-last", field(&Options::after_last)},
      {"--window-weights", field(&Options::window_weights)},
      {"--attributes", field(&Options::attributes)},
      {"--relabel", field(&Options::relabel)},
      {"--exchange-every", field(&Options::exchange_every)},
  };
  auto const compare = fields.find(option);
  return compare != fields.end() && compare->second(a, b);
}

void check_for_ranks(Options const& o, int ranks) {
  if (ranks == 1 || (is_ensemble(o) && !o.graph_over_ranks)) return;
  if (o.reorder != "none")
    throw UsageError{"--reorder applies to one process; under mpiexec the partition decides locality"};
  if (o.stepping == "verify") throw UsageError{"--stepping verify runs on one process: it steps each step twice"};
}

bool graph_is_population_file(Options const& o) {
#if HERD_ENABLE_HDF5
  return !o.graph.empty() && !is_generator(o.graph) && io::is_hdf5_file(o.graph);
#else
  (void)o;
  return false;
#endif
}

void check_graph_file(Options const& o, bool population_file) {
  if (!population_file) return;
  if (o.window > 0)
    throw UsageError{"--window reads a timed-contact file (t i j): " + o.graph +
                     " is a population file, whose contacts have no times"};
  if (o.directed || o.transpose)
    throw UsageError{"--directed, --transpose: " + o.graph +
                     " is a population file, whose graph is stored as it is used"};
  if (!o.attributes.empty())
    throw UsageError{"--attributes: " + o.graph + " is a population file, which holds its attributes"};
}

void check_active_step_options(Options const& o, std::map<std::string, std::string> const& given) {
  // Accepted, they would do nothing, and verify would check nothing.
  std::string to;
  if (!model_steps_active(o.model))
    to = "--model " + o.model +
         ", which visits every agent each step (sir, seir and covid may step only the agents that can change)";
  else if (o.window > 0)
    to = "a temporal network (--window), which is stepped by pull";
  else if (o.stepping == "pull")
    to = "--stepping pull";  // pulled steps list no agents
  else
    return;
  if (given.count("--stepping") && (o.stepping == "active" || o.stepping == "verify"))
    throw UsageError{"--stepping " + o.stepping + " does not apply to " + to};
  for (char const* active : {"--active-threshold", "--binned-push"})
    if (given.count(active)) throw UsageError{std::string(active) + " tunes active steps: it does not apply to " + to};
}

void check_graph_seed(Options const& o, std::map<std::string, std::string> const& given) {
  if (!given.count("--graph-seed") || is_generator(o.graph) || o.reorder == "random") return;
  // --reorder is herd run's, and a temporal network's agents keep their order.
  bool const reorders = o.command == "run" && o.window == 0;
  throw UsageError{std::string("--graph-seed seeds a generated graph (--graph population, erdos-renyi, power-law, "
                               "watts-strogatz)") +
                   (reorders ? " or --reorder random" : "") + "; the file " + o.graph +
                   " gives its own agents and contacts"};
}

void check_contradictions(std::map<std::string, std::string> const& given) {
  if (given.count("--gpu-aware-mpi") && given.count("--staged-mpi"))
    throw UsageError{"--gpu-aware-mpi and --staged-mpi contradict each other: give one"};
}

Options parse(std::vector<std::string> const& args, bool later_wins) {
  Options o;
  auto& given = o.given;
  std::size_t i = 0;
  if (!args.empty() && args[0].rfind('-', 0) != 0) {
    o.command = args[0];
    if (o.command != "run" && o.command != "resume" && o.command != "convert" && o.command != "partition" &&
        o.command != "help" && o.command != "version")
      throw UsageError{"unknown command '" + o.command +
                       "' (expected run, resume, convert, partition, help or version)"};
    ++i;
    bool const help =
        std::any_of(args.begin() + 1, args.end(), [](std::string const& a) { return a == "--help" || a == "-h"; }) ||
        std::find(args.begin() + 1, args.end(), "--version") != args.end();
    if (o.command == "resume" && !(i < args.size() && (args[i] == "--help" || args[i] == "-h"))) {
      if (i >= args.size() || args[i].empty() || args[i].rfind("--", 0) == 0)
        throw UsageError{"resume needs a checkpoint file, before any option: herd resume FILE [options]" +
                         (i < args.size() && !args[i].empty() ? " (found " + args[i] + " first)" : std::string())};
      o.resume = args[i++];
    }
    // As if given as --graph: a --graph with another value is then a mistake, not a silent override.
    if (o.command == "convert" && i < args.size() && args[i].rfind('-', 0) != 0) {
      o.graph = args[i++];
      o.given.emplace("--graph", o.graph);
    }
    // Without a graph, convert would write the default population of a million agents.
    if (o.command == "convert" && i == 1 && !help &&
        std::none_of(args.begin() + 1, args.end(),
                     [](std::string const& a) { return a == "--graph" || a.rfind("--graph=", 0) == 0; }))
      throw UsageError{
          "convert needs a GRAPH: herd convert GRAPH -o FILE (an edge-list file, or a generator: "
          "population, erdos-renyi, power-law, watts-strogatz)"};
  }
  o.arguments.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  constexpr long long max_agents = std::numeric_limits<std::int32_t>::max();
  constexpr long long max_int = std::numeric_limits<int>::max();
  std::string sweep;  // read once --model is known
  std::map<std::string, Setter> const with_value = {
      {"--model", [&](auto& k, auto& v) { o.model = one_of(k, v, model_names()); }},
      {"--graph", [&](auto& k, auto& v) { o.graph = to_path(k, v); }},
      {"--agents", [&](auto& k, auto& v) { o.agents = to_count(k, v, max_agents); }},
      {"--mean-degree", [&](auto& k, auto& v) { o.mean_degree = to_positive(k, v); }},
      // A checkpoint's stored arguments stay readable (later_wins): they were taken when written.
      {"--exponent",
       [&](auto& k, auto& v) { o.exponent = later_wins ? to_number(k, v) : to_range(k, v, 2, 10, true); }},
      {"--rewire", [&](auto& k, auto& v) { o.rewire = to_range(k, v, 0, 1); }},
      {"--steps", [&](auto& k, auto& v) { o.steps = static_cast<int>(to_count(k, v, max_int - 1)); }},
      {"--seed", [&](auto& k, auto& v) { o.seed = static_cast<std::uint64_t>(to_count(k, v, (1ll << 53))); }},
      {"--graph-seed",
       [&](auto& k, auto& v) { o.graph_seed = static_cast<std::uint64_t>(to_count(k, v, (1ll << 53))); }},
      {"--beta", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--infectious-steps", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--gamma", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--latent-steps", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--sigma", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--initial-infected", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--initial-share", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--confidence", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--transmission-rate", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--mortality", [&](auto& k, auto& v) { set_parameter(o, k, v); }},
      {"--age-reading",
       [&](auto& k, auto& v) {
         o.age_reading = one_of(k, v, {"labels", "agenttorch"});
       }},
      {"--precision",
       [&](auto& k, auto& v) {
         o.precision = one_of(k, v, {"float", "half"});
       }},
      {"--reorder",
       [&](auto& k, auto& v) {
         o.reorder = one_of(k, v, {"none", "rcm", "bfs", "degree", "random"});
       }},
      {"--schedule",
       [&](auto& k, auto& v) {
         o.schedule = one_of(k, v, {"auto", "thread", "vector", "team", "hybrid", "edge"});
       }},
      {"--gather-ahead", [&](auto& k, auto& v) { o.gather_ahead = one_of(k, v, {"auto", "on", "off"}); }},
      {"--binned-push", [&](auto& k, auto& v) { o.binned_push = one_of(k, v, {"auto", "on", "off"}); }},
      {"--stepping", [&](auto& k, auto& v) { o.stepping = one_of(k, v, {"auto", "pull", "active", "verify"}); }},
      {"--active-threshold", [&](auto& k, auto& v) { o.active_threshold = to_positive(k, v); }},
      {"--threads", [&](auto& k, auto& v) { o.threads = static_cast<int>(to_count(k, v, max_host_threads)); }},
      {"--max-memory", [&](auto& k, auto& v) { o.max_memory = to_bytes(k, v); }},
      {"--replicates", [&](auto& k, auto& v) { o.replicates = static_cast<int>(to_count(k, v, 1000000)); }},
      {"--sweep", [&](auto&, auto& v) { sweep = v; }},
      {"--major-outbreak", [&](auto& k, auto& v) { o.major_outbreak = to_range(k, v, 0, 1, true); }},
      {"--csv", [&](auto& k, auto& v) { o.csv = to_path(k, v); }},
      {"--json", [&](auto& k, auto& v) { o.json = to_path(k, v); }},
      {"--record", [&](auto& k, auto& v) { o.record = to_path(k, v); }},
      {"--profile-steps",
       [&](auto& k, auto& v) {
         o.profile_steps = to_path(k, v);
         o.profile = true;
       }},
      {"--label", [&](auto&, auto& v) { o.label = v; }},
      {"--checkpoint", [&](auto& k, auto& v) { o.checkpoint = to_path(k, v); }},
      {"--checkpoint-every", [&](auto& k, auto& v) { o.checkpoint_every = to_period(k, v, later_wins); }},
      {"--output", [&](auto& k, auto& v) { o.output = to_path(k, v); }},
      {"--attributes", [&](auto& k, auto& v) { o.attributes = to_path(k, v); }},
      {"--scenario", [&](auto& k, auto& v) { o.scenario = to_path(k, v); }},
      {"--window", [&](auto& k, auto& v) { o.window = to_duration(k, v); }},
      {"--after-last", [&](auto& k, auto& v) { o.after_last = one_of(k, v, {"loop", "stop"}); }},
      {"--window-weights", [&](auto& k, auto& v) { o.window_weights = one_of(k, v, {"met", "contacts"}); }},
      {"--snapshot-every", [&](auto& k, auto& v) { o.snapshot_every = to_period(k, v, later_wins); }},
      {"--partition", [&](auto& k, auto& v) { o.partition = one_of(k, v, {"contiguous", "metis", "ptscotch", "parmetis"}); }},
      {"--exchange-every", [&](auto& k, auto& v) { o.exchange_every = static_cast<int>(to_count(k, v, max_int)); }},
      {"--parts", [&](auto& k, auto& v) { o.parts = to_list(k, v); }},
      {"--network-bandwidth", [&](auto& k, auto& v) { o.network_gbps = to_positive(k, v); }},
      {"--network-latency", [&](auto& k, auto& v) { o.latency_us = to_range(k, v, 0, 1e9); }},
      {"--memory-bandwidth", [&](auto& k, auto& v) { o.memory_gbps = to_positive(k, v); }},
  };
  std::map<std::string, std::function<void()>> const flags = {{"--quiet", [&] { o.quiet = true; }},
                                                              {"--profile", [&] { o.profile = true; }},
                                                              {"--directed", [&] { o.directed = true; }},
                                                              {"--transpose", [&] { o.transpose = true; }},
                                                              {"--relabel", [&] { o.relabel = true; }},
                                                              {"--no-overlap", [&] { o.overlap = false; }},
                                                              {"--dense-halo", [&] { o.sparse_halo = false; }},
                                                              {"--gpu-aware-mpi", [&] { o.device_buffers = true; }},
                                                              {"--staged-mpi", [&] { o.device_buffers = false; }}};
  parse_options(o, with_value, flags, later_wins);
  if (!given.count("--graph-seed")) o.graph_seed = o.seed;
  // herd resume's options are checked once merged with the checkpoint's (resume_options).
  if (o.command == "resume" && HERD_ENABLE_HDF5 != 0) return o;
  // Options that say the same thing twice, or belong to another command.
  auto const both = [&](char const* a, char const* b) {
    if (given.count(a) && given.count(b))
      throw UsageError{std::string(a) + " and " + b + " both set the period: give one"};
  };
  both("--gamma", "--infectious-steps");
  both("--sigma", "--latent-steps");
  // Merged with a checkpoint's (later_wins), a flag given anew replaces the other.
  if (!later_wins) check_contradictions(given);
  // Ensembles are herd run's (other commands refuse the options below as not theirs).
  if (given.count("--sweep") && o.command == "run") o.sweep = parse_sweep(o, sweep);
  if (o.replicates == 0) throw UsageError{"--replicates must be positive"};
  if (o.command == "run" && is_ensemble(o)) {
    if (static_cast<double>(sweep_points(o)) * o.replicates > 1e6)
      throw UsageError{"an ensemble runs at most a million members (the sweep's points times --replicates)"};
    if (o.seed + static_cast<std::uint64_t>(o.replicates - 1) > (1ull << 53))
      throw UsageError{"--seed plus --replicates exceeds the largest seed, 2^53"};
    // A run's agent states, record and per-step profiles: an ensemble's members run one after
    // another. Its --output is the ensemble file, its --checkpoint every member's state at the end
    // (and, given --checkpoint-every K, the members run so far after every K of them).
    for (char const* single : {"--snapshot-every", "--record", "--profile", "--profile-steps"})
      if (given.count(single))
        throw UsageError{std::string(single) + " does not apply to an ensemble (--replicates, --sweep)"};
    // herd resume checks the value given anew, once merged (resume_options): a checkpoint's
    // stored value stays readable.
    if (!later_wins) check_members_per_checkpoint(o);
    // Each member holds the whole graph, on one rank each under mpiexec, unless --partition
    // distributes the graph over the ranks, which then run every member together.
    o.graph_over_ranks = given.count("--partition") != 0;
    for (char const* halo : {"--exchange-every", "--no-overlap", "--dense-halo"})
      if (given.count(halo) && !o.graph_over_ranks)
        throw UsageError{std::string(halo) +
                         " applies to an ensemble whose graph --partition distributes over the ranks"};
    if (given.count("--major-outbreak") && !model_has_outbreaks(o.model))
      throw UsageError{"--major-outbreak: the model " + o.model + " has no outbreaks (sir, seir and covid have)"};
  } else if (given.count("--major-outbreak") && o.command == "run") {
    throw UsageError{"--major-outbreak applies to an ensemble (--replicates, --sweep)"};
  }
  // Another model's parameter would be ignored by this one: a mistake, refused with its own (a
  // checkpoint's stored arguments, merged with later_wins, were taken when it was written).
  if (o.command == "run" && !later_wins) {
    auto own = model_parameters(o.model);
    if (model_has_age_groups(o.model)) own.emplace_back("age-reading");
    std::set<std::string> any = {"age-reading"};
    for (auto const& name : model_names())
      for (auto const& p : model_parameters(name)) any.insert(p);
    for (auto const& p : any)
      if (given.count("--" + p) && std::find(own.begin(), own.end(), p) == own.end()) {
        std::string list;
        for (auto const& q : own) list += (list.empty() ? "--" : ", --") + q;
        throw UsageError{"--" + p + " does not apply to --model " + o.model +
                         (list.empty() ? std::string(", which has no parameters") : " (its parameters: " + list + ")")};
      }
    check_active_step_options(o, given);
  }
  if (o.command != "partition")
    for (char const* only : {"--parts", "--network-bandwidth", "--network-latency", "--memory-bandwidth"})
      if (given.count(only)) throw UsageError{std::string(only) + " belongs to herd partition"};
  if (o.graph == "watts-strogatz" && (o.mean_degree != std::floor(o.mean_degree) || std::fmod(o.mean_degree, 2.0) != 0))
    throw UsageError{
        "--mean-degree: watts-strogatz links each agent to k neighbours on each side, so its mean degree "
        "is an even whole number 2k, not " +
        number_text(o.mean_degree)};
  // A generator's options shape its graph alone: with another graph they would be ignored.
  if (!later_wins) {
    static std::vector<std::pair<std::string, std::vector<std::string>>> const shapes = {
        {"--agents", {"population", "erdos-renyi", "power-law", "watts-strogatz"}},
        {"--mean-degree", {"erdos-renyi", "power-law", "watts-strogatz"}},
        {"--exponent", {"power-law"}},
        {"--rewire", {"watts-strogatz"}}};
    for (auto const& [option, graphs] : shapes)
      if (given.count(option) && std::find(graphs.begin(), graphs.end(), o.graph) == graphs.end()) {
        std::string message = option + " shapes a generated graph (--graph ";
        for (auto const& g : graphs) message.append(g == graphs.front() ? "" : ", ").append(g);
        message.append("); ");
        if (is_generator(o.graph))
          message.append("--graph ").append(o.graph).append(" does not read it");
        else
          message.append("the file ").append(o.graph).append(" gives its own agents and contacts");
        throw UsageError{message};
      }
    check_graph_seed(o, given);
  }
  if (o.agents == 0) throw UsageError{"--agents must be positive"};
  // A generator's mean degree counts neighbours among the other agents.
  if ((o.graph == "erdos-renyi" || o.graph == "power-law" || o.graph == "watts-strogatz") &&
      o.mean_degree > static_cast<double>(o.agents - 1))
    throw UsageError{"--mean-degree: " + number_text(o.mean_degree) + " must lie in (0, agents - 1], here (0, " +
                     std::to_string(o.agents - 1) + "]"};
  // Each command reads its own options; one it does not read was meant for another.
  if (o.command == "convert" || o.command == "partition") {
    static std::set<std::string> const graph = {"--graph",     "--agents",  "--mean-degree", "--exponent",
                                                "--rewire",    "--seed",    "--graph-seed",  "--directed",
                                                "--transpose", "--threads", "--max-memory",  "--quiet"};
    static std::set<std::string> const convert = {"--output", "--relabel", "--attributes"};
    static std::set<std::string> const partition = {"--partition",       "--parts", "--network-bandwidth",
                                                    "--network-latency", "--csv",   "--memory-bandwidth"};
    auto const& own = o.command == "convert" ? convert : partition;
    for (auto const& option : given)
      if (!graph.count(option.first) && !own.count(option.first) &&
          !(o.command == "convert" && (option.first == "--checkpoint" || option.first == "--snapshot-every")))
        throw UsageError{option.first + " does not apply to herd " + o.command};
  }
  if (o.command == "partition" && (o.partition == "ptscotch" || o.partition == "parmetis"))
    throw UsageError{"--partition " + o.partition + ": herd partition models a graph one process holds " +
                     "(contiguous or metis); " + o.partition + " partitions a distributed run's shares"};
  // --directed and --transpose say how to read an edge list's lines: a generator's graph has none.
  for (char const* file_only : {"--directed", "--transpose"})
    if (given.count(file_only) && is_generator(o.graph))
      throw UsageError{std::string(file_only) + " reads an edge-list file's lines; --graph " + o.graph +
                       " generates its contacts"};
  if (o.command == "convert" && o.relabel && is_generator(o.graph))
    throw UsageError{"--relabel: " + o.graph + " is a generator; its agents are numbered already"};
  if (o.steps == 0 && o.command == "run") throw UsageError{"--steps must be positive"};
  if (o.threads < 0) throw UsageError{"--threads must not be negative"};
  if (o.exchange_every < 1) throw UsageError{"--exchange-every must be at least 1"};
  if (o.checkpoint_every > 0 && o.checkpoint.empty()) throw UsageError{"--checkpoint-every needs --checkpoint FILE"};
  if (!o.checkpoint.empty()) {
    // A checkpoint keeps the run's arguments a line each.
    for (auto const& a : o.arguments)
      if (a.find('\n') != std::string::npos)
        throw UsageError{"'" + a.substr(0, a.find('\n')) +
                         "...': an argument holding a line break cannot be kept in a checkpoint (--checkpoint)"};
    // The ghosts left stale between exchanges are not saved: a resumed run would read fresh ones.
    if (o.exchange_every > 1)
      throw UsageError{"--exchange-every " + std::to_string(o.exchange_every) +
                       " with --checkpoint: a checkpoint does not hold the stale ghosts, so a resumed run would "
                       "differ; checkpoints need --exchange-every 1"};
  }
  if (o.snapshot_every > 0 && o.output.empty()) throw UsageError{"--snapshot-every needs --output FILE"};
  if (o.command == "convert") {
    if (o.output.empty()) throw UsageError{"convert needs --output FILE (or -o FILE) for the population file"};
    if (!o.checkpoint.empty() || o.snapshot_every > 0) throw UsageError{"convert writes no checkpoints or snapshots"};
  } else if (o.relabel) {
    throw UsageError{"--relabel belongs to herd convert"};
  } else if (auto const readers = models_reading_attributes();
             !o.attributes.empty() && std::find(readers.begin(), readers.end(), o.model) == readers.end()) {
    std::string list;
    for (auto const& r : readers) list += (list.empty() ? "" : " or ") + r;
    throw UsageError{"--attributes: herd run reads agent attributes for --model " + list + " only"};
  }
  if (o.transpose && !o.directed) throw UsageError{"--transpose orients directed edges: it needs --directed"};
  for (char const* temporal : {"--after-last", "--window-weights"})
    if (given.count(temporal) && o.window == 0)
      throw UsageError{std::string(temporal) + " needs --window (a temporal network)"};
  if (o.window > 0) {
    // A timed-contact file's snapshots are stepped by one process, in their agents' order.
    if (o.graph == "population" || o.graph == "erdos-renyi" || o.graph == "power-law" || o.graph == "watts-strogatz")
      throw UsageError{"--window reads a timed-contact file (t i j): --graph names the generator " + o.graph};
    for (char const* other : {"--directed", "--transpose", "--reorder", "--attributes"})
      if (given.count(other)) throw UsageError{std::string(other) + " does not apply to a temporal network (--window)"};
    // Each snapshot changes every agent's neighbours: no active set carries over.
    if (o.stepping == "active" || o.stepping == "verify")
      throw UsageError{"--stepping " + o.stepping +
                       " does not apply to a temporal network (--window), which is "
                       "stepped by pull"};
    if (o.command != "run") throw UsageError{"--window belongs to herd run"};
  }
#if !HERD_ENABLE_HDF5
  if (!o.checkpoint.empty() || !o.output.empty() || o.command == "resume" || o.command == "convert")
    throw UsageError{
        "checkpoints, --output, resume and convert need HDF5: this herd was built without it (Herd_ENABLE_HDF5)"};
#endif
  return o;
}

long long sweep_points(Options const& o) {
  long long points = 1;
  for (auto const& axis : o.sweep) points *= static_cast<long long>(axis.values.size());
  return points;
}

std::vector<std::string> point_values(Options const& o, long long point) {
  // Row-major over the axes: the last parameter varies fastest.
  std::vector<std::string> values(o.sweep.size());
  for (std::size_t a = o.sweep.size(); a-- > 0;) {
    auto const n = static_cast<long long>(o.sweep[a].values.size());
    values[a] = o.sweep[a].values[static_cast<std::size_t>(point % n)];
    point /= n;
  }
  return values;
}

std::string point_text(Options const& o, long long point) {
  auto const values = point_values(o, point);
  std::string text;
  for (std::size_t a = 0; a < o.sweep.size(); ++a)
    text.append(a == 0 ? "" : ", ").append(o.sweep[a].name).append("=").append(values[a]);
  return text;
}

void check_members_per_checkpoint(Options const& o) {
  // K members or more would put the file in place only at the end: most likely steps were meant.
  if (auto const members = sweep_points(o) * o.replicates; is_ensemble(o) && o.checkpoint_every >= members)
    throw UsageError{"--checkpoint-every " + std::to_string(o.checkpoint_every) +
                     ": an ensemble's counts members, and this one has " + std::to_string(members) +
                     ", so its checkpoint would be put in place only at the end"};
}

Options member_options(Options const& o, Options const& base, long long member) {
  Options m = base;
  m.seed = replicate_seed(o.seed, static_cast<std::uint64_t>(member % o.replicates));
  m.member = member;
  m.members = sweep_points(o) * o.replicates;
  auto const values = point_values(o, member / o.replicates);
  // The values were checked when parsed; a failure here is Herd's, reported as an error rather
  // than a usage mistake.
  try {
    for (std::size_t a = 0; a < values.size(); ++a) set_parameter(m, "--" + o.sweep[a].name, values[a]);
  } catch (UsageError const& e) {
    throw Error(e.message);
  }
  return m;
}

Options member_base(Options const& o) {
  Options base = o;
  base.sweep.clear();
  // The ensemble's files are written from all members at the end; a member writes none.
  base.csv.clear();
  base.json.clear();
  base.output.clear();
  base.checkpoint_every = 0;  // the ensemble's counts members: it writes its members' checkpoints
  return base;
}

std::string usage() {
  return R"(herd: agent-based simulation on contact graphs (Kokkos)

Usage:
  herd                 run the default job: SEIR on a built-in population of a million agents
  herd run [options]   run a model on a graph
  herd resume FILE [options]
                       continue the run a checkpoint holds, to its --steps or a new --steps;
                       options that change results are refused, outputs may be given anew
  herd convert GRAPH -o FILE [--attributes CSV] [--relabel] [--directed [--transpose]] [graph options]
                       write a population file (HDF5): the graph of an edge-list file or of a
                       generator (population, erdos-renyi, ...; --agents, --seed, ... as for run),
                       with agent attributes from a CSV file; herd run --graph FILE reads it
  herd partition [options]
                       the partition model: ghosts, messages and halo bytes per rank when the
                       graph is split into --parts parts, and the predicted halo/compute ratio
  herd --help | --version
  mpiexec -n P herd ...  one simulation over P ranks: the same results, to the last bit

Model:
  --model NAME             the model to run (seir):
)" + model_usage() +
         R"(  --beta P                 transmission probability per contact and step, in [0, 1] (0.08);
                           an edge of weight w transmits with probability beta * w (at most 1)
  --infectious-steps N     fixed infectious period in steps (5)
  --gamma P                geometric infectious period instead: recovery probability per step
  --latent-steps N         fixed latent period of seir (2)
  --sigma P                geometric latent period instead: exit probability per step
  --initial-infected N     agents infectious at the start, chosen by the seed (10)
  --initial-share P        voter/majority: probability of starting with opinion 1 (0.5)
  --confidence E           bounded-confidence: average the neighbours whose opinion differs
                           by at most E (0.2); degroot averages them all
  covid                    (docs/models/covid-astoria.md):
  --attributes CSV         agents' age_group (U19, 20t29, 30t39, 40t49, 50t64, 65A) and
                           initial_disease_stage (0 S, 1 E, 2 I, 3 R, 4 D) by agent id; without
                           it ages are drawn from Astoria's mix, --initial-infected agents exposed
  --age-reading R          labels (default): parameters follow the age labels; agenttorch:
                           AgentTorch's tables indexed by its age codes, as its code does
  --transmission-rate R    R of the force of infection (4.75)
  --mortality P            probability that an infection ends in death (0.12)

Graph:
  --graph NAME|FILE        population (default: households, schools, workplaces, community),
                           erdos-renyi, power-law, watts-strogatz, a population file from
                           herd convert, or an edge-list file (two ids per line, optional
                           weight, then optional layer name; '#' comments, SNAP or .lg style)
  --agents N               agents of a generated graph (1000000)
  --mean-degree C          mean degree of erdos-renyi, power-law, watts-strogatz (16)
  --exponent G             power-law degree exponent, in (2, 10] (2.5)
  --rewire P               watts-strogatz rewiring probability (0.1)
  --directed               keep a file's edges directed (u -> v: v's state affects u)
  --transpose              with --directed: u -> v means u's state affects v (who infects whom)

Run:
  --steps N                steps to run (150)
  --seed S                 seed of the graph, the initial state and every random draw (42)
  --graph-seed S           seed of a generated graph (and of --reorder random) alone (--seed's)
  --precision float|half   storage of edge weights and of continuous opinions: 4 or 2 bytes (float)
  --reorder ORDER          none (default), rcm, bfs, degree, random: relabel agents for locality
                           (bfs: Cuthill-McKee computed in parallel, in every build); results are
                           the same, reported in the original ids
  --schedule NAME          auto (default), thread, vector, team, hybrid, edge: agents/edges to
                           threads (edge: sir, seir and covid sums by equal shares of rows and
                           edges, auto's choice on GPUs for graphs with hubs)
  --gather-ahead WHEN      auto (default: from 8 MB of values), on, off: on CPUs, pull steps ask
                           for neighbour states or opinions a few agents ahead
  --stepping MODE          auto (default), pull, active, verify: sir, seir and covid steps visit
                           every agent (pull), only those that can change (active), or per step
                           whichever is cheaper (auto); results are the same to the last bit;
                           verify runs each active step pulled too and stops where they differ
  --active-threshold F     auto steps the active agents when its estimate of the pushes they need
                           is at most F times the agent count (4 F after a binned step), else all
                           of them (0.5)
  --binned-push WHEN       auto (default: from 2^22 agents, 2^16 where the pushes are counted),
                           on, off: on CPUs, active steps push sums or counts through bins by
                           blocks of readers instead of atomic adds
  --scenario FILE          timed events in JSON: set a parameter (beta, the periods) from a
                           step or over steps, import infections, vaccinate N agents a step with
                           an efficacy (covid: the oldest first), test and isolate the
                           infectious (sir, seir, covid); scale a contact layer's weights (every
                           model); the same bits on any backend, rank count and stepping mode
                           (docs/scenarios.md)
  --window DURATION        --graph is a timed-contact file ("t i j" lines, SocioPatterns): step t
                           reads the contacts of the t-th window, of DURATION (20s, 5min, 2h, 1d,
                           or in the file's units) from the first contact; steps pull
  --after-last loop|stop   after the last window, the steps read the windows again (loop, the
                           default) or no contacts (stop)
  --window-weights met|contacts
                           a pair's weight in a window: 1 where it met (met, the default) or its
                           number of contacts there (contacts: with beta per contact line)
  --threads N              host threads (default: OpenMP's)
  --max-memory SIZE        refuse, before building it, a graph whose estimated peak exceeds SIZE
                           bytes (16G, 512M; default: the node's available memory over its ranks)
  --csv FILE               write the time series of counts per state
  --json FILE              write a machine-readable summary
  --record FILE            append this run as one JSON line (scaling studies)
  --label TEXT             a tag for the record and the JSON (e.g. strong, weak)
  --quiet                  no progress or table, only errors
  --profile                where the step loop's time goes (step kernels, reductions, active
                           set, halo pack / MPI wait / unpack, output), its allocations and
                           copies; fences at each phase boundary, so the loop runs a little slower
  --profile-steps FILE     --profile, and a CSV of every step's phases, whether it stepped the
                           active list, and how many agents it stepped

Ensembles (many runs of one scenario on one graph; docs/ensembles.md):
  --replicates R           run R members, replicate r with seed + r (1)
  --sweep NAME=LOW:HIGH:N[,NAME=LOW:HIGH:N...]
                           and at every point of a grid over model parameters (beta,
                           infectious-steps, ...: N values from LOW to HIGH, 12 significant digits);
                           members are points times replicates, each the same as herd run with
                           its seed and values; under mpiexec they are spread over the ranks
  --major-outbreak F       an ensemble's major outbreaks: members whose ever-infected share
                           exceeds F (0.1; sir, seir, covid)
  --csv, --json            for an ensemble: every member's counts (one row per member and
                           step), and per point the mean and 5/25/50/75/95 % quantiles
  --output FILE            for an ensemble: one HDF5 file with both, members by seed and
                           parameters, and the outbreaks

Files (HDF5; schema in docs/file-formats.md):
  --checkpoint FILE        write a checkpoint at the end of the run (herd resume FILE continues it)
  --checkpoint-every K     and every K steps; each replaces the last only once complete
                           (an ensemble's: after every K members, holding those run so far)
  --output FILE            write the time series and the final state of every agent
  --snapshot-every K       and every agent's state every K steps

Convert (herd convert):
  -o, --output FILE        the population file to write
  --attributes CSV         agent attributes: a header line, then one line per agent; a column
                           'id' or 'agent_id' names the agent (else line i is agent i); columns
                           of integers, of numbers, or of text (stored as category codes)
  --relabel                number the agents of an edge list 0..n-1 in order of their ids (up to
                           2^63 - 2), storing the ids as /agents/original_id

Distributed (under mpiexec):
  --partition METHOD       contiguous (default), metis, ptscotch or parmetis: which rank owns
                           which agent; every rank builds its share alone, ptscotch and
                           parmetis partition the shares in parallel, metis on rank 0 (which
                           gathers the graph's links). Given to an ensemble, the
                           ranks share the graph and run each member together (else each holds
                           all of it)
  --exchange-every K       send ghost values after every K-th step only (1); K > 1 leaves
                           ghosts stale in between, so results differ from K = 1
  --no-overlap             wait for ghosts before stepping any agent (for comparison)
  --dense-halo             send every ghost value every step, not only those that changed
                           (for comparison; same results)
  --gpu-aware-mpi          hand device buffers to MPI (needs a GPU-aware MPI)
  --staged-mpi             stage them through pinned host memory, which any MPI accepts
                           (the default unless built with Herd_MPI_DEVICE_BUFFERS)

Partition model (herd partition; graph options as above, --partition for the method):
  --parts LIST             part counts, comma-separated, each once (2,4,8,...,1024, up to the
                           agents and the first count that leaves a part empty)
  --network-bandwidth GB   per-rank network bandwidth in GB/s (25)
  --network-latency US     per-message latency in microseconds (2)
  --memory-bandwidth GB    per-rank memory bandwidth in GB/s (3350, one H100)

Exit status: 0 on success, 1 when the run fails (bad file, bad parameter), 2 on a usage error.
)";
}

}  // namespace herd::cli
