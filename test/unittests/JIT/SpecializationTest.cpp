//===- SpecializationTest.cpp - Launch arguments to signatures ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/Specialization.h"

#include "gtest/gtest.h"

using namespace tilec;
using namespace tilec::jit;

namespace {

std::string entry(const Arg &arg, bool isConstexpr = false) {
  llvm::Expected<std::string> text = specializeArgument(arg, isConstexpr);
  if (!text)
    return "error: " + llvm::toString(text.takeError());
  return *text;
}

TEST(SpecializationTest, CppTypesGiveSignatureTypes) {
  EXPECT_EQ(Arg(int8_t(3)).type(), ScalarType::I8);
  EXPECT_EQ(Arg(int16_t(3)).type(), ScalarType::I16);
  EXPECT_EQ(Arg(3).type(), ScalarType::I32);
  EXPECT_EQ(Arg(3L).type(), ScalarType::I64);
  EXPECT_EQ(Arg(3LL).type(), ScalarType::I64);
  EXPECT_EQ(Arg(3u).type(), ScalarType::U32);
  EXPECT_EQ(Arg(uint64_t(3)).type(), ScalarType::U64);
  EXPECT_EQ(Arg(1.5f).type(), ScalarType::FP32);
  EXPECT_EQ(Arg(1.5).type(), ScalarType::FP64);
  EXPECT_EQ(Arg(true).kind(), Arg::Kind::Bool);
  float *f = reinterpret_cast<float *>(0x1000);
  const int32_t *i = reinterpret_cast<const int32_t *>(0x1000);
  EXPECT_EQ(Arg(f).kind(), Arg::Kind::Pointer);
  EXPECT_EQ(Arg(f).type(), ScalarType::FP32);
  EXPECT_EQ(Arg(i).type(), ScalarType::I32);
  EXPECT_EQ(Arg("relu").kind(), Arg::Kind::String);
  EXPECT_EQ(Arg(-5).intValue(), -5);
  EXPECT_EQ(Arg(uint8_t(250)).intValue(), 250);
}

TEST(SpecializationTest, TritonRules) {
  EXPECT_EQ(entry(Arg::pointer(uint64_t(0x7f0000001000), ScalarType::FP16)),
            "*fp16:16");
  EXPECT_EQ(entry(Arg::pointer(uint64_t(0x7f0000001004), ScalarType::FP32)),
            "*fp32");
  EXPECT_EQ(entry(Arg(1)), "1");
  EXPECT_EQ(entry(Arg(int64_t(1))), "1");
  EXPECT_EQ(entry(Arg(32)), "i32:16");
  EXPECT_EQ(entry(Arg(0)), "i32:16");
  EXPECT_EQ(entry(Arg(-48)), "i32:16");
  EXPECT_EQ(entry(Arg(1000)), "i32");
  EXPECT_EQ(entry(Arg(uint64_t(1) << 40)), "u64:16");
  EXPECT_EQ(entry(Arg(uint32_t(7))), "u32");
  EXPECT_EQ(entry(Arg(true)), "i1");
  EXPECT_EQ(entry(Arg(2.0f)), "fp32");
  EXPECT_EQ(entry(Arg(2.0)), "fp64");
  EXPECT_EQ(entry(Arg::scalarBits(ScalarType::FP16, 0x3c00)), "fp16");
}

TEST(SpecializationTest, ConstexprValues) {
  EXPECT_EQ(entry(Arg(1024), true), "1024");
  EXPECT_EQ(entry(Arg(-3), true), "-3");
  EXPECT_EQ(entry(Arg(1.5), true), "1.5");
  EXPECT_EQ(entry(Arg(2.0f), true), "2.0");
  EXPECT_EQ(entry(Arg(false), true), "False");
  EXPECT_EQ(entry(Arg("relu"), true), "'relu'");
  EXPECT_EQ(entry(Arg(reinterpret_cast<float *>(0x10)), true),
            "error: got a pointer for a tl.constexpr parameter");
  EXPECT_EQ(entry(Arg("a,b"), true),
            "error: a constexpr string cannot contain commas, quotes or "
            "backslashes");
  EXPECT_EQ(entry(Arg("relu")),
            "error: a string can only be passed to a tl.constexpr parameter");
}

frontend::KernelSource addKernel() {
  frontend::KernelSource k;
  k.name = "add";
  k.parameters = {{"x", false, ""},
                  {"n", false, ""},
                  {"BLOCK", true, "1024"},
                  {"ACT", true, "act"}};
  return k;
}

TEST(SpecializationTest, Signatures) {
  frontend::KernelSource k = addKernel();
  float *x = reinterpret_cast<float *>(0x7f0000002000);
  llvm::Expected<std::string> full =
      specializeSignature(k, {x, 100, 256, "relu"});
  ASSERT_TRUE(!!full) << llvm::toString(full.takeError());
  EXPECT_EQ(*full, "*fp32:16, i32, 256, 'relu'");

  // A missing argument takes a literal default, not another one.
  llvm::Expected<std::string> missing = specializeSignature(k, {x, 64});
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "kernel 'add', parameter 'ACT' (4th): no argument, and its "
            "default 'act' is not a literal; pass it");
  k.parameters.pop_back();
  llvm::Expected<std::string> defaulted = specializeSignature(k, {x, 64});
  ASSERT_TRUE(!!defaulted) << llvm::toString(defaulted.takeError());
  EXPECT_EQ(*defaulted, "*fp32:16, i32:16, 1024");
  k.parameters.back().defaultText.clear();
  llvm::Expected<std::string> none = specializeSignature(k, {x, 64});
  ASSERT_FALSE(!!none);
  EXPECT_EQ(llvm::toString(none.takeError()),
            "kernel 'add', parameter 'BLOCK' (3rd): no argument and no "
            "default");

  llvm::Expected<std::string> extra = specializeSignature(k, {x, 1, 2, 3});
  ASSERT_FALSE(!!extra);
  EXPECT_EQ(llvm::toString(extra.takeError()),
            "kernel 'add' takes 3 arguments, got 4");
  llvm::Expected<std::string> bad = specializeSignature(k, {"x", 1, 2});
  ASSERT_FALSE(!!bad);
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "kernel 'add', parameter 'x' (1st): a string can only be passed "
            "to a tl.constexpr parameter (string 'x')");
}

} // namespace
