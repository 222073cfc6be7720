// Bytes of state per association and per message, at the receiver and at the sender: the heap
// the endpoint holds (glibc's mallinfo2, in use) after it has A associations, then after each
// of them also has M pending messages. Prints one table; figures, not pass or fail.
//
//   reference_state_bench [ASSOCIATIONS [MESSAGES_PER_ASSOCIATION]]   (default 1024 8)
//
// Receiver: A senders each send ASSOC_REQUEST and are accepted; then each announces M messages
// of 1 MiB (CREDIT_REQUEST; the budget grants a few, the others wait in the grant queue).
// Sender: one message to each of A receivers (each opens an association, ASSOC_REQUEST sent,
// no answer), then M - 1 more to each.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/random.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"

namespace {

using namespace rdcc;
using namespace rdcc::ref;

std::size_t heap_in_use() {
  return mallinfo2().uordblks;
}

std::vector<std::byte> wire(const Message& m) {
  std::vector<std::byte> out(encoded_size(m));
  (void)encode(m, out);
  return out;
}

Address peer(std::size_t i) {
  return Address::v4(10, static_cast<std::uint8_t>(i >> 16U), static_cast<std::uint8_t>(i >> 8U),
                     static_cast<std::uint8_t>(i), 40000);
}

template <class Endpoint>
void drain(Endpoint& e, std::vector<std::uint32_t>* accepted) {
  while (auto d = e.poll_transmit()) {
    if (accepted == nullptr) continue;
    if (auto m = decode(d->payload()); m && std::holds_alternative<AssocAccept>(*m)) {
      accepted->push_back(header_of(*m).association_id);
    }
  }
}

void receiver_state(std::size_t assocs, std::size_t per_assoc) {
  ReceiverConfig c;
  c.local = Address::v4(192, 0, 2, 100, 50000);
  c.max_associations = assocs;
  c.max_pending_per_association = per_assoc + 1;
  Receiver r(c);
  const Time now{};
  const std::size_t base = heap_in_use();
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < assocs; ++i) {
    r.on_control(peer(i), wire(AssocRequest{.sender_nonce = i + 1, .line_rate = 100000}), now);
    drain(r, &ids);
  }
  const std::size_t with_assocs = heap_in_use();
  for (std::size_t i = 0; i < assocs; ++i) {
    for (std::size_t k = 1; k <= per_assoc; ++k) {
      CreditRequest q;
      q.header = {.association_id = ids.at(i),
                  .epoch = c.epoch,
                  .sequence_number = static_cast<std::uint32_t>(k)};
      q.message_id = k;
      q.message_length = 1U << 20U;
      q.binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque);
      q.binding_value = k;
      r.on_control(peer(i), wire(q), now);
      drain(r, nullptr);
    }
  }
  const std::size_t with_msgs = heap_in_use();
  std::printf("%-9s %8zu %8zu %16zu %14zu %12zu\n", "receiver", assocs, r.pending_messages(),
              with_msgs - base, (with_assocs - base) / assocs,
              (with_msgs - with_assocs) / (assocs * per_assoc));
}

void sender_state(std::size_t assocs, std::size_t per_assoc) {
  SenderConfig c;
  c.local = Address::v4(192, 0, 2, 1, 50000);
  SeededRandom random(1);
  Sender s(c, random);
  const Time now{};
  const std::size_t base = heap_in_use();
  for (std::size_t i = 0; i < assocs; ++i) {
    (void)s.submit(MessageSpec{.receiver = peer(i), .length = 1U << 20U}, now);
    drain(s, nullptr);
  }
  const std::size_t one_each = heap_in_use();
  for (std::size_t i = 0; i < assocs; ++i) {
    for (std::size_t k = 1; k < per_assoc; ++k) {
      (void)s.submit(MessageSpec{.receiver = peer(i), .length = 1U << 20U}, now);
      drain(s, nullptr);
    }
  }
  const std::size_t with_msgs = heap_in_use();
  const std::size_t per_msg =
      per_assoc > 1 ? (with_msgs - one_each) / (assocs * (per_assoc - 1)) : 0;
  std::printf("%-9s %8zu %8zu %16zu %14zu %12zu\n", "sender", assocs, assocs * per_assoc,
              with_msgs - base, (one_each - base) / assocs - per_msg, per_msg);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t assocs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const std::size_t per_assoc = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 8;
  if (assocs == 0 || per_assoc == 0) {
    std::fprintf(stderr, "usage: reference_state_bench [ASSOCIATIONS>0 [MESSAGES>0]]\n");
    return 2;
  }
  std::printf("%-9s %8s %8s %16s %14s %12s\n", "endpoint", "assocs", "messages", "heap_bytes",
              "bytes/assoc", "bytes/msg");
  receiver_state(assocs, per_assoc);
  sender_state(assocs, per_assoc);
  return 0;
}
