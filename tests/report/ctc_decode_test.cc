// Tests of greedy CTC decoding (repeats collapsed, blanks dropped, ties to the first class, both layouts)
// and of the edit distance between decoded sequences; expected values worked out by hand.
#include <gtest/gtest.h>

#include <vector>

#include "report/ctc_decode.h"

namespace ptq {
namespace {

// Scores [steps, classes] with 1 at each step's given class and 0 elsewhere.
std::vector<float> OneHot(const std::vector<int64_t>& best, int64_t classes) {
  std::vector<float> s(best.size() * static_cast<size_t>(classes), 0.0f);
  for (size_t t = 0; t < best.size(); ++t) s[t * static_cast<size_t>(classes) + static_cast<size_t>(best[t])] = 1.0f;
  return s;
}

TEST(CtcGreedyDecode, CollapsesRepeatsThenDropsBlanks) {
  // argmax 0 3 3 0 3 5 5 0: runs 0 | 3 3 | 0 | 3 | 5 5 | 0 -> 3 3 5 (the blank between the 3s keeps both).
  const auto s = OneHot({0, 3, 3, 0, 3, 5, 5, 0}, 6);
  EXPECT_EQ(CtcGreedyDecode(s.data(), 8, 6, 6, 1, 0), (std::vector<int64_t>{3, 3, 5}));
  // The same steps with class 5 as the blank: 0 3 0 3 0 (class 0 is now a token).
  EXPECT_EQ(CtcGreedyDecode(s.data(), 8, 6, 6, 1, 5), (std::vector<int64_t>{0, 3, 0, 3, 0}));
  // Only blanks: nothing.
  const auto blank = OneHot({0, 0, 0}, 4);
  EXPECT_TRUE(CtcGreedyDecode(blank.data(), 3, 4, 4, 1, 0).empty());
}

TEST(CtcGreedyDecode, TiesGoToTheFirstClassAsInNumpy) {
  // Step 0: classes 1 and 2 tie at 0.5 -> 1; step 1: all equal -> 0 (blank); step 2: 2.
  const std::vector<float> s = {0.0f, 0.5f, 0.5f, 0.25f, 0.25f, 0.25f, 0.1f, 0.2f, 0.7f};
  EXPECT_EQ(CtcGreedyDecode(s.data(), 3, 3, 3, 1, 0), (std::vector<int64_t>{1, 2}));
}

TEST(CtcGreedyDecode, ClassesOnTheMiddleAxis) {
  // [C = 3, T = 4] (classes first): step t's class c is at c * 4 + t. Per-step argmax 2 2 0 1 -> 2 1.
  const std::vector<float> s = {0, 0, 9, 0,   // class 0
                                0, 0, 0, 9,   // class 1
                                9, 9, 0, 0};  // class 2
  EXPECT_EQ(CtcGreedyDecode(s.data(), 4, 3, 1, 4, 0), (std::vector<int64_t>{2, 1}));
}

TEST(SequenceEditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  // "kitten" -> "sitting" is 3 (k->s, e->i, insert g), with k=1 i=2 t=3 e=4 n=5 s=6 g=7.
  EXPECT_EQ(SequenceEditDistance({1, 2, 3, 3, 4, 5}, {6, 2, 3, 3, 2, 5, 7}), 3);
  EXPECT_EQ(SequenceEditDistance({}, {1, 2}), 2);
  EXPECT_EQ(SequenceEditDistance({1, 2}, {}), 2);
  EXPECT_EQ(SequenceEditDistance({1, 1, 2, 2, 3}, {1, 1, 2, 3}), 1);
  EXPECT_EQ(SequenceEditDistance({4, 5}, {4, 5}), 0);
  EXPECT_EQ(SequenceEditDistance({1, 2, 3}, {3, 2, 1}), 2);
}

}  // namespace
}  // namespace ptq
