// The one interface of the calibration range methods (minmax, percentile, entropy, mse) and their shared helpers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibrate/histogram.h"

namespace ptq {

// A real range to quantize. Methods return it raw: quant_math.h's ChooseQuantParams widens it to
// contain 0 and turns it into a scale and zero point.
struct Range {
  float min = 0.0f;
  float max = 0.0f;
};

struct RangeOptions {
  bool symmetric = false;     // the target range is [-t, t]
  int levels = 256;           // quantization levels of the target type: 256 for 8 bits
  double percentile = 99.999; // for "percentile": the share of values (in %) kept inside the range
};

// Chooses a range from a histogram of a tensor's finite values. Contract for every method:
//  - an empty histogram gives {0, 0};
//  - symmetric: {-t, t} with 0 <= t <= max|x|; otherwise min() <= range.min <= range.max <= max();
//  - bad options (levels < 4, percentile outside (0, 100]) throw a usage error.
class RangeMethod {
 public:
  virtual ~RangeMethod() = default;
  virtual std::string name() const = 0;
  virtual Range Choose(const Histogram& histogram, const RangeOptions& options) const = 0;
};

// The default of calibration.method: "mse" (the smallest expected squared error of the quantized
// values), chosen on the model zoo: better than minmax on 8 of 9 models (README "Calibration methods on
// the zoo").
inline constexpr const char* kDefaultRangeMethod = "mse";

// "minmax", "percentile", "entropy" or "mse"; anything else is a usage error listing these.
std::unique_ptr<RangeMethod> MakeRangeMethod(const std::string& name);
const std::vector<std::string>& RangeMethodNames();

// ---- helpers shared by the methods ----

// Throws a usage error naming the option when options are out of range.
void ValidateRangeOptions(const RangeOptions& options);

// A histogram read as a piecewise-uniform density: bin i covers [origin + i*width, origin + (i+1)*width)
// and holds counts[i] values, spread uniformly inside it.
struct Density {
  double origin = 0.0;
  double width = 1.0;
  std::vector<double> counts;
  double total() const;
  // The value below which a share q in [0, 1] of the mass lies, interpolated linearly in the bin.
  double Quantile(double q) const;
};

// Whether a density keeps the values that are exactly 0. Every range holds 0 exactly (ranges are
// widened to contain it), so those values carry no quantization error or information loss:
// entropy and mse leave them out, which stops a ReLU's spike at 0 from pulling the range in.
enum class Zeros { kKeep, kDrop };

// The density of x from the first to the last non-empty bin, each bin split into 2^s equal parts
// (counts divided evenly) so that there are at least min_bins bins.
Density SignedDensity(const Histogram& h, int min_bins, Zeros zeros = Zeros::kKeep);
// The density of |x| from 0: bin j < 0 of the power-of-two grid, (j*w, (j+1)*w], folds exactly
// onto |x| bin -j-1; pairs of bins are merged while there would be more than 2 * num_bins (data
// far from 0); then split like SignedDensity.
Density AbsDensity(const Histogram& h, int min_bins, Zeros zeros = Zeros::kKeep);

// The largest |x| of the finite values; 0 when empty.
float MaxAbs(const Histogram& h);
// {-t, t} for symmetric targets with t clamped to [0, max|x|]; else {lo, hi} clamped to [min, max].
Range SymmetricRange(const Histogram& h, double t);
Range ClampedRange(const Histogram& h, double lo, double hi);

}  // namespace ptq
