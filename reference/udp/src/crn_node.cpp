#include <algorithm>

#include "rdcc/udp/nodes.hpp"

namespace rdcc::udp {

namespace {

std::size_t ip_udp_overhead(const Address& a) {
  return a.ipv6 ? 48 : 28;
}

}  // namespace

CrnNode::CrnNode(EventLoop& loop, CrnNodeConfig config, ref::Observer* observer)
    : loop_(loop),
      cfg_(std::move(config)),
      ingress_(cfg_.listen),
      reports_(cfg_.crn.local),
      timer_(loop, [this] { dequeue_due(); }),
      flows_(&address_less),
      egress_(&address_less) {
  ref::CrnConfig c = cfg_.crn;
  c.local = reports_.local();
  crn_ = std::make_unique<ref::Crn>(c, observer, cfg_.policy);
  ingress_.timestamp_receipts();
  loop_.add(ingress_.fd(), [this] { on_ingress(); });
}

CrnNode::~CrnNode() {
  loop_.remove(ingress_.fd());
}

void CrnNode::on_ingress() {
  ingress_.receive_turn([&](std::span<const InPacket> batch) {
    // The queue is modelled at the times the kernel took the packets in, not at the time this
    // process got to them: a node descheduled for a millisecond must not see a millisecond of
    // arrivals as one burst (a switch's queue does not wait for its control plane).
    const Time now = monotonic_now();
    const std::int64_t real_now = realtime_now_ns();
    std::vector<Queued> sent;
    for (const InPacket& p : batch) {
      const Time arrival = std::max(last_arrival_, kernel_arrival(p.kernel_time_ns, now, real_now));
      last_arrival_ = arrival;
      // What the link finished before this packet arrived has left the queue.
      serve(arrival, sent);
      const std::uint64_t size = p.bytes.size() + ip_udp_overhead(p.from);
      // Tail drop beyond the queue's capacity in octets.
      if (occupancy_ + size > cfg_.crn.queue_capacity) {
        ++stats_.tail_drops;
        continue;
      }
      Queued q;
      q.bytes.assign(p.bytes.begin(), p.bytes.end());
      q.tos = p.tos;
      q.source = p.from;
      q.destination = cfg_.forward_to;
      q.size = size;
      // ECN: an ECN-capable packet that finds the queue above the marking threshold is CE.
      const std::uint8_t ecn = ecn_of(q.tos);
      if (cfg_.ecn_threshold != 0 && occupancy_ > cfg_.ecn_threshold &&
          (ecn == ref::kEcnEct0 || ecn == 1)) {
        q.tos = tos(dscp_of(q.tos), ref::kEcnCe);
        ++stats_.ce_marked;
      }
      if (queue_.empty() && link_free_ < arrival) link_free_ = arrival;
      occupancy_ += size;
      stats_.max_occupancy = std::max(stats_.max_occupancy, occupancy_);
      ++flows_[q.source];
      queue_.push_back(std::move(q));
      ++stats_.enqueued;
    }
    forward(sent);
    dequeue_due();
  });
}

UdpSocket& CrnNode::egress_for(const Address& source) {
  // Forward from the sender's own IP where this host has it (any 127.0.0.0/8 address on
  // loopback), so the receiver relates the data to the sender by its IP; else from ingress.
  Address key = source;
  key.port = 0;
  auto it = egress_.find(key);
  if (it != egress_.end()) return it->second;
  try {
    return egress_.emplace(key, UdpSocket(key)).first->second;
  } catch (const std::system_error&) {
    return ingress_;
  }
}

void CrnNode::serve(Time until, std::vector<Queued>& sent) {
  // Store and forward at the service rate: the head leaves when the link has serialized it.
  while (!queue_.empty()) {
    const Queued& head = queue_.front();
    const Time done = link_free_ + ref::transmission_time(head.size, cfg_.crn.service_rate_mbps);
    if (done > until) break;
    link_free_ = done;
    ref::QueueObservation obs;
    obs.occupancy = occupancy_;  // Q at dequeue, this packet included
    obs.dscp = dscp_of(head.tos);
    obs.flow.source = head.source;
    obs.flow.destination = head.destination;
    obs.flows_in_queue = static_cast<std::uint32_t>(flows_.size());
    crn_time_ = std::max(crn_time_, done);
    crn_->on_dequeue(obs, crn_time_);
    occupancy_ -= head.size;
    if (auto f = flows_.find(head.source); f != flows_.end() && --f->second == 0) flows_.erase(f);
    ++stats_.forwarded;
    stats_.forwarded_octets += head.size;
    sent.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
}

void CrnNode::forward(std::vector<Queued>& sent) {
  for (const Queued& q : sent)
    egress_for(q.source).send(std::vector<OutPacket>{{q.destination, q.tos, q.bytes}});
  sent.clear();
}

void CrnNode::dequeue_due() {
  std::vector<Queued> sent;
  serve(monotonic_now(), sent);
  forward(sent);
  send_reports();
  if (queue_.empty()) {
    timer_.disarm();
  } else {
    timer_.arm(link_free_ +
               ref::transmission_time(queue_.front().size, cfg_.crn.service_rate_mbps));
  }
}

void CrnNode::send_reports() {
  std::vector<ref::Datagram> reports;
  while (auto d = crn_->poll_transmit()) reports.push_back(*d);
  if (reports.empty()) return;
  std::vector<OutPacket> out;
  out.reserve(reports.size());
  for (const auto& d : reports) out.push_back({d.to, tos(d.dscp, 0), d.payload()});
  reports_.send(out);
}

void CrnNode::observe(const ref::QueueObservation& observation) {
  crn_time_ = std::max(crn_time_, monotonic_now());
  crn_->on_dequeue(observation, crn_time_);
  send_reports();
}

nlohmann::ordered_json CrnNode::stats_json() const {
  nlohmann::ordered_json j;
  j["role"] = "crn";
  j["crn"] = to_json(crn_->stats());
  j["queue"] = {{"enqueued", stats_.enqueued},
                {"forwarded", stats_.forwarded},
                {"forwarded_octets", stats_.forwarded_octets},
                {"tail_drops", stats_.tail_drops},
                {"ce_marked", stats_.ce_marked},
                {"max_occupancy", stats_.max_occupancy},
                {"occupancy", occupancy_},
                {"capacity", cfg_.crn.queue_capacity}};
  j["sockets"] = {{"ingress", to_json(ingress_.stats())}, {"reports", to_json(reports_.stats())}};
  return j;
}

}  // namespace rdcc::udp
