//===- TensorMapTest.cpp - TMA descriptor recipes without a GPU -----------===//
//
// The "tma_descriptor" hidden-parameter recipe: parsing and validation,
// resolution against launch arguments with the tensor copy's rules checked
// before any driver call, the per-kernel cache, and the parameter layout.
// The encode itself (cuTensorMapEncodeTiled) is tested in GpuKernelTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/PackedArguments.h"
#include "tilec/Runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace tilec::runtime;

namespace {

/// The recipe of docs/metadata.md.
const char *kRecipeA =
    R"({"kind": "tma_descriptor", "base": "a_ptr", "element": "fp16",
        "dims": [{"size": "K", "stride": 1},
                 {"size": "M", "stride": "stride_am"}],
        "box": [64, 128], "swizzle": 128, "oob_fill": "zero"})";

/// B is K x N with N contiguous; its innermost stride is a constexpr.
const char *kRecipeB =
    R"({"kind": "tma_descriptor", "base": "b_ptr", "element": "fp16",
        "dims": [{"size": "N", "stride": "stride_bn"},
                 {"size": "K", "stride": "stride_bk"}],
        "box": [64, 64], "swizzle": 128})";

std::string hiddenEntry(const std::string &name, const std::string &recipe,
                        int bytes = 128, int align = 64) {
  return R"({"name": ")" + name + R"(", "kind": "hidden", "bytes": )" +
         std::to_string(bytes) + R"(, "align": )" + std::to_string(align) +
         R"(, "recipe": )" + recipe + "}";
}

const char *kMatmulParameters = R"(
    {"name": "a_ptr", "kind": "pointer", "type": "fp16", "divisibility": 16},
    {"name": "b_ptr", "kind": "pointer", "type": "fp16", "divisibility": 16},
    {"name": "c_ptr", "kind": "pointer", "type": "fp32", "divisibility": 16},
    {"name": "M", "kind": "scalar", "type": "i32"},
    {"name": "N", "kind": "scalar", "type": "i32"},
    {"name": "K", "kind": "scalar", "type": "i32"},
    {"name": "stride_am", "kind": "scalar", "type": "i32"},
    {"name": "stride_ak", "kind": "constexpr", "type": "i32", "value": 1},
    {"name": "stride_bk", "kind": "scalar", "type": "i32"},
    {"name": "stride_bn", "kind": "constexpr", "type": "i32", "value": 1},
    {"name": "stride_cm", "kind": "scalar", "type": "i32"},
    {"name": "SCALE", "kind": "constexpr", "type": "fp32", "value": 1.5},
    {"name": "BLOCK_K", "kind": "constexpr", "type": "i32", "value": 64})";

std::string matmulJson(const std::string &hidden,
                       const std::string &parameters = kMatmulParameters) {
  return R"({"format": "tilec-kernel-metadata", "version": 1,
      "name": "matmul_kernel", "target": "sm_90a", "num_warps": 4,
      "num_threads": 128, "shared_memory": {"dynamic_bytes": 0},
      "parameters": [)" +
         parameters + R"(], "hidden_parameters": [)" + hidden + "]}";
}

std::string bothDescriptors() {
  return hiddenEntry("a_ptr.tma0", kRecipeA) + ", " +
         hiddenEntry("b_ptr.tma0", kRecipeB);
}

KernelMetadata mustParse(const std::string &json) {
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  EXPECT_TRUE(md) << md.status().message();
  return md ? *md : KernelMetadata();
}

std::string replaceOnce(std::string text, const std::string &from,
                        const std::string &to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not found";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// The parse error of the matmul metadata with `from` replaced by `to` in
/// recipe A ("" if it parses).
std::string recipeError(const std::string &from, const std::string &to,
                        int bytes = 128, int align = 64) {
  std::string json = matmulJson(
      hiddenEntry("a_ptr.tma0", replaceOnce(kRecipeA, from, to), bytes, align));
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  if (md)
    return "";
  EXPECT_EQ(md.status().code(), ErrorCode::InvalidMetadata);
  return md.status().message();
}

const std::string kWhere =
    "kernel metadata: hidden_parameters[0] ('a_ptr.tma0'): ";
const std::string kRecipeWhere = kWhere + "recipe: ";
const std::string kRule = ", as the Hopper tensor copy requires";

TEST(TmaRecipeTest, ParsesTheDocumentedRecipe) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  ASSERT_EQ(md.hiddenParameters.size(), 2u);
  const HiddenParameterInfo &a = md.hiddenParameters[0];
  EXPECT_EQ(a.name, "a_ptr.tma0");
  EXPECT_EQ(a.bytes, 128u);
  EXPECT_EQ(a.align, 64u);
  EXPECT_EQ(a.recipe.kind, "tma_descriptor");
  const TmaDescriptorRecipe &tma = a.recipe.tma;
  EXPECT_EQ(tma.base, "a_ptr");
  EXPECT_EQ(tma.baseArgument, 0);
  EXPECT_EQ(tma.element, ScalarType::FP16);
  ASSERT_EQ(tma.dims.size(), 2u);
  // K is launch argument 6 (index 5); its value comes at launch.
  EXPECT_EQ(tma.dims[0].size.parameter, "K");
  EXPECT_EQ(tma.dims[0].size.arguments, std::vector<int>{5});
  EXPECT_FALSE(tma.dims[0].size.known());
  EXPECT_TRUE(tma.dims[0].stride.known());
  EXPECT_EQ(tma.dims[0].stride.parameter, "");
  EXPECT_EQ(tma.dims[0].stride.value, 1);
  EXPECT_EQ(tma.dims[1].size.arguments, std::vector<int>{3});
  EXPECT_EQ(tma.dims[1].stride.parameter, "stride_am");
  EXPECT_EQ(tma.dims[1].stride.arguments, std::vector<int>{6});
  EXPECT_EQ(tma.box, (std::vector<std::uint32_t>{64, 128}));
  EXPECT_EQ(tma.swizzleBytes, 128u);
  EXPECT_FALSE(tma.nanFill);

  // A constexpr is resolved when parsed, keeping its name for messages;
  // stride_bk (launch index 7) skips the constexprs before it.
  const TmaDescriptorRecipe &b = md.hiddenParameters[1].recipe.tma;
  EXPECT_EQ(b.baseArgument, 1);
  EXPECT_TRUE(b.dims[0].stride.known());
  EXPECT_EQ(b.dims[0].stride.parameter, "stride_bn");
  EXPECT_EQ(b.dims[0].stride.value, 1);
  EXPECT_EQ(b.dims[1].stride.arguments, std::vector<int>{7});
  EXPECT_FALSE(b.nanFill); // "oob_fill" defaults to "zero".
}

TEST(TmaRecipeTest, LiteralsConstexprsAndDefaults) {
  std::string recipe =
      R"({"kind": "tma_descriptor", "base": "c_ptr", "element": "fp32",
          "dims": [{"size": 96, "stride": 1}, {"size": "BLOCK_K",
                    "stride": 128}, {"size": 3, "stride": 12288}],
          "box": [4, 1, 1], "oob_fill": "nan"})";
  KernelMetadata md = mustParse(matmulJson(hiddenEntry("c.tma", recipe)));
  const TmaDescriptorRecipe &tma = md.hiddenParameters[0].recipe.tma;
  EXPECT_EQ(tma.dims.size(), 3u);
  EXPECT_EQ(tma.dims[1].size.parameter, "BLOCK_K");
  EXPECT_EQ(tma.dims[1].size.value, 64);
  EXPECT_EQ(tma.dims[2].stride.value, 12288);
  EXPECT_EQ(tma.swizzleBytes, 0u); // "swizzle" defaults to 0.
  EXPECT_TRUE(tma.nanFill);
  // A larger parameter-space alignment than 64 is accepted.
  EXPECT_TRUE(KernelMetadata::parse(
      matmulJson(hiddenEntry("c.tma", recipe, 128, 128))));
}

TEST(TmaRecipeTest, SlotSizeAndAlignment) {
  EXPECT_EQ(recipeError("", "", 64),
            kWhere + "a tma_descriptor is a 128-byte CUtensorMap, metadata "
                     "says 'bytes' 64");
  EXPECT_EQ(recipeError("", "", 128, 16),
            kWhere + "a tma_descriptor is passed at 64-byte alignment (at "
                     "least), metadata says 'align' 16");
}

TEST(TmaRecipeTest, BaseAndElement) {
  EXPECT_EQ(recipeError(R"("base": "a_ptr", )", ""),
            "kernel metadata: missing required field hidden_parameters[0] "
            "('a_ptr.tma0'): recipe: 'base'");
  EXPECT_EQ(recipeError(R"("base": "a_ptr")", R"("base": "x_ptr")"),
            kRecipeWhere +
                "'base' names 'x_ptr', which is not a parameter of the kernel");
  EXPECT_EQ(recipeError(R"("base": "a_ptr")", R"("base": "M")"),
            kRecipeWhere +
                "'base' names 'M', a scalar parameter; it must name a pointer");
  EXPECT_EQ(recipeError(R"("base": "a_ptr")", R"("base": "BLOCK_K")"),
            kRecipeWhere + "'base' names 'BLOCK_K', a constexpr parameter; it "
                           "must name a pointer");
  EXPECT_EQ(recipeError(R"("element": "fp16")", R"("element": "fp8")"),
            kRecipeWhere + "unknown 'element' type 'fp8'");
  EXPECT_EQ(recipeError(R"("element": "fp16")", R"("element": 16)"),
            "kernel metadata: hidden_parameters[0] ('a_ptr.tma0'): recipe: "
            "'element' must be a string, got 16");
  EXPECT_EQ(recipeError(R"("element": "fp16")", R"("element": "fp32")"),
            kRecipeWhere + "'element' fp32 is 4 bytes, but 'a_ptr' points to "
                           "fp16 (2 bytes)");
  // Same size, another type: allowed (the kernel may view the bytes so).
  EXPECT_EQ(recipeError(R"("element": "fp16")", R"("element": "bf16")"), "");
}

TEST(TmaRecipeTest, Dims) {
  const std::string dims =
      R"([{"size": "K", "stride": 1},
                 {"size": "M", "stride": "stride_am"}])";
  EXPECT_EQ(recipeError(dims, "[]"),
            kRecipeWhere +
                "'dims' must have 1 to 5 entries (the tensor's rank), got 0");
  std::string six = "[";
  for (int i = 0; i < 6; ++i)
    six += std::string(i ? ", " : "") + R"({"size": 2, "stride": 1})";
  EXPECT_EQ(recipeError(dims, six + "]"),
            kRecipeWhere +
                "'dims' must have 1 to 5 entries (the tensor's rank), got 6");
  EXPECT_EQ(recipeError(dims, "[7]"),
            kRecipeWhere + "dims[0] must be an object, got 7");
  EXPECT_EQ(recipeError(R"({"size": "K", "stride": 1})", R"({"size": "K"})"),
            "kernel metadata: missing required field hidden_parameters[0] "
            "('a_ptr.tma0'): recipe: dims[0]: 'stride'");
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": "Q")"),
            kRecipeWhere +
                "dims[0].size names 'Q', which is not a parameter of the "
                "kernel");
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": "a_ptr")"),
            kRecipeWhere + "dims[0].size names 'a_ptr', a pointer parameter; "
                           "it must name an integer scalar or constexpr");
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": "SCALE")"),
            kRecipeWhere + "dims[0].size names constexpr 'SCALE' = 1.5, which "
                           "is not an integer");
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": 1.5)"),
            kRecipeWhere + "dims[0].size must be an integer, a parameter "
                           "name or {\"args\": [names], \"factor\": f}, got 1.5");
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": {"args": ["K"], "factor": 0})"),
            kRecipeWhere + "dims[0].size must be {\"args\": [names], \"factor\": "
                           "positive integer}, got {\"args\":[\"K\"],\"factor\":0}");
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": 0)"),
            kRecipeWhere + "dims[0].size = 0 is not a dimension size from 1 "
                           "to 2^32" +
                kRule);
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": 4294967297)"),
            kRecipeWhere + "dims[0].size = 4294967297 is not a dimension size "
                           "from 1 to 2^32" +
                kRule);
  EXPECT_EQ(recipeError(R"("size": "K")", R"("size": 4294967296)"), "");
  EXPECT_EQ(recipeError(R"("size": "K", "stride": 1)",
                        R"("size": "K", "stride": 2)"),
            kRecipeWhere + "dims[0].stride = 2: the innermost dimension must "
                           "be contiguous (stride 1)" +
                kRule);
  EXPECT_EQ(recipeError(R"("stride": "stride_am")", R"("stride": 1001)"),
            kRecipeWhere + "dims[1].stride = 1001 elements (2002 bytes) is "
                           "not a multiple of 16 bytes" +
                kRule);
  EXPECT_EQ(recipeError(R"("stride": "stride_am")", R"("stride": "stride_ak")"),
            kRecipeWhere + "stride_ak = 1 element (2 bytes) is not a multiple "
                           "of 16 bytes" +
                kRule);
  EXPECT_EQ(recipeError(R"("stride": "stride_am")", R"("stride": -64)"),
            kRecipeWhere + "dims[1].stride = -64 elements is negative; "
                           "strides must be non-negative" +
                kRule);
  EXPECT_EQ(recipeError(R"("stride": "stride_am")",
                        R"("stride": 549755813888)"),
            kRecipeWhere + "dims[1].stride = 549755813888 elements "
                           "(1099511627776 bytes) is not below 2^40 bytes" +
                kRule);
  EXPECT_EQ(recipeError(R"("stride": "stride_am")",
                        R"("stride": 549755813880)"),
            "");

  // A scalar must be an integer.
  std::string floatM = replaceOnce(
      kMatmulParameters, R"({"name": "M", "kind": "scalar", "type": "i32"})",
      R"({"name": "M", "kind": "scalar", "type": "fp32"})");
  Expected<KernelMetadata> md = KernelMetadata::parse(
      matmulJson(hiddenEntry("a_ptr.tma0", kRecipeA), floatM));
  ASSERT_FALSE(md);
  EXPECT_EQ(md.status().message(),
            kRecipeWhere + "dims[1].size names 'M', a scalar of type fp32; it "
                           "must be an integer (i8 to i64, u8 to u64)");
}

TEST(TmaRecipeTest, BoxSwizzleAndFill) {
  EXPECT_EQ(recipeError("[64, 128]", "[64]"),
            kRecipeWhere +
                "'box' has 1 entry for 2 dimensions (one per dimension)");
  EXPECT_EQ(recipeError("[64, 128]", "[64, 512]"),
            kRecipeWhere + "box[1] is 512, expected an integer from 1 to 256");
  EXPECT_EQ(recipeError("[64, 128]", "[64, 0]"),
            kRecipeWhere + "box[1] is 0, expected an integer from 1 to 256");
  EXPECT_EQ(recipeError("[64, 128]", R"([64, "BLOCK_K"])"),
            kRecipeWhere +
                "box[1] is \"BLOCK_K\", expected an integer from 1 to 256");
  EXPECT_EQ(recipeError("[64, 128]", "[4, 128]"),
            kRecipeWhere + "the innermost box dimension is 8 bytes (4 "
                           "elements of 2 bytes), not a multiple of 16 bytes" +
                kRule);
  EXPECT_EQ(recipeError("[64, 128]", "[128, 128]"),
            kRecipeWhere + "the innermost box dimension is 256 bytes (128 "
                           "elements of 2 bytes), more than the 128-byte "
                           "swizzle span" +
                kRule);
  EXPECT_EQ(recipeError(R"("swizzle": 128)", R"("swizzle": 32)"),
            kRecipeWhere + "the innermost box dimension is 128 bytes (64 "
                           "elements of 2 bytes), more than the 32-byte "
                           "swizzle span" +
                kRule);
  // Unswizzled, the innermost box may exceed 128 bytes.
  EXPECT_EQ(recipeError(R"("box": [64, 128], "swizzle": 128)",
                        R"("box": [256, 128], "swizzle": 0)"),
            "");
  EXPECT_EQ(recipeError(R"("swizzle": 128)", R"("swizzle": 16)"),
            kRecipeWhere + "'swizzle' must be 0, 32, 64 or 128 (bytes), got 16");
  EXPECT_EQ(recipeError(R"("oob_fill": "zero")", R"("oob_fill": "inf")"),
            kRecipeWhere + "'oob_fill' must be 'zero' or 'nan', got 'inf'");
  EXPECT_EQ(recipeError(R"("oob_fill": "zero")", R"("oob_fill": "nan")"), "");
  std::string nanInt = replaceOnce(
      replaceOnce(kRecipeA, R"("element": "fp16")", R"("element": "i16")"),
      R"("oob_fill": "zero")", R"("oob_fill": "nan")");
  Expected<KernelMetadata> md =
      KernelMetadata::parse(matmulJson(hiddenEntry("a_ptr.tma0", nanInt)));
  ASSERT_FALSE(md);
  EXPECT_EQ(md.status().message(),
            kRecipeWhere + "'oob_fill' 'nan' needs an fp16, bf16, fp32 or "
                           "fp64 element, got i16");
}

// --- Resolution at launch ---------------------------------------------------

constexpr DevicePtr kA = 0x7f0000000000ull;
constexpr DevicePtr kB = 0x7f0000100000ull;
constexpr DevicePtr kC = 0x7f0000200000ull;

/// (a, b, c, M, N, K, stride_am, stride_bk, stride_cm).
std::vector<KernelArg> matmulArgs(std::int32_t m = 512, std::int32_t n = 256,
                                  std::int32_t k = 1024,
                                  std::int32_t strideAm = 1024,
                                  DevicePtr a = kA) {
  return {KernelArg::pointer(a),
          KernelArg::pointer(kB),
          KernelArg::pointer(kC),
          KernelArg::scalar(m),
          KernelArg::scalar(n),
          KernelArg::scalar(k),
          KernelArg::scalar(strideAm),
          KernelArg::scalar(std::int32_t(n)),
          KernelArg::scalar(std::int32_t(n))};
}

std::string resolveError(const KernelMetadata &md, std::size_t hidden,
                         const std::vector<KernelArg> &args) {
  Expected<TensorMapRequest> request =
      resolveTensorMap(md, md.hiddenParameters[hidden], args);
  if (request)
    return "";
  EXPECT_EQ(request.status().code(), ErrorCode::InvalidArgument);
  return request.status().message();
}

const std::string kTmaA = "kernel 'matmul_kernel': TMA descriptor 'a_ptr.tma0': ";

TEST(TmaResolveTest, SizesAndByteStrides) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  std::vector<KernelArg> args = matmulArgs();
  Expected<TensorMapRequest> a =
      resolveTensorMap(md, md.hiddenParameters[0], args);
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->element, ScalarType::FP16);
  EXPECT_EQ(a->rank, 2u);
  EXPECT_EQ(a->globalAddress, kA);
  EXPECT_EQ(a->globalDim, (std::array<std::uint64_t, 5>{1024, 512, 0, 0, 0}));
  EXPECT_EQ(a->globalStrides, (std::array<std::uint64_t, 4>{2048, 0, 0, 0}));
  EXPECT_EQ(a->boxDim, (std::array<std::uint32_t, 5>{64, 128, 0, 0, 0}));
  EXPECT_EQ(a->elementStrides, (std::array<std::uint32_t, 5>{1, 1, 0, 0, 0}));
  EXPECT_EQ(a->swizzleBytes, 128u);
  EXPECT_FALSE(a->nanFill);

  Expected<TensorMapRequest> b =
      resolveTensorMap(md, md.hiddenParameters[1], args);
  ASSERT_TRUE(b) << b.status().message();
  EXPECT_EQ(b->globalAddress, kB);
  EXPECT_EQ(b->globalDim, (std::array<std::uint64_t, 5>{256, 1024, 0, 0, 0}));
  EXPECT_EQ(b->globalStrides, (std::array<std::uint64_t, 4>{512, 0, 0, 0}));

  EXPECT_EQ(describeTensorMap(md.hiddenParameters[0], *a),
            "fp16 tensor at 0x7f0000000000, sizes [K=1024, M=512], strides "
            "[1, stride_am=1024 (2048 bytes)], box [64, 128], swizzle 128B, "
            "out-of-bounds zero");
  EXPECT_EQ(describeTensorMap(md.hiddenParameters[1], *b),
            "fp16 tensor at 0x7f0000100000, sizes [N=256, K=1024], strides "
            "[stride_bn=1, stride_bk=256 (512 bytes)], box [64, 64], swizzle "
            "128B, out-of-bounds zero");

  // Equal inputs give equal requests; any change shows.
  Expected<TensorMapRequest> again =
      resolveTensorMap(md, md.hiddenParameters[0], matmulArgs());
  ASSERT_TRUE(again);
  EXPECT_TRUE(*again == *a);
  Expected<TensorMapRequest> moved = resolveTensorMap(
      md, md.hiddenParameters[0],
      matmulArgs(512, 256, 1024, 1024, kA + 4096));
  ASSERT_TRUE(moved);
  EXPECT_TRUE(*moved != *a);
  Expected<TensorMapRequest> taller =
      resolveTensorMap(md, md.hiddenParameters[0], matmulArgs(520));
  ASSERT_TRUE(taller);
  EXPECT_TRUE(*taller != *a);
}

// An empty dimension (K = 0: a loop over it copies nothing) is encoded as
// one element, which a descriptor can describe.
TEST(TmaResolveTest, EmptyDimensionIsOneElement) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  Expected<TensorMapRequest> a =
      resolveTensorMap(md, md.hiddenParameters[0], matmulArgs(512, 256, 0));
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->globalDim[0], 1u);
  EXPECT_EQ(a->globalDim[1], 512u);
}

// A size given as a factor times a product of parameters, and a parameter the
// coordinates assumed non-negative (checked at launch).
TEST(TmaResolveTest, FactorsAndNonNegativeArguments) {
  const char *recipe =
      R"({"kind": "tma_descriptor", "base": "a_ptr", "element": "fp16",
          "dims": [{"size": "K", "stride": 1},
                   {"size": {"args": ["M", "N"], "factor": 2}, "stride": "stride_am"}],
          "box": [64, 128], "swizzle": 128, "non_negative": ["M"]})";
  KernelMetadata md = mustParse(matmulJson(hiddenEntry("a_ptr.tma0", recipe)));
  Expected<TensorMapRequest> a =
      resolveTensorMap(md, md.hiddenParameters[0], matmulArgs(512, 256));
  ASSERT_TRUE(a) << a.status().message();
  EXPECT_EQ(a->globalDim[1], 2u * 512 * 256);
  EXPECT_EQ(resolveError(md, 0, matmulArgs(-3)),
            kTmaA + "M = -3 is negative, but the kernel's TMA copies were "
                    "placed assuming it is not (a block coordinate is "
                    "computed from it); compile with --disable-tma for such "
                    "launches");
}

TEST(TmaResolveTest, RulesAreCheckedBeforeTheDriver) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  EXPECT_EQ(resolveError(md, 0, matmulArgs(512, 256, 1024, 1001)),
            kTmaA + "stride_am = 1001 elements (2002 bytes) is not a multiple "
                    "of 16 bytes, as the Hopper tensor copy requires");
  EXPECT_EQ(resolveError(md, 0, matmulArgs(512, 256, 1024, 1024, kA + 8)),
            kTmaA + "base a_ptr = 0x7f0000000008 is not 16-byte aligned" +
                kRule);
  EXPECT_EQ(resolveError(md, 0, matmulArgs(-5)),
            kTmaA + "M = -5 is not a dimension size from 1 to 2^32" + kRule);
  EXPECT_EQ(resolveError(md, 0, matmulArgs(512, 256, 1024, -8)),
            kTmaA + "stride_am = -8 elements is negative; strides must be "
                    "non-negative" +
                kRule);
  // The parameter's type decides the sign: u32 0xffffffff for i32 M is -1.
  std::vector<KernelArg> args = matmulArgs();
  args[3] = KernelArg::scalar(std::uint32_t(0xffffffffu));
  EXPECT_EQ(resolveError(md, 0, args),
            kTmaA + "M = -1 is not a dimension size from 1 to 2^32" + kRule);
  EXPECT_EQ(resolveError(md, 1, matmulArgs(512, 257)),
            "kernel 'matmul_kernel': TMA descriptor 'b_ptr.tma0': stride_bk "
            "= 257 elements (514 bytes) is not a multiple of 16 bytes" +
                kRule);
  EXPECT_EQ(resolveError(md, 0, {}),
            kTmaA + "the kernel takes 9 arguments, got 0");
}

TEST(TmaResolveTest, WideScalarsAndAScalarInnermostStride) {
  // 64-bit sizes and strides, and the innermost stride from a scalar.
  std::string params = replaceOnce(
      replaceOnce(
          replaceOnce(kMatmulParameters,
                      R"({"name": "K", "kind": "scalar", "type": "i32"})",
                      R"({"name": "K", "kind": "scalar", "type": "u64"})"),
          R"({"name": "stride_am", "kind": "scalar", "type": "i32"})",
          R"({"name": "stride_am", "kind": "scalar", "type": "i64"})"),
      R"({"name": "stride_cm", "kind": "scalar", "type": "i32"})",
      R"({"name": "stride_cm", "kind": "scalar", "type": "i16"})");
  std::string recipe = replaceOnce(kRecipeA, R"({"size": "K", "stride": 1})",
                                   R"({"size": "K", "stride": "stride_cm"})");
  KernelMetadata md =
      mustParse(matmulJson(hiddenEntry("a_ptr.tma0", recipe), params));
  auto args = [](std::uint64_t k, std::int64_t strideAm,
                 std::int16_t strideCm) {
    return std::vector<KernelArg>{
        KernelArg::pointer(kA),          KernelArg::pointer(kB),
        KernelArg::pointer(kC),          KernelArg::scalar(std::int32_t(64)),
        KernelArg::scalar(std::int32_t(64)), KernelArg::scalar(k),
        KernelArg::scalar(strideAm),     KernelArg::scalar(std::int32_t(64)),
        KernelArg::scalar(strideCm)};
  };
  EXPECT_EQ(resolveError(md, 0, args(1ull << 32, 1ll << 38, 1)), "");
  EXPECT_EQ(resolveError(md, 0, args((1ull << 32) + 1, 64, 1)),
            kTmaA + "K = 4294967297 is not a dimension size from 1 to 2^32" +
                kRule);
  EXPECT_EQ(resolveError(md, 0, args(~0ull, 64, 1)),
            kTmaA + "K = 18446744073709551615 is out of range" + kRule);
  EXPECT_EQ(resolveError(md, 0, args(64, 1ll << 39, 1)),
            kTmaA + "stride_am = 549755813888 elements (1099511627776 bytes) "
                    "is not below 2^40 bytes" +
                kRule);
  EXPECT_EQ(resolveError(md, 0, args(64, 1ll << 62, 1)),
            kTmaA + "stride_am = 4611686018427387904 elements (over 2^60 "
                    "bytes) is not below 2^40 bytes" +
                kRule);
  EXPECT_EQ(resolveError(md, 0, args(64, 64, 2)),
            kTmaA + "stride_cm = 2: the innermost dimension must be "
                    "contiguous (stride 1)" +
                kRule);
  EXPECT_EQ(resolveError(md, 0, args(64, 64, -1)),
            kTmaA + "stride_cm = -1: the innermost dimension must be "
                    "contiguous (stride 1)" +
                kRule);
}

// --- The cache ----------------------------------------------------------------

TEST(TensorMapCacheTest, EncodesOnlyWhenTheInputsChange) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  const HiddenParameterInfo &hidden = md.hiddenParameters[0];
  int calls = 0;
  TensorMapCache::Encoder fake = [&](const TensorMapRequest &request) {
    ++calls;
    TensorMapBytes bytes{};
    std::memcpy(bytes.bytes, &request.globalAddress, 8);
    std::memcpy(bytes.bytes + 8, &request.globalDim[1], 8);
    return Expected<TensorMapBytes>(bytes);
  };
  auto bytesFor = [&](const std::vector<KernelArg> &args) {
    Expected<TensorMapRequest> request = resolveTensorMap(md, hidden, args);
    EXPECT_TRUE(request) << request.status().message();
    return *request;
  };
  TensorMapCache cache;
  TensorMapRequest first = bytesFor(matmulArgs());
  Expected<const TensorMapBytes *> got = cache.get(first, fake);
  ASSERT_TRUE(got);
  DevicePtr address = 0;
  std::memcpy(&address, (*got)->bytes, 8);
  EXPECT_EQ(address, kA);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(cache.get(bytesFor(matmulArgs()), fake));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cache.encodes(), 1u);
  EXPECT_EQ(cache.hits(), 3u);

  // Another base, then another size: re-encoded each time.
  got = cache.get(bytesFor(matmulArgs(512, 256, 1024, 1024, kA + 256)), fake);
  ASSERT_TRUE(got);
  std::memcpy(&address, (*got)->bytes, 8);
  EXPECT_EQ(address, kA + 256);
  got = cache.get(bytesFor(matmulArgs(640, 256, 1024, 1024, kA + 256)), fake);
  ASSERT_TRUE(got);
  std::uint64_t rows = 0;
  std::memcpy(&rows, (*got)->bytes + 8, 8);
  EXPECT_EQ(rows, 640u);
  EXPECT_EQ(calls, 3);
  // Back to the first inputs: only the last request is remembered.
  ASSERT_TRUE(cache.get(first, fake));
  EXPECT_EQ(calls, 4);
}

TEST(TensorMapCacheTest, AFailedEncodeIsNotCached) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  Expected<TensorMapRequest> request =
      resolveTensorMap(md, md.hiddenParameters[0], matmulArgs());
  ASSERT_TRUE(request);
  int calls = 0;
  bool fail = true;
  TensorMapCache::Encoder encoder =
      [&](const TensorMapRequest &) -> Expected<TensorMapBytes> {
    ++calls;
    if (fail)
      return Status::error(ErrorCode::CudaError, "encode failed");
    return TensorMapBytes{};
  };
  TensorMapCache cache;
  EXPECT_FALSE(cache.get(*request, encoder));
  EXPECT_EQ(cache.get(*request, encoder).status().message(), "encode failed");
  fail = false;
  EXPECT_TRUE(cache.get(*request, encoder));
  EXPECT_TRUE(cache.get(*request, encoder));
  EXPECT_EQ(calls, 3);
}

// --- Layout and data types ------------------------------------------------------

TEST(TmaLayoutTest, DescriptorsAreAlignedInTheConstantBank) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  // Source parameters end at 48; on sm_90 the parameter space starts at
  // constant-bank offset 0x210, so 64-byte alignment there puts the first
  // descriptor at 48 (0x210 + 48 = 9 * 64), as ptxas lays it out.
  std::vector<ArgumentSlot> slots = PackedArguments::layout(md);
  ASSERT_EQ(slots.size(), 11u);
  EXPECT_EQ(slots[8].name, "stride_cm");
  EXPECT_EQ(slots[8].offset, 44u);
  EXPECT_EQ(slots[9].name, "a_ptr.tma0");
  EXPECT_TRUE(slots[9].hidden);
  EXPECT_EQ(slots[9].offset, 48u);
  EXPECT_EQ(slots[9].size, 128u);
  EXPECT_EQ(slots[9].align, 64u);
  EXPECT_EQ(slots[10].offset, 176u);

  md.target = "sm_100a"; // Aligned relative to the parameter space.
  slots = PackedArguments::layout(md);
  EXPECT_EQ(slots[9].offset, 64u);
  EXPECT_EQ(slots[10].offset, 192u);
  md.target = "sm_80"; // Starts at 0x160: 0x160 + 96 = 7 * 64.
  slots = PackedArguments::layout(md);
  EXPECT_EQ(slots[9].offset, 96u);
  EXPECT_EQ(slots[10].offset, 224u);

  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_90a"), 0x210u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_90"), 0x210u);
  EXPECT_EQ(PackedArguments::parameterBankOffset(""), 0x210u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("hopper"), 0x210u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_89"), 0x160u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_70"), 0x160u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_100a"), 0u);
  EXPECT_EQ(PackedArguments::parameterBankOffset("sm_120f"), 0u);
}

TEST(TmaLayoutTest, PackingLeavesTheDescriptorSlotsToTheRecipe) {
  KernelMetadata md = mustParse(matmulJson(bothDescriptors()));
  Expected<PackedArguments> packed = PackedArguments::pack(md, matmulArgs());
  ASSERT_TRUE(packed) << packed.status().message();
  EXPECT_EQ(packed->totalBytes(), 320u); // 304 rounded up to 64.
  TensorMapBytes bytes;
  for (std::size_t i = 0; i < sizeof(bytes.bytes); ++i)
    bytes.bytes[i] = static_cast<std::uint8_t>(i + 1);
  ASSERT_TRUE(packed->setHidden(1, bytes.bytes, sizeof(bytes.bytes)).ok());
  EXPECT_EQ(std::memcmp(packed->data() + 176, bytes.bytes, 128), 0);
  void **params = packed->kernelParams();
  EXPECT_EQ(static_cast<std::uint8_t *>(params[10]), packed->data() + 176);
  EXPECT_EQ(packed->setHidden(0, bytes.bytes, 64).message(),
            "hidden parameter 'a_ptr.tma0' is 128 bytes, got 64");
}

TEST(TmaDataTypeTest, ElementTypesMapToTensorMapDataTypes) {
  // CUtensorMapDataType values (cuda.h): UINT8 0, UINT16 1, UINT32 2,
  // INT32 3, UINT64 4, INT64 5, FLOAT16 6, FLOAT32 7, FLOAT64 8, BFLOAT16 9.
  EXPECT_EQ(tensorMapDataType(ScalarType::FP16), 6);
  EXPECT_EQ(tensorMapDataType(ScalarType::BF16), 9);
  EXPECT_EQ(tensorMapDataType(ScalarType::FP32), 7);
  EXPECT_EQ(tensorMapDataType(ScalarType::FP64), 8);
  EXPECT_EQ(tensorMapDataType(ScalarType::I32), 3);
  EXPECT_EQ(tensorMapDataType(ScalarType::U32), 2);
  EXPECT_EQ(tensorMapDataType(ScalarType::I64), 5);
  EXPECT_EQ(tensorMapDataType(ScalarType::U64), 4);
  EXPECT_EQ(tensorMapDataType(ScalarType::I16), 1);
  EXPECT_EQ(tensorMapDataType(ScalarType::U16), 1);
  for (ScalarType byte : {ScalarType::I1, ScalarType::I8, ScalarType::U8,
                          ScalarType::FP8E4NV, ScalarType::FP8E5})
    EXPECT_EQ(tensorMapDataType(byte), 0) << scalarTypeName(byte);
}

} // namespace
