#include "rdcc/conformance/adapter.hpp"

#include <charconv>

namespace rdcc::conformance {
namespace {

std::optional<std::uint16_t> port_of(std::string_view s) {
  unsigned v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size() || v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

}  // namespace

std::variant<AdapterSpec, std::string> parse_adapter_spec(const std::string& text) {
  AdapterSpec spec;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "reference") {
    spec.kind = AdapterSpec::Kind::Reference;
    if (rest.empty() && colon == std::string::npos) {
      spec.any_role = true;
    } else if (rest == "receiver") {
      spec.role = Role::Receiver;
    } else if (rest == "sender") {
      spec.role = Role::Sender;
    } else if (rest == "crn") {
      spec.role = Role::Crn;
    } else {
      return "--iut reference[:ROLE]: ROLE must be receiver, sender or crn, not '" + rest + "'";
    }
    return spec;
  }
  if (kind == "udp") {
    spec.kind = AdapterSpec::Kind::Udp;
    std::string addr = rest.substr(0, rest.find(','));
    // Options after the address: data=PORT (the opaque data port), rocev2=PORT (RoCEv2).
    for (auto comma = rest.find(','); comma != std::string::npos;) {
      const auto next = rest.find(',', comma + 1);
      const std::string opt = rest.substr(comma + 1, next == std::string::npos ? std::string::npos
                                                                                : next - comma - 1);
      comma = next;
      const auto eq = opt.find('=');
      const std::uint16_t port =
          eq == std::string::npos ? 0 : port_of(opt.substr(eq + 1)).value_or(std::uint16_t{0});
      const std::string key = opt.substr(0, eq);
      if (port != 0 && key == "data") {
        spec.data_port = port;
      } else if (port != 0 && key == "rocev2") {
        spec.rocev2_port = port;
      } else {
        return "--iut udp:HOST:PORT[,data=PORT][,rocev2=PORT]: expected data=PORT or rocev2=PORT "
               "after ',', not '" + opt + "'";
      }
    }
    const auto last = addr.rfind(':');
    if (last == std::string::npos || last == 0 || !port_of(addr.substr(last + 1))) {
      return "--iut udp:HOST:PORT[,data=PORT][,rocev2=PORT]: expected HOST:PORT, not '" + addr + "'";
    }
    spec.host = addr.substr(0, last);
    if (spec.host.size() > 2 && spec.host.front() == '[' && spec.host.back() == ']') {
      spec.host = spec.host.substr(1, spec.host.size() - 2);
    }
    spec.port = *port_of(addr.substr(last + 1));
    return spec;
  }
  if (kind == "exec") {
    spec.kind = AdapterSpec::Kind::Exec;
    spec.command = rest;
    if (spec.command.empty()) return std::string("--iut exec:COMMAND: the command is empty");
    return spec;
  }
  return "--iut must be reference:receiver|sender|crn, udp:HOST:PORT[,data=PORT] or "
         "exec:COMMAND, not '" + text + "'";
}

std::unique_ptr<Adapter> make_adapter(const AdapterSpec& spec) {
  switch (spec.kind) {
    case AdapterSpec::Kind::Reference:
      return make_reference_adapter(spec);
    case AdapterSpec::Kind::Udp:
    case AdapterSpec::Kind::Exec:
      return make_socket_adapter(spec);
  }
  return make_reference_adapter(spec);
}

}  // namespace rdcc::conformance
