// The run-time side of the automatic mutants (reference/automutants/generate.py): every mutation
// site of the generated copy of the rule code calls one of these with its base id, and they
// answer the original unless the active mutant is one of the site's. Mutant 0 (the default) is
// the reference. Only rdcc_reference_automut and rdcc-conform-automut include this header; the
// real sources never do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace rdcc::automut {

// The active mutant: 0, the reference, or one id of kAutoMutants.
void set_active(std::uint32_t id);
[[nodiscard]] std::uint32_t active();

// Whether mutant `id` is the active one.
[[nodiscard]] inline bool on(std::uint32_t id) {
  return active() == id;
}

enum class Op : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne, Add, Sub, Mul, Div, Mod };

// `a O b`, where that expression exists for the operand types.
template <Op O, class A, class B>
decltype(auto) apply(A&& a, B&& b) {
  if constexpr (O == Op::Lt) return a < b;
  if constexpr (O == Op::Le) return a <= b;
  if constexpr (O == Op::Gt) return a > b;
  if constexpr (O == Op::Ge) return a >= b;
  if constexpr (O == Op::Eq) return a == b;
  if constexpr (O == Op::Ne) return a != b;
  if constexpr (O == Op::Add) return a + b;
  if constexpr (O == Op::Sub) return a - b;
  if constexpr (O == Op::Mul) return a * b;
  if constexpr (O == Op::Div) return a / b;
  if constexpr (O == Op::Mod) return a % b;
}

template <Op O, class A, class B>
concept Defined = requires(A&& a, B&& b) {
  apply<O>(std::forward<A>(a), std::forward<B>(b));
};

// The original operator, or replacement number `active() - base` (1-based) of `Alternatives`
// when the active mutant is one of this site's; a replacement the operand types do not have (a
// strong type without that operator) leaves the original, an equivalent mutant.
template <Op Original, Op... Alternatives, class A, class B>
auto bin(std::uint32_t base, A&& a, B&& b) {
  using R = decltype(apply<Original>(a, b));
  const std::uint32_t k = active();
  if (k >= base && k < base + sizeof...(Alternatives)) {
    std::uint32_t i = base;
    R out = apply<Original>(a, b);
    (void)((i++ == k && ([&] {
              if constexpr (Defined<Alternatives, A, B> &&
                            std::is_convertible_v<decltype(apply<Alternatives>(a, b)), R>) {
                out = static_cast<R>(apply<Alternatives>(a, b));
              }
              return true;
            }())) ||
           ...);
    return out;
  }
  return apply<Original>(a, b);
}

// `!x`, or `x` under mutant `id`.
template <class T>
bool negation(std::uint32_t id, const T& x) {
  return on(id) ? static_cast<bool>(x) : !x;
}

// An integer constant, one more under mutant `base`, one less under `base + 1` (a constant of
// 0 has only the first).
template <class T>
T lit(std::uint32_t base, T value) {
  const std::uint32_t k = active();
  if (k == base) return static_cast<T>(value + 1);
  if (k == base + 1 && value > 0) return static_cast<T>(value - 1);
  return value;
}

// One automatic mutant: where it is and what it changes.
struct AutoMutant {
  std::uint32_t id;
  const char* role;  // "receiver", "sender", "crn"
  const char* file;
  std::uint32_t line;
  std::uint32_t column;
  const char* kind;  // relational, arithmetic, boolean, constant, removal
  const char* original;
  const char* replacement;
  const char* function;
};
extern const AutoMutant kAutoMutants[];
extern const std::size_t kAutoMutantCount;

}  // namespace rdcc::automut
