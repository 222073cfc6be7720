// How the runner reaches an implementation under test (IUT): UDP payloads with addresses and
// ports, whatever the adapter, so that the pcap of a run looks the same for all of them.
//
//  - reference: the in-process reference Receiver / Sender / Crn in virtual time;
//  - udp:HOST:PORT[,data=PORT][,rocev2=PORT]: a running endpoint, over real sockets, in real time;
//  - exec:"COMMAND {rdcc_port} {data_port} {tester_port}": a command started per scenario,
//    its stdin/stdout the upper tester (docs/upper-tester.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "rdcc/conformance/scenario.hpp"
#include "rdcc/reference/address.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/framing.hpp"
#include "rdcc/reference/io.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::conformance {

using ref::Address;
using ref::Duration;
using ref::Time;

// The DSCP of each Traffic Class, class 0 first.
using ClassDscps = std::array<std::uint8_t, 8>;

// One UDP datagram between the tester and the IUT.
struct Packet {
  Time time;
  Address from;
  Address to;
  bool data = false;    // on the data port (opaque binding), not RDCC control
  bool rocev2 = false;  // data: a RoCEv2 packet (UDP payload: BTH ... ICRC) to the RoCEv2 port
  std::uint8_t dscp = 0;
  bool ce = false;  // data: arrived (or is sent) with ECN CE
  std::vector<std::byte> payload;
  // A data segment the IUT (a sender) released, as it put it on the transport (reference only).
  std::optional<ref::DataSegment> segment;
  // When the tester's kernel took the packet in (real-time adapters; on loopback, within the
  // IUT's send call): what the invariant checker judges the IUT's timing by. `time` is when
  // the tester read it, what the scenario's windows are measured by.
  std::optional<Time> kernel_time;
};

// A queue observation for a CRN IUT (in-process only).
struct QueueSample {
  std::uint16_t port = 0;
  std::uint64_t occupancy = 0;
  std::uint8_t dscp = 0;
  Address source;
  Address destination;
  std::uint8_t protocol = 17;
  std::uint32_t flows = 1;
};

// The upper tester's `queue` request for an observation (docs/upper-tester.md, "A CRN's upper
// tester"; its keys are the table's, rdcc/udp/upper_tester_ops.hpp).
[[nodiscard]] nlohmann::json queue_request(const QueueSample& q);

// The answer of the upper tester: {"ok": true, ...} or {"ok": false, "error": "...", ...}.
using UpperResponse = nlohmann::json;

// How an exec: IUT's process ended.
struct IutExit {
  int status = 0;  // its exit status, when it exited
  int signal = 0;  // the signal that ended it (0: it exited)
  // "exited with status 3", "was killed by signal 11 (SIGSEGV)"
  [[nodiscard]] std::string describe() const;
  friend bool operator==(const IutExit&, const IutExit&) = default;
};

// Datagrams that reached the tester's sockets from a source that is not the IUT's: dropped,
// never judged, counted for the report.
struct ForeignDatagrams {
  static constexpr std::size_t kSourcesKept = 4;
  std::uint64_t count = 0;
  std::vector<Address> sources;  // the first kSourcesKept distinct ones
};

class Adapter {
 public:
  virtual ~Adapter() = default;

  // Starts the IUT for one scenario. Returns an error text if it cannot (the verdict is then
  // inconclusive, or unsupported when the IUT says so through `unsupported`).
  virtual std::optional<std::string> start(const Scenario& s) = 0;

  // RDCC addresses, and the data ports. Data is sent from the RDCC address to the peer's
  // data port (docs/data-transport.md; docs/spec-notes.md 55).
  [[nodiscard]] virtual Address iut_control() const = 0;
  [[nodiscard]] virtual Address iut_data() const = 0;
  [[nodiscard]] virtual Address tester_control() const = 0;
  [[nodiscard]] virtual Address tester_data() const = 0;
  // The IUT's RoCEv2 address (a receiver's RDMA interface: UDP port 4791 on a real network);
  // port 0 when the adapter has none (send rocev2 is then unsupported).
  [[nodiscard]] virtual Address iut_rocev2() const { return {}; }
  // Another host's RDCC address, neither the IUT's peer nor a configured CRN ($other; from=
  // sends from it). A default Address when the adapter has none.
  [[nodiscard]] virtual Address other_control() const = 0;
  [[nodiscard]] virtual bool virtual_time() const = 0;
  [[nodiscard]] virtual std::string describe() const = 0;  // "reference:receiver", ...

  [[nodiscard]] virtual Time now() = 0;
  // Sends a packet (control or data) from the tester to the IUT.
  virtual void send(const Packet& p) = 0;
  // The next packet from the IUT, waiting (or advancing virtual time) until `deadline`.
  [[nodiscard]] virtual std::optional<Packet> receive(Time deadline) = 0;
  // On real sockets: how late, at most, the tester woke from its waits so far in this run (the
  // host's scheduling jitter, which the IUT's sends suffer as well); zero in virtual time. The
  // runner widens the checker's timing tolerance to a multiple of it (docs/scenario-language.md,
  // "Timing on real adapters").
  [[nodiscard]] virtual Duration wake_jitter() const { return {}; }
  // The IUT's upper tester.
  [[nodiscard]] virtual UpperResponse upper(const nlohmann::json& request) = 0;
  // A queue observation (CRN IUT); an error text if the adapter cannot.
  [[nodiscard]] virtual std::optional<std::string> queue(const QueueSample& q) = 0;
  // Events of the IUT since the last call (reference only; others return none).
  [[nodiscard]] virtual std::vector<ref::Event> take_events() = 0;
  // The receiver budget G and D_max to hold a receiver IUT to: the reference's configuration;
  // on udp: and exec:, what the IUT declared (AdapterSpec::declared) with the scenario's
  // `config budget=` and `d_max_us=` over it; none when no budget is known.
  [[nodiscard]] virtual std::optional<std::pair<std::uint64_t, Duration>> receiver_budget()
      const = 0;
  // Ends the IUT (exec: the command) and returns its log (exec: its standard error; others:
  // empty). Called once, after the scenario.
  virtual std::string finish() { return {}; }
  // How the IUT frames opaque data (docs/data-transport.md): the project's framing unless
  // --data-framing names another.
  [[nodiscard]] virtual const ref::DataFraming& data_framing() const {
    static const ref::DataFraming project;
    return project;
  }
  // Set when the IUT declared the scenario unsupported (exec adapter: exit 127, upper tester).
  [[nodiscard]] virtual std::optional<std::string> unsupported() const = 0;
  // After finish(): how the IUT's process ended when it ended by itself before the scenario
  // did (exec:); none when it ran to the end, or the adapter starts no process.
  [[nodiscard]] virtual std::optional<IutExit> iut_exit() const { return std::nullopt; }
  // The datagrams from sources other than the IUT's, which the scenario never saw (udp:,
  // exec:; the in-process reference has none).
  [[nodiscard]] virtual const ForeignDatagrams& foreign() const {
    static const ForeignDatagrams none;
    return none;
  }
  // The IUT upper tester's answer to hello (docs/upper-tester.md), when the adapter asked for it:
  // its "ops", the submit "modes" it honours, its "unscheduled_dscp". None: not asked, or no
  // upper tester. The runner checks a scenario's needs against it before the first step.
  [[nodiscard]] virtual std::optional<nlohmann::json> hello() const { return std::nullopt; }
  // The DSCP the IUT marks (a sender) or classifies (a CRN) unscheduled data with, and that the
  // tester uses for its own unscheduled data: the hello answer's "unscheduled_dscp" (null: the
  // IUT has none configured), else --unscheduled-dscp. None: no unscheduled DSCP is configured
  // ("if one is configured", Unscheduled Transmission, rule 4): $unscheduled_dscp is unset.
  [[nodiscard]] virtual std::optional<std::uint8_t> unscheduled_dscp() const = 0;
  // The DSCP the domain configures for each Traffic Class, as the IUT has it ("the DSCP that the
  // domain configures for that class", Traffic Classes and Pool Credit): the hello answer's
  // "class_dscp" (eight numbers, class 0 first; null: none known), else --class-dscp. None:
  // $class_dscp_0 .. $class_dscp_7 are unset, and a scenario that uses one is unsupported.
  [[nodiscard]] virtual std::optional<ClassDscps> class_dscps() const { return std::nullopt; }
};

// What --iut names: "reference:receiver",
// "udp:HOST:PORT[,data=PORT][,rocev2=PORT][,budget=N][,unscheduled_budget=N][,d_max=US][,link=MBPS]",
// "exec:COMMAND".
// The parameters a udp: or exec: IUT declares, which the tester cannot read off the wire but the
// invariant checker needs: from udp: options (budget=, unscheduled_budget=, d_max=, link=) or
// from the exec: command's own options as the reference node spells them (--budget,
// --unscheduled-budget, --d-max, --link-capacity).
struct DeclaredParameters {
  std::optional<std::uint64_t> budget;              // G, octets
  std::optional<std::uint64_t> unscheduled_budget;  // G_u, octets
  std::optional<Duration> d_max;                    // the domain's D_max
  std::optional<std::uint32_t> link_capacity_mbps;  // the receiver's access link
};

// The parameters an exec: command gives the reference node (`--budget N`, `--d-max US`, ...),
// where it names them; the rest stay unknown.
[[nodiscard]] DeclaredParameters declared_from_command(const std::string& command);

struct AdapterSpec {
  enum class Kind : std::uint8_t { Reference, Udp, Exec };
  Kind kind = Kind::Reference;
  Role role = Role::Receiver;     // the IUT's role
  bool any_role = false;          // "reference": each scenario on the reference of its role
  std::string host;               // udp
  std::uint16_t port = 0;         // udp
  std::uint16_t data_port = 0;    // udp (0: none)
  std::uint16_t rocev2_port = 0;  // udp (0: none)
  // udp: the running IUT's upper tester (docs/upper-tester.md, tcp mode), "HOST:PORT"; empty:
  // none. A connection of its own per scenario.
  std::string upper;
  // udp: the port the tester's data socket binds (0: one the system picks), for a sender IUT
  // configured with a fixed data port of its receivers (`rdcc sender --data-port N`).
  std::uint16_t tester_data_port = 0;
  // udp: the configuration the running IUT was started with, by the scenario language's `config`
  // keys (udp:...,max_associations=2; budget=, unscheduled_budget=, d_max=, link= count too): a
  // scenario whose every `config` key is declared with its value runs; any other is unsupported.
  std::map<std::string, std::uint64_t> configured;
  // udp: the IUT was started for this run and serves nothing else (udp:...,fresh): scenarios
  // tagged fresh-iut run (one scenario per run, as a vendor who restarts the device does).
  bool fresh = false;
  std::string command;               // exec
  DeclaredParameters declared;       // udp: options; exec: the command's options
  std::vector<std::string> mutants;  // reference: --mutant
  std::string variant;               // reference: --variant (empty: the default behaviour)
  // reference: a random conforming variant, SEED:INDEX[:NAME,...]
  // (rdcc/testing/random_variants.hpp)
  std::string random_variant;
  ref::DataFraming data_framing;  // --data-framing: how the IUT frames opaque data
  Duration tolerance_abs = ref::microseconds(200);
  double tolerance_rel = 0.10;
  // udp:, exec: the domain's unscheduled DSCP as the IUT is configured with it (--unscheduled-dscp
  // N|none), unless its upper tester's hello says otherwise.
  std::optional<std::uint8_t> unscheduled_dscp = 8;
  // udp:, exec: the domain's DSCP of each Traffic Class (--class-dscp D0,...,D7|none), unless
  // the IUT's hello says otherwise; by default 0 for every class (Default forwarding).
  std::optional<ClassDscps> class_dscps = ClassDscps{};
};

// A scenario's configuration (`config KEY=VALUE ...`) as options of the reference node of its
// role (`rdcc receiver|sender|crn`), for exec:'s {config}: ["--budget", "262144", ...], or the
// error naming a key that has no such option. Keys in the map's order.
[[nodiscard]] std::variant<std::vector<std::string>, std::string> node_config_options(
    Role role, const std::map<std::string, std::uint64_t>& config);
// The same as written, for exec:'s {config_keys}: "budget=262144 unscheduled_budget=65536".
[[nodiscard]] std::string config_keys_text(const std::map<std::string, std::uint64_t>& config);

// Parses --class-dscp's text into `out`: "none" (no map known), or eight DSCPs 0..63 separated
// by commas, class 0 first. An error names the item and why; `out` is then unchanged.
[[nodiscard]] std::optional<std::string> parse_class_dscps(std::string_view text,
                                                           std::optional<ClassDscps>& out);
// Parses --iut; an error text names what was wrong.
[[nodiscard]] std::variant<AdapterSpec, std::string> parse_adapter_spec(const std::string& text);
// Before a run against a udp: IUT: whether anything answers at its address, so that an IUT
// that is not running, or a wrong port, is one error for the run and not a failure per
// scenario. The error names the address; none when it answers or is merely silent. exec: whether
// the shell finds the command (a mistyped path is one error, not "unsupported" per scenario).
// Reference: none. A receiver that is merely silent (no ICMP error) is not an error: `note`, when
// given, says so.
[[nodiscard]] std::optional<std::string> probe_liveness(const AdapterSpec& spec,
                                                        std::string* note = nullptr);
// The exec: command with a mutant of the reference node: `{mutant}` replaced by "--mutant NAME"
// (by nothing for none), or " --mutant NAME" appended to a command without the placeholder.
[[nodiscard]] std::string command_with_mutant(const std::string& command,
                                              const std::string& mutant);

// The value of configuration key `key` the in-process reference IUT of `role` runs with when a
// scenario's `config` leaves it out (empty: none configured, or no such key).
[[nodiscard]] std::vector<std::uint64_t> reference_config_default(Role role, std::string_view key);

// `rdcc-conform --list-config`: per role, each `config` key with its unit, the reference IUT's
// default, its range, the reference node's option (what {config} gives) and its doc; `seed`
// first (the in-process reference's alone).
[[nodiscard]] std::string config_keys_table();

// A fresh adapter for one scenario run.
[[nodiscard]] std::unique_ptr<Adapter> make_adapter(const AdapterSpec& spec);
[[nodiscard]] std::unique_ptr<Adapter> make_reference_adapter(const AdapterSpec& spec);
// udp: and exec: (real sockets on the tester's side, real time).
[[nodiscard]] std::unique_ptr<Adapter> make_socket_adapter(const AdapterSpec& spec);

}  // namespace rdcc::conformance
