// udp_bench: figures for the driver on this machine (not in ctest).
//  1. Control messages per second through the driver (a ReceiverNode answering
//     retransmitted ASSOC_REQUESTs with ASSOC_ACCEPT) against a plain UDP echo with the same
//     recvmmsg/sendmmsg batching (UdpSocket) on the same loop; the ratio is the figure.
//  2. An 8-to-1 incast on loopback through a CrnNode: completion time against the ideal
//     N * S / C at the switch's service rate.
// Usage: udp_bench [requests] (default 200000)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/udp/loop.hpp"
#include "rdcc/udp/nodes.hpp"
#include "rdcc/udp/socket.hpp"

namespace {

using namespace rdcc;
using namespace rdcc::udp;

constexpr std::size_t kWindow = 64;  // requests in flight

// Closed loop: keeps kWindow requests outstanding until `total` replies came back.
double closed_loop_rate(EventLoop& loop, UdpSocket& client, const Address& server,
                        std::span<const std::byte> request, std::uint64_t total) {
  std::uint64_t sent = 0;
  std::uint64_t replies = 0;
  const auto send_n = [&](std::size_t n) {
    std::vector<OutPacket> out(n, OutPacket{server, tos(46, 0), request});
    client.send(out);
    sent += n;
  };
  loop.add(client.fd(), [&] {
    for (auto batch = client.receive(); !batch.empty(); batch = client.receive()) {
      replies += batch.size();
      const std::uint64_t room = total > sent ? total - sent : 0;
      send_n(static_cast<std::size_t>(std::min<std::uint64_t>(batch.size(), room)));
    }
  });
  const Time start = monotonic_now();
  send_n(kWindow);
  // Lost datagrams (a full socket buffer) are re-offered after a quiet millisecond.
  while (replies < total) {
    const std::uint64_t before = replies;
    loop.run_once(ref::milliseconds(1));
    if (replies == before && sent - replies < kWindow) send_n(kWindow - (sent - replies));
    if (replies == before && sent - replies >= kWindow) send_n(1);
  }
  const double secs = (monotonic_now() - start).seconds();
  loop.remove(client.fd());
  return static_cast<double>(replies) / secs;
}

void control_rate(std::uint64_t total) {
  AssocRequest req;
  req.sender_nonce = 0x1122334455667788ULL;
  req.capabilities = capability::kPool | capability::kStatus;
  req.line_rate = 100000;
  std::array<std::byte, kMaxMessageSize> buf{};
  const auto n = encode(Message{req}, buf);
  if (!n) return;
  const std::span<const std::byte> request(buf.data(), *n);

  // Interleaved rounds, best of each: this machine is shared, so one round is noisy.
  double echo = 0;
  double driver = 0;
  std::uint64_t accepts = 0;
  for (int round = 0; round < 3; ++round) {
    {
      EventLoop loop;
      UdpSocket server(Address::v4(127, 0, 0, 1, 0));
      UdpSocket client(Address::v4(127, 0, 0, 2, 0));
      loop.add(server.fd(), [&] {
        for (auto batch = server.receive(); !batch.empty(); batch = server.receive()) {
          std::vector<OutPacket> out;
          out.reserve(batch.size());
          for (const auto& p : batch) out.push_back({p.from, p.tos, p.bytes});
          server.send(out);
        }
      });
      echo = std::max(echo, closed_loop_rate(loop, client, server.local(), request, total));
      loop.remove(server.fd());
    }
    {
      EventLoop loop;
      ReceiverNodeConfig rc;
      rc.endpoint.local = Address::v4(127, 0, 0, 1, 0);
      ReceiverNode r(loop, rc);
      UdpSocket client(Address::v4(127, 0, 0, 2, 0));
      driver = std::max(driver, closed_loop_rate(loop, client, r.rdcc_address(), request, total));
      accepts = r.receiver().stats().associations_accepted;
    }
  }
  std::printf(
      "control messages (ASSOC_REQUEST -> ASSOC_ACCEPT), %llu round trips, window %zu, best of "
      "3:\n",
      static_cast<unsigned long long>(total), kWindow);
  std::printf("  plain UDP echo (recvmmsg/sendmmsg)  %10.0f round trips/s\n", echo);
  std::printf("  reference receiver through driver   %10.0f round trips/s (associations: %llu)\n",
              driver, static_cast<unsigned long long>(accepts));
  std::printf("  ratio driver / echo                 %10.2f\n", driver / echo);
}

void incast(std::uint32_t rate_mbps, std::uint64_t size, std::uint32_t credit_unit) {
  constexpr int kSenders = 8;
  EventLoop loop;
  ReceiverNodeConfig rc;
  rc.endpoint.local = Address::v4(127, 0, 0, 1, 0);
  rc.endpoint.budget = 4U << 20U;
  rc.endpoint.unscheduled_budget = 1U << 20U;
  rc.endpoint.link_capacity_mbps = rate_mbps;
  rc.endpoint.grant_lifetime_us = 50000;
  rc.endpoint.d_max = ref::milliseconds(1);
  rc.endpoint.base_rtt = ref::microseconds(200);
  rc.endpoint.grant_window = 256U << 10U;
  rc.endpoint.crn_addresses = {Address::v4(127, 0, 0, 1, 0)};
  rc.endpoint.credit_unit = credit_unit;
  rc.unscheduled_dscp = 8;
  ReceiverNode r(loop, rc);
  CrnNodeConfig cc;
  cc.crn.local = Address::v4(127, 0, 0, 1, 0);
  cc.crn.rdcc_port = r.rdcc_address().port;
  cc.crn.queue_threshold = 256U << 10U;
  cc.crn.queue_capacity = 2U << 20U;
  cc.crn.service_rate_mbps = rate_mbps;
  cc.crn.unscheduled_dscps = {8};
  cc.listen = Address::v4(127, 0, 0, 1, 0);
  cc.forward_to = r.data_address();
  CrnNode crn(loop, cc);
  std::vector<std::unique_ptr<SenderNode>> senders;
  for (int i = 0; i < kSenders; ++i) {
    SenderNodeConfig sc;
    sc.endpoint.local =
        Address::v4(127, 0, 0, static_cast<std::uint8_t>(2 + i), r.rdcc_address().port);
    sc.endpoint.line_rate_mbps = rate_mbps;
    sc.endpoint.unscheduled_dscp = 8;
    sc.endpoint.crn_addresses = {Address::v4(127, 0, 0, 1, 0)};
    sc.data_port = r.data_address().port;
    sc.data_via = crn.listen_address();
    senders.push_back(std::make_unique<SenderNode>(loop, sc));
  }
  // Associate first, so the figure is the data phase.
  std::vector<ref::MessageHandle> warm;
  warm.reserve(senders.size());
  for (auto& s : senders) warm.push_back(s->submit({.receiver = r.rdcc_address(), .length = 1000}));
  const auto done = [&](const std::vector<ref::MessageHandle>& hs) {
    for (std::size_t i = 0; i < hs.size(); ++i) {
      if (senders[i]->status(hs[i])->state != ref::MessageState::Done) return false;
    }
    return true;
  };
  if (!loop.run_until([&] { return done(warm); }, ref::seconds(10))) {
    std::printf("incast: associations did not complete\n");
    return;
  }
  const Time start = monotonic_now();
  std::vector<ref::MessageHandle> hs;
  hs.reserve(senders.size());
  for (auto& s : senders) {
    hs.push_back(s->submit({.receiver = r.rdcc_address(), .length = size, .traffic_class = 2}));
  }
  const bool ok = loop.run_until([&] { return done(hs); }, ref::seconds(60));
  const double secs = (monotonic_now() - start).seconds();
  const double ideal = static_cast<double>(kSenders) * static_cast<double>(size) * 8.0 /
                       (static_cast<double>(rate_mbps) * 1e6);
  std::printf("8-to-1 incast through rdcc crn, S = %llu octets, C = %u Mbit/s, Credit Unit %u:%s\n",
              static_cast<unsigned long long>(size), rate_mbps, credit_unit,
              ok ? "" : " (did not complete)");
  std::printf(
      "  completion %8.2f ms, ideal N*S/C %8.2f ms, ratio %5.2f; queue max %llu of %u "
      "octets, tail drops %llu, reports %llu\n",
      secs * 1e3, ideal * 1e3, secs / ideal,
      static_cast<unsigned long long>(crn.stats().max_occupancy), cc.crn.queue_capacity,
      static_cast<unsigned long long>(crn.stats().tail_drops),
      static_cast<unsigned long long>(crn.crn().stats().reports_sent));
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  control_rate(total);
  // Timers on a loaded host wake late; the Sender makes the time up within the window of ten
  // Credit Units (docs/spec-notes.md, 71), so a larger Credit Unit lets it make up more.
  incast(1000, 1U << 20U, 4096);
  incast(1000, 1U << 20U, 32768);
  incast(4000, 1U << 20U, 4096);
  return 0;
}
