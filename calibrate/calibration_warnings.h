// What a user should know about a calibration result: non-finite values, constant and unseen tensors.
#pragma once

#include <string>
#include <vector>

#include "calibrate/calibrator.h"

namespace ptq {

// One line per finding, at most `max_per_kind` per kind (then one "... and K more" line):
//  - a tensor with NaN or infinite values (counted, excluded from its statistics);
//  - an activation whose values were all equal (its range is [min(0, v), max(0, v)]; for v == 0 a
//    zero-width range, quantized with scale kZeroWidthScale and zero point 0 so that 0 stays exact);
//  - an activation never observed (no finite value in any sample): range [0, 0], as above.
std::vector<std::string> CalibrationWarnings(const CalibrationResult& result, int max_per_kind = 10);

}  // namespace ptq
