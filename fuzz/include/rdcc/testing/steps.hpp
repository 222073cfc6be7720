// The step language of the stateful harnesses (fuzz_receiver, fuzz_sender): the input is read
// as a sequence of steps fed to ONE endpoint, the way a driver would (io.hpp): a datagram from
// one of a few peers, a data observation (receiver) or a poll_data drain (sender), a time step,
// and, for the sender, the application's calls. After every step the harness drains
// poll_transmit() and poll_data(), feeds everything the endpoint sent and received to the one
// InvariantChecker, and checks the properties the checker cannot see from the wire alone.
//
// Encoding (every read past the end yields zeros, so any octets are a valid program):
//   octet 0            configuration variant (bits pick ReceiverConfig / SenderConfig options)
//   then steps         op octet (op % kStepKinds picks the kind), then the step's operands
// Datagrams are built through the codec from the operands most of the time: each field takes
// one octet that selects a value from a vocabulary of the run (the peer's Association ID,
// Epoch and next Sequence Number, the nonces and Message IDs seen, lengths around the Credit
// Unit and U, ...) or, for selector values >= 0xF0, the raw value that follows. The
// `corrupt` step overwrites one octet of such a datagram and may cut it; the `raw` step
// sends octets as they are. This keeps plain mutation able to reach deep states (a CREDIT_
// REQUEST of a live association with a fresh Sequence Number is three octets of input).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RDCC_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RDCC_FUZZ_ASAN 1
#endif
#ifdef RDCC_FUZZ_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#include "rdcc/checker/invariants.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace rdcc::testing {

// The operands of a step, read front to back; zeros once the input is exhausted.
class StepInput {
 public:
  StepInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] bool done() const { return at_ >= size_; }
  std::uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() << 8U | u8()); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) << 16U | u16(); }
  std::uint64_t u64() { return std::uint64_t{u32()} << 32U | u32(); }
  // Up to n octets as they are (fewer at the end of the input).
  std::span<const std::byte> take(std::size_t n) {
    n = std::min(n, size_ - std::min(at_, size_));
    const auto out = std::as_bytes(std::span(data_ + at_, n));
    at_ += n;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// Writes steps in the same encoding, for the seed corpora (make_seeds.cc): each call is one
// step, its operands as the harness reads them.
class StepWriter {
 public:
  explicit StepWriter(std::uint8_t variant) { out_.push_back(variant); }
  StepWriter& op(std::uint8_t kind, std::initializer_list<std::uint8_t> operands) {
    out_.push_back(kind);
    out_.insert(out_.end(), operands.begin(), operands.end());
    return *this;
  }
  [[nodiscard]] const std::vector<std::uint8_t>& octets() const { return out_; }

 private:
  std::vector<std::uint8_t> out_;
};

// A selector octet of 0xF0 or more asks for the raw value that follows.
inline constexpr std::uint8_t kRawSelector = 0xF0;

// Steps run per input; the rest of a longer input is ignored. The deep states take a few dozen
// steps, and an input of hundreds of time steps and 1 MiB messages would run for milliseconds:
// the cap keeps every input fast (exec/s, fuzz/README.md "Figures").
inline constexpr int kMaxSteps = 256;

template <class T>
[[nodiscard]] T pick(StepInput& in, std::uint8_t selector, const std::vector<T>& choices) {
  if (selector >= kRawSelector || choices.empty()) return static_cast<T>(in.u64());
  return choices[selector % choices.size()];
}

// How far a time step moves the clock: (1 + a) << (b % 28) ns, from 1 ns to about 34 s.
[[nodiscard]] inline ref::Duration time_step(StepInput& in) {
  const std::int64_t a = 1 + in.u8();
  return ref::nanoseconds(a << (in.u8() % 28U));
}

// Values a run's datagrams draw their fields from.
struct Vocabulary {
  std::vector<std::uint64_t> nonces;
  std::vector<std::uint64_t> message_ids;
  std::vector<std::uint64_t> octets;  // lengths, limits: around the Credit Unit, U, lengths seen
  std::vector<IpAddress> addresses;   // CONGESTION_REPORT flow addresses
};

// Fills every body field of a message (through its describe() list) from the input.
class FieldFiller {
 public:
  FieldFiller(StepInput& in, const Vocabulary& v) : in_(in), vocab_(v) {}

  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    value = static_cast<T>(value_for(f));
  }
  void address(const FieldSpec&, IpAddress& a, std::size_t) {
    const std::uint8_t s = in_.u8();
    if (s >= kRawSelector || vocab_.addresses.empty()) {
      for (auto& octet : a) octet = in_.u8();
    } else {
      a = vocab_.addresses[s % vocab_.addresses.size()];
    }
  }

 private:
  std::uint64_t value_for(const FieldSpec& f) {
    static const std::vector<std::uint64_t> rates{0, 1, 100, 1000, 25000, 100000, 400000};
    static const std::vector<std::uint64_t> micros{0, 1, 10, 100, 1000, 2000, 100000};
    const std::uint8_t s = in_.u8();
    if (s >= kRawSelector) return in_.u64();
    const std::string_view name = f.name;
    switch (f.unit) {
      case Unit::Id:
        if (name == "sender_nonce") return pick(in_, s, vocab_.nonces);
        if (name == "message_id") return pick(in_, s, vocab_.message_ids);
        return s;
      case Unit::Octets: {
        const std::uint64_t base = pick(in_, s % 0x80U, vocab_.octets);
        // Half of the selectors land one octet beside the value: the boundaries.
        if (s < 0x80U) return base;
        return (s & 1U) != 0 ? base + 1 : (base == 0 ? 0 : base - 1);
      }
      case Unit::Mbps: return rates[s % rates.size()];
      case Unit::Micros: return micros[s % micros.size()];
      case Unit::Enum:
        if (s % (f.names.size() + 1) < f.names.size())
          return f.names[s % (f.names.size() + 1)].value;
        return s;
      case Unit::Bitmask: return s & 0x0FU;
      case Unit::Reserved: return s < 0xE0U ? 0 : s;
      case Unit::Number: return s;
    }
    return s;
  }

  StepInput& in_;
  const Vocabulary& vocab_;
};

// A message of the type `type_octet` selects, its body filled from the input.
[[nodiscard]] inline Message body_from(StepInput& in, std::uint8_t type_octet,
                                       const Vocabulary& vocab) {
  Message m;
  const std::size_t index = type_octet % std::variant_size_v<Message>;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((index == I ? (m = std::variant_alternative_t<I, Message>{}, 0) : 0), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Message>>{});
  FieldFiller filler(in, vocab);
  std::visit([&filler](auto& body) { std::decay_t<decltype(body)>::describe(body, filler); }, m);
  return m;
}

// The octets of the datagram a step delivers, in storage kept from step to step (an
// allocation per datagram is what ASan makes expensive). Under ASan the storage past the
// datagram's end is poisoned (a container annotation), so a read beyond the datagram is
// reported as it was when each datagram was an allocation of its own size.
class WireBuffer {
 public:
  WireBuffer()
      : storage_(std::make_unique<std::byte[]>(kInitialCapacity)), capacity_(kInitialCapacity) {
    annotate(capacity_, 0);
  }
  WireBuffer(const WireBuffer&) = delete;
  WireBuffer& operator=(const WireBuffer&) = delete;
  ~WireBuffer() { annotate(size_, capacity_); }

  // `n` octets, their values unspecified until written.
  std::span<std::byte> resize(std::size_t n) {
    if (n > capacity_) {
      annotate(size_, capacity_);
      storage_ = std::make_unique<std::byte[]>(n);
      capacity_ = n;
      size_ = capacity_;
    }
    annotate(size_, n);
    size_ = n;
    return {storage_.get(), size_};
  }
  void assign(std::span<const std::byte> octets) {
    const auto d = resize(octets.size());
    std::copy(octets.begin(), octets.end(), d.begin());
  }
  [[nodiscard]] std::span<std::byte> octets() { return {storage_.get(), size_}; }
  [[nodiscard]] std::span<const std::byte> octets() const { return {storage_.get(), size_}; }

 private:
  static constexpr std::size_t kInitialCapacity = 128;  // kMaxMessageSize and a raw step's 79

  void annotate([[maybe_unused]] std::size_t from, [[maybe_unused]] std::size_t to) const {
#ifdef RDCC_FUZZ_ASAN
    __sanitizer_annotate_contiguous_container(storage_.get(), storage_.get() + capacity_,
                                              storage_.get() + from, storage_.get() + to);
#endif
  }

  std::unique_ptr<std::byte[]> storage_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

// Encodes `m` into `out`; empty if the codec refuses it (an AF without layout).
inline void wire_of(const Message& m, WireBuffer& out) {
  if (!encode(m, out.resize(encoded_size(m)))) out.resize(0);
}

// Overwrites octet `at % size` with `value` and cuts the datagram to `cut` octets when `cut`
// is shorter: a valid header in front of a bad version, an unknown type, a short Length.
inline void corrupt(WireBuffer& d, std::uint8_t at, std::uint8_t value, std::uint8_t cut) {
  const auto octets = d.octets();
  if (octets.empty()) return;
  octets[at % octets.size()] = static_cast<std::byte>(value);
  if (cut < octets.size()) d.resize(cut);
}

[[noreturn]] inline void invariant_violated(const checker::InvariantChecker& checker) {
  for (const auto& v : checker.violations()) {
    std::fprintf(stderr, "%s invariant %s: %s\n", ref::format_time(v.time).c_str(), v.rule.c_str(),
                 v.detail.c_str());
  }
  property_violated("the InvariantChecker found a violation", __FILE__, __LINE__);
}

// With RDCC_FUZZ_TRACE set, the endpoint's events go to stderr (to read a finding):
//   RDCC_FUZZ_TRACE=1 build/fuzz/fuzz/fuzz_receiver crash-<hash>
// Without it the endpoints have no observer and build no event (fuzz/coverage.sh replays the
// corpora both ways, so the event code's coverage is measured too).
class TraceObserver final : public ref::Observer {
 public:
  void on_event(const ref::Event& e) override {
    std::fprintf(stderr, "trace %s\n", e.to_json().dump().c_str());
  }
  [[nodiscard]] static ref::Observer* if_asked() {
    static TraceObserver trace;
    static const bool asked = std::getenv("RDCC_FUZZ_TRACE") != nullptr;
    return asked ? &trace : nullptr;
  }
};

[[nodiscard]] inline ref::Address address_v4(std::uint8_t a, std::uint8_t b, std::uint8_t c,
                                             std::uint8_t d, std::uint16_t port) {
  return ref::Address::v4(a, b, c, d, port);
}

// ---- receiver -------------------------------------------------------------------------------

// Drives one ref::Receiver (see the top of this file for the encoding).
class ReceiverHarness {
 public:
  enum Op : std::uint8_t { kDatagram, kCorrupt, kRaw, kData, kTime, kKinds };

  explicit ReceiverHarness(std::uint8_t variant)
      : receiver_(config(variant), TraceObserver::if_asked()), budget_(receiver_.config().budget) {
    checker_.add_receiver(kLocal, budget_, receiver_.config().d_max);
    // The reference processes a message at most kSequenceWindow ahead of the newest (policy.hpp);
    // the drawn Sequence Numbers reach further, so the checker is told (spec-notes 128).
    checker_.set_sequence_window(ref::kSequenceWindow);
    vocab_.addresses.reserve(kPeers + 1);
    for (std::size_t i = 0; i < kPeers; ++i) vocab_.addresses.push_back(peer(i).ip);
    vocab_.addresses.push_back(kLocal.ip);
    vocab_.message_ids = {0, 1, 2, 3, 4, 5, 6, 7};
    const auto& c = receiver_.config();
    vocab_.octets = {0,
                     1,
                     c.credit_unit,
                     2ULL * c.credit_unit,
                     c.unscheduled_limit,
                     4096,
                     8192,
                     c.budget / 2,
                     c.budget,
                     c.max_message_length};
    vocab_.nonces = {0x1111, 0x2222, 0x3333};
  }

  void run(StepInput& in) {
    for (int step = 0; step < kMaxSteps && !in.done(); ++step) {
      switch (in.u8() % kKinds) {
        case kDatagram: deliver_built(in, false); break;
        case kCorrupt: deliver_built(in, true); break;
        case kRaw: {
          const ref::Address& from = source(in.u8());
          wire_.assign(in.take(in.u8() % 80U));
          deliver(from, wire_.octets());
          break;
        }
        case kData: observe(in); break;
        default: advance(time_step(in)); break;
      }
      settle();
    }
    advance(ref::seconds(1));  // let every grant and reservation run out
  }

  static constexpr ref::Address kLocal{{192, 0, 2, 100}, false, 50000};

 private:
  static constexpr std::size_t kPeers = 3;

  // Peers 0 and 2 share a host (two ports); index kPeers is the CRN.
  static ref::Address peer(std::size_t i) {
    switch (i) {
      case 0: return address_v4(192, 0, 2, 1, 50000);
      case 1: return address_v4(192, 0, 2, 2, 50000);
      case 2: return address_v4(192, 0, 2, 1, 50001);
      default: return address_v4(198, 51, 100, 1, 50000);
    }
  }
  const ref::Address& source(std::uint8_t s) const { return sources_[s % sources_.size()]; }

  static ref::ReceiverConfig config(std::uint8_t v) {
    ref::ReceiverConfig c;
    c.local = kLocal;
    c.budget = std::uint64_t{64} * 1024;
    c.unscheduled_budget = std::uint64_t{16} * 1024;
    c.unscheduled_limit = 8 * 1024;
    c.credit_unit = 1024;
    c.grant_window = (v & 1U) != 0 ? 0 : 4096;  // 0: one BDP, larger than G here
    c.max_credit_per_association = (v & 2U) != 0 ? 16 * 1024 : 0;
    c.max_associations = (v & 4U) != 0 ? 2 : 4;
    c.max_pending_per_association = 4;
    c.max_message_length = 1U << 20U;
    c.rocev2_binding = (v & 8U) == 0;
    c.link_capacity_mbps = (v & 16U) != 0 ? 1000 : 100000;
    c.crn_addresses = {peer(kPeers)};
    return c;
  }

  struct PeerState {
    std::uint32_t association = 0;  // the newest the receiver accepted for this address
    std::uint32_t next_seq = 1;
  };

  // (binding, key) of data observations and of the requests the harness delivers.
  using BindingKey = std::pair<BindingKind, std::uint64_t>;
  struct KeyLess {  // orders ids_by_key_ entries by their key alone
    bool operator()(const std::pair<BindingKey, std::uint64_t>& a,
                    const std::pair<BindingKey, std::uint64_t>& b) const {
      return a.first < b.first;
    }
  };
  struct EarlyData {
    BindingKey key;
    std::array<std::uint64_t, kPeers> octets;
    std::array<bool, kPeers> seen;  // the peer was observed (octets may be zero)
  };

  // A datagram built through the codec from the input, possibly corrupted.
  void deliver_built(StepInput& in, bool corrupted) {
    const std::size_t from_index = in.u8() % sources_.size();
    const ref::Address& from = sources_[from_index];
    PeerState& p = peers_[from_index];
    Message m = body_from(in, in.u8(), vocab_);
    Header& h = header_of(m);
    const std::uint8_t s = in.u8();
    const bool assoc_request = std::holds_alternative<AssocRequest>(m);
    h.association_id = (s & 3U) == 0 ? in.u32() : assoc_request ? 0 : p.association;
    h.epoch = (s & 0x0CU) == 0 ? in.u16() : assoc_request ? 0 : receiver_.config().epoch;
    h.sequence_number = (s & 0x30U) == 0       ? in.u32()
                        : (s & 0x30U) == 0x10U ? p.next_seq - 1
                                               : p.next_seq++;
    h.flags =
        static_cast<std::uint16_t>(s >> 6U);  // 0, PARAMETER_UPDATE/POOL, UPDATE_ACK/FINAL, both
    if (auto* r = std::get_if<CreditRequest>(&m)) {
      // The binding names the message as the harness's data observations do: opaque by its
      // Message ID, RoCEv2 by a queue pair of its own.
      if (r->binding_kind == static_cast<std::uint8_t>(BindingKind::Opaque)) {
        r->binding_value = r->message_id;
      } else if (r->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
        const auto qpn = static_cast<std::uint32_t>(r->message_id & kMax24);
        r->binding_value =
            pack_rocev2({qpn, in.u8(), static_cast<std::uint16_t>(in.u8() % 4U)}).value_or(0);
      }
    }
    wire_of(m, wire_);
    if (corrupted) {
      const std::uint8_t at = in.u8();
      const std::uint8_t value = in.u8();
      corrupt(wire_, at, value, in.u8());
    }
    deliver(from, wire_.octets());
  }

  void deliver(const ref::Address& from, std::span<const std::byte> d) {
    const auto decoded = decode(d);
    if (decoded) {
      if (TraceObserver::if_asked() != nullptr) {
        std::fprintf(stderr, "trace rx from %s: %s\n", from.to_string().c_str(),
                     format_line(*decoded).c_str());
      }
      // The checker first learns of the request, so that earlier data told again for it
      // counts for its message, not for an older association's message of that number.
      checker_.on_control_delivered(from, kLocal, *decoded, now_);
      if (const auto* r = std::get_if<CreditRequest>(&*decoded)) learn_binding(*r);
    }
    receiver_.on_control(from, d, now_);
    Reply reply{from, decoded ? std::optional(type_of(*decoded)) : std::nullopt,
                decoded ? std::nullopt : std::optional(decoded.error())};
    drain(&reply);
  }

  // What the datagram being answered was: the replies the spec allows depend on it.
  struct Reply {
    ref::Address from;
    std::optional<MessageType> type;   // decoded
    std::optional<DecodeError> error;  // or not
  };

  void observe(StepInput& in) {
    const std::size_t from_index = in.u8() % kPeers;
    ref::DataObservation o;
    o.from = sources_[from_index];
    const std::uint8_t s = in.u8();
    o.binding = (s & 0x08U) != 0 ? BindingKind::RoCEv2 : BindingKind::Opaque;
    o.key = s % 8U;
    if ((s & 0x80U) != 0 && !ids_by_key_.empty()) {  // the key of a request sent earlier
      const BindingKey k = nth_key(in.u8() % key_count());
      o.binding = k.first;
      o.key = k.second;
    }
    o.offset = o.binding == BindingKind::Opaque ? std::uint64_t{in.u16()} * 64U : 0;
    o.octets = in.u16() % 4097U;
    o.ce = (s & 0x10U) != 0;
    o.unscheduled_dscp = (s & 0x20U) != 0;
    if ((s & 0x40U) != 0) o.rtt = ref::microseconds(in.u8());
    // The receiver counts data for the sender's association, or another one of the same host
    // (a data port is not the RDCC port); the checker hears of it for each candidate, which
    // can only hide a violation of the other, never invent one.
    // Likewise for every message whose binding the key names (RoCEv2: messages sharing a
    // queue pair).
    const BindingKey key{o.binding, o.key};
    const auto named = std::equal_range(ids_by_key_.begin(), ids_by_key_.end(),
                                        std::pair{key, std::uint64_t{0}}, KeyLess{});
    // The receiver may keep it as early data of a message still to be requested (on another
    // association of the peer, say), which it then credits to that message.
    EarlyData& early = early_of(key);
    early.seen[from_index] = true;
    early.octets[from_index] += o.octets;
    for (std::size_t i = 0; i < kPeers; ++i) {
      if (!sources_[i].same_host(o.from)) continue;
      if (named.first == named.second) {
        checker_.on_data_delivered(kLocal, sources_[i], o.key, o.octets, now_);
        continue;
      }
      for (auto id = named.first; id != named.second; ++id) {
        checker_.on_data_delivered(kLocal, sources_[i], id->second, o.octets, now_);
      }
    }
    if (TraceObserver::if_asked() != nullptr) {
      std::fprintf(stderr, "trace data from %s binding %u key %llu offset %llu octets %u\n",
                   o.from.to_string().c_str(), static_cast<unsigned>(o.binding),
                   static_cast<unsigned long long>(o.key),
                   static_cast<unsigned long long>(o.offset), o.octets);
    }
    receiver_.on_data(o, now_);
    drain(nullptr);
  }

  // The binding key a request names (however it was built: raw octets too), for the data
  // observations. Data that came before may be credited by the receiver to this request (its
  // early data, if no request the receiver accepted has named the key since), so the checker
  // hears of all of it for this message too.
  void learn_binding(const CreditRequest& r) {
    const auto kind = static_cast<BindingKind>(r.binding_kind);
    if (kind != BindingKind::Opaque && kind != BindingKind::RoCEv2) return;
    const std::uint64_t key = kind == BindingKind::Opaque
                                  ? r.binding_value
                                  : unpack_rocev2(r.binding_value).destination_qpn;
    const std::pair<BindingKey, std::uint64_t> entry{{kind, key}, r.message_id};
    const auto at = std::lower_bound(ids_by_key_.begin(), ids_by_key_.end(), entry);
    if (at == ids_by_key_.end() || *at != entry) ids_by_key_.insert(at, entry);
    const auto it = std::find_if(early_.begin(), early_.end(),
                                 [&](const EarlyData& e) { return e.key == entry.first; });
    if (it == early_.end()) return;
    for (std::size_t from = 0; from < kPeers; ++from) {
      if (!it->seen[from]) continue;
      for (std::size_t i = 0; i < kPeers; ++i) {
        if (sources_[i].same_host(sources_[from])) {
          checker_.on_data_delivered(kLocal, sources_[i], r.message_id, it->octets[from], now_);
        }
      }
    }
  }

  // The binding keys requests have named, in order: the n-th of them, and how many.
  [[nodiscard]] std::size_t key_count() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < ids_by_key_.size(); ++i) {
      if (i == 0 || ids_by_key_[i].first != ids_by_key_[i - 1].first) ++n;
    }
    return n;
  }
  [[nodiscard]] BindingKey nth_key(std::size_t n) const {
    for (std::size_t i = 0; i < ids_by_key_.size(); ++i) {
      if (i != 0 && ids_by_key_[i].first == ids_by_key_[i - 1].first) continue;
      if (n-- == 0) return ids_by_key_[i].first;
    }
    return {};
  }

  EarlyData& early_of(const BindingKey& key) {
    for (EarlyData& e : early_) {
      if (e.key == key) return e;
    }
    return early_.emplace_back(EarlyData{key, {}, {}});
  }

  // "then re-arm the timer from next_timeout()" (io.hpp): a time already come fires now.
  void settle() {
    for (int fired = 0; fired < 8; ++fired) {
      const auto t = receiver_.next_timeout();
      if (!t || *t > now_) return;
      receiver_.on_timeout(now_);
      drain(nullptr);
    }
  }

  // The driver's loop: every timer at its time (at most 64 of them a step; a late driver
  // then catches up in one call), then the clock moves on.
  void advance(ref::Duration d) {
    const ref::Time target = now_ + d;
    for (int fired = 0; fired < 64; ++fired) {
      const auto t = receiver_.next_timeout();
      if (!t || *t > target) break;
      now_ = std::max(now_, *t);
      receiver_.on_timeout(now_);
      drain(nullptr);
    }
    now_ = target;
    receiver_.on_timeout(now_);
    drain(nullptr);
  }

  void drain(const Reply* reply) {
    while (auto d = receiver_.poll_transmit()) {
      const auto m = decode(d->payload());
      RDCC_FUZZ_CHECK(m.has_value());  // a receiver sends only messages that decode
      checker_.on_control_sent(kLocal, d->to, *m, now_);
      check_destination(*m, d->to, reply);
    }
    RDCC_FUZZ_CHECK(receiver_.outstanding_credit() <= budget_);
    if (!checker_.ok()) invariant_violated(checker_);
  }

  // "receivers send all other messages only to the address bound when the association was
  // accepted" (Security Considerations), and the replies of "Error Handling and Recovery".
  void check_destination(const Message& m, const ref::Address& to, const Reply* reply) {
    const Header& h = header_of(m);
    const auto bound = std::find_if(bound_.begin(), bound_.end(),
                                    [&](const auto& b) { return b.first == h.association_id; });
    const bool to_bound = bound != bound_.end() && bound->second == to;
    // Every message carries the receiver's Epoch but an ERROR that answers a request naming no
    // association of the receiver's: it repeats the request's Association ID and Epoch (or
    // zero), so that it tells the source nothing (docs/spec-notes.md, "What a receiver tells a
    // source that has no association").
    RDCC_FUZZ_CHECK(h.epoch == receiver_.config().epoch || std::holds_alternative<ErrorMessage>(m));
    const bool answers = reply != nullptr && reply->from == to;
    if (reply != nullptr && reply->error) {
      // A datagram that does not decode is discarded; only an unknown Type of an established
      // association may get ERROR (UNSUPPORTED_TYPE), at the bound address.
      const auto* e = std::get_if<ErrorMessage>(&m);
      RDCC_FUZZ_CHECK(reply->error->code == DecodeErrorCode::UnknownType && e != nullptr &&
                      e->reason == static_cast<std::uint16_t>(ReasonCode::UnsupportedType) &&
                      answers && to_bound && reply->error->header &&
                      reply->error->header->association_id == h.association_id);
      return;
    }
    if (const auto* a = std::get_if<AssocAccept>(&m); a != nullptr && !a->parameter_update()) {
      if (!to_bound) {
        // A new association: only in answer to an ASSOC_REQUEST from that address.
        RDCC_FUZZ_CHECK(answers && reply->type == MessageType::AssocRequest);
        if (bound != bound_.end()) {
          bound->second = to;
        } else {
          bound_.emplace_back(h.association_id, to);
        }
        for (std::size_t i = 0; i < kPeers; ++i) {
          if (sources_[i] == to) peers_[i].association = h.association_id;
        }
      }
      return;
    }
    if (const auto* e = std::get_if<ErrorMessage>(&m)) {
      const auto reason = static_cast<ReasonCode>(e->reason);
      if (reason == ReasonCode::UnknownAssociation) {
        RDCC_FUZZ_CHECK(answers && reply->type == MessageType::CreditRequest);
        return;
      }
      if (reason == ReasonCode::AssocRefused && h.association_id == 0) {
        RDCC_FUZZ_CHECK(answers && reply->type == MessageType::AssocRequest);
        return;
      }
    }
    RDCC_FUZZ_CHECK(to_bound);
  }

  ref::Receiver receiver_;
  std::uint64_t budget_;
  WireBuffer wire_;
  checker::InvariantChecker checker_;
  ref::Time now_{};
  Vocabulary vocab_;
  std::array<ref::Address, kPeers + 1> sources_{peer(0), peer(1), peer(2), peer(3)};
  std::array<PeerState, kPeers + 1> peers_{};
  // A run holds a few dozen of each of these at most: vectors, searched (maps and sets took an
  // allocation per entry, which ASan makes expensive).
  // Association ID -> the address it was accepted from.
  std::vector<std::pair<std::uint32_t, ref::Address>> bound_;
  // (binding, key a data observation carries), Message ID of a request naming it: sorted, each
  // pair once.
  std::vector<std::pair<BindingKey, std::uint64_t>> ids_by_key_;
  // (binding, key) -> octets each peer was observed sending with that key.
  std::vector<EarlyData> early_;
};

// ---- sender --------------------------------------------------------------------------------

// Drives one ref::Sender (see the top of this file for the encoding). The peers play the
// receivers: what they send is not held to the receiver's rules (the checker knows them as
// receivers with an unbounded budget), everything the sender does is.
class SenderHarness {
 public:
  enum Op : std::uint8_t {
    kDatagram,
    kCorrupt,
    kRaw,
    kSubmit,
    kCancel,
    kReturnCredit,
    kLinkPause,
    kRunTimers,
    kTime,
    kKinds
  };

  explicit SenderHarness(std::uint8_t variant)
      : random_(0x5EED), sender_(config(variant), random_, TraceObserver::if_asked()) {
    // remember() keeps at most 24 values of each.
    vocab_.addresses.reserve(kReceivers + 1);
    vocab_.nonces.reserve(24);
    vocab_.message_ids.reserve(24);
    vocab_.octets.reserve(24);
    handles_.reserve(16);
    lengths_.reserve(16);
    checker_.set_sequence_window(ref::kSequenceWindow);  // as the receiver harness's
    for (std::size_t i = 0; i < kReceivers; ++i) {
      checker_.add_receiver(sources_[i], ~std::uint64_t{0} / 4, ref::microseconds(20));
      vocab_.addresses.push_back(sources_[i].ip);
    }
    vocab_.addresses.push_back(kLocal.ip);
    vocab_.message_ids = {0};
    vocab_.octets = {0, 1, 1024, 4096, 8192, 65536};
  }

  void run(StepInput& in) {
    for (int step = 0; step < kMaxSteps && !in.done(); ++step) {
      switch (in.u8() % kKinds) {
        case kDatagram: deliver_built(in, false); break;
        case kCorrupt: deliver_built(in, true); break;
        case kRaw: {
          const std::size_t from = in.u8() % sources_.size();
          wire_.assign(in.take(in.u8() % 80U));
          deliver(from, wire_.octets());
          break;
        }
        case kSubmit: submit(in); break;
        case kCancel:
          if (!handles_.empty()) sender_.cancel(handles_[in.u8() % handles_.size()], now_);
          drain(true);
          break;
        case kReturnCredit:
          if (!handles_.empty()) {
            const ref::MessageHandle h = handles_[in.u8() % handles_.size()];
            sender_.return_credit(h, pick(in, in.u8(), vocab_.octets), now_);
          }
          drain(true);
          break;
        case kLinkPause:
          sender_.on_link_pause(now_);
          drain(true);
          break;
        case kRunTimers: run_timers(1 + in.u8() % 16U); break;
        default: advance(time_step(in)); break;
      }
      settle();
    }
    run_timers(16);  // what the last steps started (the step kRunTimers runs more)
  }

  static constexpr ref::Address kLocal{{192, 0, 2, 1}, false, 50000};
  [[nodiscard]] const ref::Sender& sender() const { return sender_; }

 private:
  static constexpr std::size_t kReceivers = 2;  // then a CRN and a stranger

  static ref::SenderConfig config(std::uint8_t v) {
    ref::SenderConfig c;
    c.local = kLocal;
    c.crn_addresses = {address_v4(198, 51, 100, 1, 50000)};
    c.allow_unscheduled = (v & 1U) == 0;
    if ((v & 2U) != 0) c.capabilities &= ~capability::kPool;
    if ((v & 4U) != 0) c.unscheduled_dscp = 8;
    c.local_backlog_threshold = (v & 8U) != 0 ? 16 * 1024 : 0;
    c.available_rate_mbps = (v & 16U) != 0 ? 10000 : 0;
    return c;
  }

  struct PeerState {
    std::uint32_t association = 0;
    std::uint16_t epoch = 1;
    std::uint32_t next_seq = 1;
    std::uint64_t nonce = 0;    // the sender's newest ASSOC_REQUEST nonce to this receiver
    int attempts = 0;           // ASSOC_REQUESTs with that nonce
    bool answered = false;      // an ASSOC_ACCEPT echoing it, or ASSOC_REFUSED, was delivered
    bool submitted = false;     // the application named this receiver
    bool without_rdcc = false;  // the sender fell back to sending without RDCC
  };

  void submit(StepInput& in) {
    static const std::vector<std::uint64_t> lengths{0,    1,    100,   1024,     1500,
                                                    4096, 8192, 65536, 1U << 20U};
    ref::MessageSpec spec;
    const std::size_t to = in.u8() % kReceivers;
    spec.receiver = sources_[to];
    spec.length = pick(in, in.u8(), lengths) & 0xFFFFFFFFU;
    const std::uint8_t f = in.u8();
    spec.traffic_class = in.u8();
    spec.weight = in.u8();
    spec.service_hint = static_cast<ServiceHint>(f % 3U);
    if ((f & 4U) != 0) {
      spec.binding = BindingKind::RoCEv2;
      const auto count = static_cast<std::uint16_t>(1 + in.u8() % 4U);
      spec.binding_value = pack_rocev2({in.u8(), in.u8(), count}).value_or(0);
      if ((f & 8U) != 0) spec.post_unit = (spec.length + count - 1) / count;
    }
    spec.force_scheduled = (f & 0x10U) != 0;
    spec.deadline_us = (f & 0x20U) != 0 ? in.u8() : 0U;
    peers_[to].submitted = true;
    handles_.push_back(sender_.submit(spec, now_));
    remember(vocab_.octets, spec.length);
    remember(vocab_.octets, spec.length / 2);
    drain(true);
  }

  static void remember(std::vector<std::uint64_t>& v, std::uint64_t value) {
    if (std::find(v.begin(), v.end(), value) != v.end()) return;
    if (v.size() >= 24) v.erase(v.begin() + 1);
    v.push_back(value);
  }

  void deliver_built(StepInput& in, bool corrupted) {
    const std::size_t from = in.u8() % sources_.size();
    PeerState& p = peers_[from];
    Message m = body_from(in, in.u8(), vocab_);
    Header& h = header_of(m);
    const std::uint8_t s = in.u8();
    // Association ID and Epoch: this receiver's current ones, another incarnation's, or raw.
    h.association_id = (s & 3U) == 0 ? in.u32() : (s & 3U) == 1 ? p.association + 1 : p.association;
    h.epoch = static_cast<std::uint16_t>((s & 0x0CU) == 0   ? in.u16()
                                         : (s & 0x0CU) == 4 ? p.epoch + 1
                                                            : p.epoch);
    h.sequence_number = (s & 0x30U) == 0       ? in.u32()
                        : (s & 0x30U) == 0x10U ? p.next_seq - 1
                                               : p.next_seq++;
    h.flags = static_cast<std::uint16_t>(s >> 6U);
    if (auto* a = std::get_if<AssocAccept>(&m); a != nullptr && h.association_id == 0) {
      h.association_id = 1;  // zero is never assigned; a raw selector still sends it
    }
    if (auto* r = std::get_if<CongestionReport>(&m)) {
      r->direction = static_cast<std::uint8_t>(ReportDirection::ToSender);
    }
    wire_of(m, wire_);
    if (corrupted) {
      const std::uint8_t at = in.u8();
      const std::uint8_t value = in.u8();
      corrupt(wire_, at, value, in.u8());
    }
    deliver(from, wire_.octets());
  }

  void deliver(std::size_t from_index, std::span<const std::byte> d) {
    const ref::Address& from = sources_[from_index];
    const auto decoded = decode(d);
    const bool from_receiver = from_index < kReceivers;
    if (decoded && from_receiver) {
      checker_.on_control_delivered(from, kLocal, *decoded, now_);
      note_answer(peers_[from_index], *decoded);
    }
    sender_.on_control(from, d, now_);
    // Nothing answers a datagram that does not decode or comes from a stranger; a CRN's report
    // may make the sender ask for credit.
    const bool may_answer =
        decoded && (from_receiver || std::holds_alternative<CongestionReport>(*decoded));
    drain(may_answer);
  }

  // What makes the sender's ASSOC_REQUESTs answered ("Association Establishment"): an answer
  // before the eighth attempt (one after it may come too late, and is then ignored), and the
  // incarnation later datagrams of this peer speak for.
  static void note_answer(PeerState& p, const Message& m) {
    if (const auto* a = std::get_if<AssocAccept>(&m)) {
      if (a->sender_nonce == p.nonce && a->header.association_id != 0) {
        p.answered = p.answered || p.attempts < 8;
        p.association = a->header.association_id;
        p.epoch = a->header.epoch;
        p.next_seq = a->header.sequence_number + 1;
      }
    } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
      if (e->reason == static_cast<std::uint16_t>(ReasonCode::AssocRefused)) {
        p.answered = p.answered || p.attempts < 8;
      }
    }
  }

  // "then re-arm the timer from next_timeout()" (io.hpp): a time already come fires now.
  void settle() {
    for (int fired = 0; fired < 8; ++fired) {
      const auto t = sender_.next_timeout();
      if (!t || *t > now_) return;
      sender_.on_timeout(now_);
      drain(true);
    }
  }

  void run_timers(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      const auto t = sender_.next_timeout();
      if (!t) break;
      now_ = std::max(now_, *t);
      sender_.on_timeout(now_);
      drain(true);
    }
  }

  void advance(ref::Duration d) {
    const ref::Time target = now_ + d;
    for (int fired = 0; fired < 64; ++fired) {
      const auto t = sender_.next_timeout();
      if (!t || *t > target) break;
      now_ = std::max(now_, *t);
      sender_.on_timeout(now_);
      drain(true);
    }
    now_ = target;
    sender_.on_timeout(now_);
    drain(true);
  }

  std::size_t receiver_index(const ref::Address& a) const {
    for (std::size_t i = 0; i < kReceivers; ++i) {
      if (sources_[i] == a) return i;
    }
    return kReceivers;
  }

  void drain(bool may_send) {
    for (int segments = 0; segments <= 4096; ++segments) {
      while (auto d = sender_.poll_transmit()) {
        RDCC_FUZZ_CHECK(may_send);
        const auto m = decode(d->payload());
        RDCC_FUZZ_CHECK(m.has_value());  // a sender sends only messages that decode
        // Control goes only to receivers the application named.
        const std::size_t to = receiver_index(d->to);
        RDCC_FUZZ_CHECK(to < kReceivers && peers_[to].submitted);
        checker_.on_control_sent(kLocal, d->to, *m, now_);
        note_sent(to, *m);
      }
      const auto s = sender_.poll_data(now_);
      if (!s) break;
      RDCC_FUZZ_CHECK(segments < 4096 && s->length > 0);
      check_segment(*s);
    }
    RDCC_FUZZ_CHECK(sender_.stats().invariant_violations == 0);
    if (!checker_.ok()) invariant_violated(checker_);
  }

  void note_sent(std::size_t to, const Message& m) {
    PeerState& p = peers_[to];
    if (const auto* a = std::get_if<AssocRequest>(&m);
        a != nullptr && !a->update_acknowledgment()) {
      if (a->sender_nonce != p.nonce) {
        p.nonce = a->sender_nonce;
        p.attempts = 0;
        p.answered = false;
      }
      ++p.attempts;
      remember(vocab_.nonces, a->sender_nonce);
    } else if (const auto* r = std::get_if<CreditRequest>(&m)) {
      remember(vocab_.message_ids, r->message_id);
      const RequestedLength k{to, r->header.association_id, r->message_id, r->message_length};
      if (auto* l = length_of(k.receiver, k.association_id, k.message_id)) {
        l->length = k.length;
      } else {
        lengths_.push_back(k);
      }
    }
  }

  void check_segment(const ref::DataSegment& s) {
    const std::size_t to = receiver_index(s.receiver);
    RDCC_FUZZ_CHECK(to < kReceivers && peers_[to].submitted);
    if (s.association_id == 0) {
      // Without RDCC: "if none is answered, the sender concludes that the receiver does not
      // support RDCC and sends without it" — only after eight unanswered attempts (an answer
      // that comes later changes nothing).
      PeerState& p = peers_[to];
      p.without_rdcc = p.without_rdcc || (p.attempts >= 8 && !p.answered);
      const auto status = sender_.association(s.receiver);
      RDCC_FUZZ_CHECK(p.without_rdcc && !s.unscheduled && status && status->without_rdcc);
      return;
    }
    const RequestedLength* length = length_of(to, s.association_id, s.message_id);
    RDCC_FUZZ_CHECK(length != nullptr && s.offset + s.length <= length->length);
    checker_.on_segment_sent(kLocal, s, now_);
  }

  ref::SeededRandom random_;
  ref::Sender sender_;
  WireBuffer wire_;
  checker::InvariantChecker checker_;
  ref::Time now_{};
  Vocabulary vocab_;
  std::array<ref::Address, kReceivers + 2> sources_{
      address_v4(192, 0, 2, 10, 50000), address_v4(192, 0, 2, 11, 50000),
      address_v4(198, 51, 100, 1, 50000), address_v4(203, 0, 113, 9, 50000)};
  std::array<PeerState, kReceivers + 2> peers_{};
  std::vector<ref::MessageHandle> handles_;
  // (receiver, Association ID, Message ID) -> length, from the requests: a Message ID names a
  // message "within an association" (Terminology), so two receivers' messages may share one.
  // A run names a few dozen messages at most: a vector searched from the newest (a map took
  // an allocation per message, which ASan makes expensive).
  struct RequestedLength {
    std::size_t receiver;
    std::uint32_t association_id;
    std::uint64_t message_id;
    std::uint64_t length;
  };
  RequestedLength* length_of(std::size_t receiver, std::uint32_t association_id,
                             std::uint64_t message_id) {
    for (auto it = lengths_.rbegin(); it != lengths_.rend(); ++it) {
      if (it->receiver == receiver && it->association_id == association_id &&
          it->message_id == message_id) {
        return &*it;
      }
    }
    return nullptr;
  }
  std::vector<RequestedLength> lengths_;
};

}  // namespace rdcc::testing
