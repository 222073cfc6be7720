// The sender's and the CRN's mutants as policy decorators (rdcc/testing/sender_mutants.hpp).
// Each override below is one mutant of the table in mutants.hpp, with its name.
#include <algorithm>
#include <memory>

#include "rdcc/testing/sender_mutants.hpp"

namespace rdcc::testing {

namespace {

bool has_role(const MutantSet& set, MutantRole role) {
  return std::any_of(all_mutants().begin(), all_mutants().end(),
                     [&](const MutantInfo& m) { return m.role == role && set.has(m.id); });
}

class SenderFaults final : public ref::SenderPolicy {
 public:
  SenderFaults(MutantSet mutants, std::shared_ptr<const ref::SenderPolicy> base)
      : m_(mutants), base_(std::move(base)) {}

  // The conforming choices: the base's.
  [[nodiscard]] bool use_unscheduled(std::uint64_t length) const override {
    return base_->use_unscheduled(length);
  }
  [[nodiscard]] std::uint64_t segment_length(std::uint64_t cu,
                                             std::uint64_t sendable) const override {
    return base_->segment_length(cu, sendable);
  }
  [[nodiscard]] bool space_segments() const override { return base_->space_segments(); }
  [[nodiscard]] std::uint64_t first_message_id_on_reestablishment(
      std::uint64_t next) const override {
    return base_->first_message_id_on_reestablishment(next);
  }
  [[nodiscard]] bool fresh_nonce_on_reestablishment() const override {
    return base_->fresh_nonce_on_reestablishment();
  }
  [[nodiscard]] bool suggest_rate() const override { return base_->suggest_rate(); }
  [[nodiscard]] bool send_credit_return() const override { return base_->send_credit_return(); }

  // The faults.
  [[nodiscard]] Result<Message, DecodeError> decode_control(
      std::span<const std::byte> datagram) const override {
    auto decoded = base_->decode_control(datagram);
    if (!decoded && has(Mutant::SenderVersionNotChecked)) {
      decoded = decode_leniently(datagram, true, false);
    }
    return decoded;
  }
  [[nodiscard]] bool newer_sequence(std::uint32_t seq, std::uint32_t newest) const override {
    if (has(Mutant::SenderStaleAccepted)) return true;
    if (has(Mutant::SenderSerialWithoutWraparound)) return seq > newest;
    return base_->newer_sequence(seq, newest);
  }
  [[nodiscard]] bool nonce_echoed(std::uint64_t echoed, std::uint64_t current) const override {
    return has(Mutant::SenderAcceptsWrongNonce) || base_->nonce_echoed(echoed, current);
  }
  [[nodiscard]] bool honour_unknown_association() const override {
    return !has(Mutant::SenderIgnoresUnknownAssociation) && base_->honour_unknown_association();
  }
  [[nodiscard]] bool trust_report_source(bool configured) const override {
    return has(Mutant::SenderReportFromUnconfiguredCrn) || base_->trust_report_source(configured);
  }
  [[nodiscard]] bool act_on_report() const override {
    return !has(Mutant::SenderIgnoresReports) && base_->act_on_report();
  }
  [[nodiscard]] bool use_grant(std::uint32_t pacing_rate) const override {
    return has(Mutant::SenderUsesZeroRateGrant) || base_->use_grant(pacing_rate);
  }
  [[nodiscard]] bool lower_limit_lowers_credit() const override {
    return has(Mutant::SenderHonoursLowerLimit) || base_->lower_limit_lowers_credit();
  }
  [[nodiscard]] ref::Time grant_valid_until(ref::Time now, ref::Duration lifetime) const override {
    if (has(Mutant::SenderIgnoresLifetime)) return ref::Time::never();
    return base_->grant_valid_until(now, lifetime);
  }
  [[nodiscard]] std::uint64_t transmit_limit(std::uint64_t limit, std::uint64_t cu,
                                             std::uint64_t end) const override {
    if (has(Mutant::SenderExceedsGrant)) return std::min(limit + cu, end);
    return base_->transmit_limit(limit, cu, end);
  }
  [[nodiscard]] std::uint64_t pacing_rate(std::uint64_t granted,
                                          std::uint64_t line_rate) const override {
    if (has(Mutant::SenderIgnoresPacing)) return line_rate;
    return base_->pacing_rate(granted, line_rate);
  }
  [[nodiscard]] bool send_before_credit() const override {
    return has(Mutant::ScheduledWithoutCredit) || base_->send_before_credit();
  }
  [[nodiscard]] std::uint64_t message_id_step() const override {
    return has(Mutant::SenderReusesMessageId) ? 0 : base_->message_id_step();
  }
  [[nodiscard]] bool one_unscheduled_outstanding() const override {
    return !has(Mutant::MultipleUnscheduled) && base_->one_unscheduled_outstanding();
  }
  [[nodiscard]] std::uint8_t class_dscp(const std::array<std::uint8_t, 8>& map,
                                        std::uint8_t traffic_class) const override {
    return base_->class_dscp(map, has(Mutant::ClassDscpIgnored) ? 0 : traffic_class);
  }
  [[nodiscard]] std::uint64_t start_delay_ns(std::uint64_t max_ns,
                                             ref::RandomSource& random) const override {
    return has(Mutant::NoStartJitter) ? 0 : base_->start_delay_ns(max_ns, random);
  }
  [[nodiscard]] bool request_before_unscheduled_data() const override {
    return !has(Mutant::UnscheduledDataBeforeRequest) && base_->request_before_unscheduled_data();
  }
  [[nodiscard]] bool send_sender_status() const override {
    return !has(Mutant::SenderStatusMissing) && base_->send_sender_status();
  }
  [[nodiscard]] bool return_below_transmitted() const override {
    return has(Mutant::CreditReturnBelowTransmitted) || base_->return_below_transmitted();
  }
  void rewrite_outgoing(Message& m) const override {
    base_->rewrite_outgoing(m);
    // unscheduled-sent-not-length: the request of an unscheduled message announces 0 octets.
    // Only the first request of one states Unscheduled Sent = Message Length (a conversion
    // states what was transmitted, and a scheduled message 0).
    if (auto* r = std::get_if<CreditRequest>(&m);
        r != nullptr && has(Mutant::UnscheduledSentNotLength) && r->message_length != 0 &&
        r->unscheduled_sent == r->message_length) {
      r->unscheduled_sent = 0;
    }
  }

 private:
  [[nodiscard]] bool has(Mutant m) const { return m_.has(m); }
  MutantSet m_;
  std::shared_ptr<const ref::SenderPolicy> base_;
};

class CrnFaults final : public ref::CrnPolicy {
 public:
  CrnFaults(MutantSet mutants, std::shared_ptr<const ref::CrnPolicy> base)
      : m_(mutants), base_(std::move(base)) {}

  // The conforming choices: the base's.
  [[nodiscard]] std::uint32_t suggested_rate(std::uint32_t service_rate_mbps,
                                             std::uint32_t flows_in_queue) const override {
    // crn-suggested-rate-undivided: the service rate, not divided by the flows.
    if (has(Mutant::CrnSuggestedRateUndivided)) return service_rate_mbps;
    return base_->suggested_rate(service_rate_mbps, flows_in_queue);
  }
  [[nodiscard]] ref::Duration report_interval(ref::Duration configured) const override {
    // crn-no-flow-limit: no per-flow interval.
    return has(Mutant::CrnNoFlowLimit) ? ref::Duration{} : base_->report_interval(configured);
  }

  // The faults.
  [[nodiscard]] bool report_to_sender(bool unscheduled) const override {
    return base_->report_to_sender(unscheduled) != has(Mutant::CrnWrongSide);
  }
  [[nodiscard]] std::uint8_t congestion_degree(std::uint8_t formula, std::uint64_t q,
                                               std::uint64_t b_th,
                                               std::uint64_t q_max) const override {
    if (has(Mutant::CrnDegreeFormula) && q > b_th && q_max != 0) {
      return static_cast<std::uint8_t>(std::min<std::uint64_t>(255U, 255U * (q - b_th) / q_max));
    }
    if (has(Mutant::CrnDegree32Bit) && q > b_th && q_max > b_th) {
      const auto product = static_cast<std::uint32_t>(255U * static_cast<std::uint32_t>(q - b_th));
      return static_cast<std::uint8_t>(
          std::min<std::uint64_t>(255U, product / static_cast<std::uint32_t>(q_max - b_th)));
    }
    return base_->congestion_degree(formula, q, b_th, q_max);
  }
  [[nodiscard]] std::uint16_t report_port(std::uint16_t rdcc_port,
                                          std::uint16_t flow_port) const override {
    return has(Mutant::CrnWrongPort) ? flow_port : base_->report_port(rdcc_port, flow_port);
  }
  [[nodiscard]] bool report_at_threshold() const override {
    return has(Mutant::CrnBelowThreshold) || base_->report_at_threshold();
  }
  [[nodiscard]] ref::Duration port_report_interval(ref::Duration configured) const override {
    return has(Mutant::CrnNoPortLimit) ? ref::Duration{} : base_->port_report_interval(configured);
  }
  void rewrite_outgoing(Message& m) const override {
    base_->rewrite_outgoing(m);
    auto* r = std::get_if<CongestionReport>(&m);
    if (r == nullptr) return;
    if (has(Mutant::CrnNonZeroAssociation)) {  // the Reporter ID as Association ID, Epoch 1
      r->header.association_id = r->reporter_id;
      r->header.epoch = 1;
    }
    if (has(Mutant::CrnProtocolFixed)) r->protocol = 17;
    if (has(Mutant::CrnDepthAboveThreshold)) r->queue_depth -= r->queue_threshold;
    if (has(Mutant::CrnDirectionSwapped)) {  // Direction 2 toward the receiver, 1 toward the sender
      r->direction = static_cast<std::uint8_t>(
          r->direction == static_cast<std::uint8_t>(ReportDirection::ToSender)
              ? ReportDirection::ToReceiver
              : ReportDirection::ToSender);
    }
  }

 private:
  [[nodiscard]] bool has(Mutant m) const { return m_.has(m); }
  MutantSet m_;
  std::shared_ptr<const ref::CrnPolicy> base_;
};

}  // namespace

std::shared_ptr<const ref::SenderPolicy> sender_policy(
    const MutantSet& mutants, std::shared_ptr<const ref::SenderPolicy> base) {
  if (!base) base = std::make_shared<const ref::SenderPolicy>();
  if (!has_role(mutants, MutantRole::Sender)) return base;
  return std::make_shared<const SenderFaults>(mutants, std::move(base));
}

std::shared_ptr<const ref::CrnPolicy> crn_policy(const MutantSet& mutants,
                                                 std::shared_ptr<const ref::CrnPolicy> base) {
  if (!base) base = std::make_shared<const ref::CrnPolicy>();
  if (!has_role(mutants, MutantRole::Crn)) return base;
  return std::make_shared<const CrnFaults>(mutants, std::move(base));
}

}  // namespace rdcc::testing
