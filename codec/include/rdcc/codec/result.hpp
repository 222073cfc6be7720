// A small expected-like type: g++ 12 has no std::expected under C++20 (STYLE.md).
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace rdcc {

template <class E>
struct Failure {
  E error;
};

// Deduction helper: `return fail(DecodeError{...});`
template <class E>
[[nodiscard]] constexpr Failure<std::decay_t<E>> fail(E&& error) {
  return Failure<std::decay_t<E>>{std::forward<E>(error)};
}

// Holds either a value of T or an error of E. No exceptions: access to the wrong
// alternative is a programming error and asserts.
template <class T, class E>
class [[nodiscard]] Result {
 public:
  constexpr Result(const T& value) : state_(std::in_place_index<0>, value) {}        // NOLINT
  constexpr Result(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  // Constructs the value in place from `args` (no temporary T is moved).
  template <class... Args>
  constexpr explicit Result(std::in_place_t, Args&&... args)
      : state_(std::in_place_index<0>, std::forward<Args>(args)...) {}
  template <class F>
  requires std::is_convertible_v<F, E>
  constexpr Result(Failure<F> failure)  // NOLINT
      : state_(std::in_place_index<1>, E(std::move(failure.error))) {}

  [[nodiscard]] constexpr bool has_value() const noexcept { return state_.index() == 0; }
  constexpr explicit operator bool() const noexcept { return has_value(); }

  [[nodiscard]] constexpr T& value() & {
    assert(has_value());
    return *std::get_if<0>(&state_);
  }
  [[nodiscard]] constexpr const T& value() const& {
    assert(has_value());
    return *std::get_if<0>(&state_);
  }
  [[nodiscard]] constexpr T&& value() && {
    assert(has_value());
    return std::move(*std::get_if<0>(&state_));
  }
  [[nodiscard]] constexpr const E& error() const& {
    assert(!has_value());
    return *std::get_if<1>(&state_);
  }

  constexpr T& operator*() & { return value(); }
  constexpr const T& operator*() const& { return value(); }
  constexpr T* operator->() { return &value(); }
  constexpr const T* operator->() const { return &value(); }

 private:
  std::variant<T, E> state_;
};

}  // namespace rdcc
