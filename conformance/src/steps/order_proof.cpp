#include "order_proof.hpp"

#include <algorithm>
#include <utility>

namespace rdcc::conformance {

void OrderProof::witness(ref::Time at, std::vector<std::size_t> frames, std::string what) {
  if (at_) return;
  at_ = at;
  frames_ = std::move(frames);
  what_ = std::move(what);
}

ref::Time OrderProof::deadline(ref::Time own, ref::Duration patience) const {
  if (!at_) return own;
  return std::max(own, *at_ + patience);
}

std::string OrderProof::reason(const std::string& awaited, ref::Duration patience) const {
  std::string frame;
  for (const auto f : frames_) frame += (frame.empty() ? " (frame " : ", ") + std::to_string(f);
  if (!frame.empty()) frame += ")";
  return "no " + awaited +
         ", though the IUT answered a message the tester sent after it: " + what_ + frame +
         "; it had read the earlier one and did not answer it within " +
         std::to_string(patience.ns / 1000) + " us after that answer";
}

}  // namespace rdcc::conformance
