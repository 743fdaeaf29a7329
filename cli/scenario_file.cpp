#include "scenario_file.hpp"

#include <herd/core/error.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace herd::cli {

namespace {

using Json = nlohmann::json;

// A whole number from `value` in [low, high], or an error naming `key`.
long long whole(Json const& value, std::string const& key, long long low, long long high) {
  if (!value.is_number()) throw Error(key + ": expected a whole number, got " + value.dump());
  auto const out_of_range = [&] {
    return Error(key + ": expected a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
                 ", got " + value.dump());
  };
  // Integers are compared as integers: through a double, 2^53 + 1 would pass as 2^53.
  if (value.is_number_unsigned()) {
    auto const v = value.get<std::uint64_t>();
    if (high < 0 || v > static_cast<std::uint64_t>(high) || static_cast<long long>(v) < low) throw out_of_range();
    return static_cast<long long>(v);
  }
  if (value.is_number_integer()) {
    auto const v = value.get<std::int64_t>();
    if (v < low || v > high) throw out_of_range();
    return v;
  }
  double const v = value.get<double>();
  if (v != std::floor(v) || v < static_cast<double>(low) || v > static_cast<double>(high)) throw out_of_range();
  return static_cast<long long>(v);
}

double number(Json const& value, std::string const& key) {
  if (!value.is_number()) throw Error(key + ": expected a number, got " + value.dump());
  return value.get<double>();
}

// A string without control characters (a message quoting one would end at a NUL or break its
// line), or an error naming `key` and saying what was expected.
std::string text(Json const& value, std::string const& key, char const* expected) {
  if (!value.is_string()) throw Error(key + ": expected " + expected + ", got " + value.dump());
  auto const& out = value.get_ref<std::string const&>();
  if (std::any_of(out.begin(), out.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw Error(key + ": " + value.dump() + " holds a control character");
  return out;
}

// The event's steps: "step": t, or "steps": [first, last].
void read_steps(Json const& event, std::string const& key, int steps, bool continued, ScenarioEvent& e) {
  bool const one = event.contains("step"), range = event.contains("steps");
  if (one == range) throw Error(key + ": give \"step\": t or \"steps\": [first, last], one of them");
  auto const in_run = [&](Json const& value, std::string const& at) {
    long long const t = whole(value, at, 1, std::numeric_limits<int>::max() - 1);
    if (t > steps && !continued)
      throw Error(at + ": step " + std::to_string(t) + " lies beyond the run's " + std::to_string(steps) +
                  " steps (a run that writes a checkpoint may name later ones)");
    return static_cast<int>(t);
  };
  if (one) {
    e.first = e.last = in_run(event["step"], key + ".step");
    return;
  }
  auto const& pair = event["steps"];
  if (!pair.is_array() || pair.size() != 2) throw Error(key + ".steps: expected [first, last], got " + pair.dump());
  e.first = in_run(pair[0], key + ".steps[0]");
  e.last = in_run(pair[1], key + ".steps[1]");
  if (e.first > e.last)
    throw Error(key + ".steps: the first step comes after the last, " + std::to_string(e.first) + " > " +
                std::to_string(e.last));
}

// The keys of `object` must be among `known`.
void only_keys(Json const& object, std::string const& key, std::initializer_list<char const*> known) {
  for (auto const& item : object.items()) {
    bool found = false;
    for (char const* k : known) found = found || item.key() == k;
    if (found) continue;
    std::string message = key + ": unknown key \"";
    message += item.key();
    message += "\" (expected ";
    for (char const* k : known) {
      if (k != *known.begin()) message += ", ";
      message += k;
    }
    throw Error(message + ")");
  }
}

// A layer event: "layers": {"name": factor, ...}, and on which days of a cycle it acts: "days":
// [d, ...] of a "cycle" of steps (7 unless given).
void read_layers(Json const& event, std::string const& key, ScenarioEvent& e) {
  auto const& layers = event["layers"];
  if (!layers.is_object() || layers.empty())
    throw Error(key + ".layers: expected {\"layer\": factor, ...}, got " + layers.dump());
  e.kind = ScenarioEvent::Kind::layer;
  for (auto const& item : layers.items()) {
    double const factor = number(item.value(), key + ".layers." + item.key());
    if (!(factor >= 0.0 && std::isfinite(factor)))
      throw Error(key + ".layers." + item.key() + ": expected a factor >= 0, got " + item.value().dump());
    e.layers.emplace_back(item.key(), factor);
  }
  if (event.contains("cycle") && !event.contains("days")) throw Error(key + ": \"cycle\" needs \"days\"");
  if (!event.contains("days")) return;
  e.period = event.contains("cycle") ? static_cast<int>(whole(event["cycle"], key + ".cycle", 1, 64)) : 7;
  auto const& days = event["days"];
  if (!days.is_array() || days.empty())
    throw Error(key + ".days: expected a list of days of the cycle, got " + days.dump());
  for (std::size_t d = 0; d < days.size(); ++d) {
    auto const day = whole(days[d], key + ".days[" + std::to_string(d) + "]", 1, e.period);
    e.days |= std::uint64_t{1} << (day - 1);
  }
}

// An isolation: "isolate": {"probability": p, "duration": k, "keeps": ["layer", ...]}; without
// "keeps", isolated agents keep their household contacts where the graph has a layer "household".
void read_isolation(Json const& event, std::string const& key, Scenario const& scenario, ScenarioEvent& e) {
  auto const& isolate = event["isolate"];
  std::string const at = key + ".isolate";
  if (!isolate.is_object())
    throw Error(at + ": expected {\"probability\": p, \"duration\": steps}, got " + isolate.dump());
  only_keys(isolate, at, {"probability", "duration", "keeps"});
  for (char const* needed : {"probability", "duration"})
    if (!isolate.contains(needed)) throw Error(at + ": \"" + needed + "\" is missing");
  e.kind = ScenarioEvent::Kind::isolate;
  e.probability = number(isolate["probability"], at + ".probability");
  if (!(e.probability >= 0.0 && e.probability <= 1.0))
    throw Error(at + ".probability: expected a number in [0, 1], got " + isolate["probability"].dump());
  e.duration = static_cast<int>(whole(isolate["duration"], at + ".duration", 1, max_isolation_steps));
  if (!isolate.contains("keeps")) {
    auto const& names = scenario.layer_names;
    if (std::find(names.begin(), names.end(), "household") != names.end()) e.keeps = {"household"};
    return;
  }
  auto const& keeps = isolate["keeps"];
  if (!keeps.is_array()) throw Error(at + ".keeps: expected a list of layers, got " + keeps.dump());
  for (std::size_t l = 0; l < keeps.size(); ++l) {
    e.keeps.push_back(text(keeps[l], at + ".keeps[" + std::to_string(l) + "]", "a layer's name"));
  }
}

void read_event(Json const& event, std::string const& key, int steps, bool continued, Scenario& scenario) {
  if (!event.is_object()) throw Error(key + ": expected an object, got " + event.dump());
  only_keys(event, key, {"step", "steps", "set", "import", "vaccinate", "layers", "isolate", "days", "cycle", "note"});
  int actions = 0;
  for (char const* action : {"set", "import", "vaccinate", "layers", "isolate"}) actions += event.contains(action);
  if (actions != 1) throw Error(key + ": give one of \"set\", \"import\", \"vaccinate\", \"layers\" or \"isolate\"");
  if (event.contains("note") && !event["note"].is_string())
    throw Error(key + ".note: expected free text, got " + event["note"].dump());
  ScenarioEvent e;
  e.label = key;
  read_steps(event, key, steps, continued, e);
  if (event.contains("layers")) {
    read_layers(event, key, e);
    scenario.events.push_back(e);
    return;
  }
  if (event.contains("days") || event.contains("cycle"))
    throw Error(key + ": \"days\" and \"cycle\" belong to \"layers\" events");
  if (event.contains("isolate")) {
    read_isolation(event, key, scenario, e);
    scenario.events.push_back(e);
    return;
  }
  if (event.contains("set")) {
    auto const& set = event["set"];
    if (!set.is_object() || set.empty())
      throw Error(key + ".set: expected {\"parameter\": value, ...}, got " + set.dump());
    e.kind = ScenarioEvent::Kind::set;
    e.reverts = event.contains("steps");
    for (auto const& item : set.items()) {
      e.parameter = item.key();
      e.label = key + ".set." + item.key();
      e.value = number(item.value(), key + ".set." + item.key());
      scenario.events.push_back(e);
    }
    return;
  }
  if (event.contains("import")) {
    e.kind = ScenarioEvent::Kind::importation;
    e.count = whole(event["import"], key + ".import", 0, 1ll << 53);
    scenario.events.push_back(e);
    return;
  }
  auto const& vaccinate = event["vaccinate"];
  std::string const at = key + ".vaccinate";
  if (!vaccinate.is_object())
    throw Error(at + ": expected {\"per_step\": N, \"efficacy\": p}, got " + vaccinate.dump());
  only_keys(vaccinate, at, {"per_step", "efficacy", "order"});
  if (!vaccinate.contains("per_step")) throw Error(at + ": \"per_step\" is missing");
  e.kind = ScenarioEvent::Kind::vaccinate;
  e.count = whole(vaccinate["per_step"], at + ".per_step", 0, 1ll << 53);
  if (vaccinate.contains("efficacy")) {
    e.efficacy = number(vaccinate["efficacy"], at + ".efficacy");
    if (!(e.efficacy >= 0.0 && e.efficacy <= 1.0))
      throw Error(at + ".efficacy: expected a number in [0, 1], got " + vaccinate["efficacy"].dump());
  }
  if (vaccinate.contains("order")) {
    auto const& order = vaccinate["order"];
    if (order != "random" && order != "oldest-first")
      throw Error(at + ".order: expected \"random\" or \"oldest-first\", got " + order.dump());
    e.by_priority = order == "oldest-first";
  }
  scenario.events.push_back(e);
}

// The layers the events name, sorted: those a graph whose layers are not known yet is taken to have.
std::vector<std::string> layers_named(Scenario const& scenario) {
  std::vector<std::string> names;
  for (auto const& e : scenario.events) {
    for (auto const& layer : e.layers) names.push_back(layer.first);
    names.insert(names.end(), e.keeps.begin(), e.keeps.end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Builds the document from the parser's events, following where it stands: the key of the value
// it reads ("events[2].set.beta"), for the errors it throws without one, and the keys each open
// object has had, so that a key given twice is refused (the last one would win without a word: a
// lockdown's factor could vanish). nlohmann's parser with a callback does this too, but looks
// through the whole list at each object's end, so that its time grew with the square of the events
// (10^5 took seconds).
class Reading : public nlohmann::json_sax<Json> {
 public:
  Json document;

  Reading() : document(nullptr) {}  // user-provided: building the document may throw
  Reading(Reading const&) = delete;
  Reading& operator=(Reading const&) = delete;
  Reading(Reading&&) = delete;
  Reading& operator=(Reading&&) = delete;
  ~Reading() override = default;

  bool null() override { return put(Json(nullptr)); }
  bool boolean(bool value) override { return put(Json(value)); }
  bool number_integer(number_integer_t value) override { return put(Json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return put(Json(value)); }
  bool number_float(number_float_t value, string_t const&) override { return put(Json(value)); }
  bool string(string_t& value) override { return put(Json(std::move(value))); }
  bool binary(binary_t& value) override { return put(Json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(Json::object()); }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    auto& level = levels_.back();
    level.key.clear();  // the errors below name the object, not its previous key
    // No key of a scenario holds one, and the message naming it would end at a NUL.
    if (std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
      throw Error(key() + ": the key " + Json(name).dump() + " holds a control character");
    if (!level.keys.insert(name).second) throw Error(key() + ": the key \"" + name + "\" is given twice");
    level.key = name;
    level.slot = &(*level.value)[name];
    return true;
  }

  bool parse_error(std::size_t, std::string const&, nlohmann::detail::exception const& error) override {
    // As the parser without a handler throws them: the caller tells a syntax error from a number
    // out of range.
    if (auto const* syntax = dynamic_cast<Json::parse_error const*>(&error)) throw *syntax;
    if (auto const* range = dynamic_cast<Json::out_of_range const*>(&error)) throw *range;
    throw Error(error.what());
  }

  /// The key of the value being read, as the scenario's errors name it.
  std::string key() const {
    std::string out;
    for (auto const& level : levels_) {
      if (!level.object) {
        out += '[';
        out += std::to_string(level.index);
        out += ']';
      } else if (!level.key.empty()) {
        if (!out.empty()) out += '.';
        out += level.key;
      }
    }
    return out.empty() ? "the scenario" : out;
  }

 private:
  static constexpr std::size_t deepest = 32;
  struct Level {
    Json* value;  ///< the object or array being read
    bool object;
    std::size_t index = 0;  ///< in an array: the elements read
    std::string key;        ///< in an object: the key of the value being read
    Json* slot = nullptr;   ///< in an object: where that value goes
    std::set<std::string> keys;
  };

  // Where the next value goes: the document, the end of an array, or an object's slot.
  Json* place(Json&& value) {
    if (levels_.empty()) {
      document = std::move(value);
      return &document;
    }
    auto& level = levels_.back();
    if (level.object) {
      *level.slot = std::move(value);
      return level.slot;
    }
    auto& elements = level.value->get_ref<Json::array_t&>();
    elements.push_back(std::move(value));
    return &elements.back();
  }
  bool put(Json&& value) {
    place(std::move(value));
    done();
    return true;
  }
  // An array's element is counted once read whole, so that an error inside names it.
  void done() {
    if (!levels_.empty() && !levels_.back().object) ++levels_.back().index;
  }
  bool open(Json&& empty) {
    // A scenario nests a few levels; deeper is no scenario, and each level costs memory here.
    if (levels_.size() >= deepest) throw Error(key() + ": nested deeper than " + std::to_string(deepest) + " levels");
    bool const object = empty.is_object();
    Json* value = place(std::move(empty));
    levels_.push_back({value, object, 0, {}, nullptr, {}});
    return true;
  }
  bool close() {
    levels_.pop_back();
    done();
    return true;
  }

  std::vector<Level> levels_;
};

// A parser's message, its bytes outside printable ASCII written as \xNN: it quotes what it read.
std::string printable(std::string const& text) {
  std::string out;
  for (char c : text) {
    auto const byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char code[5];
      std::snprintf(code, sizeof code, "\\x%02x", byte);
      out += code;
    }
  }
  return out;
}

}  // namespace

// Scenarios list events, not agents: a file beyond this is a wrong path (ranks receive it whole).
constexpr std::size_t largest_scenario = std::size_t{64} << 20;

std::shared_ptr<std::string const> read_scenario_text(std::string const& path) {
  // JSON may stand on one line; every rank receives it whole, so its size is bounded.
  TextLimits limits;
  limits.longest_line = 0;
  limits.largest = largest_scenario;
  limits.what = "scenario file";
  return std::make_shared<std::string const>(read_text_file(path, limits));
}

Scenario read_scenario(std::string const& path, std::string const& text, int steps, bool continued,
                       std::optional<std::vector<std::string>> const& layer_names) {
  Reading place;
  try {
    Json::sax_parse(text, &place);
  } catch (Json::parse_error const& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ...": the part from "line".
    std::string const what = printable(e.what());
    auto const at = what.find("line ");
    throw Error(path + ": malformed JSON at " + (at == std::string::npos ? what : what.substr(at)));
  } catch (Json::exception const& e) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'": the part after the tag.
    std::string const what = printable(e.what());
    auto const tag = what.find("] ");
    throw Error(path + ": " + place.key() + ": " + (tag == std::string::npos ? what : what.substr(tag + 2)));
  } catch (Error const& e) {
    throw Error(path + ": " + e.what());
  }
  Json const json = std::move(place.document);
  Scenario scenario;
  scenario.layer_names = layer_names.value_or(std::vector<std::string>());
  try {
    if (!json.is_object()) throw Error("expected an object with \"events\"");
    only_keys(json, "the scenario", {"events", "description"});
    if (json.contains("description") && !json["description"].is_string())
      throw Error("description: expected free text, got " + json["description"].dump());
    if (!json.contains("events") || !json["events"].is_array()) throw Error("events: expected a list of events");
    auto const& events = json["events"];
    for (std::size_t k = 0; k < events.size(); ++k)
      read_event(events[k], "events[" + std::to_string(k) + "]", steps, continued, scenario);
    if (!layer_names) {
      // Until the graph's layers are known, an isolation without "keeps" (household where the
      // graph has it) is taken to keep what the others keep: the run checks it against the graph.
      std::vector<std::string> kept;
      for (auto const& e : scenario.events)
        if (e.kind == ScenarioEvent::Kind::isolate && !e.keeps.empty() && kept.empty()) kept = e.keeps;
      for (auto& e : scenario.events)
        if (e.kind == ScenarioEvent::Kind::isolate && e.keeps.empty()) e.keeps = kept;
      scenario.layer_names = layers_named(scenario);
    }
    check(scenario);
  } catch (Error const& e) {
    throw Error(path + ": " + e.what());
  }
  return scenario;
}

}  // namespace herd::cli
