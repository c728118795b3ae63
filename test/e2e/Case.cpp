//===- Case.cpp - One end-to-end kernel case ------------------------------===//

#include "Case.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tilec::e2e {

double dotScale(std::int64_t terms) {
  return std::sqrt(static_cast<double>(terms)) / 3.0;
}

const char *referenceName(Reference reference) {
  return reference == Reference::Float64 ? "float64" : "other backend";
}

std::string i32Entry(std::int64_t value) {
  return value % 16 == 0 ? "i32:16" : "i32";
}

HostTensor &Problem::input(const std::string &name, runtime::ScalarType dtype,
                           std::vector<std::int64_t> shape, Rng &rng,
                           double lo, double hi) {
  tensors.emplace_back(name, dtype, std::move(shape), HostTensor::Role::Input);
  tensors.back().fillUniform(rng, lo, hi);
  args.push_back({tensors.size() - 1, std::nullopt});
  return tensors.back();
}

HostTensor &Problem::output(const std::string &name, runtime::ScalarType dtype,
                            std::vector<std::int64_t> shape,
                            Tolerance tolerance) {
  tensors.emplace_back(name, dtype, std::move(shape), HostTensor::Role::Output);
  tensors.back().poison();
  tolerances[name] = tolerance;
  args.push_back({tensors.size() - 1, std::nullopt});
  return tensors.back();
}

HostTensor &Problem::accumulator(const std::string &name,
                                 runtime::ScalarType dtype,
                                 std::vector<std::int64_t> shape,
                                 Tolerance tolerance) {
  tensors.emplace_back(name, dtype, std::move(shape),
                       HostTensor::Role::Accumulator);
  tensors.back().resetOutput();
  tolerances[name] = tolerance;
  args.push_back({tensors.size() - 1, std::nullopt});
  return tensors.back();
}

void Problem::i32(std::int64_t value) {
  if (value < INT32_MIN || value > INT32_MAX) {
    std::fprintf(stderr, "internal error: i32 argument %lld out of range\n",
                 static_cast<long long>(value));
    std::abort();
  }
  scalar(runtime::KernelArg::scalar(static_cast<std::int32_t>(value)));
}

const HostTensor &Problem::tensor(const std::string &name) const {
  for (const HostTensor &t : tensors)
    if (t.name() == name)
      return t;
  std::fprintf(stderr, "internal error: no tensor '%s'\n", name.c_str());
  std::abort();
}

HostTensor &Problem::tensor(const std::string &name) {
  return const_cast<HostTensor &>(
      static_cast<const Problem *>(this)->tensor(name));
}

std::string CaseSpec::shapeText() const {
  std::string text;
  for (const auto &[key, value] : sizes)
    text += (text.empty() ? "" : " ") + key + "=" + std::to_string(value);
  return text;
}

std::int64_t CaseSpec::size(const std::string &key) const {
  for (const auto &[name, value] : sizes)
    if (name == key)
      return value;
  std::fprintf(stderr, "internal error: case '%s' has no size '%s'\n",
               this->name.c_str(), key.c_str());
  std::abort();
}

CaseSpec puzzleCase(const std::string &name, const std::string &family,
                    const std::string &file, const std::string &kernel,
                    const std::string &signature,
                    std::vector<std::pair<std::string, std::int64_t>> sizes) {
  CaseSpec c;
  c.name = name;
  c.family = family;
  c.file = "puzzles/" + file;
  c.kernel = kernel;
  c.signature = signature;
  c.numWarps = 4;
  c.dtype = "fp32";
  c.sizes = std::move(sizes);
  return c;
}

std::vector<CaseSpec> allCases() {
  std::vector<CaseSpec> cases;
  addPuzzleElementwiseCases(cases);
  addPuzzleReductionCases(cases);
  addWeightedSumCases(cases);
  addVectorAddCases(cases);
  addSoftmaxCases(cases);
  addMatmulCases(cases);
  addMatmulDescriptorCases(cases);
  addDescriptorScaleCases(cases);
  addDescriptorOpsCases(cases);
  addMatmulEpilogueCases(cases);
  addQuantizeFp8Cases(cases);
  addLayerNormCases(cases);
  addMatmulGroupedCases(cases);
  addAttentionCases(cases);
  addAttentionBackwardCases(cases);
  addOpsCases(cases);
  addSortCases(cases);
  addViewScanDotCases(cases);
  return cases;
}

} // namespace tilec::e2e
