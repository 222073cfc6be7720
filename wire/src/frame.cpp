// The frame parser (frame.hpp).
#include "rdcc/wire/frame.hpp"

#include <pcap/pcap.h>

#include <algorithm>
#include <cstring>

#include "rdcc/codec/format.hpp"

namespace rdcc::wire {
namespace {

// Link types as pcap_datalink() reports them (pcap/dlt.h; values are stable across systems
// except DLT_RAW, which libpcap maps from LINKTYPE_RAW 101 to the platform's value).
constexpr int kNull = DLT_NULL;
constexpr int kEthernet = DLT_EN10MB;
constexpr int kRaw = DLT_RAW;
constexpr int kLinktypeRaw = 101;
constexpr int kLinuxSll = DLT_LINUX_SLL;
constexpr int kLinuxSll2 = 276;
constexpr int kIpv4Only = 228;
constexpr int kIpv6Only = 229;

constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherIpv6 = 0x86DD;
constexpr std::uint16_t kEtherVlan = 0x8100;
constexpr std::uint16_t kEtherQinQ = 0x88A8;
constexpr std::uint16_t kEtherVlanOld = 0x9100;
constexpr std::uint8_t kProtoUdp = 17;
constexpr std::size_t kMaxVlanTags = 8;
constexpr std::size_t kMaxExtensionHeaders = 16;

std::uint8_t u8(std::span<const std::byte> b, std::size_t at) {
  return std::to_integer<std::uint8_t>(b[at]);
}
std::uint16_t be16(std::span<const std::byte> b, std::size_t at) {
  return static_cast<std::uint16_t>((u8(b, at) << 8) | u8(b, at + 1));
}
std::uint32_t le32(std::span<const std::byte> b, std::size_t at) {
  return static_cast<std::uint32_t>(u8(b, at)) | (static_cast<std::uint32_t>(u8(b, at + 1)) << 8) |
         (static_cast<std::uint32_t>(u8(b, at + 2)) << 16) |
         (static_cast<std::uint32_t>(u8(b, at + 3)) << 24);
}

// The parsers fill in one ParsedFrame (the caller's, default on entry) rather than return
// copies of it down the layers: every frame of a capture goes through them. They fill it only
// once the frame has turned out to be UDP (the IP layer's fields after parse_udp()), so that
// a Malformed or Other frame is the default one with at most these fields set, and needs no
// reset (a copy of a whole ParsedFrame per frame).
void malformed(ParsedFrame& f, std::string_view what, std::size_t offset,
               std::uint64_t actual = 0) {
  f.kind = FrameKind::Malformed;
  f.what = what;
  f.offset = offset;
  f.actual = actual;
}

void other(ParsedFrame& f) {
  f.kind = FrameKind::Other;
}

// The UDP header at `at`, carried in an IP payload that ends at `end` (exclusive).
void parse_udp(std::span<const std::byte> b, std::size_t at, std::size_t end, ParsedFrame& f) {
  if (end < at + 8) return malformed(f, "frame ends inside the UDP header", at, end - at);
  const std::uint16_t length = be16(b, at + 4);
  if (length < 8) return malformed(f, "UDP length is below 8", at + 4, length);
  if (at + length > end) return malformed(f, "UDP length is beyond the IP payload", at + 4, length);
  f.kind = FrameKind::Udp;
  f.source.port = be16(b, at);
  f.destination.port = be16(b, at + 2);
  f.udp_checksum = be16(b, at + 6);
  f.payload_offset = at + 8;
  f.payload = b.subspan(at + 8, length - 8U);
}

void parse_ipv4(std::span<const std::byte> b, std::size_t at, ParsedFrame& f) {
  if (b.size() < at + 20)
    return malformed(f, "frame ends inside the IPv4 header", at, b.size() - at);
  const std::uint8_t version = u8(b, at) >> 4;
  if (version != 4) return malformed(f, "IPv4 version field is not 4", at, version);
  const std::size_t header = std::size_t{u8(b, at) & 0x0FU} * 4U;
  if (header < 20) return malformed(f, "IPv4 header length is below 20", at, header);
  const std::uint16_t total = be16(b, at + 2);
  if (total < header)
    return malformed(f, "IPv4 total length is below its header length", at + 2, total);
  if (at + total > b.size()) {
    malformed(f, "IPv4 total length is beyond the captured frame (cut by the snap length?)", at + 2,
              total);
    f.snap_cut = true;
    return;
  }
  if (at + header > b.size()) return malformed(f, "frame ends inside the IPv4 options", at, header);
  const std::uint16_t fragment = be16(b, at + 6);
  const bool more_fragments = (fragment & 0x2000U) != 0;
  const std::uint16_t fragment_offset = fragment & 0x1FFFU;
  if (u8(b, at + 9) != kProtoUdp) return other(f);
  if (more_fragments || fragment_offset != 0) {
    f.kind = FrameKind::Fragment;
    f.fragment = IpFragment{.ipv6 = false,
                            .identification = be16(b, at + 4),
                            .protocol = kProtoUdp,
                            .offset = std::size_t{fragment_offset} * 8U,
                            .more = more_fragments,
                            .header = b.subspan(at, header),
                            .next_header_at = 9,
                            .data = b.subspan(at + header, total - header)};
    return;
  }
  parse_udp(b, at + header, at + total, f);
  if (f.kind != FrameKind::Udp) return;
  f.source.ipv6 = false;
  f.destination.ipv6 = false;
  std::memcpy(f.source.ip.data(), b.data() + at + 12, 4);  // within the 20 octets checked
  std::memcpy(f.destination.ip.data(), b.data() + at + 16, 4);
  f.dscp = static_cast<std::uint8_t>(u8(b, at + 1) >> 2);
  f.ecn = static_cast<std::uint8_t>(u8(b, at + 1) & 0x03U);
  f.ip_packet = b.subspan(at, total);
}

// The IPv6 header's fields of a UDP frame (the header at `at`, its payload ending at `end`).
void fill_ipv6(std::span<const std::byte> b, std::size_t at, std::size_t end, ParsedFrame& f) {
  f.source.ipv6 = true;
  f.destination.ipv6 = true;
  for (std::size_t i = 0; i < 16; ++i) {
    f.source.ip[i] = u8(b, at + 8 + i);
    f.destination.ip[i] = u8(b, at + 24 + i);
  }
  f.ip_packet = b.subspan(at, end - at);
  const std::uint16_t tc = static_cast<std::uint16_t>(be16(b, at) >> 4);
  f.dscp = static_cast<std::uint8_t>((tc >> 2) & 0x3FU);
  f.ecn = static_cast<std::uint8_t>(tc & 0x03U);
}

void parse_ipv6(std::span<const std::byte> b, std::size_t at, ParsedFrame& f) {
  if (b.size() < at + 40)
    return malformed(f, "frame ends inside the IPv6 header", at, b.size() - at);
  const std::uint8_t version = u8(b, at) >> 4;
  if (version != 6) return malformed(f, "IPv6 version field is not 6", at, version);
  const std::uint16_t payload_length = be16(b, at + 4);
  const std::size_t end = at + 40 + payload_length;
  if (payload_length == 0)
    return malformed(f, "IPv6 payload length 0 (jumbogram) is not handled", at + 4);
  if (end > b.size()) {
    malformed(f, "IPv6 payload length is beyond the captured frame (cut by the snap length?)",
              at + 4, payload_length);
    f.snap_cut = true;
    return;
  }
  std::uint8_t next = u8(b, at + 6);
  std::size_t next_at = at + 6;  // where the Next Header field that names `next` sits
  std::size_t pos = at + 40;
  for (std::size_t n = 0; n <= kMaxExtensionHeaders; ++n) {
    switch (next) {
      case kProtoUdp:
        parse_udp(b, pos, end, f);
        if (f.kind == FrameKind::Udp) fill_ipv6(b, at, end, f);
        return;
      case 0:     // Hop-by-Hop Options
      case 43:    // Routing
      case 60: {  // Destination Options
        if (pos + 8 > end)
          return malformed(f, "IPv6 extension header is beyond the payload", next_at, next);
        const std::size_t size = (static_cast<std::size_t>(u8(b, pos + 1)) + 1U) * 8U;
        if (pos + size > end)
          return malformed(f, "IPv6 extension header length is beyond the payload", pos + 1, size);
        next = u8(b, pos);
        next_at = pos;
        pos += size;
        break;
      }
      case 44: {  // Fragment
        if (pos + 8 > end)
          return malformed(f, "IPv6 fragment header is beyond the payload", next_at, next);
        const std::uint16_t fragment = be16(b, pos + 2);
        if ((fragment & 0xFFF9U) != 0) {  // an offset or More Fragments: a real fragment
          f.kind = FrameKind::Fragment;
          f.fragment = IpFragment{
              .ipv6 = true,
              .identification = (std::uint32_t{be16(b, pos + 4)} << 16U) | be16(b, pos + 6),
              .protocol = u8(b, pos),
              .offset = std::size_t{fragment} & 0xFFF8U,
              .more = (fragment & 0x0001U) != 0,
              .header = b.subspan(at, pos - at),
              .next_header_at = next_at - at,
              .data = b.subspan(pos + 8, end - pos - 8)};
          return;
        }
        next = u8(b, pos);  // an atomic fragment (offset 0, no More Fragments): read on
        next_at = pos;
        pos += 8;
        break;
      }
      case 51: {  // Authentication Header: length in 4-octet units, minus 2
        if (pos + 8 > end)
          return malformed(f, "IPv6 authentication header is beyond the payload", next_at, next);
        const std::size_t size = (static_cast<std::size_t>(u8(b, pos + 1)) + 2U) * 4U;
        if (pos + size > end)
          return malformed(f, "IPv6 authentication header length is beyond the payload", pos + 1,
                           size);
        next = u8(b, pos);
        next_at = pos;
        pos += size;
        break;
      }
      default: return other(f);  // ESP, No Next Header, ICMPv6, TCP, ...: not UDP we can read
    }
  }
  return malformed(f, "more than 16 IPv6 extension headers", next_at, next);
}

void parse_ethertype(std::span<const std::byte> b, std::uint16_t type, std::size_t at,
                     ParsedFrame& f) {
  if (type == kEtherIpv4) return parse_ipv4(b, at, f);
  if (type == kEtherIpv6) return parse_ipv6(b, at, f);
  return other(f);
}

void parse_raw_ip(std::span<const std::byte> b, std::size_t at, ParsedFrame& f) {
  if (b.size() <= at) return malformed(f, "frame ends before the IP header", at);
  const std::uint8_t version = u8(b, at) >> 4;
  if (version == 4) return parse_ipv4(b, at, f);
  if (version == 6) return parse_ipv6(b, at, f);
  return malformed(f, "raw IP frame with IP version other than 4 or 6", at, version);
}

void parse_ethernet(std::span<const std::byte> b, ParsedFrame& f) {
  if (b.size() < 14) return malformed(f, "frame ends inside the Ethernet header", 0, b.size());
  std::size_t at = 12;
  std::uint16_t type = be16(b, at);
  for (std::size_t tags = 0; type == kEtherVlan || type == kEtherQinQ || type == kEtherVlanOld;
       ++tags) {
    if (tags == kMaxVlanTags) return malformed(f, "more than 8 VLAN tags", at, type);
    if (b.size() < at + 6) return malformed(f, "frame ends inside a VLAN tag", at, type);
    at += 4;
    type = be16(b, at);
  }
  return parse_ethertype(b, type, at + 2, f);
}

}  // namespace

bool link_type_supported(int link_type) noexcept {
  switch (link_type) {
    case kNull:
    case kEthernet:
    case kRaw:
    case kLinktypeRaw:
    case kLinuxSll:
    case kLinuxSll2:
    case kIpv4Only:
    case kIpv6Only: return true;
    default: return false;
  }
}

std::string link_type_name(int link_type) {
  const char* name = pcap_datalink_val_to_name(link_type);
  return name != nullptr ? std::string(name) : "link type " + std::to_string(link_type);
}

namespace {

void parse_into(std::span<const std::byte> frame, int link_type, ParsedFrame& f) {
  switch (link_type) {
    case kEthernet: return parse_ethernet(frame, f);
    case kLinuxSll:  // 16 octets; protocol (EtherType) in the last two
      if (frame.size() < 16)
        return malformed(f, "frame ends inside the Linux cooked header", 0, frame.size());
      return parse_ethertype(frame, be16(frame, 14), 16, f);
    case kLinuxSll2:  // 20 octets; protocol (EtherType) first
      if (frame.size() < 20)
        return malformed(f, "frame ends inside the Linux cooked v2 header", 0, frame.size());
      return parse_ethertype(frame, be16(frame, 0), 20, f);
    case kNull: {  // a 4-octet address family in the capturing host's byte order
      if (frame.size() < 4)
        return malformed(f, "frame ends inside the loopback header", 0, frame.size());
      const std::uint32_t family = le32(frame, 0);
      const std::uint32_t swapped = ((family & 0xFFU) << 24) | ((family & 0xFF00U) << 8) |
                                    ((family >> 8) & 0xFF00U) | (family >> 24);
      const std::uint32_t af = std::min(family, swapped);
      if (af == 2) return parse_ipv4(frame, 4, f);
      if (af == 24 || af == 28 || af == 30) return parse_ipv6(frame, 4, f);
      return other(f);
    }
    case kRaw:
    case kLinktypeRaw: return parse_raw_ip(frame, 0, f);
    case kIpv4Only: return parse_ipv4(frame, 0, f);
    case kIpv6Only: return parse_ipv6(frame, 0, f);
    default:
      return malformed(f, "link type is not handled", 0, static_cast<std::uint64_t>(link_type));
  }
}

}  // namespace

ParsedFrame parse_frame(std::span<const std::byte> frame, int link_type) noexcept {
  ParsedFrame f;
  parse_into(frame, link_type, f);
  return f;
}

void append_malformed(const ParsedFrame& f, std::string& out) {
  out += f.what;
  if (f.actual != 0) {
    out += " (value ";
    append_decimal(out, f.actual);
    out += ')';
  }
  out += " at offset ";
  append_decimal(out, f.offset);
}

std::string describe_malformed(const ParsedFrame& f) {
  std::string s;
  s.reserve(f.what.size() + 64);  // the numbers' text: one allocation
  append_malformed(f, s);
  return s;
}

}  // namespace rdcc::wire
