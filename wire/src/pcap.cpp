// Capture files (pcap.hpp).
#include "rdcc/wire/pcap.hpp"

#include <pcap/pcap.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace rdcc::wire {

struct PcapWriter::Handles {
  pcap_t* pcap = nullptr;
  pcap_dumper_t* dumper = nullptr;
};

PcapWriter::PcapWriter(const std::string& path, int link_type) : handles_(new Handles) {
  handles_->pcap =
      pcap_open_dead_with_tstamp_precision(link_type, 65535, PCAP_TSTAMP_PRECISION_MICRO);
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

ParsedFrame parse_zero_filled(const CapturedFrame& frame, int link_type,
                              std::vector<std::byte>& buffer) {
  if (frame.original_length <= frame.data.size()) return parse_frame(frame.data, link_type);
  buffer.assign(frame.data.begin(), frame.data.end());
  buffer.resize(frame.original_length);
  ParsedFrame parsed = parse_frame(buffer, link_type);
  if (parsed.kind != FrameKind::Udp) return parse_frame(frame.data, link_type);
  parsed.zero_filled = true;
  return parsed;
}

struct CaptureReader::Handle {
  // libpcap reads each record through stdio: a large buffer makes that one read() per MiB
  // instead of one per 4 KiB. It outlives the FILE (pcap_close closes it).
  static constexpr std::size_t kBuffer = 1U << 20;
  std::unique_ptr<char[]> buffer;
  pcap_t* pcap = nullptr;
  // A classic pcap file (version 2.4) is read in large blocks straight from the file, record
  // by record, without libpcap's per-record reads through stdio. libpcap still opens the file
  // (its checks of the file header, its link type) and takes over at the first record that is
  // not plain (cut short, longer than the snapshot length, beyond the size the file had when
  // opened), so that its handling and its error messages stay the only ones.
  bool direct = false;  // reading the records here
  int fd = -1;          // libpcap's file: read with pread, which leaves its offset alone
  std::uint64_t file_size = 0;
  std::uint64_t file_at = 0;  // file offset of block[end]
  std::vector<std::uint8_t> block;
  std::size_t begin = 0;     // the next record in `block`
  std::size_t end = 0;       // octets read into `block`
  bool swapped = false;      // the file's byte order is not ours
  bool nanoseconds = false;  // time stamps in nanoseconds (else microseconds)
  std::uint32_t max_caplen = 0;
  ~Handle() {
    if (pcap != nullptr) pcap_close(pcap);
  }
  [[nodiscard]] std::uint32_t u32(const std::uint8_t* p) const {
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap32(v) : v;
  }
  // At least `need` octets from `begin` in `block`, unless the file (as large as it was when
  // opened) ends first.
  bool fill(std::size_t need) {
    if (end - begin >= need) return true;
    std::memmove(block.data(), block.data() + begin, end - begin);
    end -= begin;
    begin = 0;
    while (end < need && file_at < file_size) {
      const ssize_t n =
          pread(fd, block.data() + end, block.size() - end, static_cast<off_t>(file_at));
      if (n <= 0) return false;
      end += static_cast<std::size_t>(n);
      file_at += static_cast<std::uint64_t>(n);
    }
    return end >= need;
  }
  // Reads the records here if `file` is a regular classic pcap file of version 2.4 (pcapng,
  // and files libpcap reads specially, stay with libpcap).
  void try_direct(std::FILE* file) {
    struct stat st {};
    fd = fileno(file);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 24) return;
    std::uint8_t header[24];
    if (pread(fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return;
    std::uint32_t magic = 0;
    std::memcpy(&magic, header, sizeof magic);
    const std::uint32_t other = __builtin_bswap32(magic);
    if (magic == 0xa1b2c3d4U || magic == 0xa1b23c4dU) {
      nanoseconds = magic == 0xa1b23c4dU;
    } else if (other == 0xa1b2c3d4U || other == 0xa1b23c4dU) {
      swapped = true;
      nanoseconds = other == 0xa1b23c4dU;
    } else {
      return;
    }
    std::uint16_t major = 0;
    std::uint16_t minor = 0;
    std::memcpy(&major, header + 4, 2);
    std::memcpy(&minor, header + 6, 2);
    if (swapped) {
      major = __builtin_bswap16(major);
      minor = __builtin_bswap16(minor);
    }
    const int snapshot = pcap_snapshot(pcap);
    if (major != 2 || minor != 4 || snapshot <= 0) return;
    max_caplen = static_cast<std::uint32_t>(std::min(snapshot, 262144));
    block.resize(std::size_t{1} << 20);  // above 16 + the largest caplen
    file_size = static_cast<std::uint64_t>(st.st_size);
    file_at = 24;
    direct = true;
  }
};

CaptureReader::CaptureReader() : handle_(std::make_unique<Handle>()) {}
CaptureReader::~CaptureReader() = default;

bool CaptureReader::open(const std::string& path, std::string& error) {
  char message[PCAP_ERRBUF_SIZE] = {};
  // "-": standard input, a pipe from a live capture; frames are read as they arrive (stdio's
  // read returns what the pipe holds, it does not wait for the buffer to fill).
  const bool standard_input = path == "-";
  path_ = standard_input ? "standard input" : path;
  std::FILE* file = standard_input ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    error = path + ": not a readable pcap or pcapng file: " + std::strerror(errno);
    return false;
  }
  handle_->buffer = std::make_unique<char[]>(Handle::kBuffer);
  std::setvbuf(file, handle_->buffer.get(), _IOFBF, Handle::kBuffer);
  handle_->pcap =
      pcap_fopen_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, message);
  if (handle_->pcap == nullptr) {
    std::fclose(file);
    error = path_ + ": not a readable pcap or pcapng file: " + message;
    return false;
  }
  link_type_ = pcap_datalink(handle_->pcap);
  handle_->try_direct(file);
  if (!link_type_supported(link_type_)) {
    error = path_ + ": link type " + link_type_name(link_type_) + " (" +
            std::to_string(link_type_) +
            ") is not handled (Ethernet, Linux cooked v1/v2, raw IP and loopback are)";
    return false;
  }
  return true;
}

bool CaptureReader::next(CapturedFrame& frame, std::string& error) {
  // The frame of the next record, whichever reader found it.
  const auto take = [&](std::int64_t time_ns, std::uint32_t length, const void* data,
                        std::uint32_t caplen) {
    frame.number = ++count_;
    frame.time_ns = time_ns;
    if (count_ == 1) first_ns_ = time_ns;
    frame.relative_ns = time_ns - first_ns_;
    frame.original_length = length;
    frame.data = std::span<const std::byte>(static_cast<const std::byte*>(data), caplen);
  };
  Handle& h = *handle_;
  if (h.direct) {
    if (h.file_at == h.file_size && h.begin == h.end) return false;
    if (h.fill(16)) {
      const std::uint8_t* record = h.block.data() + h.begin;
      const std::uint32_t caplen = h.u32(record + 8);
      if (caplen <= h.max_caplen && h.fill(16 + static_cast<std::size_t>(caplen))) {
        record = h.block.data() + h.begin;
        const std::int64_t fraction = h.u32(record + 4);
        take(static_cast<std::int64_t>(h.u32(record)) * 1000000000 +
                 (h.nanoseconds ? fraction : fraction * 1000),
             h.u32(record + 12), record + 16, caplen);
        h.begin += 16 + static_cast<std::size_t>(caplen);
        return true;
      }
    }
    // Not a plain record: libpcap reads on from here (it has read only the file header).
    h.direct = false;
    pcap_pkthdr* skipped = nullptr;
    const u_char* skipped_data = nullptr;
    for (std::uint64_t i = 0; i < count_; ++i) {
      if (pcap_next_ex(h.pcap, &skipped, &skipped_data) != 1) break;
    }
  }
  pcap_pkthdr* header = nullptr;
  const u_char* data = nullptr;
  const int status = pcap_next_ex(handle_->pcap, &header, &data);
  if (status == PCAP_ERROR_BREAK) return false;
  if (status != 1) {
    error = path_ + ": damaged after frame " + std::to_string(count_) + ": " +
            pcap_geterr(handle_->pcap);
    return false;
  }
  take(static_cast<std::int64_t>(header->ts.tv_sec) * 1000000000 +
           static_cast<std::int64_t>(header->ts.tv_usec),  // nanoseconds (precision NANO)
       header->len, data, header->caplen);
  return true;
}

}  // namespace rdcc::wire
