#include "weight_share.hpp"

namespace rdcc::conformance {

WeightShare::WeightShare(std::uint64_t heavier, std::uint64_t lighter, std::uint64_t heavier_length,
                         std::uint64_t heavier_limit, std::uint64_t lighter_limit)
    : heavier_(heavier),
      lighter_(lighter),
      heavier_length_(heavier_length),
      heavier_limit_(heavier_limit),
      lighter_limit_(lighter_limit) {}

std::optional<std::string> WeightShare::grant(std::uint64_t message_id, std::uint64_t limit,
                                              std::uint64_t heavier_sent) {
  if (message_id == heavier_) {
    if (limit > heavier_limit_) {
      heavier_limit_ = limit;
      turns_ = 0;
      limits_.clear();
    }
    return std::nullopt;
  }
  if (message_id != lighter_ || limit <= lighter_limit_) return std::nullopt;
  lighter_limit_ = limit;
  const bool heavier_waits = heavier_limit_ < heavier_length_ && heavier_sent >= heavier_limit_;
  if (!heavier_waits) return std::nullopt;
  limits_ += (limits_.empty() ? "" : ", then ") + std::to_string(limit);
  if (++turns_ < 2) return std::nullopt;
  return "message " + std::to_string(lighter_) + " (the lighter) was granted twice (up to " +
         limits_ + ") while message " + std::to_string(heavier_) +
         " (the heavier) waited with every octet of its Grant Limit " +
         std::to_string(heavier_limit_) + " sent and " +
         std::to_string(heavier_length_ - heavier_limit_) +
         " octets to go, and was granted nothing in between: no distribution by weight within a "
         "class";
}

}  // namespace rdcc::conformance
