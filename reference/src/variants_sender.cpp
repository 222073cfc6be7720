// The sender's conforming variants (variants.hpp): each with the spec sentence that permits it.
// Each one is a SenderPolicy (policy.hpp) that decides one choice differently from the
// reference, or a configuration the spec leaves to the sender (the capabilities it
// advertises). The sender's rule code still enforces every MUST around the choice; the tests
// in reference/test/variants_sender_test.cpp show that each variant behaves as named and
// stays within the invariants.
#include <algorithm>
#include <array>
#include <memory>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/sender.hpp"
#include "variants_table.hpp"

namespace rdcc::ref::detail {

namespace {

// "A sender MAY use scheduled mode for any message."
class ScheduledOnly final : public SenderPolicy {
 public:
  [[nodiscard]] bool use_unscheduled(std::uint64_t /*length*/) const override { return false; }
};

// Rule 4 bounds the rate over ten Credit Units only: bursts of up to ten of them.
class PacingBursts final : public SenderPolicy {
 public:
  [[nodiscard]] bool space_segments() const override { return false; }
};

// Data segments of a fixed size, whatever the Credit Unit.
class FixedSegments final : public SenderPolicy {
 public:
  explicit FixedSegments(std::uint64_t octets) : octets_(octets) {}
  [[nodiscard]] std::uint64_t segment_length(std::uint64_t /*credit_unit*/,
                                             std::uint64_t sendable) const override {
    return std::min(octets_, sendable);
  }

 private:
  std::uint64_t octets_;
};

// Everything that may go now in one segment: the credit held, up to the pacing window.
class WholeGrantPosts final : public SenderPolicy {
 public:
  [[nodiscard]] std::uint64_t segment_length(std::uint64_t /*credit_unit*/,
                                             std::uint64_t sendable) const override {
    return sendable;
  }
};

// A new association starts its Message IDs at 1 again.
class ReuseMessageIdOne final : public SenderPolicy {
 public:
  [[nodiscard]] std::uint64_t first_message_id_on_reestablishment(
      std::uint64_t /*next*/) const override {
    return 1;
  }
};

// Re-establishment draws a new Sender Nonce (the reference's own choice, made explicit), or
// keeps the current one.
class ReestablishNonce final : public SenderPolicy {
 public:
  explicit ReestablishNonce(bool fresh) : fresh_(fresh) {}
  [[nodiscard]] bool fresh_nonce_on_reestablishment() const override { return fresh_; }

 private:
  bool fresh_;
};

// Control messages of an association are matched to it by Association ID (and Epoch and
// Sequence Number), whatever address they came from.
class AnyAddress final : public SenderPolicy {
 public:
  [[nodiscard]] bool match_unknown_peer_by_association_id() const override { return true; }
};

// Every ASSOC_ACCEPT that echoes the current nonce is exempt from the sequence check, one of
// the current incarnation too (docs/spec-notes.md 25, 87).
class AcceptExemptByWords final : public SenderPolicy {
 public:
  [[nodiscard]] bool check_sequence_of_current_accept() const override { return false; }
};

class NoCreditReturn final : public SenderPolicy {
 public:
  [[nodiscard]] bool send_credit_return() const override { return false; }
};

class NoSuggestedRate final : public SenderPolicy {
 public:
  [[nodiscard]] bool suggest_rate() const override { return false; }
};

template <class P, auto... Args>
void use(SenderConfig& /*config*/, std::shared_ptr<const SenderPolicy>& policy) {
  policy = std::make_shared<const P>(Args...);
}

void advertise_neither_pool_nor_status(SenderConfig& config,
                                       std::shared_ptr<const SenderPolicy>& /*policy*/) {
  config.capabilities &= ~(capability::kPool | capability::kStatus);
}

// "or a smaller locally configured value": 4 KiB, far below the N_cu receivers advertise, so
// that the sender reports its own backlog (SENDER_STATUS) as soon as it holds more unused credit.
void local_backlog_threshold(SenderConfig& config,
                             std::shared_ptr<const SenderPolicy>& /*policy*/) {
  config.local_backlog_threshold = 4096;
}

constexpr std::string_view kCreditRequests = "Credit Requests and Grants";

const std::array<SenderVariant, 14> kSenderVariants{{
    {{"scheduled-only", VariantRole::Sender,
      "uses scheduled mode for every message, also those no larger than U", "",
      "Transmission Mode Selection", "RDCC-MODE-04"},
     &use<ScheduledOnly>},
    {{"pacing-bursts", VariantRole::Sender,
      "sends granted data in bursts of up to ten Credit Units, then waits, instead of spacing "
      "each segment by its transmission time",
      "", kCreditRequests, "RDCC-GRANT-05"},
     &use<PacingBursts>},
    {{"segments-1k", VariantRole::Sender,
      "sends data segments of 1 KiB (1024 octets) whatever the Credit Unit",
      "RDCC does not define data packet formats, does not require changes to switch forwarding "
      "hardware, and does not depend on PFC.",
      "Scope and Applicability"},
     &use<FixedSegments, std::uint64_t{1024}>},
    {{"segments-9000", VariantRole::Sender,
      "sends data segments of 9000 octets (a jumbo frame's payload) whatever the Credit Unit",
      "RDCC does not define data packet formats, does not require changes to switch forwarding "
      "hardware, and does not depend on PFC.",
      "Scope and Applicability"},
     &use<FixedSegments, std::uint64_t{9000}>},
    {{"whole-grant-posts", VariantRole::Sender,
      "posts all the credit it may use at once as one segment (up to the ten Credit Units of one "
      "pacing window), as an RDMA interface posts a whole RDMA message",
      "An RDMA interface cannot pause in the middle of an RDMA message, so a sender that honors "
      "partial grants divides an RDCC message into several RDMA messages and posts each one only "
      "when it holds credit for all of its octets.",
      "Transport Bindings"},
     &use<WholeGrantPosts>},
    {{"reuse-message-id-1", VariantRole::Sender,
      "starts the Message IDs of a re-established association at 1 again", "", kCreditRequests,
      "RDCC-GRANT-01"},
     &use<ReuseMessageIdOne>},
    {{"reestablish-fresh-nonce", VariantRole::Sender,
      "re-establishes an association with a new Sender Nonce (the reference's own choice, as an "
      "explicit policy)",
      "", "Association Establishment", "RDCC-ASSOC-04"},
     &use<ReestablishNonce, true>},
    {{"reestablish-same-nonce", VariantRole::Sender,
      "re-establishes an association with the Sender Nonce of the one it lost", "",
      "Association Establishment", "RDCC-ASSOC-04"},
     &use<ReestablishNonce, false>},
    {{"accept-exempt-by-words", VariantRole::Sender,
      "every ASSOC_ACCEPT that echoes the current Sender Nonce is exempt from the sequence "
      "check, one of the current association and Epoch too (the reference checks those)",
      "ASSOC_REQUEST, ASSOC_ACCEPT that echoes the sender's current nonce, ERROR with reason "
      "UNKNOWN_ASSOCIATION, and messages from CRNs are exempt",
      "Common Header"},
     &use<AcceptExemptByWords>},
    {{"no-pool-no-status", VariantRole::Sender,
      "advertises neither POOL nor STATUS (only CRN): takes no pool grants and sends no "
      "SENDER_STATUS",
      "Capability bits: 0x00000001 POOL (pool grants supported), 0x00000002 STATUS "
      "(SENDER_STATUS supported), 0x00000004 CRN (on-path reports are processed).",
      "ASSOC_REQUEST and ASSOC_ACCEPT"},
     &advertise_neither_pool_nor_status},
    {{"grants-from-any-address", VariantRole::Sender,
      "takes a grant (any control message) naming its association with the right Association "
      "ID, Epoch and a newer Sequence Number for its receiver's, whatever address it came from",
      "RDCC limits the impact of blind injection with the random 64-bit Sender Nonce, the 32-bit "
      "Association ID, the Epoch, and sequence-number checks.",
      "Security Considerations"},
     &use<AnyAddress>},
    {{"no-credit-return", VariantRole::Sender,
      "never sends CREDIT_RETURN: credit it will not use is simply left unused (a SHOULD-level "
      "alternative)",
      "", kCreditRequests, "RDCC-GRANT-10"},
     &use<NoCreditReturn>},
    {{"no-suggested-rate", VariantRole::Sender,
      "makes no suggestion in SENDER_STATUS (Suggested Rate zero; a SHOULD-level alternative)",
      "Suggested Rate zero means that the sender makes no suggestion.", "SENDER_STATUS"},
     &use<NoSuggestedRate>},
    {{"local-backlog-threshold", VariantRole::Sender,
      "uses a locally configured Backlog Threshold of 4 KiB, below the N_cu of its receivers, so "
      "it sends SENDER_STATUS whenever it holds more unused credit than that",
      "A sender's Backlog Threshold is the smallest N_cu advertised by its receivers, or a "
      "smaller locally configured value.",
      "Sender Backlog Indication and Suggested Rates"},
     &local_backlog_threshold},
}};

}  // namespace

std::span<const SenderVariant> sender_variants() {
  return kSenderVariants;
}

}  // namespace rdcc::ref::detail
