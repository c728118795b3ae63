//===- SignatureTest.cpp - Signature strings and scalar types -------------===//

#include "tilec/Runtime/ScalarType.h"
#include "tilec/Runtime/Signature.h"

#include <gtest/gtest.h>

using namespace tilec::runtime;

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

TEST(SignatureTest, ParsesPointersScalarsHintsAndLiterals) {
  Expected<std::vector<SignatureEntry>> sig =
      parseSignature(" *fp32:16, *fp16 ,i32, i64:16, 1024, 1.5, True, -3 ");
  ASSERT_TRUE(sig) << sig.status().message();
  ASSERT_EQ(sig->size(), 8u);
  const auto &e = *sig;
  EXPECT_EQ(e[0].kind, SignatureEntry::Kind::Pointer);
  EXPECT_EQ(e[0].type, ScalarType::FP32);
  EXPECT_EQ(e[0].divisibility, 16u);
  EXPECT_EQ(e[1].kind, SignatureEntry::Kind::Pointer);
  EXPECT_EQ(e[1].type, ScalarType::FP16);
  EXPECT_EQ(e[1].divisibility, 1u);
  EXPECT_EQ(e[2].kind, SignatureEntry::Kind::Scalar);
  EXPECT_EQ(e[2].type, ScalarType::I32);
  EXPECT_EQ(e[3].divisibility, 16u);
  EXPECT_EQ(e[4].kind, SignatureEntry::Kind::Constexpr);
  EXPECT_EQ(e[4].literal, "1024");
  EXPECT_EQ(e[5].literal, "1.5");
  EXPECT_EQ(e[6].literal, "True");
  EXPECT_EQ(e[7].literal, "-3");
  EXPECT_EQ(e[0].text, "*fp32:16");
}

TEST(SignatureTest, StringLiterals) {
  Expected<std::vector<SignatureEntry>> sig =
      parseSignature("'leaky_relu', \"gelu\", ''");
  ASSERT_TRUE(sig) << sig.status().message();
  ASSERT_EQ(sig->size(), 3u);
  EXPECT_EQ((*sig)[0].kind, SignatureEntry::Kind::Constexpr);
  EXPECT_EQ((*sig)[0].literal, "\"leaky_relu\"");
  EXPECT_EQ((*sig)[1].literal, "\"gelu\"");
  EXPECT_EQ((*sig)[2].literal, "\"\"");
  EXPECT_FALSE(parseSignature("'a\"b'"));
  EXPECT_FALSE(parseSignature("'abc"));
}

TEST(SignatureTest, EmptySignatureHasNoEntries) {
  Expected<std::vector<SignatureEntry>> sig = parseSignature("  ");
  ASSERT_TRUE(sig);
  EXPECT_TRUE(sig->empty());
}

TEST(SignatureTest, ErrorsNameTheEntry) {
  auto message = [](const char *text) {
    Expected<std::vector<SignatureEntry>> sig = parseSignature(text);
    EXPECT_FALSE(sig) << text;
    return sig ? std::string() : sig.status().message();
  };
  EXPECT_EQ(message("*fp32, *fp31, i32"),
            "signature entry 2 ('*fp31'): unknown type 'fp31' (expected one "
            "of i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 fp32 fp64 fp8e4nv "
            "fp8e5)");
  EXPECT_EQ(message("i32,,i32"), "signature entry 2 (''): empty entry");
  EXPECT_EQ(message("i32,"), "signature entry 2 (''): empty entry");
  EXPECT_EQ(message("i32:12"),
            "signature entry 1 ('i32:12'): divisibility hint 12 is not a "
            "power of two >= 2");
  EXPECT_EQ(message("i32:x"), "signature entry 1 ('i32:x'): divisibility "
                              "hint 'x' is not a positive integer");
  EXPECT_NE(message("i32:1").find("equal-to-1"), std::string::npos);
  EXPECT_EQ(parseSignature("*fp32:16, i32").status().code(), ErrorCode::Ok);
  EXPECT_EQ(parseSignature("banana").status().code(),
            ErrorCode::InvalidArgument);
}

} // namespace
