#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include "rdcc/conformance/report.hpp"

namespace rdcc::tools::plot {
namespace {

using conformance::xml_escape;

constexpr double kWidth = 960;
constexpr double kCharWidth = 7.2;  // at font-size 12, generous: labels are measured by it
constexpr double kPlotHeight = 150;
constexpr double kLegendLine = 16;
constexpr std::size_t kMaxPoints = 2000;  // per series; more are thinned evenly

// At most three decimals, trailing zeros and a trailing point cut.
std::string number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", v);
  std::string s = text;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string coordinate(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// 1, 2 or 5 times a power of ten, at least `rough`.
double nice_step(double rough) {
  if (rough <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= rough) return m * power;
  }
  return 10 * power;
}

struct Scale {
  double unit = 1;        // octets (or ns) per displayed unit
  const char* name = "";  // "KiB", "µs", ...
  double step = 1;        // in displayed units
};

Scale octet_scale(double top, bool per_second) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  static constexpr const char* kRates[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
  Scale s;
  std::size_t k = 0;
  while (k + 1 < std::size(kNames) && top / (s.unit * 1024) >= 1) {
    s.unit *= 1024;
    ++k;
  }
  s.name = per_second ? kRates[k] : kNames[k];
  s.step = nice_step(top / s.unit / 4);
  return s;
}

Scale time_scale(double span) {
  Scale s;
  s.name = "ns";
  if (span >= 1e9) {
    s.unit = 1e9, s.name = "s";
  } else if (span >= 1e6) {
    s.unit = 1e6, s.name = "ms";
  } else if (span >= 1e3) {
    s.unit = 1e3, s.name = "\u00b5s";
  }
  s.step = nice_step(span / s.unit / 6);
  return s;
}

std::string label(double v, const Scale& s) {
  return v == 0 ? "0" : number(v / s.unit) + " " + s.name;
}

double text_width(std::string_view text) {
  std::size_t chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++chars;  // UTF-8: count characters
  }
  return static_cast<double>(chars) * kCharWidth;
}

// The legend of a panel, broken into lines that fit the width: (text, colour, dashed).
struct LegendItem {
  std::string text;
  std::string colour;
  bool dashed = false;
  bool tick = false;
};

std::vector<std::vector<LegendItem>> legend_lines(const Panel& p,
                                                  const std::vector<LegendItem>& marks,
                                                  double width) {
  std::vector<LegendItem> items;
  for (const Series& s : p.series) items.push_back({s.label, s.colour});
  for (const Level& l : p.levels) items.push_back({l.label, l.colour, true});
  items.insert(items.end(), marks.begin(), marks.end());
  std::vector<std::vector<LegendItem>> lines(1);
  double x = 0;
  for (const LegendItem& item : items) {
    const double w = 26 + text_width(item.text) + 14;
    if (x + w > width && !lines.back().empty()) {
      lines.emplace_back();
      x = 0;
    }
    lines.back().push_back(item);
    x += w;
  }
  return lines;
}

}  // namespace

std::string octets(double value) {
  return label(value, octet_scale(value, false));
}

std::string duration(double ns) {
  return label(ns, time_scale(ns));
}

std::string svg(const Figure& f) {
  const double span = static_cast<double>(std::max<std::int64_t>(1, f.end_ns - f.start_ns));
  const Scale ts = time_scale(span);

  // Per panel its y scale and labels; the left margin fits the widest label of any panel.
  struct Axis {
    double top = 1;
    Scale scale;
    std::vector<double> ticks;
  };
  std::vector<Axis> axes;
  double left = 60;
  for (const Panel& p : f.panels) {
    Axis a;
    for (const Series& s : p.series) {
      for (const Point& pt : s.points) a.top = std::max(a.top, pt.value);
    }
    for (const Level& l : p.levels) a.top = std::max(a.top, l.value);
    a.top *= 1.08;  // room above the highest value and G's label
    a.scale = octet_scale(a.top, p.unit == Unit::OctetsPerSecond);
    for (double v = 0; v <= a.top / a.scale.unit + 1e-9; v += a.scale.step) {
      a.ticks.push_back(v * a.scale.unit);
      left = std::max(left, text_width(label(v * a.scale.unit, a.scale)) + 16);
    }
    axes.push_back(std::move(a));
  }
  std::vector<double> time_ticks;
  for (double v = 0; v <= span / ts.unit + 1e-9; v += ts.step) time_ticks.push_back(v * ts.unit);
  double right = 16;
  for (const double t : time_ticks) right = std::max(right, text_width(label(t, ts)) / 2 + 8);
  const double plot_w = kWidth - left - right;
  const auto px = [&](std::int64_t t) {
    return left + plot_w * std::clamp(static_cast<double>(t - f.start_ns) / span, 0.0, 1.0);
  };

  // Markers: lines, and ticks counted by kind for the legends.
  std::map<std::pair<std::string, std::string>, std::size_t> tick_kinds;
  for (const Marker& m : f.markers) {
    if (m.kind == Marker::Kind::Tick) ++tick_kinds[{m.label, m.colour}];
  }
  std::vector<LegendItem> marks;
  marks.reserve(tick_kinds.size());
  for (const auto& [kind, n] : tick_kinds) {
    marks.push_back({kind.first + " (" + std::to_string(n) + ")", kind.second, false, true});
  }

  std::string body;
  double y = 0;
  const auto text = [&body](double x, double ty, std::string_view anchor, std::string_view extra,
                            std::string_view content) {
    body += "<text x=\"" + coordinate(x) + "\" y=\"" + coordinate(ty) + "\" text-anchor=\"" +
            std::string(anchor) + "\"" + std::string(extra) + ">" + xml_escape(content) +
            "</text>\n";
  };
  text(left, 22, "start", " font-size=\"15\" font-weight=\"bold\"", f.title);
  y = 34;
  for (std::size_t i = 0; i < f.panels.size(); ++i) {
    const Panel& p = f.panels[i];
    const Axis& a = axes[i];
    text(left, y + 16, "start", " font-size=\"13\" font-weight=\"bold\"", p.title);
    double ly = y + 16 + kLegendLine;
    for (const auto& line : legend_lines(p, i == 0 ? marks : std::vector<LegendItem>{}, plot_w)) {
      double lx = left;
      for (const LegendItem& item : line) {
        if (item.tick) {
          body += "<line x1=\"" + coordinate(lx + 10) + "\" x2=\"" + coordinate(lx + 10) +
                  "\" y1=\"" + coordinate(ly - 9) + "\" y2=\"" + coordinate(ly + 1) +
                  "\" stroke=\"" + item.colour + "\" stroke-width=\"2\"/>\n";
        } else {
          body += "<line x1=\"" + coordinate(lx) + "\" x2=\"" + coordinate(lx + 20) + "\" y1=\"" +
                  coordinate(ly - 4) + "\" y2=\"" + coordinate(ly - 4) + "\" stroke=\"" +
                  item.colour + "\" stroke-width=\"2\"" +
                  (item.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
        }
        text(lx + 26, ly, "start", " fill=\"" + item.colour + "\"", item.text);
        lx += 26 + text_width(item.text) + 14;
      }
      ly += kLegendLine;
    }
    const double top_y = ly;
    const double bottom_y = top_y + kPlotHeight;
    const auto py = [&](double v) {
      return bottom_y - kPlotHeight * std::clamp(v / a.top, 0.0, 1.0);
    };
    body += "<rect x=\"" + coordinate(left) + "\" y=\"" + coordinate(top_y) + "\" width=\"" +
            coordinate(plot_w) + "\" height=\"" + coordinate(kPlotHeight) +
            "\" fill=\"none\" stroke=\"#888\"/>\n";
    for (const double v : a.ticks) {
      body += "<line x1=\"" + coordinate(left) + "\" x2=\"" + coordinate(left + plot_w) +
              "\" y1=\"" + coordinate(py(v)) + "\" y2=\"" + coordinate(py(v)) +
              "\" stroke=\"#eee\"/>\n";
      text(left - 6, py(v) + 4, "end", "", label(v, a.scale));
    }
    for (const double t : time_ticks) {
      const double x = px(f.start_ns + static_cast<std::int64_t>(t));
      text(x, bottom_y + 16, "middle", "", label(t, ts));
    }
    for (const Level& l : p.levels) {
      body += "<line x1=\"" + coordinate(left) + "\" x2=\"" + coordinate(left + plot_w) +
              "\" y1=\"" + coordinate(py(l.value)) + "\" y2=\"" + coordinate(py(l.value)) +
              "\" stroke=\"" + l.colour + "\" stroke-dasharray=\"6 4\"/>\n";
      text(left + plot_w - 4, py(l.value) - 4, "end", " fill=\"" + l.colour + "\"",
           l.label + " = " + octets(l.value));
    }
    for (const Series& s : p.series) {
      body += "<polyline fill=\"none\" stroke=\"" + s.colour + "\" stroke-width=\"1.5\" points=\"";
      double last = 0;
      bool first = true;
      for (const Point& pt : thin_evenly(s.points, kMaxPoints)) {
        if (s.steps && !first) body += coordinate(px(pt.t_ns)) + "," + coordinate(py(last)) + " ";
        body += coordinate(px(pt.t_ns)) + "," + coordinate(py(pt.value)) + " ";
        last = pt.value;
        first = false;
      }
      if (s.steps && !first) body += coordinate(px(f.end_ns)) + "," + coordinate(py(last));
      body += "\"/>\n";
    }
    for (const Marker& m : f.markers) {
      const double x = px(m.t_ns);
      if (m.kind == Marker::Kind::Tick) {
        body += "<line x1=\"" + coordinate(x) + "\" x2=\"" + coordinate(x) + "\" y1=\"" +
                coordinate(bottom_y - 7) + "\" y2=\"" + coordinate(bottom_y) + "\" stroke=\"" +
                m.colour + "\" stroke-width=\"1.5\"/>\n";
        continue;
      }
      body += "<line x1=\"" + coordinate(x) + "\" x2=\"" + coordinate(x) + "\" y1=\"" +
              coordinate(top_y) + "\" y2=\"" + coordinate(bottom_y) + "\" stroke=\"" + m.colour +
              "\" stroke-dasharray=\"3 3\"/>\n";
      // The label inside the plot, on the side with room for it.
      const bool room_right = x + 4 + text_width(m.label) <= left + plot_w;
      text(room_right ? x + 4 : x - 4, top_y + 30, room_right ? "start" : "end",
           " fill=\"" + m.colour + "\"", m.label);
    }
    y = bottom_y + 30;
  }
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + coordinate(kWidth) +
         "\" height=\"" + coordinate(y) + "\" viewBox=\"0 0 " + coordinate(kWidth) + " " +
         coordinate(y) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n" +
         body + "</svg>\n";
}

std::vector<Point> rate(const std::vector<Point>& octets, std::int64_t start_ns,
                        std::int64_t end_ns, std::size_t bins) {
  const std::int64_t span = std::max<std::int64_t>(1, end_ns - start_ns);
  bins = std::max<std::size_t>(1, bins);
  std::vector<double> sum(bins, 0);
  for (const Point& p : octets) {
    if (p.t_ns < start_ns || p.t_ns > end_ns) continue;
    const auto i = static_cast<std::size_t>(static_cast<double>(p.t_ns - start_ns) /
                                            static_cast<double>(span) * static_cast<double>(bins));
    sum[std::min(i, bins - 1)] += p.value;
  }
  const double width_s = static_cast<double>(span) / static_cast<double>(bins) / 1e9;
  std::vector<Point> out;
  for (std::size_t i = 0; i < bins; ++i) {
    out.push_back(
        {start_ns + static_cast<std::int64_t>(static_cast<double>(span) * static_cast<double>(i) /
                                              static_cast<double>(bins)),
         sum[i] / width_s});
  }
  return out;
}

Panel goodput_panel(std::string title, const std::map<std::string, std::vector<Point>>& octets,
                    std::int64_t end_ns, std::size_t bins, std::size_t shown) {
  std::vector<std::pair<double, std::string>> order;  // (-octets, sender): most first
  for (const auto& [name, points] : octets) {
    double sum = 0;
    for (const Point& p : points) sum += p.value;
    if (sum > 0) order.emplace_back(-sum, name);
  }
  std::sort(order.begin(), order.end());
  Panel panel{std::move(title), Unit::OctetsPerSecond, {}, {}};
  std::vector<Point> rest;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& points = octets.at(order[i].second);
    if (i < shown) {
      panel.series.push_back({order[i].second, colour(i), rate(points, 0, end_ns, bins), true});
    } else {
      rest.insert(rest.end(), points.begin(), points.end());
    }
  }
  if (!rest.empty()) {
    panel.series.push_back({std::to_string(order.size() - shown) + " other senders", "#555555",
                            rate(rest, 0, end_ns, bins), true});
  }
  return panel;
}

std::string colour(std::size_t i) {
  static constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                             "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kPalette[i % std::size(kPalette)];
}

std::string html(const std::string& title, const std::vector<Table>& tables, const Figure& f) {
  std::string out =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<title>" +
      xml_escape(title) +
      "</title>\n<style>\n"
      "body { font-family: sans-serif; margin: 1.5em; color: #222; }\n"
      "table { border-collapse: collapse; margin: 0.5em 0 1.5em; }\n"
      "caption { text-align: left; font-weight: bold; padding: 0.3em 0; }\n"
      "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }\n"
      "th { background: #f4f4f4; }\n"
      "</style>\n</head>\n<body>\n<h1>" +
      xml_escape(title) + "</h1>\n";
  for (const Table& t : tables) {
    out += "<table>\n<caption>" + xml_escape(t.caption) + "</caption>\n<tr>";
    for (const std::string& h : t.header) out += "<th>" + xml_escape(h) + "</th>";
    out += "</tr>\n";
    for (const auto& row : t.rows) {
      out += "<tr>";
      for (const std::string& cell : row) out += "<td>" + xml_escape(cell) + "</td>";
      out += "</tr>\n";
    }
    out += "</table>\n";
  }
  out += "<div class=\"figure\">\n" + svg(f) + "</div>\n</body>\n</html>\n";
  return out;
}

void write_html(const std::string& title, const std::vector<Table>& tables, const Figure& f,
                const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot be written");
  out << html(title, tables, f);
  if (!out) throw std::runtime_error(path + ": write failed");
}

void write_svg(const Figure& f, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot be written");
  out << svg(f);
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace rdcc::tools::plot
