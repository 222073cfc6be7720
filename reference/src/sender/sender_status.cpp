// "SENDER_STATUS", for the sender: the message, with the dominant Service Hint of the pending
// messages toward the receiver. When it is sent is "Sender Backlog Indication and Suggested
// Rates"'s.
#include "sender_impl.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace rdcc::ref {

std::uint8_t Sender::Impl::dominant_hint(const Assoc& a) const {
  const std::array<std::uint64_t, 3>& count = a.hint_count;
  if (count[1] != 0 && count[1] >= count[2] && count[1] >= count[0]) return 1;
  if (count[2] != 0 && count[2] >= count[0]) return 2;
  return 0;
}

void Sender::Impl::send_status(Assoc& a, std::uint64_t unused, std::uint8_t level,
                               std::uint64_t rate, Time now) {
  SenderStatus s;
  s.unused_credit = unused;
  s.congestion_level = level;
  s.service_hint = dominant_hint(a);
  s.suggested_rate = static_cast<std::uint32_t>(std::min<std::uint64_t>(rate, 0xFFFFFFFFU));
  ++stats.sender_status_sent;
  send(a, s, now);
}

}  // namespace rdcc::ref
