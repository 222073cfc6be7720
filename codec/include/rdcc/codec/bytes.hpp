// Bounds-checked big-endian cursors over byte spans ("All multi-octet fields are transmitted
// in network byte order"). A read or write that does not fit sets a sticky `overflow()` flag
// and transfers nothing, so a caller checks once at the end. After an overflow the reader
// stands at the end (later reads return zero), while the writer stays where it was (a later,
// smaller write may still fit): once `overflow()` is set, the output is not to be used.
// Reused by the bindings and the pcap code.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace rdcc {

namespace detail {
// Network to host order (and back) for one unsigned integer.
template <class T>
[[nodiscard]] constexpr T big_endian(T v) noexcept {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (sizeof(T) == 1 || std::endian::native == std::endian::big) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(v));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(v));
  } else {
    return static_cast<T>(__builtin_bswap64(v));
  }
}
}  // namespace detail

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> data) noexcept : data_(data) {}

  template <class T>
  [[nodiscard]] T read() noexcept {
    if (remaining() < sizeof(T)) {
      overflow_ = true;
      pos_ = data_.size();
      return T{0};
    }
    T v{0};
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return detail::big_endian(v);
  }
  [[nodiscard]] std::uint8_t u8() noexcept { return read<std::uint8_t>(); }
  [[nodiscard]] std::uint16_t u16() noexcept { return read<std::uint16_t>(); }
  [[nodiscard]] std::uint32_t u32() noexcept { return read<std::uint32_t>(); }
  [[nodiscard]] std::uint64_t u64() noexcept { return read<std::uint64_t>(); }
  void bytes(std::span<std::uint8_t> out) noexcept {
    if (remaining() < out.size()) {
      overflow_ = true;
      pos_ = data_.size();
      return;
    }
    std::memcpy(out.data(), data_.data() + pos_, out.size());
    pos_ += out.size();
  }
  void skip(std::size_t n) noexcept {
    if (remaining() < n) {
      overflow_ = true;
      pos_ = data_.size();
      return;
    }
    pos_ += n;
  }

  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }
  [[nodiscard]] bool overflow() const noexcept { return overflow_; }

 private:
  std::span<const std::byte> data_;
  std::size_t pos_ = 0;
  bool overflow_ = false;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::span<std::byte> out) noexcept : out_(out) {}

  template <class T>
  void write(T v) noexcept {
    if (remaining() < sizeof(T)) {
      overflow_ = true;
      return;
    }
    const T wire = detail::big_endian(v);
    std::memcpy(out_.data() + pos_, &wire, sizeof(T));
    pos_ += sizeof(T);
  }
  void u8(std::uint8_t v) noexcept { write(v); }
  void u16(std::uint16_t v) noexcept { write(v); }
  void u32(std::uint32_t v) noexcept { write(v); }
  void u64(std::uint64_t v) noexcept { write(v); }
  void bytes(std::span<const std::uint8_t> in) noexcept {
    if (remaining() < in.size()) {
      overflow_ = true;
      return;
    }
    std::memcpy(out_.data() + pos_, in.data(), in.size());
    pos_ += in.size();
  }
  void zeros(std::size_t n) noexcept {
    if (remaining() < n) {
      overflow_ = true;
      return;
    }
    std::memset(out_.data() + pos_, 0, n);
    pos_ += n;
  }

  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return out_.size() - pos_; }
  [[nodiscard]] bool overflow() const noexcept { return overflow_; }

 private:
  std::span<std::byte> out_;
  std::size_t pos_ = 0;
  bool overflow_ = false;
};

}  // namespace rdcc
