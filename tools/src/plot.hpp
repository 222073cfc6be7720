// The one plot writer of `rdcc sim` and `rdcc pcap stats` (--svg, and --html for a page): panels of
// time series over one time axis, drawn as SVG. Axes in human units (B, KiB, MiB, GiB; ns, µs, ms,
// s) with ticks at 1, 2 or 5 times a power of ten of the unit; margins sized to the longest label,
// so that no label is clipped; every text XML-escaped (names come from users: a receiver named
// `rx<1>&co`); horizontal levels (G) and event markers (a restart as a labelled line, CRN reports
// and drops as ticks, counted in the legend) drawn across every panel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rdcc::tools::plot {

enum class Unit : std::uint8_t { Octets, OctetsPerSecond };

// At most `limit` samples, evenly picked, always keeping the last: what a series is drawn (or
// written) with when it holds more.
template <class T>
[[nodiscard]] std::vector<T> thin_evenly(const std::vector<T>& s, std::size_t limit) {
  if (s.size() <= limit) return s;
  std::vector<T> out;
  out.reserve(limit + 1);
  for (std::size_t i = 0; i < limit; ++i) out.push_back(s[i * s.size() / limit]);
  out.push_back(s.back());
  return out;
}

struct Point {
  std::int64_t t_ns = 0;
  double value = 0;
};

struct Series {
  std::string label;
  std::string colour;  // "#1f77b4"
  std::vector<Point> points;
  bool steps = false;  // a value holds until the next point (cumulative counts)
};

// A horizontal line at a value, such as the budget G.
struct Level {
  double value = 0;
  std::string label;
  std::string colour;
};

struct Panel {
  std::string title;
  Unit unit = Unit::Octets;
  std::vector<Series> series;
  std::vector<Level> levels;
};

struct Marker {
  enum class Kind : std::uint8_t {
    Line,  // a vertical line with its label (a restart)
    Tick,  // a short mark at the foot of each panel (a CRN report, a drop), counted in the legend
  };
  std::int64_t t_ns = 0;
  Kind kind = Kind::Tick;
  std::string label;  // Line: shown; Tick: the legend's name for the kind ("CRN report")
  std::string colour;
};

struct Figure {
  std::string title;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 1;
  std::vector<Panel> panels;
  std::vector<Marker> markers;
};

// The figure as one <svg> element with its namespace: a file of its own, or inline in HTML.
[[nodiscard]] std::string svg(const Figure& f);
// Writes svg(f) to `path`; throws std::runtime_error naming the path if it cannot.
void write_svg(const Figure& f, const std::string& path);

// A panel of the goodput of each sender: `octets` holds per sender name its (time, octets)
// events; the `shown` senders that delivered most get a line each, the others one together.
[[nodiscard]] Panel goodput_panel(std::string title,
                                  const std::map<std::string, std::vector<Point>>& octets,
                                  std::int64_t end_ns, std::size_t bins, std::size_t shown = 10);

// A rate series: octets per second in `bins` equal intervals of [start_ns, end_ns), from
// (time, octets) events (a value holds over its interval: draw it with `steps`).
[[nodiscard]] std::vector<Point> rate(const std::vector<Point>& octets, std::int64_t start_ns,
                                      std::int64_t end_ns, std::size_t bins);
// The i-th colour of a fixed palette of ten.
[[nodiscard]] std::string colour(std::size_t i);

// A table of the page: its caption, column names and rows of text.
struct Table {
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
// A self-contained page (XHTML: every element closed; no script, no style sheet or image
// loaded, nothing fetched): the title, the tables, and the figure inline as SVG.
[[nodiscard]] std::string html(const std::string& title, const std::vector<Table>& tables,
                               const Figure& f);
// Writes html(...) to `path`; throws std::runtime_error naming the path if it cannot.
void write_html(const std::string& title, const std::vector<Table>& tables, const Figure& f,
                const std::string& path);

// "0 B", "512 B", "1.5 KiB", "256 KiB", "4 MiB" (at most three decimals, trailing zeros cut).
[[nodiscard]] std::string octets(double value);
// "0", "250 ns", "1.5 µs", "20 ms", "2 s".
[[nodiscard]] std::string duration(double ns);

}  // namespace rdcc::tools::plot
