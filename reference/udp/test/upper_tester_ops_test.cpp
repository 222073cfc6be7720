// The upper tester's one table (rdcc/udp/upper_tester_ops.hpp): consistent in itself, and
// docs/upper-tester.md lists exactly its operations, each with every key it takes.
#include "rdcc/udp/upper_tester_ops.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace rdcc::udp {
namespace {

TEST(UpperTesterOps, NamesAndKeys_AreUnique_EveryRoleServesHello) {
  std::set<std::string_view> names;
  for (const auto& op : upper_tester_ops()) {
    EXPECT_TRUE(names.insert(op.name).second) << op.name;
    EXPECT_NE(op.roles, 0) << op.name;
    std::set<std::string_view> keys;
    for (const auto& a : op.args) {
      EXPECT_TRUE(keys.insert(a.key).second) << op.name << " " << a.key;
      EXPECT_NE(a.key, "op");
      EXPECT_NE(a.key, "id");
      if (a.default_value) {
        EXPECT_LE(*a.default_value, a.max) << op.name << " " << a.key;
      }
    }
  }
  EXPECT_EQ(upper_op_names(upper_role::kReceiver), "hello, restart, stats");
  EXPECT_EQ(upper_op_names(upper_role::kCrn), "hello, queue, stats");
  EXPECT_EQ(upper_op_names(upper_role::kSender),
            "association, cancel, hello, link_pause, return_credit, stats, status, submit, wait");
  EXPECT_EQ(find_upper_op("launch"), nullptr);
}

// The rows "| `op` | keys | response |" of the document's tables, by op: the row's text.
std::map<std::string, std::string> documented_ops(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const auto end = line.find('`', 3);
    if (end == std::string::npos) continue;
    out[line.substr(3, end - 3)] = line;
  }
  return out;
}

TEST(UpperTesterOps, Document_ListsExactlyTheTablesOps_WithEveryKey) {
  std::ifstream in(RDCC_UPPER_TESTER_DOC);
  ASSERT_TRUE(in) << RDCC_UPPER_TESTER_DOC;
  std::stringstream text;
  text << in.rdbuf();
  auto documented = documented_ops(text.str());
  // The transport's table lists modes, not ops; the error table lists answers.
  for (const auto* other : {"--upper-tester stdio", "--upper-tester tcp:127.0.0.1:PORT",
                            R"({"ok":false,"error":"bad_request","detail":"..."})",
                            R"({"ok":false,"error":"unsupported","detail":"..."})",
                            R"({"ok":false,"error":"timeout","detail":"..."})"}) {
    documented.erase(other);
  }
  std::set<std::string> table;
  for (const auto& op : upper_tester_ops()) {
    table.emplace(op.name);
    const auto row = documented.find(std::string(op.name));
    ASSERT_NE(row, documented.end()) << "docs/upper-tester.md has no row for op " << op.name;
    for (const auto& a : op.args) {
      EXPECT_NE(row->second.find("`" + std::string(a.key) + "`"), std::string::npos)
          << "docs/upper-tester.md: op " << op.name << " does not name key " << a.key;
    }
  }
  std::set<std::string> rows;
  for (const auto& [name, row] : documented) rows.insert(name);
  EXPECT_EQ(rows, table);
}

}  // namespace
}  // namespace rdcc::udp
