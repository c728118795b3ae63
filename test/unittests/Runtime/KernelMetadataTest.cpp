//===- KernelMetadataTest.cpp - Parsing the kernel metadata JSON ----------===//

#include "tilec/Runtime/KernelMetadata.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

using namespace tilec::runtime;

namespace {

/// The example from docs/metadata.md.
const char *kVectorAdd = R"json({
  "format": "tilec-kernel-metadata", "version": 1,
  "name": "add_kernel", "entry": "add_kernel",
  "tilec_version": "0.1.0", "target": "sm_90a", "ptx_version": "8.0",
  "num_warps": 4, "num_stages": 3, "num_threads": 128,
  "shared_memory": {"static_bytes": 0, "dynamic_bytes": 4096},
  "cluster_dims": [1, 1, 1],
  "source": {"path": "examples/vector_add.tile", "hash": "ab12"},
  "signature": "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
  "parameters": [
    {"name": "x_ptr", "kind": "pointer", "type": "fp32", "divisibility": 16},
    {"name": "y_ptr", "kind": "pointer", "type": "fp32", "divisibility": 16},
    {"name": "output_ptr", "kind": "pointer", "type": "fp32", "divisibility": 16},
    {"name": "n", "kind": "scalar", "type": "i32", "divisibility": 1},
    {"name": "BLOCK", "kind": "constexpr", "type": "i32", "value": 1024}
  ],
  "hidden_parameters": [],
  "ptxas": {"registers": 32, "spill_stores": 0, "spill_loads": 4,
            "stack_frame": 8, "shared_bytes": 0},
  "artifacts": {"ptx": "vector_add.ptx", "cubin": "vector_add.cubin"}
})json";

std::string replaceOnce(std::string text, const std::string &from,
                        const std::string &to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not found";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// Parses `json` and returns the error message ("" if it parsed).
std::string errorOf(const std::string &json) {
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  if (md)
    return "";
  EXPECT_EQ(md.status().code(), ErrorCode::InvalidMetadata);
  return md.status().message();
}

TEST(KernelMetadataTest, ParsesTheDocumentedExample) {
  Expected<KernelMetadata> md = KernelMetadata::parse(kVectorAdd);
  ASSERT_TRUE(md) << md.status().message();
  EXPECT_EQ(md->name, "add_kernel");
  EXPECT_EQ(md->entry, "add_kernel");
  EXPECT_EQ(md->tilecVersion, "0.1.0");
  EXPECT_EQ(md->target, "sm_90a");
  EXPECT_EQ(md->ptxVersion, "8.0");
  EXPECT_EQ(md->numWarps, 4);
  EXPECT_EQ(md->numStages, 3);
  EXPECT_EQ(md->numThreads, 128);
  EXPECT_EQ(md->staticSharedBytes, 0u);
  EXPECT_EQ(md->dynamicSharedBytes, 4096u);
  EXPECT_EQ(md->clusterDims, (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_EQ(md->sourcePath, "examples/vector_add.tile");
  EXPECT_EQ(md->sourceHash, "ab12");
  EXPECT_EQ(md->signature, "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  ASSERT_EQ(md->parameters.size(), 5u);
  EXPECT_EQ(md->parameters[0].kind, ParameterInfo::Kind::Pointer);
  EXPECT_EQ(md->parameters[0].type, ScalarType::FP32);
  EXPECT_EQ(md->parameters[0].divisibility, 16u);
  EXPECT_EQ(md->parameters[3].kind, ParameterInfo::Kind::Scalar);
  EXPECT_EQ(md->parameters[3].type, ScalarType::I32);
  EXPECT_EQ(md->parameters[4].kind, ParameterInfo::Kind::Constexpr);
  EXPECT_EQ(md->parameters[4].constexprValue, "1024");
  EXPECT_TRUE(md->hiddenParameters.empty());
  ASSERT_TRUE(md->ptxas);
  EXPECT_EQ(md->ptxas->registers, 32);
  EXPECT_EQ(md->ptxas->spillLoads, 4);
  EXPECT_EQ(md->ptxas->stackFrame, 8);
  EXPECT_EQ(md->ptxFile, "vector_add.ptx");
  EXPECT_EQ(md->cubinFile, "vector_add.cubin");
  EXPECT_EQ(md->directory, "");
}

TEST(KernelMetadataTest, LaunchParametersSkipConstexprs) {
  std::string json = replaceOnce(
      kVectorAdd, R"({"name": "n", "kind": "scalar", "type": "i32", "divisibility": 1},)",
      R"({"name": "ONE", "kind": "constexpr", "value": 1},
         {"name": "n", "kind": "scalar", "type": "i32"},
         {"name": "SCALE", "kind": "constexpr", "type": "fp32", "value": 1.5},
         {"name": "FLAG", "kind": "constexpr", "type": "i1", "value": true},)");
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  ASSERT_TRUE(md) << md.status().message();
  std::vector<const ParameterInfo *> launch = md->launchParameters();
  ASSERT_EQ(launch.size(), 4u);
  EXPECT_EQ(launch[0]->name, "x_ptr");
  EXPECT_EQ(launch[3]->name, "n");
  EXPECT_EQ(launch[3]->divisibility, 1u);
  EXPECT_EQ(md->parameters[3].constexprValue, "1");
  EXPECT_FALSE(md->parameters[3].hasType);
  EXPECT_EQ(md->parameters[5].constexprValue, "1.5");
  EXPECT_EQ(md->parameters[6].constexprValue, "true");
}

// The frontend writes a string constexpr (Triton's matmul tutorial's
// ACTIVATION='leaky_relu') with the type "str".
TEST(KernelMetadataTest, StringConstexpr) {
  std::string json = replaceOnce(
      kVectorAdd, R"({"name": "n", "kind": "scalar", "type": "i32", "divisibility": 1},)",
      R"({"name": "n", "kind": "scalar", "type": "i32"},
         {"name": "ACT", "kind": "constexpr", "type": "str", "value": "leaky_relu"},)");
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  ASSERT_TRUE(md) << md.status().message();
  EXPECT_EQ(md->launchParameters().size(), 4u);
  EXPECT_EQ(md->parameters[4].constexprValue, "\"leaky_relu\"");
  EXPECT_FALSE(md->parameters[4].hasType);
  std::string bad = replaceOnce(json, R"("value": "leaky_relu")", R"("value": 3)");
  md = KernelMetadata::parse(bad);
  ASSERT_FALSE(md);
  EXPECT_NE(md.status().message().find("type 'str' needs a string value"),
            std::string::npos)
      << md.status().message();
}

TEST(KernelMetadataTest, OptionalFieldsDefault) {
  const char *minimal = R"json({
    "format": "tilec-kernel-metadata", "version": 1, "name": "k",
    "num_threads": 64, "shared_memory": {"dynamic_bytes": 0},
    "parameters": [], "ptxas": null})json";
  Expected<KernelMetadata> md = KernelMetadata::parse(minimal);
  ASSERT_TRUE(md) << md.status().message();
  EXPECT_EQ(md->entry, "k");
  EXPECT_EQ(md->numWarps, 0);
  EXPECT_EQ(md->clusterDims, (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_FALSE(md->persistent);
  EXPECT_FALSE(md->ptxas);
  EXPECT_TRUE(md->cubinFile.empty());
  EXPECT_TRUE(md->launchParameters().empty());
}

TEST(KernelMetadataTest, MissingRequiredFields) {
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("name": "add_kernel", )", "")),
            "kernel metadata: missing required field 'name'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("num_threads": 128,)", "")),
            "kernel metadata: missing required field 'num_threads'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"(, "dynamic_bytes": 4096)", "")),
            "kernel metadata: missing required field shared_memory: "
            "'dynamic_bytes'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("type": "i32", "divisibility": 1)",
                                R"("divisibility": 1)")),
            "kernel metadata: missing required field parameters[3] ('n'): "
            "'type'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"(, "value": 1024)", "")),
            "kernel metadata: missing required field parameters[4] "
            "('BLOCK'): 'value'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd,
                                R"("format": "tilec-kernel-metadata", )", "")),
            "kernel metadata: missing required field 'format'");
}

TEST(KernelMetadataTest, WrongKindsAndTypes) {
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("kind": "scalar")",
                                R"("kind": "scaler")")),
            "kernel metadata: parameters[3] ('n'): unknown kind 'scaler' "
            "(expected pointer, scalar or constexpr)");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("type": "i32", "divisibility")",
                                R"("type": "int", "divisibility")")),
            "kernel metadata: parameters[3] ('n'): unknown type 'int'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("num_threads": 128)",
                                R"("num_threads": "128")")),
            "kernel metadata: 'num_threads' must be an integer, got \"128\"");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("num_threads": 128)",
                                R"("num_threads": 128.5)")),
            "kernel metadata: 'num_threads' must be an integer, got 128.5");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("num_threads": 128)",
                                R"("num_threads": 2048)")),
            "kernel metadata: 'num_threads' is 2048, out of range [1, 1024]");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("num_threads": 128)",
                                R"("num_threads": 64)")),
            "kernel metadata: 'num_threads' 64 is less than 32 * num_warps "
            "(4)");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("dynamic_bytes": 4096)",
                                R"("dynamic_bytes": -1)")),
            "kernel metadata: shared_memory: 'dynamic_bytes' is -1, out of "
            "range [0, 1099511627776]");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("cluster_dims": [1, 1, 1])",
                                R"("cluster_dims": [2, 1])")),
            "kernel metadata: 'cluster_dims' must have 3 entries, got [2,1]");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("parameters": [)",
                                R"("parameters": [7, )")),
            "kernel metadata: parameters[0] must be an object, got 7");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("name": "y_ptr")",
                                R"("name": "x_ptr")")),
            "kernel metadata: parameters[1]: duplicate parameter name "
            "'x_ptr'");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("kind": "constexpr", "type": "i32", "value": 1024)",
                                R"("kind": "constexpr", "value": [1024])")),
            "kernel metadata: parameters[4] ('BLOCK'): 'value' must be a "
            "number, boolean or string, got [1024]");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("kind": "scalar")",
                                R"("kind": "hidden")")),
            "kernel metadata: parameters[3] ('n'): kind 'hidden' belongs in "
            "'hidden_parameters'");
}

TEST(KernelMetadataTest, FormatVersionAndSyntax) {
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, R"("version": 1)",
                                R"("version": 2)")),
            "kernel metadata: unsupported 'version' 2 (this runtime reads "
            "version 1)");
  EXPECT_EQ(errorOf(replaceOnce(kVectorAdd, "tilec-kernel-metadata",
                                "triton-metadata")),
            "kernel metadata: 'format' is 'triton-metadata', expected "
            "'tilec-kernel-metadata'");
  std::string syntax = errorOf("{\"format\": }");
  EXPECT_EQ(syntax.rfind("kernel metadata: not valid JSON: parse error at "
                         "line 1, column 12",
                         0),
            0u)
      << syntax;
  EXPECT_EQ(errorOf("[1, 2]"),
            "kernel metadata: the document must be a JSON object");
}

TEST(KernelMetadataTest, HiddenParameters) {
  std::string scratch = replaceOnce(
      kVectorAdd, R"("hidden_parameters": [])",
      R"("hidden_parameters": [{"name": "global_scratch", "kind": "hidden",
           "bytes": 8, "align": 8,
           "recipe": {"kind": "global_scratch", "bytes_per_program": 256,
                      "align": 128}}])");
  Expected<KernelMetadata> md = KernelMetadata::parse(scratch);
  ASSERT_TRUE(md) << md.status().message();
  ASSERT_EQ(md->hiddenParameters.size(), 1u);
  EXPECT_EQ(md->hiddenParameters[0].recipe.kind, "global_scratch");
  EXPECT_EQ(md->hiddenParameters[0].recipe.bytesPerProgram, 256u);
  EXPECT_EQ(md->hiddenParameters[0].recipe.align, 128u);

  std::string tma = replaceOnce(
      kVectorAdd, R"("hidden_parameters": [])",
      R"("hidden_parameters": [{"name": "a_desc", "kind": "hidden",
           "bytes": 128, "align": 64,
           "recipe": {"kind": "tma_tiled", "param": "a_ptr"}}])");
  EXPECT_EQ(errorOf(tma),
            "kernel metadata: hidden_parameters[0] ('a_desc'): recipe "
            "'tma_tiled' is not known to this runtime (known: "
            "global_scratch, program_grid, tma_descriptor), so it cannot "
            "build this argument");
  std::string noRecipe = replaceOnce(
      kVectorAdd, R"("hidden_parameters": [])",
      R"("hidden_parameters": [{"name": "d", "kind": "hidden", "bytes": 128,
                                "align": 64}])");
  EXPECT_EQ(errorOf(noRecipe), "kernel metadata: missing required field "
                               "hidden_parameters[0] ('d'): 'recipe'");
  std::string badAlign = replaceOnce(
      kVectorAdd, R"("hidden_parameters": [])",
      R"("hidden_parameters": [{"name": "d", "kind": "hidden", "bytes": 8,
           "align": 24, "recipe": {"kind": "global_scratch",
                                   "bytes_per_program": 0}}])");
  EXPECT_EQ(errorOf(badAlign), "kernel metadata: hidden_parameters[0] ('d'): "
                               "'align' must be a power of two, got 24");
}

/// kVectorAdd with `extra` top-level fields and these hidden parameters.
std::string withHidden(const std::string &extra, const std::string &hidden) {
  std::string json = replaceOnce(kVectorAdd, R"("hidden_parameters": [])",
                                 R"("hidden_parameters": [)" + hidden + "]");
  if (!extra.empty())
    json = replaceOnce(json, R"("num_warps": 4,)", extra + R"(, "num_warps": 4,)");
  return json;
}

std::string programGrid(const std::string &name, const std::string &axis,
                        int bytes = 4, int align = 4) {
  return R"({"name": ")" + name + R"(", "kind": "hidden", "bytes": )" +
         std::to_string(bytes) + R"(, "align": )" + std::to_string(align) +
         R"(, "recipe": {"kind": "program_grid")" +
         (axis.empty() ? "" : R"(, "axis": )" + axis) + "}}";
}

TEST(KernelMetadataTest, PersistentWithProgramGrid) {
  // kVectorAdd says "cluster_dims": [1, 1, 1]: clusters of one CTA are none.
  std::string json = withHidden(
      R"("persistent": true)",
      programGrid("grid_x", "0") + ", " + programGrid("grid_y", "1") + ", " +
          programGrid("grid_z", "2"));
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  ASSERT_TRUE(md) << md.status().message();
  EXPECT_TRUE(md->persistent);
  ASSERT_EQ(md->hiddenParameters.size(), 3u);
  for (unsigned axis = 0; axis < 3; ++axis) {
    const HiddenParameterInfo &hidden = md->hiddenParameters[axis];
    EXPECT_EQ(hidden.name, std::string("grid_") + "xyz"[axis]);
    EXPECT_EQ(hidden.recipe.kind, "program_grid");
    EXPECT_EQ(hidden.recipe.axis, axis);
    EXPECT_EQ(hidden.bytes, 4u);
    EXPECT_EQ(hidden.align, 4u);
  }

  // "persistent": false is the default, said out loud; program_grid needs
  // no persistent kernel.
  md = KernelMetadata::parse(
      withHidden(R"("persistent": false)", programGrid("gy", "1")));
  ASSERT_TRUE(md) << md.status().message();
  EXPECT_FALSE(md->persistent);
  EXPECT_EQ(md->hiddenParameters[0].recipe.axis, 1u);
}

TEST(KernelMetadataTest, PersistentErrors) {
  EXPECT_EQ(errorOf(replaceOnce(withHidden(R"("persistent": true)", ""),
                                R"("cluster_dims": [1, 1, 1])",
                                R"("cluster_dims": [2, 1, 1])")),
            "kernel metadata: 'persistent' is true and 'cluster_dims' is "
            "[2, 1, 1]: a persistent kernel is launched as a 1-D grid of "
            "single CTAs, so it cannot use thread-block clusters");
  // Either order in the document.
  EXPECT_EQ(errorOf(replaceOnce(withHidden("", ""), R"("cluster_dims": [1, 1, 1])",
                                R"("cluster_dims": [1, 2, 1], "persistent": true)")),
            "kernel metadata: 'persistent' is true and 'cluster_dims' is "
            "[1, 2, 1]: a persistent kernel is launched as a 1-D grid of "
            "single CTAs, so it cannot use thread-block clusters");
  // Clusters alone stay fine.
  EXPECT_EQ(errorOf(replaceOnce(withHidden(R"("persistent": false)", ""),
                                R"("cluster_dims": [1, 1, 1])",
                                R"("cluster_dims": [2, 1, 1])")),
            "");
  EXPECT_EQ(errorOf(withHidden(R"("persistent": 1)", "")),
            "kernel metadata: 'persistent' must be a boolean, got 1");
  EXPECT_EQ(errorOf(withHidden(R"("persistent": "true")", "")),
            "kernel metadata: 'persistent' must be a boolean, got \"true\"");
}

TEST(KernelMetadataTest, ProgramGridErrors) {
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", "3"))),
            "kernel metadata: hidden_parameters[0] ('g'): recipe: 'axis' is 3; "
            "a grid axis is 0, 1 or 2 (x, y, z)");
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", "-1"))),
            "kernel metadata: hidden_parameters[0] ('g'): recipe: 'axis' is -1; "
            "a grid axis is 0, 1 or 2 (x, y, z)");
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", "\"x\""))),
            "kernel metadata: hidden_parameters[0] ('g'): recipe: 'axis' must "
            "be an integer, got \"x\"");
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", ""))),
            "kernel metadata: missing required field hidden_parameters[0] "
            "('g'): recipe: 'axis'");
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", "0", 8, 8))),
            "kernel metadata: hidden_parameters[0] ('g'): a program_grid "
            "value is a 32-bit integer ('bytes' 4, 'align' 4), metadata says "
            "'bytes' 8, 'align' 8");
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", "0", 4, 8))),
            "kernel metadata: hidden_parameters[0] ('g'): a program_grid "
            "value is a 32-bit integer ('bytes' 4, 'align' 4), metadata says "
            "'bytes' 4, 'align' 8");
  EXPECT_EQ(errorOf(withHidden("", programGrid("g", "0", 2, 2))),
            "kernel metadata: hidden_parameters[0] ('g'): a program_grid "
            "value is a 32-bit integer ('bytes' 4, 'align' 4), metadata says "
            "'bytes' 2, 'align' 2");
}

TEST(KernelMetadataTest, LoadFileResolvesArtifactsNextToIt) {
  std::string dir = ::testing::TempDir();
  std::string path = dir + "tilec_metadata_test.json";
  {
    std::ofstream out(path);
    out << kVectorAdd;
  }
  Expected<KernelMetadata> md = KernelMetadata::loadFile(path);
  ASSERT_TRUE(md) << md.status().message();
  std::string expectedDir = path.substr(0, path.find_last_of('/'));
  EXPECT_EQ(md->directory, expectedDir);
  EXPECT_EQ(md->artifactPath(md->cubinFile), expectedDir + "/vector_add.cubin");
  EXPECT_EQ(md->artifactPath(""), "");
  EXPECT_EQ(md->artifactPath("/abs/k.ptx"), "/abs/k.ptx");
  std::remove(path.c_str());

  Expected<KernelMetadata> missing =
      KernelMetadata::loadFile(dir + "does_not_exist.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), ErrorCode::IoError);
  EXPECT_EQ(missing.status().message(),
            "cannot read kernel metadata '" + dir + "does_not_exist.json'");
}

} // namespace
