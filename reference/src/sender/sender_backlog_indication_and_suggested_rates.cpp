// "Sender Backlog Indication and Suggested Rates", for the sender: the unused credit summed over
// the associations against the Backlog Threshold; SENDER_STATUS on each association that holds
// such credit, with the Congestion Level and the Suggested Rate from the Service Hints' shares,
// once per smoothed round-trip time, and a final one when the episode ends.
#include "sender_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace rdcc::ref {

namespace {

// Sums of credit octets: a receiver may grant up to 2^64 - 1 (a pool grant of "everything"), and
// a wrapped sum made the backlog smaller than its parts, so that sending data, which only uses
// credit up, could start a backlog episode (fuzz_sender; docs/spec-notes.md, 90).
std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return b > ~std::uint64_t{0} - a ? ~std::uint64_t{0} : a + b;
}

// "a Congestion Level from 0 (none) to 255 (saturated)": 255 * excess / total rounded up, at
// least 1; exact in integers while 255 * excess fits in 64 bits.
std::uint8_t congestion_level(std::uint64_t excess, std::uint64_t total) {
  const std::uint64_t level =
      excess <= ~std::uint64_t{0} / 255
          ? (255 * excess + total - 1) / total
          : static_cast<std::uint64_t>(
                std::ceil(255.0 * static_cast<double>(excess) / static_cast<double>(total)));
  return static_cast<std::uint8_t>(std::clamp<std::uint64_t>(level, 1, 255));
}

}  // namespace

void Sender::Impl::update_backlog(Time now) {
  if (!policy->send_sender_status()) return;
  // A sender that does not advertise STATUS ("SENDER_STATUS supported") sends none
  // (docs/spec-notes.md, "SENDER_STATUS").
  if ((config.capabilities & capability::kStatus) == 0) return;
  // The smallest Backlog Threshold of an established association.
  std::optional<std::uint64_t> threshold;
  if (!established_thresholds.empty()) threshold = *established_thresholds.begin();
  if (!threshold && !episode) return;  // no established association, no episode to end
  const std::uint64_t total = sum_backlog(now);
  const std::uint64_t weight_sum = established_weight;
  if (threshold && config.local_backlog_threshold != 0) {
    threshold = std::min(*threshold, config.local_backlog_threshold);
  }
  const bool congested = threshold && total > *threshold;
  if (congested) {
    episode = true;
    const std::uint8_t level = congestion_level(total - *threshold, total);
    // The associations holding unused credit, in address order.
    std::sort(backlog_assocs.begin(), backlog_assocs.end(), AssocLess{});
    for (Assoc* ap : backlog_assocs) {
      Assoc& a = *ap;
      // "on each association that holds such credit": the MUST makes no exception for a
      // receiver that did not advertise STATUS (docs/spec-notes.md, "SENDER_STATUS").
      const std::uint64_t unused = a.unused;
      if (unused == 0 || (a.status_in_episode && now < a.status_next)) continue;
      const std::uint64_t w = a.hint_weight;
      const std::uint64_t rate =
          w == 0 || !policy->suggest_rate()
              ? 0
              : std::max<std::uint64_t>(1, available_rate() * w / weight_sum);
      send_status(a, unused, level, rate, now);
      if (!a.status_in_episode) in_episode.push_back(&a);
      a.status_in_episode = true;
      // "once per smoothed round-trip time" (at least 1 us apart: an SRTT measured as zero
      // in a test bench must not mean "continuously").
      arm_status(a, now + std::max(srtt_or_default(a), microseconds(1)));
    }
  } else if (episode) {
    episode = false;
    // The associations marked in the episode, in address order (one marked, unmarked by a
    // re-establishment and marked again is listed twice).
    std::sort(in_episode.begin(), in_episode.end(), AssocLess{});
    in_episode.erase(std::unique(in_episode.begin(), in_episode.end()), in_episode.end());
    for (Assoc* ap : in_episode) {
      Assoc& a = *ap;
      if (!a.status_in_episode) continue;
      a.status_in_episode = false;
      // "one final SENDER_STATUS with Congestion Level zero when it ends"
      if (a.phase == Phase::Established) send_status(a, unused_of(a), 0, 0, now);
    }
    in_episode.clear();
  }
}

// The unused credit of every established association (valid credit held, own and pool, not
// yet used), into Assoc::unused (unused_of), listing in backlog_assocs those that hold some;
// returns their total. Walks the messages that may hold credit of their own and the
// associations that may hold a pool grant, not every live message and association; one
// that cannot hold any until its next grant leaves the list (only at the clock: an earlier
// t may see credit since expired).
std::uint64_t Sender::Impl::sum_backlog(Time t) {
  ++backlog_stamp;
  backlog_assocs.clear();
  std::uint64_t total = 0;
  const auto add = [&](Assoc& a, std::uint64_t octets) {
    if (a.unused_stamp != backlog_stamp) {
      a.unused_stamp = backlog_stamp;
      a.unused = 0;
      backlog_assocs.push_back(&a);
    }
    a.unused = add_saturating(a.unused, octets);
    total = add_saturating(total, octets);
  };
  for (std::size_t i = 0; i < credit_holders.size();) {
    Msg* m = msg_of(credit_holders[i]);
    const bool holds = m != nullptr && !m->terminal() && m->assoc->phase == Phase::Established &&
                       own_valid(*m, t) && own_limit(*m) > m->transmitted;
    if (holds) add(*m->assoc, own_limit(*m) - m->transmitted);
    if (holds || (m != nullptr && t < clock)) {
      ++i;
      continue;
    }
    if (m != nullptr) m->in_credit_holders = false;
    credit_holders[i] = credit_holders.back();
    credit_holders.pop_back();
  }
  for (auto it = pool_holders.begin(); it != pool_holders.end();) {
    Assoc& a = **it;
    if (a.phase == Phase::Established && pool_valid(a, t)) {
      add(a, a.pool_limit - a.pool_sent);
      ++it;
    } else {
      it = drop_poolless(it, t);
    }
  }
  return total;
}

std::uint64_t Sender::Impl::unused_of(const Assoc& a) const {
  return a.unused_stamp == backlog_stamp ? a.unused : 0;
}

}  // namespace rdcc::ref
