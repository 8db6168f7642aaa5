// Einsum equation parsing: terms, ellipsis expansion, implicit outputs and label sizes.
#include "runtime/ops/math/einsum_equation.h"

#include <algorithm>
#include <cctype>

namespace ptq {
namespace {

// A term's letters, with the position of its ellipsis among them (-1 when none).
struct Term {
  std::string letters;
  int ellipsis_at = -1;
};

Term ParseTerm(const std::string& text, const std::string& equation) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      PTQ_ENFORCE(t.ellipsis_at < 0 && text.compare(i, 3, "...") == 0, "attribute 'equation' \"", equation,
                  "\": '.' must appear only as one \"...\" per term");
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
    } else {
      PTQ_ENFORCE(std::isalpha(static_cast<unsigned char>(c)), "attribute 'equation' \"", equation,
                  "\": unexpected character '", c, "'");
      t.letters.push_back(c);
    }
  }
  return t;
}

// The labels of a term whose ellipsis stands for `ellipsis_rank` axes, out of `max_rank` in all.
std::vector<int> Expand(const Term& t, int64_t ellipsis_rank, int64_t max_rank) {
  std::vector<int> labels;
  for (size_t i = 0; i <= t.letters.size(); ++i) {
    if (static_cast<int>(i) == t.ellipsis_at) {
      for (int64_t j = max_rank - ellipsis_rank; j < max_rank; ++j) {
        labels.push_back(kEllipsisLabel + static_cast<int>(j));
      }
    }
    if (i < t.letters.size()) labels.push_back(t.letters[i]);
  }
  return labels;
}

}  // namespace

EinsumEquation ParseEinsumEquation(const std::string& equation, const std::vector<Shape>& shapes) {
  std::string eq;
  for (char c : equation) {
    if (!std::isspace(static_cast<unsigned char>(c))) eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    terms.push_back(ParseTerm(lhs.substr(begin, comma - begin), equation));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  PTQ_ENFORCE(terms.size() == shapes.size(), "attribute 'equation' \"", equation, "\" has ", terms.size(),
              " input terms but the node has ", shapes.size(), " inputs");

  // Ellipsis ranks, then labels and sizes.
  EinsumEquation out;
  std::vector<int64_t> ellipsis_ranks(terms.size(), 0);
  int64_t max_ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t rank = static_cast<int64_t>(shapes[i].size());
    const int64_t letters = static_cast<int64_t>(terms[i].letters.size());
    const bool has_ellipsis = terms[i].ellipsis_at >= 0;
    PTQ_ENFORCE(has_ellipsis ? rank >= letters : rank == letters, "attribute 'equation' \"", equation, "\": term ", i,
                " has ", letters, " labels", has_ellipsis ? " and an ellipsis" : "", " but input ", i, " has shape ",
                ShapeToString(shapes[i]));
    ellipsis_ranks[i] = rank - letters;
    max_ellipsis = std::max(max_ellipsis, ellipsis_ranks[i]);
  }
  std::map<int, int> counts;
  for (size_t i = 0; i < terms.size(); ++i) {
    out.inputs.push_back(Expand(terms[i], ellipsis_ranks[i], max_ellipsis));
    for (size_t a = 0; a < out.inputs[i].size(); ++a) {
      const int label = out.inputs[i][a];
      const int64_t size = shapes[i][a];
      ++counts[label];
      auto it = out.sizes.find(label);
      if (it == out.sizes.end()) {
        out.sizes[label] = size;
      } else if (it->second == 1) {
        it->second = size;
      } else {
        PTQ_ENFORCE(size == it->second || size == 1, "attribute 'equation' \"", equation, "\": axis ", a, " of input ",
                    i, " has size ", size, " but the same label has size ", it->second, " elsewhere");
      }
    }
  }

  if (arrow == std::string::npos) {  // implicit output
    for (int64_t j = 0; j < max_ellipsis; ++j) out.output.push_back(kEllipsisLabel + static_cast<int>(j));
    for (const auto& [label, count] : counts) {
      if (label < kEllipsisLabel && count == 1) out.output.push_back(label);
    }
    return out;
  }
  const Term result = ParseTerm(eq.substr(arrow + 2), equation);
  out.output = Expand(result, result.ellipsis_at >= 0 ? max_ellipsis : 0, max_ellipsis);
  for (size_t a = 0; a < out.output.size(); ++a) {
    const int label = out.output[a];
    PTQ_ENFORCE(label >= kEllipsisLabel || counts.count(label), "attribute 'equation' \"", equation,
                "\": output label '", static_cast<char>(label), "' does not appear in any input");
    PTQ_ENFORCE(std::count(out.output.begin(), out.output.end(), label) == 1, "attribute 'equation' \"", equation,
                "\": output label '", static_cast<char>(label), "' appears more than once");
  }
  return out;
}

}  // namespace ptq
