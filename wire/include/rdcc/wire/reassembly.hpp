// IPv4 and IPv6 fragment reassembly for the capture tools: the fragments parse_frame() finds
// (FrameKind::Fragment) go in, in capture order; the whole IP packet comes out when its last
// missing fragment arrives, for parse_frame() to read as a frame of link type kLinkTypeRawIp.
//
// A packet is identified as RFC 791 and RFC 8200 say: IPv4 by source, destination, Protocol
// and Identification; IPv6 by source, destination and Identification. Bounds, so that a
// capture of fragments cannot take the reader's memory: at most `max_packets` packets are
// pending (the oldest is dropped for a new one), each at most 65,535 octets of payload, and a
// packet still incomplete `timeout_ns` after its first fragment is dropped (Linux's
// ipfrag_time, 30 s, in the capture's time). A fragment that overlaps another with other
// octets drops its packet (RFC 5722's rule for IPv6, applied to both); one that repeats
// octets already held (the same fragment captured twice) is ignored.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rdcc/wire/frame.hpp"

namespace rdcc::wire {

inline constexpr int kLinkTypeRawIp = 101;  // LINKTYPE_RAW: what reassembled packets are

class Reassembler {
 public:
  struct Limits {
    std::size_t max_packets = 64;
    std::int64_t timeout_ns = std::int64_t{30} * 1000 * 1000 * 1000;
  };
  // A packet given up on: its first fragment's frame number and why.
  struct Dropped {
    std::uint64_t first_frame = 0;
    std::uint64_t last_frame = 0;
    std::int64_t first_time_ns = 0;
    std::string why;  // "incomplete after 30 s", "overlapping fragments", ...
  };

  Reassembler() = default;
  explicit Reassembler(Limits limits) : limits_(limits) {}

  // Adds the fragment of `f` (FrameKind::Fragment), captured in frame `frame` at `time_ns`.
  // Returns the whole IP packet when this fragment completes it: the first fragment's header
  // (IPv6: its unfragmentable part, the Next Header that named the Fragment header now naming
  // what it carried) with the length fields of the whole packet, no fragment fields, and an
  // IPv4 header checksum computed again.
  [[nodiscard]] std::optional<std::vector<std::byte>> add(const ParsedFrame& f, std::uint64_t frame,
                                                          std::int64_t time_ns);

  // The packets dropped since the last call (timed out, pushed out, overlapping, too long);
  // call finish() at the end of the capture to give up on the incomplete ones too.
  [[nodiscard]] std::vector<Dropped> take_dropped();
  void finish();

  [[nodiscard]] std::size_t pending() const noexcept { return packets_.size(); }

 private:
  struct Key {
    bool ipv6 = false;
    std::array<std::uint8_t, 32> addresses{};  // source, then destination
    std::uint8_t protocol = 0;
    std::uint32_t identification = 0;
    // clang-tidy 14 takes the defaulted <=> for a comparison with 0 (as address.hpp's).
    // NOLINTNEXTLINE(modernize-use-nullptr)
    friend auto operator<=>(const Key&, const Key&) = default;
  };
  struct Packet {
    std::vector<std::byte> header;  // from the fragment at offset 0, once it came
    std::size_t next_header_at = 0;
    std::uint8_t protocol = 0;
    std::vector<std::byte> payload;
    std::vector<bool> held;  // per payload octet
    std::size_t held_octets = 0;
    std::optional<std::size_t> total;  // the payload's length, once the last fragment came
    std::uint64_t first_frame = 0;
    std::uint64_t last_frame = 0;
    std::int64_t first_time_ns = 0;
  };

  void expire(std::int64_t now_ns);
  void drop(std::map<Key, Packet>::iterator it, std::string why);
  [[nodiscard]] static std::vector<std::byte> whole(const Key& key, const Packet& p);

  Limits limits_;
  std::map<Key, Packet> packets_;
  std::vector<Dropped> dropped_;
};

}  // namespace rdcc::wire
