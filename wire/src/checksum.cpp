// The Internet checksum (checksum.hpp).
#include "rdcc/wire/checksum.hpp"

namespace rdcc::wire {

std::uint32_t ones_complement_sum(std::span<const std::byte> data, std::uint32_t sum) noexcept {
  std::size_t i = 0;
  for (; i + 1 < data.size(); i += 2) {
    sum += (std::to_integer<std::uint32_t>(data[i]) << 8U) |
           std::to_integer<std::uint32_t>(data[i + 1]);
    sum = (sum & 0xFFFFU) + (sum >> 16U);
  }
  if (i < data.size()) {
    sum += std::to_integer<std::uint32_t>(data[i]) << 8U;
    sum = (sum & 0xFFFFU) + (sum >> 16U);
  }
  return sum;
}

std::uint16_t checksum_of(std::uint32_t sum) noexcept {
  while ((sum >> 16U) != 0) sum = (sum & 0xFFFFU) + (sum >> 16U);
  return static_cast<std::uint16_t>(~sum & 0xFFFFU);
}

std::uint16_t internet_checksum(std::span<const std::byte> data) noexcept {
  return checksum_of(ones_complement_sum(data));
}

std::uint16_t udp_checksum(const Address& source, const Address& destination,
                           std::span<const std::byte> datagram) noexcept {
  const std::size_t address_size = source.ipv6 ? 16 : 4;
  std::uint32_t sum = ones_complement_sum(std::as_bytes(std::span(source.ip).first(address_size)));
  sum = ones_complement_sum(std::as_bytes(std::span(destination.ip).first(address_size)), sum);
  // Protocol 17 and the UDP length (IPv4: 16 bits; IPv6: 32, of which a datagram uses 16).
  sum += 17U + static_cast<std::uint32_t>(datagram.size() & 0xFFFFU);
  sum = ones_complement_sum(datagram, sum);
  const std::uint16_t c = checksum_of(sum);
  return c == 0 ? 0xFFFF : c;
}

}  // namespace rdcc::wire
