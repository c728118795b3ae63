//===- SignatureTest.cpp - Tests of the signature parser ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Signature.h"

#include "gtest/gtest.h"

using namespace tilec::frontend;

namespace {

std::string errorOf(llvm::StringRef text) {
  llvm::Expected<Signature> sig = parseSignature(text);
  if (sig)
    return "";
  return llvm::toString(sig.takeError());
}

TEST(SignatureTest, PointersScalarsAndHints) {
  llvm::Expected<Signature> sig =
      parseSignature(" *fp32:16 , *u8, i64:16, bf16,fp8e4nv ");
  ASSERT_TRUE(static_cast<bool>(sig)) << llvm::toString(sig.takeError());
  ASSERT_EQ(sig->entries.size(), 5u);
  EXPECT_TRUE(sig->entries[0].isPointer());
  EXPECT_EQ(sig->entries[0].type, "fp32");
  EXPECT_EQ(sig->entries[0].divisibility, 16);
  EXPECT_TRUE(sig->entries[1].isPointer());
  EXPECT_EQ(sig->entries[1].type, "u8");
  EXPECT_EQ(sig->entries[1].divisibility, 1);
  EXPECT_TRUE(sig->entries[2].isScalar());
  EXPECT_EQ(sig->entries[2].type, "i64");
  EXPECT_EQ(sig->entries[2].divisibility, 16);
  EXPECT_EQ(sig->entries[3].type, "bf16");
  EXPECT_EQ(sig->entries[4].type, "fp8e4nv");
  EXPECT_EQ(sig->str(), "*fp32:16, *u8, i64:16, bf16, fp8e4nv");
}

TEST(SignatureTest, SpacesAroundEntriesAndLiteralsAmongTypes) {
  llvm::Expected<Signature> sig =
      parseSignature(" *fp32:16, *fp16 ,i32, i64:16, 1024, 1.5, True, -3 ");
  ASSERT_TRUE(static_cast<bool>(sig)) << llvm::toString(sig.takeError());
  const auto &e = sig->entries;
  ASSERT_EQ(e.size(), 8u);
  EXPECT_TRUE(e[0].isPointer());
  EXPECT_EQ(e[0].type, "fp32");
  EXPECT_EQ(e[0].divisibility, 16);
  EXPECT_EQ(e[0].text, "*fp32:16");
  EXPECT_TRUE(e[1].isPointer());
  EXPECT_EQ(e[1].type, "fp16");
  EXPECT_EQ(e[1].divisibility, 1);
  EXPECT_TRUE(e[2].isScalar());
  EXPECT_EQ(e[2].type, "i32");
  EXPECT_EQ(e[3].divisibility, 16);
  EXPECT_TRUE(e[4].isConstexpr());
  EXPECT_EQ(e[4].getJSONValue(), "1024");
  EXPECT_EQ(e[5].getJSONValue(), "1.5");
  EXPECT_EQ(e[6].getJSONValue(), "true");
  EXPECT_EQ(e[7].getJSONValue(), "-3");
}

TEST(SignatureTest, StringLiterals) {
  llvm::Expected<Signature> sig =
      parseSignature("'leaky_relu', \"gelu\", '', 'a\"b'");
  ASSERT_TRUE(static_cast<bool>(sig)) << llvm::toString(sig.takeError());
  const auto &e = sig->entries;
  ASSERT_EQ(e.size(), 4u);
  for (const SignatureEntry &entry : e) {
    EXPECT_TRUE(entry.isConstexpr()) << entry.text;
    EXPECT_EQ(entry.literalKind, SignatureEntry::LiteralKind::Str);
  }
  EXPECT_EQ(e[0].getJSONValue(), "\"leaky_relu\"");
  EXPECT_EQ(e[1].getJSONValue(), "\"gelu\"");
  EXPECT_EQ(e[2].getJSONValue(), "\"\"");
  // Quotes inside are escaped in the JSON value.
  EXPECT_EQ(e[3].strValue, "a\"b");
  EXPECT_EQ(e[3].getJSONValue(), "\"a\\\"b\"");
  EXPECT_NE(errorOf("'abc"), "");
}

TEST(SignatureTest, Literals) {
  llvm::Expected<Signature> sig =
      parseSignature("1024, -3, 0x10, 1.5, 1e3, True, False, 4294967296, "
                     "'leaky_relu'");
  ASSERT_TRUE(static_cast<bool>(sig)) << llvm::toString(sig.takeError());
  const auto &e = sig->entries;
  ASSERT_EQ(e.size(), 9u);
  for (const SignatureEntry &entry : e)
    EXPECT_TRUE(entry.isConstexpr()) << entry.text;
  EXPECT_EQ(e[0].intValue, 1024);
  EXPECT_EQ(e[0].type, "i32");
  EXPECT_EQ(e[0].getJSONValue(), "1024");
  EXPECT_EQ(e[1].intValue, -3);
  EXPECT_EQ(e[2].intValue, 16);
  EXPECT_EQ(e[3].literalKind, SignatureEntry::LiteralKind::Float);
  EXPECT_EQ(e[3].floatValue, 1.5);
  EXPECT_EQ(e[3].type, "fp32");
  EXPECT_EQ(e[3].getJSONValue(), "1.5");
  EXPECT_EQ(e[4].floatValue, 1000.0);
  EXPECT_EQ(e[4].getJSONValue(), "1000.0");
  EXPECT_TRUE(e[5].boolValue);
  EXPECT_EQ(e[5].type, "i1");
  EXPECT_EQ(e[5].getJSONValue(), "true");
  EXPECT_FALSE(e[6].boolValue);
  EXPECT_EQ(e[7].type, "i64");
  EXPECT_EQ(e[8].literalKind, SignatureEntry::LiteralKind::Str);
  EXPECT_EQ(e[8].strValue, "leaky_relu");
  EXPECT_EQ(e[8].getJSONValue(), "\"leaky_relu\"");
}

TEST(SignatureTest, Empty) {
  llvm::Expected<Signature> sig = parseSignature("   ");
  ASSERT_TRUE(static_cast<bool>(sig));
  EXPECT_TRUE(sig->entries.empty());
}

TEST(SignatureTest, Errors) {
  EXPECT_EQ(errorOf("*fp32, *fp31"),
            "signature entry 2 ('*fp31'): unknown type 'fp31'; did you mean "
            "'fp32'?");
  EXPECT_EQ(errorOf("i32,,i32"), "signature entry 2 (''): empty entry");
  EXPECT_EQ(errorOf("i32,"), "signature entry 2 (''): empty entry");
  EXPECT_EQ(errorOf("i32:12"),
            "signature entry 1 ('i32:12'): divisibility 12 is not a power "
            "of two >= 2");
  EXPECT_EQ(errorOf("i32:x"),
            "signature entry 1 ('i32:x'): invalid divisibility 'x' (expected "
            "a power of two, e.g. ':16')");
  EXPECT_NE(errorOf("banana"), "");
  EXPECT_EQ(errorOf("*fp32:12"),
            "signature entry 1 ('*fp32:12'): divisibility 12 is not a power "
            "of two >= 2");
  EXPECT_EQ(errorOf("i32:1"),
            "signature entry 1 ('i32:1'): ':1' is not accepted; write the "
            "literal 1 to specialize the parameter to the value 1");
  EXPECT_EQ(errorOf("fp32:16"),
            "signature entry 1 ('fp32:16'): a divisibility hint needs a "
            "pointer or an integer, not 'fp32'");
  EXPECT_EQ(errorOf("16:16"), "signature entry 1 ('16:16'): a literal cannot "
                              "have a ':N' divisibility hint");
  EXPECT_EQ(errorOf("99999999999999999999"),
            "signature entry 1 ('99999999999999999999'): integer literal "
            "'99999999999999999999' does not fit in 64 bits");
  EXPECT_EQ(errorOf("*"), "signature entry 1 ('*'): missing type name");
  EXPECT_EQ(errorOf("'abc"),
            "signature entry 1 (''abc'): unterminated string literal 'abc");
  // Entries separated by spaces instead of commas.
  EXPECT_EQ(errorOf("*fp32 i32 128"),
            "signature entry 1 ('*fp32 i32 128'): entries must be separated "
            "by commas; did you mean '*fp32, i32, 128'?");
  EXPECT_EQ(errorOf("* fp32 :16 i32"),
            "signature entry 1 ('* fp32 :16 i32'): entries must be separated "
            "by commas; did you mean '*fp32:16, i32'?");
  // Spaces inside one entry are still ignored.
  EXPECT_EQ(errorOf("* fp32 : 16, i32"), "");
  // A name that is not a type: no far-fetched suggestion.
  EXPECT_EQ(errorOf("*fp32, n"),
            "signature entry 2 ('n'): 'n' is neither a type nor a literal: an "
            "entry is a type (i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 fp32 "
            "fp64 fp8e4nv fp8e5), '*' and a type for a pointer, or a literal "
            "such as 1024, 1.5, True or 'name'");
  EXPECT_EQ(errorOf("*n"), "signature entry 1 ('*n'): unknown type 'n' "
                           "(expected one of i1 i8 i16 i32 i64 u8 u16 u32 "
                           "u64 fp16 bf16 fp32 fp64 fp8e4nv fp8e5)");
  // triton.language spellings.
  EXPECT_EQ(errorOf("*float16"), "signature entry 1 ('*float16'): unknown "
                                 "type 'float16'; the signature spells it "
                                 "'fp16'");
  EXPECT_EQ(errorOf("f32"),
            "signature entry 1 ('f32'): unknown type 'f32'; the signature "
            "spells it 'fp32'");
}

TEST(SignatureTest, TypeNames) {
  for (llvm::StringRef name :
       {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16",
        "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5"})
    EXPECT_TRUE(isSignatureTypeName(name)) << name.str();
  EXPECT_FALSE(isSignatureTypeName("f32"));
  EXPECT_FALSE(isSignatureTypeName("int32"));
}

} // namespace
