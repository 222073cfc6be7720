// Structured events: one JSON object per event (time, endpoint, name, fields), delivered to an
// observer. Tests, the conformance report, the simulator's plots and logs all read these.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

struct Event {
  Time time;
  std::string endpoint;  // the endpoint's configured name, e.g. "receiver", "sender-3"
  std::string name;      // e.g. "grant_sent", "misbehaving_sender", "budget_exhausted"
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();

  [[nodiscard]] nlohmann::ordered_json to_json() const;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_event(const Event& e) = 0;
};

// Keeps every event; for tests and the simulator.
class EventLog final : public Observer {
 public:
  void on_event(const Event& e) override { events_.push_back(e); }
  [[nodiscard]] const std::vector<Event>& events() const { return events_; }
  [[nodiscard]] std::size_t count(const std::string& name) const;
  void clear() { events_.clear(); }

 private:
  std::vector<Event> events_;
};

// Emits through an optional observer; endpoints hold one.
class EventSink {
 public:
  EventSink(std::string endpoint, Observer* observer)
      : endpoint_(std::move(endpoint)), observer_(observer) {}
  void emit(Time t, const char* name,
            nlohmann::ordered_json fields = nlohmann::ordered_json::object()) const {
    if (observer_ != nullptr) observer_->on_event(Event{t, endpoint_, name, std::move(fields)});
  }
  [[nodiscard]] bool enabled() const { return observer_ != nullptr; }
  void set_observer(Observer* o) { observer_ = o; }
  [[nodiscard]] const std::string& endpoint() const { return endpoint_; }

 private:
  std::string endpoint_;
  Observer* observer_;
};

}  // namespace rdcc::ref
