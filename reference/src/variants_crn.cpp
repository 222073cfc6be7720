// The CRN's conforming variants (variants.hpp): each with the spec sentence that permits it.
#include <algorithm>

#include "rdcc/reference/crn.hpp"
#include "variants_table.hpp"

namespace rdcc::ref::detail {
namespace {

// Reports without the optional Suggested Rate (0: "no suggestion").
class NoSuggestedRate final : public CrnPolicy {
 public:
  [[nodiscard]] std::uint32_t suggested_rate(std::uint32_t, std::uint32_t) const override {
    return 0;
  }
};

// At most one report per flow per `floor_`, or per the configured interval if that is longer.
class LongReportInterval final : public CrnPolicy {
 public:
  explicit LongReportInterval(Duration floor) : floor_(floor) {}
  [[nodiscard]] Duration report_interval(Duration configured) const override {
    return std::max(configured, floor_);
  }

 private:
  Duration floor_;
};

constexpr std::string_view kOnPath = "On-Path Congestion Reporting";

template <std::int64_t kMicroseconds>
void long_interval(CrnConfig&, std::shared_ptr<const CrnPolicy>& policy) {
  policy = std::make_shared<const LongReportInterval>(microseconds(kMicroseconds));
}

const CrnVariant kCrnVariants[] = {
    {{"crn-no-suggested-rate", VariantRole::Crn, "reports carry Suggested Rate 0 (none)",
      "optionally, a Suggested Rate equal to the queue's service rate divided by the number of "
      "flows the CRN observes in the queue.",
      kOnPath},
     [](CrnConfig&, std::shared_ptr<const CrnPolicy>& policy) {
       policy = std::make_shared<const NoSuggestedRate>();
     }},
    {{"crn-report-interval-100us", VariantRole::Crn,
      "at most one report per flow per 100 us, twice the recommended interval", "", kOnPath,
      "RDCC-CRN-03"},
     long_interval<100>},
    {{"crn-report-interval-1ms", VariantRole::Crn,
      "at most one report per flow per millisecond, twenty times the recommended interval", "",
      kOnPath, "RDCC-CRN-03"},
     long_interval<1000>},
};

}  // namespace

std::span<const CrnVariant> crn_variants() {
  return kCrnVariants;
}

}  // namespace rdcc::ref::detail
