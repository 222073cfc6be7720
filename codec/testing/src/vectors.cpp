#include "rdcc/testing/vectors.hpp"

#include <limits>

#include "rdcc/codec/rocev2.hpp"

namespace rdcc::testing {
namespace {

constexpr auto kU16 = std::numeric_limits<std::uint16_t>::max();
constexpr auto kU32 = std::numeric_limits<std::uint32_t>::max();

Header appendix_header(std::uint32_t sequence_number) {
  return Header{.association_id = 0x5A17C0DE, .epoch = 3, .sequence_number = sequence_number};
}

// Every field at its maximum. The 4-bit version stays 1 so that the message decodes.
struct Maximize {
  template <class T>
  constexpr void operator()(const FieldSpec& f, T& v) {
    if (f.name == "address_family") return;  // keeps the IPv6 layout chosen before
    v = std::numeric_limits<T>::max();
  }
  void address(const FieldSpec&, IpAddress& a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) a[i] = 0xFF;
  }
};

template <class T>
T maximized() {
  T m;
  m.header = Header{.version = kVersion,
                    .rsv = 0x0F,
                    .length = 0,
                    .association_id = kU32,
                    .epoch = kU16,
                    .flags = kU16,
                    .sequence_number = kU32};
  if constexpr (std::is_same_v<T, CongestionReport>) {
    m.address_family = static_cast<std::uint8_t>(AddressFamily::IPv6);
  }
  Maximize max;
  T::describe(m, max);
  return m;
}

template <class T>
void add_extremes(std::vector<Vector>& out, std::string_view name) {
  out.push_back({std::string(name) + "_zero", T{}});
  out.push_back({std::string(name) + "_max", maximized<T>()});
}

IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress ip{};
  ip[0] = a;
  ip[1] = b;
  ip[2] = c;
  ip[3] = d;
  return ip;
}

}  // namespace

CreditRequest appendix_credit_request() {
  CreditRequest r;
  r.header = appendix_header(7);
  r.message_id = 0x101;
  r.message_length = std::uint64_t{4} * 1024U * 1024U;
  r.unscheduled_sent = 0;
  r.traffic_class = 2;
  r.weight = 4;
  r.service_hint = static_cast<std::uint8_t>(ServiceHint::LatencySensitive);
  r.binding_kind = static_cast<std::uint8_t>(BindingKind::RoCEv2);
  r.deadline = 0;
  r.binding_value =
      *pack_rocev2({.destination_qpn = 0x000123, .first_msn = 5, .message_count = 16});
  return r;
}

CreditGrant appendix_credit_grant() {
  CreditGrant g;
  g.header = appendix_header(42);
  g.message_id = 0x101;
  g.grant_limit = 262144;
  g.pacing_rate = 100000;
  g.lifetime = 2000;
  return g;
}

std::vector<Vector> boundary_vectors() {
  std::vector<Vector> out;
  out.push_back({"appendix_credit_request", appendix_credit_request()});
  out.push_back({"appendix_credit_grant", appendix_credit_grant()});

  add_extremes<AssocRequest>(out, "assoc_request");
  add_extremes<AssocAccept>(out, "assoc_accept");
  add_extremes<CreditRequest>(out, "credit_request");
  add_extremes<CreditGrant>(out, "credit_grant");
  add_extremes<SenderStatus>(out, "sender_status");
  add_extremes<CongestionReport>(out, "congestion_report");
  add_extremes<MsgDone>(out, "msg_done");
  add_extremes<Cancel>(out, "cancel");
  add_extremes<CreditReturn>(out, "credit_return");
  add_extremes<ErrorMessage>(out, "error");

  out.push_back({"assoc_request_typical",
                 AssocRequest{.header = {},
                              .sender_nonce = 0x0123456789ABCDEFULL,
                              .capabilities = capability::kPool | capability::kStatus,
                              .line_rate = 400000}});
  out.push_back(
      {"assoc_request_update_ack", AssocRequest{.header = {.flags = flag::kUpdateAcknowledgment},
                                                .sender_nonce = 0x0123456789ABCDEFULL,
                                                .line_rate = 400000}});
  out.push_back(
      {"assoc_accept_typical",
       AssocAccept{.header = {.association_id = 0x5A17C0DE, .epoch = 3},
                   .sender_nonce = 0x0123456789ABCDEFULL,
                   .capabilities = capability::kPool | capability::kStatus | capability::kCrn,
                   .unscheduled_limit = 16384,
                   .start_jitter = 8,
                   .backlog_threshold = 1 << 20,
                   .grant_lifetime = 2000,
                   .credit_unit = 4096}});
  out.push_back(
      {"assoc_accept_parameter_update", AssocAccept{.header = {.association_id = 0x5A17C0DE,
                                                               .epoch = 3,
                                                               .flags = flag::kParameterUpdate,
                                                               .sequence_number = 9},
                                                    .sender_nonce = 0x0123456789ABCDEFULL,
                                                    .unscheduled_limit = 0,
                                                    .grant_lifetime = 2000,
                                                    .credit_unit = 4096}});
  out.push_back(
      {"credit_request_unscheduled",
       CreditRequest{.header = {.association_id = 0x5A17C0DE, .epoch = 3, .sequence_number = 6},
                     .message_id = 0x100,
                     .message_length = 2048,
                     .unscheduled_sent = 2048,
                     .weight = 1,
                     .binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque),
                     .binding_value = 0x100}});
  out.push_back({"credit_request_class9_weight0_deadline",
                 CreditRequest{.header = {.association_id = 1, .epoch = 1, .sequence_number = 1},
                               .message_id = 1,
                               .message_length = 1,
                               .traffic_class = 9,
                               .weight = 0,
                               .service_hint = 7,
                               .binding_kind = 9,
                               .deadline = 500}});
  out.push_back({"credit_grant_pool",
                 CreditGrant{.header = {.association_id = 1, .epoch = 1, .flags = flag::kPool},
                             .message_id = 0,
                             .grant_limit = 1 << 20,
                             .pacing_rate = 25000}});
  out.push_back({"credit_grant_final",
                 CreditGrant{.header = {.association_id = 1, .epoch = 1, .flags = flag::kFinal},
                             .message_id = 0x101,
                             .grant_limit = 4U << 20U,
                             .pacing_rate = 100000,
                             .lifetime = 0}});
  out.push_back({"credit_grant_pacing_zero_undefined_flags",
                 CreditGrant{.header = {.rsv = 5, .association_id = 1, .epoch = 1, .flags = 0x8004},
                             .message_id = 7,
                             .grant_limit = 100,
                             .pacing_rate = 0}});
  out.push_back({"sender_status_typical",
                 SenderStatus{.header = {.association_id = 1, .epoch = 1, .sequence_number = 3},
                              .unused_credit = 1 << 21,
                              .congestion_level = 128,
                              .service_hint = 1,
                              .suggested_rate = 40000}});
  out.push_back(
      {"congestion_report_ipv4", CongestionReport{.header = {},
                                                  .reporter_id = 0xC0FFEE,
                                                  .queue_depth = 300000,
                                                  .queue_threshold = 100000,
                                                  .congestion_degree = 127,
                                                  .direction = 1,
                                                  .address_family = 4,
                                                  .protocol = 17,
                                                  .source_port = 50000,
                                                  .destination_port = 4791,
                                                  .suggested_rate = 12500,
                                                  .source_address = v4(192, 0, 2, 1),
                                                  .destination_address = v4(192, 0, 2, 99)}});
  IpAddress src6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  IpAddress dst6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  out.push_back({"congestion_report_ipv6", CongestionReport{.header = {.sequence_number = 77},
                                                            .reporter_id = 2,
                                                            .queue_depth = 1 << 20,
                                                            .queue_threshold = 1 << 18,
                                                            .congestion_degree = 255,
                                                            .direction = 2,
                                                            .address_family = 6,
                                                            .protocol = 17,
                                                            .source_port = 49152,
                                                            .destination_port = 49153,
                                                            .source_address = src6,
                                                            .destination_address = dst6}});
  out.push_back({"msg_done_typical", MsgDone{.header = {.association_id = 0x5A17C0DE, .epoch = 3},
                                             .message_id = 0x100,
                                             .octets_received = 2048}});
  out.push_back({"cancel_application_abort",
                 Cancel{.header = {.association_id = 1, .epoch = 1},
                        .message_id = 5,
                        .reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort)}});
  out.push_back({"credit_return_typical", CreditReturn{.header = {.association_id = 1, .epoch = 1},
                                                       .message_id = 5,
                                                       .new_limit = 65536}});
  out.push_back({"error_unknown_association",
                 ErrorMessage{.header = {.association_id = 0xDEAD, .epoch = 2},
                              .reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation),
                              .message_id = 0}});
  out.push_back(
      {"error_unregistered_reason", ErrorMessage{.header = {.association_id = 1, .epoch = 1},
                                                 .reason = 0xFFF0,
                                                 .reserved = 1,
                                                 .message_id = 3}});
  return out;
}

}  // namespace rdcc::testing
