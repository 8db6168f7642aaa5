// Tests of the text detector's post-processing: 8-connected components of a thresholded map, their boxes,
// IoU and the one-to-one greedy box matching; expected boxes drawn and computed by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/box_match.h"
#include "report/connected_components.h"

namespace ptq {
namespace {

// '#' is 0.9, 'o' exactly 0.3 (not above the threshold 0.3), anything else 0.1.
std::vector<float> Map(const std::vector<std::string>& rows) {
  std::vector<float> m;
  for (const auto& r : rows) {
    for (char c : r) m.push_back(c == '#' ? 0.9f : c == 'o' ? 0.3f : 0.1f);
  }
  return m;
}

std::string Str(const std::vector<Box>& boxes) {
  std::string s;
  for (const Box& b : boxes) s += "[" + std::to_string(b.x0) + "," + std::to_string(b.y0) + "," + std::to_string(b.x1) + "," + std::to_string(b.y1) + "]";
  return s;
}

TEST(ComponentBoxes, EightConnectedComponentsInOrderOfTheirFirstPixel) {
  const std::vector<float> m = Map({
      "o....#..",  // (0,0) is exactly 0.3: not text, so A does not grow to (0,0)
      ".###.#..",  // A: rows 1-3, columns 1-3
      ".###.#..",  // C: column 5 rows 0-2, then diagonally (3,6), (4,7)
      ".###..#.",
      ".......#",
      "##......",  // D: 2 wide, dropped at min_size 3
      "##......",
      "##......",
  });
  // C starts in row 0, so it comes first; it is one component only through its diagonal links.
  EXPECT_EQ(Str(ComponentBoxes(m.data(), 8, 8, 0.3f, 3)), "[5,0,8,5][1,1,4,4]");
  EXPECT_EQ(Str(ComponentBoxes(m.data(), 8, 8, 0.3f, 2)), "[5,0,8,5][1,1,4,4][0,5,2,8]");
  // Threshold 0.2: the 0.3 pixel is text and joins A diagonally; A now starts at (0,0), before C.
  EXPECT_EQ(Str(ComponentBoxes(m.data(), 8, 8, 0.2f, 3)), "[0,0,4,4][5,0,8,5]");
}

TEST(BoxIou, AreaOfIntersectionOverAreaOfUnion) {
  const Box a{1, 1, 4, 4};
  EXPECT_DOUBLE_EQ(BoxIou(a, a), 1.0);
  EXPECT_DOUBLE_EQ(BoxIou(a, Box{2, 1, 5, 4}), 0.5);   // shifted one column: 6 / (9 + 9 - 6)
  EXPECT_DOUBLE_EQ(BoxIou(a, Box{3, 1, 6, 4}), 0.2);   // two columns: 3 / 15
  EXPECT_DOUBLE_EQ(BoxIou(a, Box{4, 1, 7, 4}), 0.0);   // touching edges share no area
  EXPECT_DOUBLE_EQ(BoxIou(Box{0, 0, 0, 0}, Box{0, 0, 0, 0}), 0.0);
}

TEST(MatchBoxes, OneToOneGreedyByBestIou) {
  // All boxes 10 high; along x: R0 [0,10), R1 [1,11), D0 [1,11), D1 [-3,7).
  // IoU: R1-D0 1.0, R0-D0 9/11 = 0.82, R0-D1 7/13 = 0.54, R1-D1 6/14 = 0.43.
  // Best first: R1-D0, then R0-D1 -> 2 matches. (Matching R0 first to its best, D0, would leave R1 with
  // only D1 at 0.43: 1 match.)
  const std::vector<Box> ref = {{0, 0, 10, 10}, {1, 0, 11, 10}};
  const std::vector<Box> got = {{1, 0, 11, 10}, {-3, 0, 7, 10}};
  EXPECT_EQ(MatchBoxes(ref, got, 0.5), 2);
  EXPECT_EQ(MatchBoxes(got, ref, 0.5), 2);
  // One reference box cannot be matched twice.
  EXPECT_EQ(MatchBoxes({{0, 0, 4, 4}}, {{0, 0, 4, 4}, {0, 0, 4, 4}}, 0.5), 1);
  // IoU exactly at the threshold matches; below does not.
  EXPECT_EQ(MatchBoxes({{1, 1, 4, 4}}, {{2, 1, 5, 4}}, 0.5), 1);
  EXPECT_EQ(MatchBoxes({{1, 1, 4, 4}}, {{3, 1, 6, 4}}, 0.5), 0);
  EXPECT_EQ(MatchBoxes({}, {{3, 1, 6, 4}}, 0.5), 0);
}

}  // namespace
}  // namespace ptq
