// The receiver's mutants as a policy (rdcc/testing/receiver_mutants.hpp): a decorator of the
// policy in force (the reference's or a conforming variant's) that answers the rule hook of
// each mutant switched on wrongly, or rewrites the messages the mutant changes on the wire.
#include "rdcc/testing/receiver_mutants.hpp"

#include <map>
#include <utility>

namespace rdcc::testing {
namespace {

using ref::ReceiverPolicy;

class MutantReceiverPolicy final : public ReceiverPolicy {
 public:
  MutantReceiverPolicy(MutantSet mutants, std::uint32_t credit_unit,
                       std::shared_ptr<const ReceiverPolicy> base)
      : mutants_(mutants), credit_unit_(credit_unit), base_(std::move(base)) {}

  // ---- the conforming choices: the base policy's ----
  std::uint64_t grant_window(const ref::WindowContext& c) const override {
    return base_->grant_window(c);
  }
  std::uint32_t rate_share(std::uint32_t capacity, std::size_t sharing) const override {
    return base_->rate_share(capacity, sharing);
  }
  double next_rate(const ref::RateUpdate& u) const override {
    if (on(Mutant::ReceiverIgnoresCongestion) && u.signal > 0) return u.rate;
    return base_->next_rate(u);
  }
  std::uint32_t grant_lifetime_us(std::uint32_t association_default_us) const override {
    return base_->grant_lifetime_us(association_default_us);
  }
  ref::ReRequestAnswer answer_rerequest() const override { return base_->answer_rerequest(); }
  std::uint32_t unscheduled_limit(const ref::UnscheduledContext& c) const override {
    return base_->unscheduled_limit(c);
  }
  bool pool_grants() const override { return base_->pool_grants(); }
  bool tell_budget_exhausted() const override { return base_->tell_budget_exhausted(); }
  ref::Time next_idle_check(ref::Time now, ref::Time least_recent_activity,
                            ref::Duration idle_timeout) const override {
    return base_->next_idle_check(now, least_recent_activity, idle_timeout);
  }

  // ---- the rule hooks: wrong where a mutant says so ----
  void rewrite_outgoing(Message& m) const override {
    base_->rewrite_outgoing(m);
    if (auto* acc = std::get_if<AssocAccept>(&m); acc != nullptr && on(Mutant::NonceNotEchoed)) {
      acc->sender_nonce ^= 1U;
    }
    if (auto* g = std::get_if<CreditGrant>(&m)) rewrite_grant(*g);
  }
  Result<Message, DecodeError> decode_control(std::span<const std::byte> datagram) const override {
    auto decoded = base_->decode_control(datagram);
    const bool version = on(Mutant::ReceiverVersionNotChecked);
    const bool length = on(Mutant::ReceiverLengthNotChecked);
    if (!decoded && (version || length)) return decode_leniently(datagram, version, length);
    return decoded;
  }
  bool sequence_fresh(std::uint32_t seq, std::uint32_t newest) const override {
    if (on(Mutant::ReceiverStaleAccepted)) return true;
    if (on(Mutant::ReceiverSerialWithoutWraparound)) return seq > newest;
    return base_->sequence_fresh(seq, newest);
  }
  bool recognizes_epoch(std::uint16_t epoch, std::uint16_t own) const override {
    return on(Mutant::GrantUnknownEpoch) || base_->recognizes_epoch(epoch, own);
  }
  bool follow_request_source() const override {
    return on(Mutant::GrantToRequestSource) || base_->follow_request_source();
  }
  bool same_nonce_same_association() const override {
    return !on(Mutant::AssocIdNotIdempotent) && base_->same_nonce_same_association();
  }
  std::size_t association_cap(std::size_t configured) const override {
    return on(Mutant::AssociationCapIgnored) ? kUnbounded : base_->association_cap(configured);
  }
  std::size_t pending_cap(std::size_t configured) const override {
    return on(Mutant::PendingCapIgnored) ? kUnbounded : base_->pending_cap(configured);
  }
  std::uint64_t unscheduled_pool(std::uint64_t g_u) const override {
    return on(Mutant::SumOfUExceedsGu) ? kUnbounded : base_->unscheduled_pool(g_u);
  }
  std::uint64_t scheduled_pool(std::uint64_t g, std::uint64_t g_s) const override {
    return on(Mutant::BudgetExcludesUnscheduled) ? g : base_->scheduled_pool(g, g_s);
  }
  bool enforce_budget() const override {
    return !on(Mutant::BudgetNotEnforced) && base_->enforce_budget();
  }
  bool budget_per_association() const override {
    return on(Mutant::BudgetPerAssociation) || base_->budget_per_association();
  }
  bool enforce_rate_sum() const override {
    return !on(Mutant::RateSumExceedsLink) && base_->enforce_rate_sum();
  }
  bool pool_grant_without_capability() const override {
    return on(Mutant::PoolGrantWithoutCapability) || base_->pool_grant_without_capability();
  }
  bool stop_granting_misbehaving() const override {
    return !on(Mutant::MisbehavingSenderGranted) && base_->stop_granting_misbehaving();
  }
  bool lower_grant_reclaims() const override {
    return on(Mutant::LowerGrantReclaims) || base_->lower_grant_reclaims();
  }
  bool return_releases_crossed_grant() const override {
    return on(Mutant::ReturnReleasesCrossedGrant) || base_->return_releases_crossed_grant();
  }
  std::uint64_t completion_octets(std::uint64_t length) const override {
    // MSG_DONE once half the octets are in.
    return on(Mutant::MsgDoneEarly) ? (length + 1) / 2 : base_->completion_octets(length);
  }
  bool send_msg_done() const override {
    return !on(Mutant::MsgDoneNever) && base_->send_msg_done();
  }
  bool answer_done_again() const override {
    return !on(Mutant::NoMsgDoneAgain) && base_->answer_done_again();
  }
  bool answer_unknown_association() const override {
    return !on(Mutant::UnknownAssociationSilent) && base_->answer_unknown_association();
  }
  bool answer_refusal() const override {
    return !on(Mutant::AssociationRefusedSilently) && base_->answer_refusal();
  }
  bool circuit_breaker() const override {
    return !on(Mutant::NoCircuitBreaker) && base_->circuit_breaker();
  }
  bool answer_unsupported_type_unbound(bool association_exists) const override {
    return on(Mutant::UnsupportedTypeOutsideAssociation) ||
           (on(Mutant::UnsupportedTypeToSource) && association_exists) ||
           base_->answer_unsupported_type_unbound(association_exists);
  }
  bool accept_report(bool from_configured_crn) const override {
    return on(Mutant::ReceiverReportFromUnconfiguredCrn) ||
           base_->accept_report(from_configured_crn);
  }
  ref::ReportReaction report_reaction() const override {
    if (on(Mutant::ReceiverIgnoresReports)) return ref::ReportReaction::Ignore;
    if (on(Mutant::ReportRaisesRate)) return ref::ReportReaction::ResetRate;
    return base_->report_reaction();
  }
  std::uint32_t suggested_rate(std::uint32_t stated) const override {
    return on(Mutant::SuggestedRateIgnored) ? 0 : base_->suggested_rate(stated);
  }
  bool match_queue_pair() const override {
    return !on(Mutant::Rocev2AnyQueuePair) && base_->match_queue_pair();
  }

 private:
  static constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

  [[nodiscard]] bool on(Mutant m) const { return mutants_.has(m); }

  void rewrite_grant(CreditGrant& g) const {
    const std::uint64_t issued = g.grant_limit;
    // FINAL is set exactly on the grant that reaches the message length (rule 5).
    if (on(Mutant::GrantBeyondLength) && (g.header.flags & flag::kFinal) != 0) {
      g.grant_limit += credit_unit_;
    }
    if (on(Mutant::FinalNeverSet)) g.header.flags = 0;
    if (on(Mutant::FinalSetEarly)) g.header.flags = flag::kFinal;
    if (on(Mutant::GrantLimitReduced)) {
      // The Grant Limit this receiver issued last for the message, remembered here: the
      // receiver's own state is the reference's.
      auto [it, first] = issued_.try_emplace({g.header.association_id, g.message_id}, issued);
      if (!first) {
        const std::uint64_t previous = it->second;
        g.grant_limit = previous - std::min<std::uint64_t>(previous, credit_unit_);
        it->second = issued;
      }
    }
    if (on(Mutant::ZeroPacingRate)) g.pacing_rate = 0;
    if (on(Mutant::PoolFlagMismatch)) g.header.flags ^= flag::kPool;
  }

  MutantSet mutants_;
  std::uint32_t credit_unit_;
  std::shared_ptr<const ReceiverPolicy> base_;
  mutable std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> issued_;
};

bool has_receiver_mutant(const MutantSet& mutants) {
  for (const MutantInfo& m : all_mutants()) {
    if (m.role == MutantRole::Receiver && mutants.has(m.id)) return true;
  }
  return false;
}

}  // namespace

std::shared_ptr<const ref::ReceiverPolicy> receiver_policy(
    const MutantSet& mutants, const ref::ReceiverConfig& config,
    std::shared_ptr<const ref::ReceiverPolicy> base) {
  if (!has_receiver_mutant(mutants)) return base;
  if (base == nullptr) base = std::make_shared<const ReceiverPolicy>();
  return std::make_shared<const MutantReceiverPolicy>(mutants, config.credit_unit, std::move(base));
}

}  // namespace rdcc::testing
