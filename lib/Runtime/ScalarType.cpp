//===- ScalarType.cpp - Element and scalar types of the kernel ABI --------===//

#include "tilec/Runtime/ScalarType.h"

namespace tilec::runtime {

namespace {
struct TypeInfo {
  ScalarType type;
  const char *name;
  std::size_t size;
  bool isFloat;
};

constexpr TypeInfo kTypes[] = {
    {ScalarType::I1, "i1", 1, false},
    {ScalarType::I8, "i8", 1, false},
    {ScalarType::I16, "i16", 2, false},
    {ScalarType::I32, "i32", 4, false},
    {ScalarType::I64, "i64", 8, false},
    {ScalarType::U8, "u8", 1, false},
    {ScalarType::U16, "u16", 2, false},
    {ScalarType::U32, "u32", 4, false},
    {ScalarType::U64, "u64", 8, false},
    {ScalarType::FP16, "fp16", 2, true},
    {ScalarType::BF16, "bf16", 2, true},
    {ScalarType::FP32, "fp32", 4, true},
    {ScalarType::FP64, "fp64", 8, true},
    {ScalarType::FP8E4NV, "fp8e4nv", 1, true},
    {ScalarType::FP8E5, "fp8e5", 1, true},
};

const TypeInfo &info(ScalarType type) {
  for (const TypeInfo &entry : kTypes)
    if (entry.type == type)
      return entry;
  return kTypes[0]; // Unreachable for valid enum values.
}
} // namespace

std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (const TypeInfo &entry : kTypes)
    if (name == entry.name)
      return entry.type;
  return std::nullopt;
}

const char *scalarTypeName(ScalarType type) { return info(type).name; }

std::size_t scalarTypeSize(ScalarType type) { return info(type).size; }

bool isFloatType(ScalarType type) { return info(type).isFloat; }

bool isIntegerType(ScalarType type) { return !info(type).isFloat; }

} // namespace tilec::runtime
