#include "rdcc/sim/loss_incast.hpp"

#include <algorithm>
#include <vector>

namespace rdcc::sim {

LossIncast loss_case(double data_loss, LossMix mix) {
  LossIncast s;
  s.seed = 18;
  s.data_loss = data_loss;
  if (mix == LossMix::ControlLoss) s.control_loss = 0.01;
  if (mix == LossMix::Reordering) s.reorder = 0.1;
  return s;
}

const char* to_string(LossMix mix) {
  switch (mix) {
    case LossMix::DataOnly: return "-";
    case LossMix::ControlLoss: return "ctrl loss 1%";
    case LossMix::Reordering: return "reorder 10%";
  }
  return "?";
}

LossIncastResult run_loss_incast(const LossIncast& s) {
  constexpr std::uint32_t kRate = 100000;
  const LinkConfig link{.rate_mbps = kRate, .delay = ref::microseconds(1)};
  NetworkConfig cfg;
  cfg.seed = s.seed;
  cfg.record_packets = false;
  cfg.record_events = false;
  cfg.queue.capacity = 64U << 20U;
  cfg.data.loss = s.data_loss;
  cfg.data.reorder = s.reorder;
  cfg.control.loss = s.control_loss;
  cfg.control.reorder = s.reorder;
  Network net(cfg);
  ref::ReceiverConfig rc;
  rc.budget = 2U << 20U;
  rc.unscheduled_budget = 512U << 10U;
  const HostId r = net.add_receiver(rc, link);
  std::vector<SubmitId> ids;
  for (int i = 0; i < s.senders; ++i) {
    const HostId h = net.add_sender(ref::SenderConfig{.name = "sender-" + std::to_string(i)}, link);
    ids.push_back(net.submit(h, r, s.length, Time{}));
  }
  LossIncastResult out;
  out.done = net.run_until_done(Time{s.limit.ns});
  for (SubmitId id : ids) {
    if (auto st = net.status(id); st && st->state == ref::MessageState::Done) {
      out.last = std::max(out.last, st->finished - Time{});
    }
  }
  out.ideal = ref::transmission_time(s.length * static_cast<std::uint64_t>(s.senders), kRate) +
              link.delay * 4;
  out.violations = net.checker().violation_count();
  if (!net.checker().violations().empty()) {
    const auto& v = net.checker().violations().front();
    out.first_violation = v.rule + ": " + v.detail;
  }
  out.network = net.stats();
  if (const ref::Receiver* rx = net.receiver(r)) out.receiver = rx->stats();
  return out;
}

}  // namespace rdcc::sim
