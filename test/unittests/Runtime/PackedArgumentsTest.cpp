//===- PackedArgumentsTest.cpp - Argument checking and packing ------------===//

#include "tilec/Runtime/FloatConversion.h"
#include "tilec/Runtime/PackedArguments.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace tilec::runtime;

namespace {

/// (float *out :16, u8 c, float a, half d, i64 b :16, BLOCK = 64, i1 flag)
/// plus an optional hidden global-scratch pointer.
/// The mixed kernel's metadata with `hidden` (JSON objects, comma
/// separated) as its hidden parameters and `extra` (JSON members, each
/// followed by a comma) among its top-level fields.
Expected<KernelMetadata> parseMixed(const std::string &hidden,
                                    const std::string &extra = "") {
  std::string json = R"json({
    "format": "tilec-kernel-metadata", "version": 1, "name": "mixed",
    "num_threads": 128, "shared_memory": {"dynamic_bytes": 0}, EXTRA
    "parameters": [
      {"name": "out", "kind": "pointer", "type": "fp32", "divisibility": 16},
      {"name": "c", "kind": "scalar", "type": "u8"},
      {"name": "a", "kind": "scalar", "type": "fp32"},
      {"name": "d", "kind": "scalar", "type": "fp16"},
      {"name": "b", "kind": "scalar", "type": "i64", "divisibility": 16},
      {"name": "BLOCK", "kind": "constexpr", "type": "i32", "value": 64},
      {"name": "flag", "kind": "scalar", "type": "i1"}
    ],
    "hidden_parameters": [HIDDEN]})json";
  json.replace(json.find("HIDDEN"), 6, hidden);
  json.replace(json.find("EXTRA"), 5, extra);
  return KernelMetadata::parse(json);
}

KernelMetadata mixedMetadata(bool withScratch = false) {
  Expected<KernelMetadata> md = parseMixed(
      withScratch ? R"({"name": "scratch", "kind": "hidden", "bytes": 8,
                       "align": 8, "recipe": {"kind": "global_scratch",
                       "bytes_per_program": 0}})"
                  : "");
  EXPECT_TRUE(md) << md.status().message();
  return md ? *md : KernelMetadata();
}

std::vector<KernelArg> goodArgs() {
  return {KernelArg::pointer(0x7f0000001000ull),
          KernelArg::scalar(std::uint8_t(200)),
          KernelArg::scalar(1.5f),
          KernelArg::scalarBits(ScalarType::FP16, floatToHalfBits(-2.0f)),
          KernelArg::scalar(std::int64_t(-32)),
          KernelArg::scalar(true)};
}

template <typename T> T readAt(const PackedArguments &packed, std::size_t at) {
  T value;
  std::memcpy(&value, packed.data() + at, sizeof(T));
  return value;
}

TEST(PackedArgumentsTest, LaysOutNaturallyAlignedSlots) {
  KernelMetadata md = mixedMetadata();
  Expected<PackedArguments> packed = PackedArguments::pack(md, goodArgs());
  ASSERT_TRUE(packed) << packed.status().message();
  const std::vector<ArgumentSlot> &slots = packed->slots();
  ASSERT_EQ(slots.size(), 6u);
  struct {
    const char *name;
    std::size_t offset, size;
  } expected[] = {{"out", 0, 8}, {"c", 8, 1},  {"a", 12, 4},
                  {"d", 16, 2},  {"b", 24, 8}, {"flag", 32, 1}};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(slots[i].name, expected[i].name);
    EXPECT_EQ(slots[i].offset, expected[i].offset) << expected[i].name;
    EXPECT_EQ(slots[i].size, expected[i].size) << expected[i].name;
    EXPECT_FALSE(slots[i].hidden);
  }
  EXPECT_EQ(packed->totalBytes(), 40u); // 33 rounded up to 8.
  EXPECT_EQ(readAt<std::uint64_t>(*packed, 0), 0x7f0000001000ull);
  EXPECT_EQ(readAt<std::uint8_t>(*packed, 8), 200);
  EXPECT_EQ(readAt<float>(*packed, 12), 1.5f);
  EXPECT_EQ(readAt<std::uint16_t>(*packed, 16), 0xc000);
  EXPECT_EQ(readAt<std::int64_t>(*packed, 24), -32);
  EXPECT_EQ(readAt<std::uint8_t>(*packed, 32), 1);
  // Padding stays zero.
  EXPECT_EQ(readAt<std::uint8_t>(*packed, 9), 0);

  void **params = packed->kernelParams();
  ASSERT_NE(params, nullptr);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(static_cast<std::uint8_t *>(params[i]),
              packed->data() + expected[i].offset);

  std::vector<ArgumentSlot> layout = PackedArguments::layout(md);
  ASSERT_EQ(layout.size(), slots.size());
  for (std::size_t i = 0; i < layout.size(); ++i)
    EXPECT_EQ(layout[i].offset, slots[i].offset);
}

TEST(PackedArgumentsTest, HiddenParametersFollowAndAreSettable) {
  KernelMetadata md = mixedMetadata(/*withScratch=*/true);
  Expected<PackedArguments> packed = PackedArguments::pack(md, goodArgs());
  ASSERT_TRUE(packed) << packed.status().message();
  ASSERT_EQ(packed->slots().size(), 7u);
  const ArgumentSlot &scratch = packed->slots().back();
  EXPECT_TRUE(scratch.hidden);
  EXPECT_EQ(scratch.name, "scratch");
  EXPECT_EQ(scratch.offset, 40u);
  EXPECT_EQ(packed->totalBytes(), 48u);
  EXPECT_EQ(readAt<std::uint64_t>(*packed, 40), 0u);
  std::uint64_t address = 0xabcdef00;
  EXPECT_TRUE(packed->setHidden(0, &address, 8).ok());
  EXPECT_EQ(readAt<std::uint64_t>(*packed, 40), address);
  Status wrongSize = packed->setHidden(0, &address, 4);
  EXPECT_EQ(wrongSize.message(),
            "hidden parameter 'scratch' is 8 bytes, got 4");
  EXPECT_FALSE(packed->setHidden(1, &address, 8).ok());
}

TEST(PackedArgumentsTest, ProgramGridValuesAreTheCallersGrid) {
  // The mixed kernel's six source slots end at byte 33; then, in this order,
  // grid x (i32), a scratch pointer, grid z and grid y.
  Expected<KernelMetadata> md = parseMixed(
      R"json({"name": "grid_x", "kind": "hidden", "bytes": 4, "align": 4,
       "recipe": {"kind": "program_grid", "axis": 0}},
      {"name": "scratch", "kind": "hidden", "bytes": 8, "align": 8,
       "recipe": {"kind": "global_scratch", "bytes_per_program": 0}},
      {"name": "grid_z", "kind": "hidden", "bytes": 4, "align": 4,
       "recipe": {"kind": "program_grid", "axis": 2}},
      {"name": "grid_y", "kind": "hidden", "bytes": 4, "align": 4,
       "recipe": {"kind": "program_grid", "axis": 1}})json",
      R"("persistent": true,)");
  ASSERT_TRUE(md) << md.status().message();
  Expected<PackedArguments> packed = PackedArguments::pack(*md, goodArgs());
  ASSERT_TRUE(packed) << packed.status().message();
  const std::vector<ArgumentSlot> &slots = packed->slots();
  ASSERT_EQ(slots.size(), 10u);
  struct {
    const char *name;
    std::size_t offset, size;
  } hidden[] = {{"grid_x", 36, 4}, {"scratch", 40, 8}, {"grid_z", 48, 4},
                {"grid_y", 52, 4}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(slots[6 + i].name, hidden[i].name);
    EXPECT_TRUE(slots[6 + i].hidden);
    EXPECT_EQ(slots[6 + i].offset, hidden[i].offset) << hidden[i].name;
    EXPECT_EQ(slots[6 + i].size, hidden[i].size) << hidden[i].name;
  }
  EXPECT_EQ(packed->totalBytes(), 56u);

  // The launch grid (7, 3, 2): each value at its slot, nothing else touched.
  ASSERT_TRUE(packed->setProgramGrid(*md, LaunchGrid{7, 3, 2}).ok());
  EXPECT_EQ(readAt<std::int32_t>(*packed, 36), 7);
  EXPECT_EQ(readAt<std::uint64_t>(*packed, 40), 0u);
  EXPECT_EQ(readAt<std::int32_t>(*packed, 48), 2);
  EXPECT_EQ(readAt<std::int32_t>(*packed, 52), 3);
  EXPECT_EQ(readAt<std::uint8_t>(*packed, 32), 1); // flag, still there
  void **params = packed->kernelParams();
  EXPECT_EQ(*static_cast<std::int32_t *>(params[6]), 7);
  EXPECT_EQ(*static_cast<std::int32_t *>(params[8]), 2);
  EXPECT_EQ(*static_cast<std::int32_t *>(params[9]), 3);

  // The largest x a launch allows still fits; beyond it does not.
  ASSERT_TRUE(
      packed->setProgramGrid(*md, LaunchGrid{0x7fffffffu, 65535, 1}).ok());
  EXPECT_EQ(readAt<std::int32_t>(*packed, 36), 0x7fffffff);
  EXPECT_EQ(readAt<std::int32_t>(*packed, 52), 65535);
  EXPECT_EQ(readAt<std::int32_t>(*packed, 48), 1);
  Status tooBig = packed->setProgramGrid(*md, LaunchGrid{0x80000000u, 1, 1});
  EXPECT_EQ(tooBig.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(tooBig.message(),
            "kernel 'mixed': hidden parameter 'grid_x' (program_grid, axis "
            "0): grid size 2147483648 does not fit a 32-bit integer");

  // A kernel without program_grid parameters is left alone.
  KernelMetadata plain = mixedMetadata(/*withScratch=*/true);
  Expected<PackedArguments> other = PackedArguments::pack(plain, goodArgs());
  ASSERT_TRUE(other);
  std::vector<std::uint8_t> before(other->data(),
                                   other->data() + other->totalBytes());
  EXPECT_TRUE(other->setProgramGrid(plain, LaunchGrid{7, 3, 2}).ok());
  EXPECT_EQ(std::vector<std::uint8_t>(other->data(),
                                      other->data() + other->totalBytes()),
            before);
}

TEST(PackedArgumentsTest, OverAlignedSlotsFollowTheConstantBank) {
  // ptxas aligns parameters in constant bank 0, where sm_90's parameter
  // space starts at 0x210: a 64-byte aligned slot after 8 bytes sits at 48
  // (0x210 + 48 = 9 * 64), not 64. Measured with ptxas for sm_80 (base
  // 0x160), sm_90a (0x210), sm_100a and sm_120a (relative alignment).
  Expected<KernelMetadata> md = KernelMetadata::parse(R"({
    "format": "tilec-kernel-metadata", "version": 1, "name": "k",
    "target": "sm_90a", "num_threads": 32,
    "shared_memory": {"dynamic_bytes": 0},
    "parameters": [{"name": "p", "kind": "pointer", "type": "fp32"}],
    "hidden_parameters": [{"name": "h", "kind": "hidden", "bytes": 8,
      "align": 64, "recipe": {"kind": "global_scratch",
                              "bytes_per_program": 0}}]})");
  ASSERT_TRUE(md) << md.status().message();
  struct {
    const char *target;
    std::size_t offset;
  } cases[] = {{"sm_90a", 48}, {"sm_90", 48},   {"", 48},
               {"sm_80", 32},  {"sm_89", 32},   {"sm_100a", 64},
               {"sm_120a", 64}};
  for (const auto &c : cases) {
    md->target = c.target;
    std::vector<ArgumentSlot> slots = PackedArguments::layout(*md);
    ASSERT_EQ(slots.size(), 2u);
    EXPECT_EQ(slots[0].offset, 0u) << c.target;
    EXPECT_EQ(slots[1].offset, c.offset) << c.target;
  }
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_90a"), 0x210u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_86"), 0x160u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_100a"), 0u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("not a target"), 0x210u);
}

std::string packError(std::vector<KernelArg> args) {
  Expected<PackedArguments> packed =
      PackedArguments::pack(mixedMetadata(), args);
  if (packed)
    return "";
  EXPECT_EQ(packed.status().code(), ErrorCode::InvalidArgument);
  return packed.status().message();
}

TEST(PackedArgumentsTest, CountMismatchListsTheParameters) {
  std::vector<KernelArg> args = goodArgs();
  args.pop_back();
  EXPECT_EQ(packError(args), "kernel 'mixed' takes 6 arguments (out, c, a, "
                             "d, b, flag), got 5");
}

TEST(PackedArgumentsTest, KindMismatch) {
  std::vector<KernelArg> args = goodArgs();
  args[0] = KernelArg::scalar(std::int32_t(5));
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 1 for parameter 'out' (pointer to fp32, "
            "8 bytes) got i32 5 (a scalar, expected a pointer)");
  args = goodArgs();
  args[2] = KernelArg::pointer(0x1000);
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 3 for parameter 'a' (scalar fp32, 4 "
            "bytes) got pointer 0x1000 (a pointer, expected a scalar)");
}

TEST(PackedArgumentsTest, ScalarSizeAndTypeMismatch) {
  std::vector<KernelArg> args = goodArgs();
  args[4] = KernelArg::scalar(std::int32_t(16));
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 5 for parameter 'b' (scalar i64, 8 "
            "bytes) got i32 16 (4 bytes)");
  args = goodArgs();
  args[2] = KernelArg::scalar(std::int32_t(3));
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 3 for parameter 'a' (scalar fp32, 4 "
            "bytes) got i32 3 (wrong type: expected fp32)");
  args = goodArgs();
  args[3] = KernelArg::scalarBits(ScalarType::BF16, 0x3f80);
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 4 for parameter 'd' (scalar fp16, 2 "
            "bytes) got bf16 1 (wrong type: expected fp16)");
  // Signed and unsigned integers of one width are interchangeable.
  args = goodArgs();
  args[1] = KernelArg::scalar(std::int8_t(-1));
  args[4] = KernelArg::scalar(std::uint64_t(48));
  EXPECT_EQ(packError(args), "");
}

TEST(PackedArgumentsTest, DivisibilityPromisesAreChecked) {
  std::vector<KernelArg> args = goodArgs();
  args[0] = KernelArg::pointer(0x7f0000001004ull);
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 1 for parameter 'out' (pointer to fp32, "
            "8 bytes) got pointer 0x7f0000001004, which is not a multiple of "
            "16 as the kernel was compiled to assume (divisibility 16)");
  args = goodArgs();
  args[4] = KernelArg::scalar(std::int64_t(40));
  EXPECT_EQ(packError(args),
            "kernel 'mixed': argument 5 for parameter 'b' (scalar i64, 8 "
            "bytes) got i64 40, which is not a multiple of 16 as the kernel "
            "was compiled to assume (divisibility 16)");
}

TEST(PackedArgumentsTest, NoParameters) {
  Expected<KernelMetadata> md = KernelMetadata::parse(R"({
    "format": "tilec-kernel-metadata", "version": 1, "name": "empty",
    "num_threads": 32, "shared_memory": {"dynamic_bytes": 0},
    "parameters": [{"name": "N", "kind": "constexpr", "value": 4}]})");
  ASSERT_TRUE(md);
  Expected<PackedArguments> packed = PackedArguments::pack(*md, {});
  ASSERT_TRUE(packed);
  EXPECT_EQ(packed->totalBytes(), 0u);
  EXPECT_EQ(packed->kernelParams(), nullptr);
  Expected<PackedArguments> extra =
      PackedArguments::pack(*md, {KernelArg::scalar(std::int32_t(1))});
  ASSERT_FALSE(extra);
  EXPECT_EQ(extra.status().message(),
            "kernel 'empty' takes 0 arguments (), got 1");
}

TEST(KernelArgTest, DescribeAndBits) {
  EXPECT_EQ(KernelArg::scalar(std::int16_t(-7)).describe(), "i16 -7");
  EXPECT_EQ(KernelArg::scalar(std::uint32_t(7)).describe(), "u32 7");
  EXPECT_EQ(KernelArg::scalar(0.25).describe(), "fp64 0.25");
  EXPECT_EQ(KernelArg::scalar(std::int16_t(-7)).bits(), 0xfff9u);
  EXPECT_EQ(KernelArg::scalar(std::int16_t(-7)).size(), 2u);
  EXPECT_EQ(KernelArg::pointer(0x10).size(), 8u);
  EXPECT_EQ(KernelArg::scalar(false).describe(), "i1 0");
}

} // namespace
