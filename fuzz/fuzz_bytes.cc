// Any octets, read as a program for the bounds-checked cursors of bytes.hpp (which the bindings
// and the pcap code reuse): each octet picks an operation and a size; reads run over the input
// itself, writes into a 32-octet buffer. No access leaves its span (ASan); a read returns the
// big-endian value at its position, or 0 once the reader has overflowed; overflow() turns on
// exactly when an operation asks for more than remains, and stays on.
#include <array>
#include <vector>

#include "rdcc/codec/bytes.hpp"
#include "rdcc/testing/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = rdcc::testing::input_octets(data, size);
  rdcc::ByteReader in(input);
  std::array<std::byte, 32> buffer{};
  rdcc::ByteWriter out(buffer);
  std::vector<std::uint8_t> scratch(31);
  std::size_t read_at = 0, write_at = 0;  // the model of both cursors
  bool read_over = false, write_over = false;
  for (std::size_t i = 0; i < size; ++i) {
    const unsigned op = data[i] & 7U;
    const std::size_t n = data[i] >> 3U;  // 0..31
    const std::size_t width = op < 4 || op == 6 ? std::size_t{1} << (op < 4 ? op : n & 3U) : n;
    if (op < 6) {
      const bool fits = !read_over && width <= size - read_at;
      const std::uint64_t want =
          fits ? rdcc::testing::load_big_endian(input.subspan(read_at, width)) : 0;
      const std::uint64_t got = op == 0   ? in.u8()
                                : op == 1 ? in.u16()
                                : op == 2 ? in.u32()
                                : op == 3 ? in.u64()
                                          : 0;
      if (op == 4) in.bytes(std::span(scratch).first(n));
      if (op == 5) in.skip(n);
      RDCC_FUZZ_CHECK(op >= 4 || got == want);
      read_over = read_over || !fits;
      read_at = read_over ? size : read_at + width;
    } else {
      if (op == 6 && width == 1) out.u8(static_cast<std::uint8_t>(n));
      if (op == 6 && width == 2) out.u16(static_cast<std::uint16_t>(n));
      if (op == 6 && width == 4) out.u32(static_cast<std::uint32_t>(n));
      if (op == 6 && width == 8) out.u64(n);
      if (op == 7 && n % 2 == 0) out.zeros(n);
      if (op == 7 && n % 2 == 1) out.bytes(std::span(scratch).first(n));
      const bool fits = width <= buffer.size() - write_at;
      write_over = write_over || !fits;
      write_at += fits ? width : 0;
    }
    RDCC_FUZZ_CHECK(in.overflow() == read_over && in.position() == read_at &&
                    in.remaining() == size - read_at);
    RDCC_FUZZ_CHECK(out.overflow() == write_over && out.position() == write_at &&
                    out.remaining() == buffer.size() - write_at);
  }
  return 0;
}
