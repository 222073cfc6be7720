#include "rdcc/pcaps/capture.hpp"

#include <pcap/pcap.h>

#include <algorithm>
#include <stdexcept>

namespace rdcc::pcaps {

struct PcapWriter::Handles {
  pcap_t* pcap = nullptr;
  pcap_dumper_t* dumper = nullptr;
};

PcapWriter::PcapWriter(const std::string& path, int link_type) : handles_(new Handles) {
  handles_->pcap = pcap_open_dead_with_tstamp_precision(link_type, 65535,
                                                        PCAP_TSTAMP_PRECISION_MICRO);
  if (handles_->pcap != nullptr) handles_->dumper = pcap_dump_open(handles_->pcap, path.c_str());
  if (handles_->dumper == nullptr) {
    const std::string why = handles_->pcap != nullptr ? pcap_geterr(handles_->pcap) : "no memory";
    if (handles_->pcap != nullptr) pcap_close(handles_->pcap);
    delete handles_;
    throw std::runtime_error("cannot create " + path + ": " + why);
  }
}

PcapWriter::~PcapWriter() {
  pcap_dump_close(handles_->dumper);
  pcap_close(handles_->pcap);
  delete handles_;
}

void PcapWriter::write(std::int64_t time_us, std::span<const std::byte> frame,
                       std::uint32_t original_length) {
  pcap_pkthdr header{};
  header.ts.tv_sec = static_cast<time_t>(time_us / 1000000);
  header.ts.tv_usec = static_cast<suseconds_t>(time_us % 1000000);
  header.caplen = static_cast<bpf_u_int32>(frame.size());
  header.len = std::max(header.caplen, bpf_u_int32{original_length});
  pcap_dump(reinterpret_cast<u_char*>(handles_->dumper), &header,  // libpcap's C interface
            reinterpret_cast<const u_char*>(frame.data()));
  ++count_;
}

std::vector<Packet> read_pcap(const std::string& path) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pcap = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_MICRO,
                                                         errbuf);
  if (pcap == nullptr) throw std::runtime_error("cannot read " + path + ": " + errbuf);
  if (pcap_datalink(pcap) != DLT_EN10MB) {
    pcap_close(pcap);
    throw std::runtime_error(path + ": not an Ethernet capture");
  }
  std::vector<Packet> packets;
  pcap_pkthdr* header = nullptr;
  const u_char* data = nullptr;
  int rc = 0;
  while ((rc = pcap_next_ex(pcap, &header, &data)) == 1) {
    Packet p;
    p.time_us = std::int64_t{header->ts.tv_sec} * 1000000 + header->ts.tv_usec;
    const auto* bytes = reinterpret_cast<const std::byte*>(data);  // libpcap's C interface
    p.frame.assign(bytes, bytes + header->caplen);
    p.original_length = header->len;
    packets.push_back(std::move(p));
  }
  if (rc == PCAP_ERROR) {
    const std::string why = pcap_geterr(pcap);
    pcap_close(pcap);
    throw std::runtime_error(path + ": " + why);
  }
  pcap_close(pcap);
  return packets;
}

}  // namespace rdcc::pcaps
