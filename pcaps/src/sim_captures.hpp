// The simulator's golden captures (ARCHITECTURE.md, "pcaps and tools"): the reference endpoints
// on rdcc::sim::Network with fixed seeds and virtual time, every packet as the switch delivered
// it, framed in Ethernet and cut to a snap length.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace rdcc::pcaps {

// The RDCC port of the captures' limited domain (the spec forbids a default port; the
// dissector tests configure this one explicitly, "Port Configuration").
inline constexpr std::uint16_t kRdccPort = 50000;

// Writes the simulator's captures into `dir` and their sections of INDEX.md into `index`.
void write_simulated(const std::string& dir, std::ostream& index);

}  // namespace rdcc::pcaps
