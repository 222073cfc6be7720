// The narrow interface between ns-3 and the RDCC side of the ns-3 engine.
//
// fabric.cpp is the only translation unit that includes ns-3's headers: ns-3.37's headers do
// not compile as C++20 under g++ 12 (singleton.h, a template-id constructor), so it is built as
// C++17 and this header holds nothing but plain C++17 types. network.cpp (C++20) drives the
// reference endpoints through it, the way reference/sim drives them.
//
// No global state of ours: every object hangs off one Fabric. ns-3's simulator and its
// random-number seed manager are process-wide by ns-3's design, so one Fabric lives in a
// process at a time (a sweep runs one process per point, docs/ns3.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rdcc::ns3fabric {

struct LinkSpec {
  std::uint64_t rate_bps = 100'000'000'000ULL;
  std::int64_t delay_ns = 1000;  // propagation, one way
};

struct FabricSpec {
  enum class Kind : std::uint8_t { Star, LeafSpine };
  Kind kind = Kind::Star;
  std::vector<LinkSpec> host_links;  // one per host: host <-> its switch (star: the one switch)
  std::size_t leaves = 0;            // leaf-spine only
  std::size_t spines = 0;
  std::size_t hosts_per_leaf = 0;
  LinkSpec fabric_link;                      // leaf <-> spine
  bool ecmp = true;                          // leaf-spine: spray over every equal-cost path
  bool stack_forwarding = false;             // switches forward through Ipv4L3Protocol (fabric.cpp)
  std::uint64_t queue_capacity = 4U << 20U;  // octets, each queue of every port (tail drop)
  std::uint64_t ecn_threshold = 0;           // 0: FIFO data queues; else RED marks CE above it
  std::uint16_t control_port = 50000;        // RDCC datagrams (to or from it) take the control band
  std::uint16_t sender_port = 0;  // a second RDCC port (a sender beside a receiver), or 0
  std::uint32_t mtu = 9000;
  std::uint64_t run = 1;  // ns-3's run number (the description's seed)
};

// IPv4 addresses are host-order integers (10.0.0.1 is 0x0a000001).
struct Datagram {
  std::uint32_t from_ip = 0;
  std::uint16_t from_port = 0;
  std::uint32_t to_ip = 0;
  std::uint16_t to_port = 0;
  std::uint8_t tos = 0;  // DSCP << 2 | ECN, as it arrived
  const std::uint8_t* bytes = nullptr;
  std::size_t size = 0;  // the UDP payload
};

// What an application on a node calls: the RDCC side (network.cpp).
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual void on_datagram(const Datagram& d) = 0;
  virtual void on_timer(int slot) = 0;  // a timer armed with arm_timer(app, slot, ...)
  virtual void on_nic_idle() = 0;       // every packet this node sent has left its NIC
};

// One data packet leaving a switch's data queue (what a CRN observes).
struct DequeueSample {
  std::size_t switch_index = 0;
  std::uint16_t port = 0;       // 1-based, per switch
  std::uint64_t occupancy = 0;  // octets queued, this packet included
  std::uint32_t flows = 0;      // distinct flows queued, this packet's included
  std::uint8_t dscp = 0;
  std::uint32_t src_ip = 0;
  std::uint16_t src_port = 0;
  std::uint32_t dst_ip = 0;
  std::uint16_t dst_port = 0;
};

struct FabricStats {
  std::uint64_t tail_drops = 0;
  std::uint64_t ecn_marked = 0;
  std::uint64_t events = 0;  // ns-3 events executed
};

using AppId = std::size_t;

class Fabric {
 public:
  explicit Fabric(const FabricSpec& spec);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  [[nodiscard]] std::size_t hosts() const;
  [[nodiscard]] std::size_t switches() const;
  [[nodiscard]] std::uint32_t host_ip(std::size_t host) const;
  [[nodiscard]] std::uint32_t switch_ip(std::size_t sw) const;

  // An ns-3 Application on the host with a UDP socket on each of its ports (a port 0: no
  // socket), or on the switch with one socket bound to its address, forwarding to `e`.
  enum Socket : std::uint8_t { kControl, kSender, kData };
  AppId attach_host(std::size_t host, Endpoint* e, const std::array<std::uint16_t, 3>& ports);
  AppId attach_switch(std::size_t sw, Endpoint* e, std::uint16_t control_port);
  // A datagram from one of the app's sockets: `head` then `zero_fill` zero octets.
  void send(AppId app, Socket from, std::uint32_t to_ip, std::uint16_t to_port, std::uint8_t tos,
            const std::uint8_t* head, std::size_t head_size, std::size_t zero_fill);
  // Two timers per application (slot 0 and 1: a host's sender and receiver).
  void arm_timer(AppId app, int slot, std::int64_t at_ns);
  void cancel_timer(AppId app, int slot);
  [[nodiscard]] bool nic_idle(AppId app) const;

  // Called for every data packet leaving any switch's data queue.
  void on_data_dequeue(std::function<void(const DequeueSample&)> fn);
  // The data queue of the switch port toward the host (its last hop).
  [[nodiscard]] std::uint64_t queue_octets(std::size_t host) const;
  [[nodiscard]] std::uint64_t peak_queue(std::size_t host) const;

  // Every packet delivered to a host, as raw IPv4 (LINKTYPE_RAW) through ns-3's PcapHelper.
  void enable_pcap(const std::string& file);

  void schedule(std::int64_t at_ns, std::function<void()> fn);
  [[nodiscard]] std::int64_t now_ns() const;
  // Runs until `done()` holds (asked every `check_ns` of virtual time) or `limit_ns`.
  void run(std::int64_t limit_ns, std::int64_t check_ns, const std::function<bool()>& done);
  [[nodiscard]] FabricStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::ns3fabric
