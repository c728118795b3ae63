//===- ScalarTypeTest.cpp - The table of scalar types ---------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/ScalarType.h"
#include "tilec/Support/ScalarTypeMLIR.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <string>

using namespace tilec;

namespace {

TEST(ScalarTypeTest, NamesAndSizesRoundTrip) {
  struct {
    const char *name;
    std::size_t size;
    bool isFloat;
  } cases[] = {{"i1", 1, false},     {"i8", 1, false},   {"i16", 2, false},
               {"i32", 4, false},    {"i64", 8, false},  {"u8", 1, false},
               {"u16", 2, false},    {"u32", 4, false},  {"u64", 8, false},
               {"fp16", 2, true},    {"bf16", 2, true},  {"fp32", 4, true},
               {"fp64", 8, true},    {"fp8e4nv", 1, true}, {"fp8e5", 1, true}};
  ASSERT_EQ(std::size(cases), kNumScalarTypes);
  for (const auto &c : cases) {
    std::optional<ScalarType> type = parseScalarType(c.name);
    ASSERT_TRUE(type) << c.name;
    EXPECT_STREQ(scalarTypeName(*type), c.name);
    EXPECT_EQ(scalarTypeSize(*type), c.size) << c.name;
    EXPECT_EQ(isFloatType(*type), c.isFloat) << c.name;
    EXPECT_EQ(isIntegerType(*type), !c.isFloat) << c.name;
  }
  EXPECT_FALSE(parseScalarType("f32"));
  EXPECT_FALSE(parseScalarType("FP32"));
  EXPECT_FALSE(parseScalarType(""));
}

TEST(ScalarTypeTest, TheCAPIOrder) {
  // tilec_type (tilec-c/tilec.h) casts to ScalarType.
  EXPECT_EQ(static_cast<int>(ScalarType::I1), 0);
  EXPECT_EQ(static_cast<int>(ScalarType::U64), 8);
  EXPECT_EQ(static_cast<int>(ScalarType::FP16), 9);
  EXPECT_EQ(static_cast<int>(ScalarType::FP8E5), 14);
  for (std::size_t i = 0; i < kNumScalarTypes; ++i)
    EXPECT_EQ(static_cast<std::size_t>(kScalarTypes[i].type), i);
}

TEST(ScalarTypeTest, LanguageNamesSignednessAndCTypes) {
  const ScalarTypeInfo &u8 = getScalarTypeInfo(ScalarType::U8);
  EXPECT_EQ(u8.dtypeName, "uint8");
  EXPECT_EQ(u8.languageName, "uint8");
  EXPECT_FALSE(u8.isSigned);
  EXPECT_EQ(u8.cType, "uint8_t");
  EXPECT_TRUE(isSignedIntegerType(ScalarType::I64));
  EXPECT_FALSE(isSignedIntegerType(ScalarType::I1));
  EXPECT_FALSE(isSignedIntegerType(ScalarType::FP32));
  const ScalarTypeInfo &bf16 = getScalarTypeInfo(ScalarType::BF16);
  EXPECT_EQ(bf16.dtypeName, "bf16");
  EXPECT_EQ(bf16.languageName, "bfloat16");
  EXPECT_EQ(bf16.mantissaBits, 7u);
  EXPECT_EQ(bf16.cType, "uint16_t");
  EXPECT_EQ(lookupScalarTypeByLanguageName("float8e4nv"), ScalarType::FP8E4NV);
  EXPECT_EQ(lookupScalarTypeByLanguageName("int1"), ScalarType::I1);
  EXPECT_FALSE(lookupScalarTypeByLanguageName("fp32"));
  EXPECT_EQ(getScalarTypeInfo(ScalarType::I1).cType, "bool");
  EXPECT_EQ(getScalarTypeInfo(ScalarType::FP32).cType, "float");
}

TEST(ScalarTypeTest, MLIRTypesAndSemantics) {
  mlir::MLIRContext context;
  for (const ScalarTypeInfo &info : kScalarTypes) {
    mlir::Type type = getMLIRType(info.type, &context);
    ASSERT_TRUE(type) << info.name;
    std::string printed;
    llvm::raw_string_ostream os(printed);
    type.print(os);
    EXPECT_EQ(printed, info.mlirName) << info.name;
    // Signless integers read back as the signed type of their width.
    ScalarType back = info.type;
    if (info.isInteger() && !info.isSigned && info.bits > 1)
      back = *parseScalarType("i" + std::to_string(info.bits));
    EXPECT_EQ(getScalarTypeOf(type), back) << info.name;
    const llvm::fltSemantics *semantics = getFloatSemantics(info.type);
    EXPECT_EQ(semantics != nullptr, info.isFloat) << info.name;
    if (semantics)
      EXPECT_EQ(llvm::APFloat::semanticsSizeInBits(*semantics), info.bits)
          << info.name;
  }
  EXPECT_FALSE(getScalarTypeOf(mlir::IntegerType::get(&context, 128)));
  EXPECT_FALSE(getScalarTypeOf(mlir::IndexType::get(&context)));
}

} // namespace
