// The receiver's association table: "Association Establishment" (what an ASSOC_REQUEST is
// answered with, parameter updates and idle removal: association_establishment.cpp).
//
// The associations by Association ID, by the (Sender Nonce, address) of the ASSOC_REQUEST that
// made them ("A receiver MUST treat a retransmitted ASSOC_REQUEST with the same nonce as
// idempotent and return the same Association ID") and by the address bound when each was
// accepted ("The receiver sends all messages of the association to the address and port from
// which the accepted ASSOC_REQUEST came"), and by the host of that address, in the order they
// were accepted (data belongs to an association of its host through its transport identity:
// docs/spec-notes.md, "Data belongs to an association, never to a host"). Association IDs are drawn
// at random, non-zero and unused (unpredictable IDs limit blind injection, "Security
// Considerations"). `A` is the receiver's association, with `id`, `peer` and `nonce`. Iterating the
// table visits the associations as (id, association) pairs. Unit tests:
// reference/test/receiver/association_establishment_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rdcc/reference/address.hpp"
#include "rdcc/reference/random.hpp"

namespace rdcc::ref {

template <class A>
class AssociationTable {
 public:
  [[nodiscard]] std::size_t size() const { return by_id_.size(); }
  [[nodiscard]] bool empty() const { return by_id_.empty(); }
  [[nodiscard]] bool contains(std::uint32_t id) const { return by_id_.count(id) != 0; }
  [[nodiscard]] A* find(std::uint32_t id) {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] A& at(std::uint32_t id) { return by_id_.at(id); }
  [[nodiscard]] const A& at(std::uint32_t id) const { return by_id_.at(id); }
  auto begin() { return by_id_.begin(); }
  auto end() { return by_id_.end(); }
  [[nodiscard]] auto begin() const { return by_id_.begin(); }
  [[nodiscard]] auto end() const { return by_id_.end(); }

  // The association an ASSOC_REQUEST with `nonce` from `from` made, if any.
  [[nodiscard]] A* of_request(std::uint64_t nonce, const Address& from) {
    auto it = by_nonce_.find(nonce_key(nonce, from));
    return it == by_nonce_.end() ? nullptr : &by_id_.at(it->second);
  }
  // The Association IDs bound to any port of the host of `from`, oldest accepted first (none:
  // an empty list).
  [[nodiscard]] const std::vector<std::uint32_t>& of_host(const Address& from) const {
    static const std::vector<std::uint32_t> kNone;
    auto it = by_host_.find(host_of(from));
    return it == by_host_.end() ? kNone : it->second;
  }

  // The host of an address: the address with port zero.
  [[nodiscard]] static Address host_of(Address a) {
    a.port = 0;
    return a;
  }

  // A new, unused, non-zero Association ID.
  [[nodiscard]] std::uint32_t new_id(RandomSource& random) const {
    for (;;) {
      const auto id = static_cast<std::uint32_t>(random.next_u64());
      if (id != 0 && !contains(id)) return id;
    }
  }
  // A new association `id`, accepted from `peer` for a request with `nonce`, built in place
  // (moving one allocates its containers again).
  A& add(std::uint32_t id, const Address& peer, std::uint64_t nonce) {
    A& a = by_id_.try_emplace(id).first->second;
    a.id = id;
    a.peer = peer;
    a.nonce = nonce;
    by_nonce_[nonce_key(nonce, peer)] = id;
    by_peer_[peer] = id;
    by_host_[host_of(peer)].push_back(id);
    return a;
  }
  void remove(A& a) {
    by_nonce_.erase(nonce_key(a.nonce, a.peer));
    if (auto it = by_peer_.find(a.peer); it != by_peer_.end() && it->second == a.id)
      by_peer_.erase(it);
    if (auto h = by_host_.find(host_of(a.peer)); h != by_host_.end()) {
      std::erase(h->second, a.id);
      if (h->second.empty()) by_host_.erase(h);
    }
    by_id_.erase(a.id);
  }

 private:
  static std::pair<std::uint64_t, std::size_t> nonce_key(std::uint64_t nonce, const Address& from) {
    return {nonce, AddressHash{}(from)};
  }

  std::unordered_map<std::uint32_t, A> by_id_;
  std::map<std::pair<std::uint64_t, std::size_t>, std::uint32_t>
      by_nonce_;  // (nonce, address hash)
  std::unordered_map<Address, std::uint32_t, AddressHash> by_peer_;
  std::unordered_map<Address, std::vector<std::uint32_t>, AddressHash> by_host_;  // port zero
};

}  // namespace rdcc::ref
