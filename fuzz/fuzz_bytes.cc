// Any octets, read as a program for the bounds-checked cursors of bytes.hpp (which the bindings
// and the pcap code reuse): each octet picks an operation and a size; reads run over the input
// itself, writes into a 32-octet buffer. No access leaves its span (ASan); a read returns the
// big-endian value at its position, or 0 once the reader has overflowed; overflow() turns on
// exactly when an operation asks for more than remains, and stays on.
//
// The cursors are the code under test: their operations run in apply_read / apply_write, which
// take coverage feedback. The program loop and the model the cursors are checked against live
// in namespace rdcc::testing, which coverage-ignorelist.txt keeps out of the feedback (their
// comparisons, a dozen per operation, were a third of the harness's time as comparison
// callbacks, and say nothing about the cursors' states); they still run under ASan and UBSan.
#include <array>
#include <cstdint>

#include "rdcc/codec/bytes.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace {

// Up to 31 octets for bytes(): a global, so that ASan's redzone after it reports an access
// beyond it, without an allocation per input.
std::array<std::uint8_t, 31> scratch;

struct CursorState {
  bool overflow;
  std::size_t position;
  std::size_t remaining;
};

template <class Cursor>
CursorState state_of(const Cursor& c) {
  return {c.overflow(), c.position(), c.remaining()};
}

// One read operation (op 0-5 of the octet): u8/u16/u32/u64, bytes(n), skip(n). Not inlined
// into the uninstrumented loop, so that the cursor's code keeps its coverage feedback.
[[gnu::noinline]] CursorState apply_read(rdcc::ByteReader& in, unsigned op, std::size_t n,
                                         std::uint64_t& got) {
  switch (op) {
    case 0: got = in.u8(); break;
    case 1: got = in.u16(); break;
    case 2: got = in.u32(); break;
    case 3: got = in.u64(); break;
    case 4: in.bytes(std::span(scratch).first(n)); break;
    default: in.skip(n); break;
  }
  return state_of(in);
}

// One write operation (op 6: u8/u16/u32/u64 of n by n's low bits; op 7: zeros(n) for even n,
// bytes(n) for odd n).
[[gnu::noinline]] CursorState apply_write(rdcc::ByteWriter& out, unsigned op, std::size_t n) {
  if (op == 6) {
    switch (n & 3U) {
      case 0: out.u8(static_cast<std::uint8_t>(n)); break;
      case 1: out.u16(static_cast<std::uint16_t>(n)); break;
      case 2: out.u32(static_cast<std::uint32_t>(n)); break;
      default: out.u64(n); break;
    }
  } else if (n % 2 == 0) {
    out.zeros(n);
  } else {
    out.bytes(std::span(scratch).first(n));
  }
  return state_of(out);
}

}  // namespace

namespace rdcc::testing {
namespace {

// Where a cursor must stand: its position, whether it has overflowed, and its span's size.
struct CursorModel {
  std::size_t at = 0;
  bool over = false;
  std::size_t size;
  void check(const CursorState& s) const {
    RDCC_FUZZ_CHECK(s.overflow == over && s.position == at && s.remaining == size - at);
  }
};

// The program and the model of both cursors (out of the coverage feedback).
void run_cursor_program(const std::uint8_t* data, std::size_t size) {
  const auto input = input_octets(data, size);
  ByteReader in(input);
  std::array<std::byte, 32> buffer{};
  ByteWriter out(buffer);
  CursorModel read{0, false, size};
  CursorModel write{0, false, buffer.size()};
  for (std::size_t i = 0; i < size; ++i) {
    const unsigned op = data[i] & 7U;
    const std::size_t n = data[i] >> 3U;  // 0..31
    const std::size_t width = op < 4 || op == 6 ? std::size_t{1} << (op < 4 ? op : n & 3U) : n;
    if (op < 6) {
      const bool fits = !read.over && width <= size - read.at;
      const std::uint64_t want = fits ? load_big_endian(input.subspan(read.at, width)) : 0;
      std::uint64_t got = 0;
      const CursorState s = apply_read(in, op, n, got);
      RDCC_FUZZ_CHECK(op >= 4 || got == want);
      read.over = read.over || !fits;
      read.at = read.over ? size : read.at + width;
      read.check(s);
      write.check(state_of(out));  // after every operation, both cursors
    } else {
      const CursorState s = apply_write(out, op, n);
      const bool fits = width <= buffer.size() - write.at;
      write.over = write.over || !fits;
      write.at += fits ? width : 0;
      write.check(s);
      read.check(state_of(in));
    }
  }
}

}  // namespace
}  // namespace rdcc::testing

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rdcc::testing::run_cursor_program(data, size);
  return 0;
}
