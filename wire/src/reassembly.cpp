// IP fragment reassembly (reassembly.hpp).
#include "rdcc/wire/reassembly.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "rdcc/wire/checksum.hpp"

namespace rdcc::wire {
namespace {

constexpr std::size_t kMaxPayload = 65535;

std::uint8_t octet(std::span<const std::byte> b, std::size_t at) {
  return std::to_integer<std::uint8_t>(b[at]);
}

void put16(std::vector<std::byte>& b, std::size_t at, std::size_t value) {
  b[at] = static_cast<std::byte>((value >> 8U) & 0xFFU);
  b[at + 1] = static_cast<std::byte>(value & 0xFFU);
}

}  // namespace

std::optional<std::vector<std::byte>> Reassembler::add(const ParsedFrame& f, std::uint64_t frame,
                                                       std::int64_t time_ns) {
  expire(time_ns);
  const IpFragment& g = f.fragment;
  Key key{.ipv6 = g.ipv6,
          .protocol = g.ipv6 ? std::uint8_t{0} : g.protocol,
          .identification = g.identification};
  // The addresses: IPv4 at 12 and 16 of the header, IPv6 at 8 and 24.
  const std::size_t size = g.ipv6 ? 16 : 4;
  const std::size_t source_at = g.ipv6 ? 8 : 12;
  for (std::size_t i = 0; i < 2 * size; ++i) key.addresses[i] = octet(g.header, source_at + i);

  auto it = packets_.find(key);
  if (it == packets_.end()) {
    if (packets_.size() >= limits_.max_packets) {
      auto oldest = std::min_element(packets_.begin(), packets_.end(), [](auto& a, auto& b) {
        return a.second.first_time_ns < b.second.first_time_ns;
      });
      drop(oldest, "pushed out by newer fragmented packets (at most " +
                       std::to_string(limits_.max_packets) + " pending)");
    }
    it = packets_.emplace(key, Packet{}).first;
    it->second.first_frame = frame;
    it->second.first_time_ns = time_ns;
  }
  Packet& p = it->second;
  p.last_frame = frame;
  const std::size_t end = g.offset + g.data.size();
  // IPv4's Total Length counts its header; IPv6's Payload Length its extension headers.
  if (end > kMaxPayload - (g.ipv6 ? g.header.size() - 40 : g.header.size())) {
    drop(it, "fragments beyond 65,535 octets");
    return std::nullopt;
  }
  if (!g.more) {
    if ((p.total && *p.total != end) || end < p.payload.size()) {
      drop(it, "two last fragments, or data beyond the last fragment");
      return std::nullopt;
    }
    p.total = end;
  } else if (p.total && end > *p.total) {
    drop(it, "data beyond the last fragment");
    return std::nullopt;
  }
  if (p.payload.size() < end) {
    p.payload.resize(end);
    p.held.resize(end, false);
  }
  for (std::size_t i = 0; i < g.data.size(); ++i) {
    const std::size_t at = g.offset + i;
    if (p.held[at]) {
      if (p.payload[at] != g.data[i]) {
        drop(it, "overlapping fragments with different octets");
        return std::nullopt;
      }
      continue;
    }
    p.payload[at] = g.data[i];
    p.held[at] = true;
    ++p.held_octets;
  }
  if (g.offset == 0) {
    p.header.assign(g.header.begin(), g.header.end());
    p.next_header_at = g.next_header_at;
    p.protocol = g.protocol;
  }
  if (!p.total || p.held_octets != *p.total || p.header.empty()) return std::nullopt;
  auto packet = whole(key, p);
  packets_.erase(it);
  return packet;
}

std::vector<std::byte> Reassembler::whole(const Key& key, const Packet& p) {
  std::vector<std::byte> out(p.header);
  out.insert(out.end(), p.payload.begin(), p.payload.end());
  if (key.ipv6) {
    out[p.next_header_at] = static_cast<std::byte>(p.protocol);
    put16(out, 4, out.size() - 40);  // Payload Length: the extension headers and the payload
  } else {
    put16(out, 2, out.size());  // Total Length
    const bool dont_fragment = (std::to_integer<unsigned>(out[6]) & 0x40U) != 0;
    put16(out, 6, dont_fragment ? 0x4000U : 0U);  // no offset, no More Fragments
    put16(out, 10, 0);
    put16(out, 10, internet_checksum(std::span(out).first(p.header.size())));
  }
  return out;
}

void Reassembler::expire(std::int64_t now_ns) {
  for (auto it = packets_.begin(); it != packets_.end();) {
    auto next = std::next(it);
    if (now_ns - it->second.first_time_ns > limits_.timeout_ns) {
      drop(it, "incomplete " + std::to_string(limits_.timeout_ns / 1000000000) +
                   " s after its first fragment");
    }
    it = next;
  }
}

void Reassembler::drop(std::map<Key, Packet>::iterator it, std::string why) {
  dropped_.push_back(
      {it->second.first_frame, it->second.last_frame, it->second.first_time_ns, std::move(why)});
  packets_.erase(it);
}

void Reassembler::finish() {
  while (!packets_.empty()) drop(packets_.begin(), "incomplete at the end of the capture");
}

std::vector<Reassembler::Dropped> Reassembler::take_dropped() {
  return std::exchange(dropped_, {});
}

}  // namespace rdcc::wire
