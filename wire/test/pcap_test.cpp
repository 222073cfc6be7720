// Capture files (pcap.hpp) through libpcap: written and read back, snap lengths, damaged and
// missing files named with the file and the frame; addresses as text (address.hpp).
#include "rdcc/wire/pcap.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "rdcc/wire/checksum.hpp"
#include "rdcc/wire/ip.hpp"

namespace rdcc::wire {
namespace {

struct TempFile {
  std::string path;
  TempFile() {
    char name[] = "/tmp/rdcc_wire_test_XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

std::vector<std::byte> frame_of(std::size_t n, std::uint8_t seed) {
  const Address a = Address::v4(10, 0, 0, seed, 1000);
  const Address b = Address::v4(10, 0, 0, 99, 2000);
  std::vector<std::byte> payload(n, static_cast<std::byte>(seed));
  return udp_frame(a, b, payload);
}

TEST(Pcap, WriteThenRead_SameFramesTimesAndLengths) {
  TempFile f;
  {
    PcapWriter w(f.path);
    w.write(kEpochMicros, frame_of(10, 1));
    w.write(kEpochMicros + 1500, frame_of(200, 2));
    const auto cut = frame_of(300, 3);
    w.write(kEpochMicros + 2000001, std::span(cut).first(60),
            static_cast<std::uint32_t>(cut.size()));
    EXPECT_EQ(w.count(), 3U);
  }
  CaptureReader r;
  std::string error;
  ASSERT_TRUE(r.open(f.path, error)) << error;
  EXPECT_EQ(r.link_type(), kLinkTypeEthernet);
  CapturedFrame c;
  ASSERT_TRUE(r.next(c, error));
  EXPECT_EQ(c.number, 1U);
  EXPECT_EQ(c.time_ns, kEpochMicros * 1000);
  EXPECT_EQ(std::vector<std::byte>(c.data.begin(), c.data.end()), frame_of(10, 1));
  ASSERT_TRUE(r.next(c, error));
  EXPECT_EQ(c.relative_ns, 1500000);
  EXPECT_EQ(parse_frame(c.data, r.link_type()).payload.size(), 200U);
  ASSERT_TRUE(r.next(c, error));
  EXPECT_EQ(c.data.size(), 60U);
  EXPECT_EQ(c.original_length, frame_of(300, 3).size());
  EXPECT_EQ(parse_frame(c.data, r.link_type()).kind, FrameKind::Malformed);
  std::vector<std::byte> filled;
  const ParsedFrame z = parse_zero_filled(c, r.link_type(), filled);
  EXPECT_EQ(z.kind, FrameKind::Udp);
  EXPECT_TRUE(z.zero_filled);
  EXPECT_EQ(z.payload.size(), 300U);
  EXPECT_FALSE(r.next(c, error));
  EXPECT_EQ(error, "");
}

TEST(Pcap, MissingFile_ErrorNamesTheFile) {
  CaptureReader r;
  std::string error;
  EXPECT_FALSE(r.open("/nonexistent/x.pcap", error));
  EXPECT_NE(error.find("/nonexistent/x.pcap"), std::string::npos) << error;
}

TEST(Pcap, NotACapture_ErrorNamesTheFile) {
  TempFile f;
  std::ofstream(f.path) << "not a capture at all, just text\n";
  CaptureReader r;
  std::string error;
  EXPECT_FALSE(r.open(f.path, error));
  EXPECT_NE(error.find(f.path + ": not a readable pcap or pcapng file"), std::string::npos)
      << error;
}

TEST(Pcap, CutInsideARecord_ErrorNamesTheFrameBefore) {
  TempFile f;
  {
    PcapWriter w(f.path);
    w.write(kEpochMicros, frame_of(10, 1));
    w.write(kEpochMicros + 1, frame_of(10, 2));
  }
  std::filesystem::resize_file(f.path, std::filesystem::file_size(f.path) - 5);
  CaptureReader r;
  std::string error;
  ASSERT_TRUE(r.open(f.path, error)) << error;
  CapturedFrame c;
  EXPECT_TRUE(r.next(c, error));
  EXPECT_FALSE(r.next(c, error));
  EXPECT_NE(error.find(f.path + ": damaged after frame 1"), std::string::npos) << error;
}

TEST(Pcap, UnwritablePath_Throws) {
  EXPECT_THROW(PcapWriter("/nonexistent/dir/x.pcap"), std::runtime_error);
}

// Every whole frame of the golden captures (pcaps/) carries an IPv4 header checksum and a UDP
// checksum that verify (RoCEv2 over IPv4 sends a UDP checksum of zero: none).
TEST(Pcap, GoldenCaptures_ChecksumsVerify) {
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RDCC_PCAPS_DIR)) {
    if (entry.path().extension() != ".pcap") continue;
    CaptureReader r;
    std::string error;
    ASSERT_TRUE(r.open(entry.path().string(), error)) << error;
    CapturedFrame c;
    while (r.next(c, error)) {
      const ParsedFrame f = parse_frame(c.data, r.link_type());
      if (f.kind != FrameKind::Udp) continue;
      const std::size_t ip = ip_header_size(f.source.ipv6);
      if (!f.source.ipv6) {
        EXPECT_EQ(internet_checksum(f.ip_packet.first(kIpv4HeaderSize)), 0)
            << entry.path() << " frame " << c.number;
      }
      if (f.udp_checksum == 0) continue;
      std::vector<std::byte> datagram(f.ip_packet.begin() + static_cast<std::ptrdiff_t>(ip),
                                      f.ip_packet.end());
      datagram[6] = datagram[7] = std::byte{0};
      EXPECT_EQ(udp_checksum(f.source, f.destination, datagram), f.udp_checksum)
          << entry.path() << " frame " << c.number;
      ++checked;
    }
    EXPECT_EQ(error, "");
  }
  EXPECT_GT(checked, 400U);  // every golden capture's UDP datagrams (471 at the last count)
}

TEST(Address, TextRoundTrip) {
  for (const std::string text : {"192.0.2.1:50000", "[2001:db8::1]:4791", "0.0.0.0:0"}) {
    Address a;
    ASSERT_TRUE(Address::parse(text, a)) << text;
    EXPECT_EQ(a.to_string(), text);
  }
  Address a;
  EXPECT_FALSE(Address::parse("192.0.2.1", a));
  EXPECT_FALSE(Address::parse("[2001:db8::1]4791", a));
  EXPECT_FALSE(Address::parse("192.0.2.1:65536", a));
  EXPECT_EQ(Address::documentation_v6(0x1fe, 7).to_string(), "[2001:db8::1fe]:7");
}

}  // namespace
}  // namespace rdcc::wire
