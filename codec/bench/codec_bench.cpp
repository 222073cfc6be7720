// decode+validate and encode per message type. Target (issue 2): under 10 ns per message and
// no heap allocation. The allocation count is measured, not assumed: this binary replaces the
// global operator new and reports allocations per operation as a counter.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/testing/vectors.hpp"

namespace {
std::atomic<std::size_t> g_allocations{0};
}  // namespace

// g++ 12 pairs the inlined free() below with the replaced operator new and warns of a
// mismatch that is not there: both sides are ours and both use malloc/free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace rdcc {
namespace {

// One representative message per type (the "typical" vectors, else the appendix ones).
Message representative(MessageType type) {
  const auto vectors = testing::boundary_vectors();
  for (const auto& v : vectors) {
    if (type_of(v.message) == type &&
        (v.name.find("typical") != std::string::npos || v.name.find("appendix") == 0 ||
         v.name.find("_ipv4") != std::string::npos ||
         v.name.find("application") != std::string::npos ||
         v.name.find("unknown_association") != std::string::npos)) {
      return v.message;
    }
  }
  return {};
}

void BM_Decode(benchmark::State& state) {
  const auto type = static_cast<MessageType>(state.range(0));
  const Message m = representative(type);
  std::vector<std::byte> wire(encoded_size(m));
  if (!encode(m, wire)) state.SkipWithError("encode failed");
  state.SetLabel(std::string(info(type).name));
  const std::size_t before = g_allocations.load();
  for (auto _ : state) {
    auto r = decode(wire);
    benchmark::DoNotOptimize(r);
  }
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(g_allocations.load() - before), benchmark::Counter::kAvgIterations);
}

void BM_Encode(benchmark::State& state) {
  const auto type = static_cast<MessageType>(state.range(0));
  const Message m = representative(type);
  std::array<std::byte, kMaxMessageSize> out{};
  state.SetLabel(std::string(info(type).name));
  const std::size_t before = g_allocations.load();
  for (auto _ : state) {
    benchmark::DoNotOptimize(m);
    auto r = encode(m, out);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(g_allocations.load() - before), benchmark::Counter::kAvgIterations);
}

BENCHMARK(BM_Decode)->DenseRange(1, 10);
BENCHMARK(BM_Encode)->DenseRange(1, 10);

}  // namespace
}  // namespace rdcc

BENCHMARK_MAIN();
