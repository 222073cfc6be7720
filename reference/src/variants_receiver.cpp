// The receiver's conforming variants (variants.hpp): each with the spec sentence that permits it.
#include <algorithm>

#include "rdcc/reference/receiver.hpp"
#include "variants_table.hpp"

namespace rdcc::ref::detail {
namespace {

// Every grant reaches as far as the budget allows toward the message length: with room, the
// first grant is the whole message, with FINAL.
class WholeMessage final : public ReceiverPolicy {
 public:
  [[nodiscard]] std::uint64_t grant_window(const WindowContext& c) const override {
    return c.length;
  }
};

// The first scheduled grant of a message is one Credit Unit; the window opens to the default
// once the first scheduled octets have arrived.
class FirstWindowOneCreditUnit final : public ReceiverPolicy {
 public:
  [[nodiscard]] std::uint64_t grant_window(const WindowContext& c) const override {
    return c.scheduled_received == 0 ? c.credit_unit : c.default_window;
  }
};

// A message naming an association with its Epoch is the association's, whatever address it
// came from; every answer still goes to the address the association was bound to.
class AnyAddress final : public ReceiverPolicy {
 public:
  [[nodiscard]] bool accept_from_any_address() const override { return true; }
};

// A CREDIT_REQUEST naming a live association from another address is that association's
// message from the wrong address, and no answer goes anywhere (docs/spec-notes.md 15, 58).
class OtherAddressSilent final : public ReceiverPolicy {
 public:
  [[nodiscard]] bool answer_request_from_other_address() const override { return false; }
};

// Each message is granted at most link / k, however few share the link.
class LinkOverK final : public ReceiverPolicy {
 public:
  explicit LinkOverK(std::uint32_t k) : k_(k) {}
  [[nodiscard]] std::uint32_t rate_share(std::uint32_t capacity,
                                         std::size_t sharing) const override {
    return std::min(capacity / k_, ReceiverPolicy::rate_share(capacity, sharing));
  }

 private:
  std::uint32_t k_;
};

// Every grant states its Lifetime: `us`, or the association's default when `us` is 0.
class ExplicitLifetime final : public ReceiverPolicy {
 public:
  explicit ExplicitLifetime(std::uint32_t us) : us_(us) {}
  [[nodiscard]] std::uint32_t grant_lifetime_us(
      std::uint32_t association_default_us) const override {
    return us_ != 0 ? us_ : association_default_us;
  }

 private:
  std::uint32_t us_;
};

class ReRequests final : public ReceiverPolicy {
 public:
  explicit ReRequests(ReRequestAnswer answer) : answer_(answer) {}
  [[nodiscard]] ReRequestAnswer answer_rerequest() const override { return answer_; }

 private:
  ReRequestAnswer answer_;
};

// G_u shared evenly among as many associations as the receiver admits: a small U for every
// one of them, never 0 for lack of G_u.
class EvenUnscheduledShare final : public ReceiverPolicy {
 public:
  [[nodiscard]] std::uint32_t unscheduled_limit(const UnscheduledContext& c) const override {
    const std::uint64_t share = c.g_u / std::max<std::size_t>(1, c.max_associations);
    return static_cast<std::uint32_t>(std::min<std::uint64_t>({c.configured, share, c.left}));
  }
};

class PoolGrants final : public ReceiverPolicy {
 public:
  [[nodiscard]] bool pool_grants() const override { return true; }
};

class TellsBudgetExhausted final : public ReceiverPolicy {
 public:
  [[nodiscard]] bool tell_budget_exhausted() const override { return true; }
};

// Each idle association is removed as soon as its idle time has passed.
class IdleRemovalOnTime final : public ReceiverPolicy {
 public:
  [[nodiscard]] Time next_idle_check(Time, Time least_recent_activity,
                                     Duration idle_timeout) const override {
    return least_recent_activity + idle_timeout;
  }
};

// Not the RECOMMENDED AIMD: each sender is granted a fixed fair share of the link (its line
// rate and Suggested Rate permitting); congestion cuts its rate multiplicatively, and it grows
// back by a quarter per update interval (multiplicative, not additive, increase).
class FixedFairShare final : public ReceiverPolicy {
 public:
  [[nodiscard]] double next_rate(const RateUpdate& u) const override {
    if (u.signal > 0) return std::max(u.r_min, u.rate * (1.0 - u.beta * u.signal));
    return std::min(u.r_max, std::max(u.r_min, u.rate * 1.25));
  }
};

template <class Policy, auto... kArgs>
void use(ReceiverConfig&, std::shared_ptr<const ReceiverPolicy>& policy) {
  policy = std::make_shared<const Policy>(kArgs...);
}

// A Credit Unit of 1460 octets (an Ethernet path MTU's payload) and a per-message window of two
// Credit Units, as `rdcc receiver --credit-unit 1460 --grant-window 2920`: no grant is a multiple
// of 4096, so a scenario that assumes the default 4096-octet windows fails it.
void credit_unit_1460(ReceiverConfig& c, std::shared_ptr<const ReceiverPolicy>&) {
  c.credit_unit = 1460;
  c.grant_window = 2U * 1460U;
}

// Binding Kind 2 (Opaque) unsupported: every opaque request is answered ERROR
// (UNSUPPORTED_BINDING), as `rdcc receiver --bindings rocev2`.
void rocev2_only(ReceiverConfig& c, std::shared_ptr<const ReceiverPolicy>&) {
  c.opaque_binding = false;
}

constexpr std::string_view kAllocation = "Credit Allocation";
constexpr std::string_view kGrants = "Credit Requests and Grants";
constexpr std::string_view kLocal =
    "The receiver decides which messages receive credit and at what rate. The choice of "
    "algorithm is local, provided that the invariant of holds and the following requirements "
    "are met:";
constexpr std::string_view kLifetime =
    "CREDIT_GRANT carries a Grant Limit, the cumulative octet offset (exclusive) up to which the "
    "sender may transmit, a Pacing Rate, and a Lifetime.";

const ReceiverVariant kReceiverVariants[] = {
    {{"grant-whole-message", VariantRole::Receiver,
      "grants the whole message at once (FINAL) when the budget has room for it", kLocal,
      kAllocation},
     use<WholeMessage>},
    {{"first-window-one-credit-unit", VariantRole::Receiver,
      "the first scheduled grant of a message is one Credit Unit; more once its octets arrive",
      kLocal, kAllocation},
     use<FirstWindowOneCreditUnit>},
    {{"pacing-link-over-2", VariantRole::Receiver,
      "Pacing Rates of at most half the access link, however few messages share it", "",
      kAllocation, "RDCC-ALLOC-01"},
     use<LinkOverK, 2U>},
    {{"pacing-link-over-4", VariantRole::Receiver,
      "Pacing Rates of at most a quarter of the access link", "", kAllocation, "RDCC-ALLOC-01"},
     use<LinkOverK, 4U>},
    {{"pacing-link-over-8", VariantRole::Receiver,
      "Pacing Rates of at most an eighth of the access link", "", kAllocation, "RDCC-ALLOC-01"},
     use<LinkOverK, 8U>},
    {{"rate-fixed-fair-share", VariantRole::Receiver,
      "no AIMD: each sender is granted a fixed fair share of the link; congestion cuts it "
      "multiplicatively and it grows back by a quarter per update interval",
      "", kAllocation, "RDCC-ALLOC-05"},
     use<FixedFairShare>},
    {{"lifetime-explicit-default", VariantRole::Receiver,
      "grants state the association's default Grant Lifetime instead of Lifetime 0",
      "Lifetime zero means the default Grant Lifetime of the association.", "CREDIT_GRANT"},
     use<ExplicitLifetime, 0U>},
    {{"lifetime-100us", VariantRole::Receiver,
      "grants carry Lifetime 100 us, shorter than the association's default", kLifetime, kGrants},
     use<ExplicitLifetime, 100U>},
    {{"lifetime-2000us", VariantRole::Receiver,
      "grants carry Lifetime 2000 us, as in the spec's example, longer than the association's "
      "default",
      "The first CREDIT_GRANT (Sequence Number 42, Grant Limit 262144, Pacing Rate 100000 "
      "Mbit/s, Lifetime 2000 microseconds) is encoded as:",
      "Example Exchange and Encodings"},
     use<ExplicitLifetime, 2000U>},
    {{"rerequest-never-while-live", VariantRole::Receiver,
      "a CREDIT_REQUEST for a message whose grant is live gets nothing until the grant expires", "",
      kGrants, "RDCC-GRANT-15"},
     use<ReRequests, ReRequestAnswer::Never>},
    {{"rerequest-always-answered", VariantRole::Receiver,
      "a CREDIT_REQUEST for a message whose grant is live is answered with a grant restating "
      "the limit",
      "", kGrants, "RDCC-GRANT-11"},
     use<ReRequests, ReRequestAnswer::Always>},
    {{"pool-grants", VariantRole::Receiver,
      "the scheduled messages of a sender that advertised POOL share pool grants (Message ID 0, "
      "POOL) instead of per-message grants",
      "Pool grants allow a sender to divide credit among its messages according to without a "
      "round trip per message.",
      kGrants},
     use<PoolGrants>},
    {{"small-u-every-association", VariantRole::Receiver,
      "U = G_u / the association cap for every association, so none gets U = 0 for lack of G_u",
      "The receiver MUST choose U for each association so that the sum of U over all "
      "associations with a non-zero U does not exceed G_u;",
      "Unscheduled Transmission"},
     use<EvenUnscheduledShare>},
    {{"budget-exhausted-error", VariantRole::Receiver,
      "a message the budget cannot serve is told so with ERROR (BUDGET_EXHAUSTED) and keeps "
      "waiting",
      "", "Error Handling and Recovery", "RDCC-ERR-04"},
     use<TellsBudgetExhausted>},
    {{"idle-removal-on-time", VariantRole::Receiver,
      "an association idle for the idle time (10 s by default) is removed at that instant, not "
      "at the next quarter-period sweep",
      "", "Association Establishment", "RDCC-ASSOC-05"},
     use<IdleRemovalOnTime>},
    {{"credit-unit-1460-two-unit-windows", VariantRole::Receiver,
      "Credit Unit 1460 octets and grants of two Credit Units (2920 octets) per message at a "
      "time",
      "In ASSOC_ACCEPT, the fields carry U (octets), J (microseconds), N_cu (octets), the default "
      "Grant Lifetime (microseconds), and the Credit Unit (octets, typically the path MTU "
      "payload).",
      "ASSOC_REQUEST and ASSOC_ACCEPT"},
     credit_unit_1460},
    {{"requests-from-any-address", VariantRole::Receiver,
      "a message naming an association with its Association ID and Epoch is processed whatever "
      "address it came from (a CREDIT_REQUEST from another host is granted); every answer still "
      "goes to the address the association was bound to",
      "RDCC limits the impact of blind injection with the random 64-bit Sender Nonce, the 32-bit "
      "Association ID, the Epoch, and sequence-number checks.",
      "Security Considerations"},
     use<AnyAddress>},
    {{"other-address-silent", VariantRole::Receiver,
      "a CREDIT_REQUEST naming a live association from another address than the bound one is "
      "discarded without an answer (the reference answers ERROR UNKNOWN_ASSOCIATION to its "
      "source)",
      "receivers send all other messages only to the address bound when the association was "
      "accepted",
      "Security Considerations"},
     use<OtherAddressSilent>},
    {{"rocev2-binding-only", VariantRole::Receiver,
      "supports only Binding Kind 1 (RoCEv2): an opaque request gets ERROR (UNSUPPORTED_BINDING)",
      "", "Transport Bindings", "RDCC-BIND-02"},
     rocev2_only},
};

}  // namespace

std::span<const ReceiverVariant> receiver_variants() {
  return kReceiverVariants;
}

}  // namespace rdcc::ref::detail
