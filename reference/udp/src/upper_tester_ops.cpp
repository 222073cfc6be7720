#include "rdcc/udp/upper_tester_ops.hpp"

#include <algorithm>

namespace rdcc::udp {

std::vector<std::string> upper_op_list(std::uint8_t role) {
  std::vector<std::string> out;
  for (const auto& op : upper_tester_ops()) {
    if ((op.roles & role) != 0) out.emplace_back(op.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string upper_op_names(std::uint8_t role) {
  std::string out;
  for (const auto& name : upper_op_list(role)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace rdcc::udp
