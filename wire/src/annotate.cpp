#include "rdcc/wire/annotate.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

extern char** environ;

namespace rdcc::wire {
namespace {

struct Ran {
  int status = -1;     // exit status; -1: did not start or died of a signal
  std::string output;  // standard output and error
  std::string error;   // why it did not start
};

// Runs argv[0] (searched on the PATH) without a shell, output into a temporary file.
Ran run(const std::vector<std::string>& args) {
  Ran ran;
  char tmpl[] = "/tmp/rdcc-editcap-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) {
    ran.error = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return ran;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fd);
  if (rc != 0) {
    ran.error = "cannot run " + args[0] + ": " + std::strerror(rc);
  } else {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) ran.status = WEXITSTATUS(status);
  }
  std::ifstream in(tmpl);
  ran.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  ::unlink(tmpl);
  return ran;
}

}  // namespace

std::optional<std::string> find_editcap() {
  static const std::optional<std::string> found = []() -> std::optional<std::string> {
    const char* env = std::getenv("RDCC_EDITCAP");
    const std::string editcap = env != nullptr && *env != '\0' ? env : "editcap";
    const Ran help = run({editcap, "-h"});
    if (!help.error.empty() || help.output.find("-a <framenum>:<comment>") == std::string::npos) {
      return std::nullopt;
    }
    return editcap;
  }();
  return found;
}

std::optional<std::string> annotate_capture(const std::string& in, const std::string& out,
                                            const FrameComments& comments) {
  const auto editcap = find_editcap();
  if (!editcap) {
    return "no editcap with -a (Wireshark 3.6 or later; Debian package wireshark-common, or "
           "$RDCC_EDITCAP) to write packet comments";
  }
  std::vector<std::string> args{*editcap, "-F", "pcapng"};
  for (const auto& [frame, texts] : comments) {
    std::string joined;
    for (const auto& t : texts) joined += (joined.empty() ? "" : "\n") + t;
    args.emplace_back("-a");
    args.push_back(std::to_string(frame) + ":" + joined);
  }
  args.push_back(in);
  args.push_back(out);
  const Ran ran = run(args);
  if (!ran.error.empty()) return ran.error;
  if (ran.status != 0) {
    std::string msg = ran.output;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
    return *editcap + " failed on " + in + " (exit " + std::to_string(ran.status) + ")" +
           (msg.empty() ? "" : ": " + msg);
  }
  return std::nullopt;
}

}  // namespace rdcc::wire
