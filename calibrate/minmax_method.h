// The minmax range method: the observed range of the finite values, outliers included.
#pragma once

#include "calibrate/range_method.h"

namespace ptq {

// symmetric: {-max|x|, max|x|}; asymmetric: {min, max}.
class MinMaxMethod : public RangeMethod {
 public:
  std::string name() const override { return "minmax"; }
  Range Choose(const Histogram& histogram, const RangeOptions& options) const override;
};

}  // namespace ptq
