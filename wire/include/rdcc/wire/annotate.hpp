// Packet comments on a capture: the frames a check flagged, each with the rule's ID and its
// sentence, readable in Wireshark as `frame.comment`. libpcap cannot write comments (pcapng
// options), so Wireshark's own editcap writes the annotated copy (`editcap -a FRAME:COMMENT`,
// Wireshark 3.6 and later). `rdcc pcap check --annotate` and the conformance report use it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdcc::wire {

// Comments per frame (1-based, as Wireshark numbers them); several on one frame are joined, a
// line each (editcap keeps one comment per frame).
using FrameComments = std::map<std::uint64_t, std::vector<std::string>>;

// The editcap that annotate_capture runs: $RDCC_EDITCAP, else `editcap` on the PATH; nothing
// when there is none (or it lacks -a). Looked up once per process.
[[nodiscard]] std::optional<std::string> find_editcap();

// Writes `out` (pcapng): `in` with a comment on every frame of `comments`. Returns why not
// (no editcap, editcap's failure with its message), or nothing.
[[nodiscard]] std::optional<std::string> annotate_capture(const std::string& in,
                                                          const std::string& out,
                                                          const FrameComments& comments);

}  // namespace rdcc::wire
