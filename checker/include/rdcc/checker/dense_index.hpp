// Keys numbered densely in the order they were first seen: a flat open-addressing table (linear
// probing, at most half full) maps each key to its number, and the caller keeps what it knows
// of each key in a plain vector indexed by that number. The capture check and the invariant
// checker look up several keys per packet over millions of packets: one probe into a flat
// array, no node allocation per key, and numbers that stay valid as the table grows (so that
// they can be held instead of pointers). Keys are never removed.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "rdcc/wire/address.hpp"

namespace rdcc::checker {

using wire::hash_mix;

// A message of a numbered owner (an association, or a pair of peers) by its Message ID: the key
// of the message indexes of the invariant checker and the capture check.
struct OwnedMessageKey {
  std::uint32_t owner = 0;
  std::uint64_t message = 0;
  friend bool operator==(const OwnedMessageKey&, const OwnedMessageKey&) = default;
};
struct OwnedMessageKeyHash {
  std::uint64_t operator()(const OwnedMessageKey& k) const {
    return hash_mix(hash_mix(0, k.owner), k.message);
  }
};

// Asks the kernel to back a large, not yet touched allocation with huge pages where it can
// (Linux, transparent huge pages in "madvise" mode): a capture check's tables take tens of MiB
// per million packets, and faulting them in 4 KiB at a time cost a third of its CPU time.
// Allocations below 2 MiB are left alone. A hint only: nothing changes where it is not
// supported (reference/src/dense_index.cpp).
void advise_huge_pages(void* p, std::size_t bytes);

// The vector beside a DenseIndex when its elements are many: blocks of 16, 32, 64, ...
// elements, each constructed when added, so that growing never copies (nor touches again)
// what is already there, and references stay valid; a small one stays small.
template <class T>
class StableVector {
 public:
  StableVector() = default;
  StableVector(const StableVector&) = delete;
  StableVector& operator=(const StableVector&) = delete;
  ~StableVector() {
    for (std::size_t i = 0; i < size_; ++i) (*this)[i].~T();
    for (std::size_t k = 0; k < blocks_.size(); ++k) {
      std::allocator<T>{}.deallocate(blocks_[k], kFirst << k);
    }
  }

  T& emplace_back() {
    if (size_ + kFirst == kFirst << blocks_.size()) {
      const std::size_t n = kFirst << blocks_.size();
      blocks_.push_back(std::allocator<T>{}.allocate(n));
      advise_huge_pages(blocks_.back(), n * sizeof(T));
    }
    T* slot = &(*this)[size_];
    new (slot) T();
    ++size_;
    end_ = slot + 1;
    return *slot;
  }
  T& back() { return (*this)[size_ - 1]; }
  [[nodiscard]] T& operator[](std::size_t i) { return *at(i); }
  [[nodiscard]] const T& operator[](std::size_t i) const { return *at(i); }
  [[nodiscard]] std::size_t size() const { return size_; }

  // A walk in the order added: a pointer step within a block; only crossing into the next
  // block looks the block up. Two iterators are equal at the same element (the end: one past
  // the last).
  template <class E>
  class Iter {
   public:
    Iter(const StableVector& v, bool at_end) : v_(&v) {
      if (at_end || v.size_ == 0) {
        p_ = v.end_;
        return;
      }
      p_ = v.blocks_[0];
      block_end_ = p_ + kFirst;
    }
    E& operator*() const { return *p_; }
    Iter& operator++() {
      if (++p_ == block_end_) next_block();
      return *this;
    }
    bool operator==(const Iter& o) const { return p_ == o.p_; }

   private:
    void next_block() {
      if (k_ + 1 >= v_->blocks_.size()) return;  // p_ is one past the last element: the end
      ++k_;
      p_ = v_->blocks_[k_];
      block_end_ = p_ + (kFirst << k_);
    }
    const StableVector* v_;
    T* p_ = nullptr;
    T* block_end_ = nullptr;
    std::size_t k_ = 0;
  };
  Iter<T> begin() { return {*this, false}; }
  Iter<T> end() { return {*this, true}; }
  Iter<const T> begin() const { return {*this, false}; }
  Iter<const T> end() const { return {*this, true}; }

 private:
  static constexpr std::size_t kFirst = 16;  // a power of two
  // Element i is at j = i + kFirst: in block bit_width(j) - bit_width(kFirst), which starts
  // at the power of two below j.
  [[nodiscard]] T* at(std::size_t i) const {
    const std::size_t j = i + kFirst;
    const auto k = static_cast<std::size_t>(std::bit_width(j) - std::bit_width(kFirst));
    return blocks_[k] + (j - (kFirst << k));
  }

  std::vector<T*> blocks_;
  std::size_t size_ = 0;
  T* end_ = nullptr;  // one past the last element
};

template <class Key, class Hash>
class DenseIndex {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // The number of `key`, or kNone.
  [[nodiscard]] std::uint32_t find(const Key& key) const {
    if (slots_.empty()) return kNone;
    const std::uint64_t h = Hash{}(key);
    const std::uint32_t tag = tag_of(h);
    for (std::size_t i = static_cast<std::size_t>(h) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.tag == 0) return kNone;
      if (s.tag == tag && keys_[s.index] == key) return s.index;
    }
  }

  // The number of `key`, and whether it was new (then it is size() - 1).
  std::pair<std::uint32_t, bool> insert(const Key& key) {
    if ((keys_.size() + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = Hash{}(key);
    const std::uint32_t tag = tag_of(h);
    std::size_t i = static_cast<std::size_t>(h) & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.tag == 0) break;
      if (s.tag == tag && keys_[s.index] == key) return {s.index, false};
    }
    const auto index = static_cast<std::uint32_t>(keys_.size());
    slots_[i] = Slot{tag, index};
    if (keys_.size() == keys_.capacity()) {
      std::vector<Key> more;
      more.reserve(std::max<std::size_t>(16, keys_.capacity() * 2));
      advise_huge_pages(more.data(), more.capacity() * sizeof(Key));
      more.assign(keys_.begin(), keys_.end());
      keys_.swap(more);
    }
    keys_.push_back(key);
    return {index, true};
  }

  [[nodiscard]] const Key& key(std::uint32_t index) const { return keys_[index]; }
  [[nodiscard]] std::size_t size() const { return keys_.size(); }

 private:
  struct Slot {
    std::uint32_t tag = 0;  // 0: empty; else high bits of the hash, never 0
    std::uint32_t index = 0;
  };

  static std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32) | 1U; }

  void grow() {
    const std::size_t size = slots_.empty() ? 16 : slots_.size() * 2;
    std::vector<Slot> fresh;
    fresh.reserve(size);
    advise_huge_pages(fresh.data(), size * sizeof(Slot));
    fresh.resize(size);
    slots_.swap(fresh);
    mask_ = size - 1;
    for (std::uint32_t index = 0; index < keys_.size(); ++index) {
      const std::uint64_t h = Hash{}(keys_[index]);
      std::size_t i = static_cast<std::size_t>(h) & mask_;
      while (slots_[i].tag != 0) i = (i + 1) & mask_;
      slots_[i] = Slot{tag_of(h), index};
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::vector<Key> keys_;
};

// Numbers (owner, Message ID) keys densely, as DenseIndex does, for the order in which a
// capture or a run shows them: "Message IDs MUST increase with each new message of an
// association" ("Credit Requests and Grants"), so each owner's IDs are mostly new and larger
// than all before. Those are appended to the owner's sorted run (its newest first in mind:
// most lookups are of it), and any other key goes to a DenseIndex. A capture's million
// messages then cost no hash table's random probes, nor its rehashing (a fifth of `rdcc pcap
// check`'s time was spent there). Any order of keys works; only the speed differs.
class MessageIndex {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // The number of `key`, or kNone.
  [[nodiscard]] std::uint32_t find(const OwnedMessageKey& key) const {
    if (key.owner >= runs_.size()) return kNone;
    const Run& run = runs_[key.owner];
    if (run.empty() || key.message > run.back().message) return kNone;  // see insert()
    if (const std::uint32_t n = in_run(run, key.message); n != kNone) return n;
    const std::uint32_t other = others_.find(key);
    return other == kNone ? kNone : other_numbers_[other];
  }

  // The number of `key`, and whether it was new (then it is size() - 1).
  std::pair<std::uint32_t, bool> insert(const OwnedMessageKey& key) {
    if (key.owner >= runs_.size()) runs_.resize(std::size_t{key.owner} + 1);
    Run& run = runs_[key.owner];
    // A key larger than the run's newest is new: every key in `others_` was smaller than the
    // newest of its run when it was added, and the newest only grows.
    if (run.empty() || key.message > run.back().message) {
      run.push_back({key.message, count_});
      return {count_++, true};
    }
    if (const std::uint32_t n = in_run(run, key.message); n != kNone) return {n, false};
    const auto [other, added] = others_.insert(key);
    if (added) other_numbers_.push_back(count_++);
    return {other_numbers_[other], added};
  }

  [[nodiscard]] std::size_t size() const { return count_; }

 private:
  struct Entry {
    std::uint64_t message;
    std::uint32_t number;
  };
  using Run = std::vector<Entry>;

  static std::uint32_t in_run(const Run& run, std::uint64_t message) {
    if (run.back().message == message) return run.back().number;
    const auto it = std::lower_bound(run.begin(), run.end(), message,
                                     [](const Entry& e, std::uint64_t m) { return e.message < m; });
    return it != run.end() && it->message == message ? it->number : kNone;
  }

  std::vector<Run> runs_;  // by owner
  DenseIndex<OwnedMessageKey, OwnedMessageKeyHash> others_;
  std::vector<std::uint32_t> other_numbers_;  // by the number `others_` gives
  std::uint32_t count_ = 0;
};

}  // namespace rdcc::checker
