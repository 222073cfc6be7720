// Proof by order (docs/scenario-language.md, "Proof by order"): an `expect` whose awaited answer
// is missing fails, instead of being inconclusive, once the IUT has answered a message the
// tester sent after the awaited one. Such an answer shows that the IUT was alive and had read
// the earlier message (one peer, one socket, in order); it then gets the tester's patience from
// that answer, and silence past it is a failure to answer, not a slow answer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rdcc/reference/time.hpp"

namespace rdcc::conformance {

class OrderProof {
 public:
  // A packet matching a `| later` alternative arrived at `at` (frames: its frame in the trace,
  // what: its description). Only the first counts: it is the earliest proof.
  void witness(ref::Time at, std::vector<std::size_t> frames, std::string what);
  [[nodiscard]] bool proven() const { return at_.has_value(); }
  // When the step stops waiting: its own deadline, or, once proven, the later of it and the
  // witness's time plus `patience` (already widened for a real-time adapter).
  [[nodiscard]] ref::Time deadline(ref::Time own, ref::Duration patience) const;
  // The failure's reason once proven: "the IUT answered a later message (...) at frame N, ..."
  [[nodiscard]] std::string reason(const std::string& awaited, ref::Duration patience) const;
  [[nodiscard]] const std::vector<std::size_t>& frames() const { return frames_; }

 private:
  std::optional<ref::Time> at_;
  std::vector<std::size_t> frames_;
  std::string what_;
};

}  // namespace rdcc::conformance
