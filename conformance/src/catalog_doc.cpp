// Writes docs/requirements.md, the readable table of the requirement catalog:
//
//   rdcc-catalog-doc write <requirements.json> <requirements.md>   regenerate
//   rdcc-catalog-doc check <requirements.json> <requirements.md>   exit 1 if it is stale (ctest)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "rdcc/conformance/catalog.hpp"

namespace {

using namespace rdcc::conformance;

// Text in a table cell: no cell breaks, no emphasis or HTML by accident.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '*': out += "\\*"; break;
      case '<': out += "&lt;"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

template <class Predicate>
std::size_t count(const Catalog& catalog, Predicate matches) {
  return static_cast<std::size_t>(
      std::count_if(catalog.all().begin(), catalog.all().end(), matches));
}

void level_table(std::ostringstream& out, const Catalog& catalog) {
  out << "| Level | Requirements |\n|---|---:|\n";
  for (const Level level : kLevels) {
    const auto n = count(catalog, [&](const Requirement& r) { return r.level == level; });
    if (n != 0) out << "| " << to_string(level) << " | " << n << " |\n";
  }
  out << '\n';
}

// Requirements by role (rows) and testing (columns), with totals.
void role_testing_table(std::ostringstream& out, const Catalog& catalog) {
  out << "| Role |";
  for (const Testing testing : kTestings) out << ' ' << to_string(testing) << " |";
  out << " total |\n|---|";
  for (std::size_t i = 0; i <= kTestings.size(); ++i) out << "---:|";
  out << '\n';

  for (const Role role : kRoles) {
    out << "| " << to_string(role) << " |";
    for (const Testing testing : kTestings) {
      out << ' ' << count(catalog, [&](const Requirement& r) {
        return r.role == role && r.testing == testing;
      }) << " |";
    }
    out << ' ' << count(catalog, [&](const Requirement& r) { return r.role == role; }) << " |\n";
  }
  out << "| total |";
  for (const Testing testing : kTestings) {
    out << ' ' << count(catalog, [&](const Requirement& r) { return r.testing == testing; })
        << " |";
  }
  out << ' ' << catalog.size() << " |\n\n";
}

std::string markdown(const Catalog& catalog) {
  std::ostringstream out;
  out << R"md(# Requirement catalog

Every normative statement of the RDCC spec (`shared/spec/rdcc-spec.txt`): each sentence with a
BCP 14 key word in capitals, except the boilerplate of "Conventions and Definitions" that lists
them. A sentence with several key words has one entry per key word, with the same text and a
clause saying which part it is. Entries of level RULE hold sentences without a key word that
implementations are held to all the same. Conformance scenarios, the invariant checker, `rdcc
pcap check`, the simulator and the fuzzers name the IDs they check.

This file is generated from `conformance/catalog/requirements.json` by `rdcc-catalog-doc`; do not
edit it by hand. After changing the JSON, run `cmake --build build/default --target
requirements_doc`; the test `requirements_doc.up_to_date` fails while this file is stale, and
`conformance_test` checks the JSON against the spec.

## Fields

- `id`: `RDCC-<AREA>-<NN>`, stable forever once assigned (a removed requirement leaves a gap).
  Areas: SCOPE, ASSOC (association establishment), MODE (transmission mode selection), UNSCHED,
  GRANT (credit requests and grants), BUDGET, ALLOC (credit allocation), POOL (traffic classes
  and pool credit), STATUS (sender backlog indication), CRN (on-path congestion reporting), BIND
  (transport bindings), ERR (error handling), FMT (message formats, port, header, fields), SM
  (state machine), CC (congestion control considerations), OPS, SEC.
- `section`: the heading the sentence sits under.
- `level`: the key word: MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT, SHOULD, SHOULD NOT,
  RECOMMENDED, NOT RECOMMENDED, MAY, OPTIONAL; or RULE: behaviour the spec states without a
  key word ("it never reduces credit", "it sends MSG_DONE", "answers with ERROR (...)"), so
  that a verdict on it cites that sentence and never an unrelated MUST. A failed check of a
  MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT, RULE, MAY or OPTIONAL requirement is a FAIL; of a
  SHOULD, SHOULD NOT, RECOMMENDED or NOT RECOMMENDED one a WARN (FAIL under `--strict`).
- `role`: who must act: `sender`, `receiver`, `crn`, `any` (every endpoint that sends or
  receives the messages concerned), `operator` (the deployment's configuration).
- `testing`: `wire` (a tester playing the peer observes it), `upper` (the upper tester must
  make the implementation act, e.g. submit a message), `untestable` (`reason` says why).
- `text`: the sentence exactly as the spec has it (a numbered rule without its number).
- `clause` (optional): which part of the sentence, or which numbered rule.
- `reason` (optional): why it is untestable; for a testable one, what the test needs.
- `refs` (optional): the sections named by the sentence's cross-references, which the spec's
  conversion lost (they show as "()" or "in .").

## Summary

)md";
  out << catalog.size() << " requirements.\n\n";
  level_table(out, catalog);
  role_testing_table(out, catalog);
  out << "## Requirements\n\n| ID | Level | Role | Testing | Section | Sentence |\n"
         "|---|---|---|---|---|---|\n";
  for (const auto& r : catalog.all()) {
    out << "| " << r.id << " | " << to_string(r.level) << " | " << to_string(r.role) << " | "
        << to_string(r.testing) << " | " << cell(r.section) << " | " << cell(r.text);
    if (!r.clause.empty()) out << "<br>*Clause:* " << cell(r.clause);
    if (!r.reason.empty()) out << "<br>*Reason:* " << cell(r.reason);
    if (!r.refs.empty()) {
      out << "<br>*Refers to:* ";
      for (std::size_t i = 0; i < r.refs.size(); ++i)
        out << (i == 0 ? "" : "; ") << cell(r.refs[i]);
    }
    out << " |\n";
  }
  return out.str();
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc == 4 ? argv[1] : "";
  if (mode != "write" && mode != "check") {
    std::fprintf(stderr,
                 "usage: rdcc-catalog-doc write|check <requirements.json> <requirements.md>\n");
    return 2;
  }
  const std::filesystem::path doc(argv[3]);
  std::string text;
  try {
    text = markdown(Catalog::load(argv[2]));
  } catch (const CatalogError& e) {
    std::fprintf(stderr, "rdcc-catalog-doc: %s\n", e.what());
    return 1;
  }
  if (mode == "write") {
    std::ofstream out(doc, std::ios::binary);
    out << text;
    if (!out.flush()) {
      std::fprintf(stderr, "rdcc-catalog-doc: cannot write %s\n", doc.c_str());
      return 1;
    }
    std::printf("rdcc-catalog-doc: wrote %s\n", doc.c_str());
    return 0;
  }
  if (!std::filesystem::exists(doc) || read_file(doc) != text) {
    std::fprintf(stderr,
                 "rdcc-catalog-doc: %s is out of date; regenerate it with "
                 "`cmake --build <build> --target requirements_doc`\n",
                 doc.c_str());
    return 1;
  }
  std::printf("rdcc-catalog-doc: %s is up to date\n", doc.c_str());
  return 0;
}
