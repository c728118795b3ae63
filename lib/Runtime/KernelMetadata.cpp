//===- KernelMetadata.cpp - The JSON written next to each kernel ----------===//
//
// Parsing never throws out of this file: a JSON syntax error is caught right
// where nlohmann::json raises it (to keep its line/column message), and every
// field is type-checked before it is read (the typed getters would throw
// otherwise).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/KernelMetadata.h"

#include "tilec/Runtime/TensorMap.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace tilec::runtime {

using nlohmann::json;

namespace {

constexpr const char *kFormat = "tilec-kernel-metadata";
constexpr int kVersion = 1;

Status metadataError(const std::string &message) {
  return Status::error(ErrorCode::InvalidMetadata,
                       "kernel metadata: " + message);
}

/// Typed, checked access to the fields of one JSON object. `where` names the
/// object in messages ("" for the top level, "parameters[1] ('n')", ...).
class ObjectReader {
public:
  ObjectReader(const json &object, std::string where)
      : object_(object), where_(std::move(where)) {}

  const json *find(const char *key) const {
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  std::string field(const char *key) const {
    return where_.empty() ? std::string("'") + key + "'"
                          : where_ + ": '" + key + "'";
  }

  Status missing(const char *key) const {
    return metadataError("missing required field " + field(key));
  }

  Status wrongType(const char *key, const char *expected) const {
    return metadataError(field(key) + " must be " + expected + ", got " +
                         find(key)->dump());
  }

  /// Reads a string; `required` decides whether absence is an error.
  Status getString(const char *key, std::string &out, bool required) const {
    const json *value = find(key);
    if (!value)
      return required ? missing(key) : Status::success();
    if (!value->is_string())
      return wrongType(key, "a string");
    out = value->get<std::string>();
    return Status::success();
  }

  /// Reads an integer in [minValue, maxValue].
  Status getInt(const char *key, std::int64_t &out, bool required,
                std::int64_t minValue, std::int64_t maxValue) const {
    const json *value = find(key);
    if (!value)
      return required ? missing(key) : Status::success();
    if (!value->is_number_integer())
      return wrongType(key, "an integer");
    // Read unsigned values as unsigned so huge ones are not misread.
    if (value->is_number_unsigned()) {
      std::uint64_t u = value->get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(maxValue))
        return metadataError(field(key) + " is " + value->dump() +
                             ", out of range [" + std::to_string(minValue) +
                             ", " + std::to_string(maxValue) + "]");
      out = static_cast<std::int64_t>(u);
    } else {
      out = value->get<std::int64_t>();
    }
    if (out < minValue || out > maxValue)
      return metadataError(field(key) + " is " + value->dump() +
                           ", out of range [" + std::to_string(minValue) +
                           ", " + std::to_string(maxValue) + "]");
    return Status::success();
  }

  template <typename T>
  Status getIntAs(const char *key, T &out, bool required, std::int64_t minValue,
                  std::int64_t maxValue) const {
    std::int64_t value = static_cast<std::int64_t>(out);
    TILEC_RETURN_IF_ERROR(getInt(key, value, required, minValue, maxValue));
    out = static_cast<T>(value);
    return Status::success();
  }

  /// Reads a boolean (absent: `out` is left as it is).
  Status getBool(const char *key, bool &out) const {
    const json *value = find(key);
    if (!value)
      return Status::success();
    if (!value->is_boolean())
      return wrongType(key, "a boolean");
    out = value->get<bool>();
    return Status::success();
  }

  /// Returns the sub-object at `key` (nullptr if absent and not required).
  Status getObject(const char *key, const json *&out, bool required) const {
    out = find(key);
    if (!out)
      return required ? missing(key) : Status::success();
    if (!out->is_object())
      return wrongType(key, "an object");
    return Status::success();
  }

  Status getArray(const char *key, const json *&out, bool required) const {
    out = find(key);
    if (!out)
      return required ? missing(key) : Status::success();
    if (!out->is_array())
      return wrongType(key, "an array");
    return Status::success();
  }

  const std::string &where() const { return where_; }

private:
  const json &object_;
  std::string where_;
};

constexpr std::int64_t kMaxBytes = std::int64_t(1) << 40;

bool isPowerOfTwo(std::uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

std::string describeParameter(const char *list, std::size_t index,
                              const json &object) {
  std::string where = std::string(list) + "[" + std::to_string(index) + "]";
  auto name = object.find("name");
  if (name != object.end() && name->is_string())
    where += " ('" + name->get<std::string>() + "')";
  return where;
}

Status parseParameter(const json &object, std::size_t index,
                      ParameterInfo &param) {
  std::string where = describeParameter("parameters", index, object);
  if (!object.is_object())
    return metadataError(where + " must be an object, got " + object.dump());
  ObjectReader reader(object, where);
  TILEC_RETURN_IF_ERROR(reader.getString("name", param.name, true));
  if (param.name.empty())
    return metadataError(reader.field("name") + " is empty");

  std::string kind;
  TILEC_RETURN_IF_ERROR(reader.getString("kind", kind, true));
  if (kind == "pointer")
    param.kind = ParameterInfo::Kind::Pointer;
  else if (kind == "scalar")
    param.kind = ParameterInfo::Kind::Scalar;
  else if (kind == "constexpr")
    param.kind = ParameterInfo::Kind::Constexpr;
  else if (kind == "hidden")
    return metadataError(where +
                         ": kind 'hidden' belongs in 'hidden_parameters'");
  else
    return metadataError(where + ": unknown kind '" + kind +
                         "' (expected pointer, scalar or constexpr)");

  bool isConstexpr = param.kind == ParameterInfo::Kind::Constexpr;
  std::string typeName;
  TILEC_RETURN_IF_ERROR(reader.getString("type", typeName, !isConstexpr));
  // A string constexpr (`ACTIVATION: tl.constexpr` given 'leaky_relu', as
  // in Triton's matmul tutorial) has the type "str": no scalar type.
  if (isConstexpr && typeName == "str") {
    if (const json *value = reader.find("value"); value && !value->is_string())
      return metadataError(where + ": type 'str' needs a string value, got " +
                           value->dump());
  } else if (!typeName.empty() || !isConstexpr) {
    std::optional<ScalarType> type = parseScalarType(typeName);
    if (!type)
      return metadataError(where + ": unknown type '" + typeName + "'");
    param.type = *type;
    param.hasType = true;
  }

  TILEC_RETURN_IF_ERROR(reader.getIntAs("divisibility", param.divisibility,
                                        false, 1, std::int64_t(1) << 32));

  if (isConstexpr) {
    const json *value = reader.find("value");
    if (!value)
      return reader.missing("value");
    if (!value->is_primitive() || value->is_null())
      return reader.wrongType("value", "a number, boolean or string");
    param.constexprValue = value->dump();
  }
  return Status::success();
}

/// A constexpr's value (compact JSON text) as an integer, if it is one.
std::optional<std::int64_t> constexprInteger(const std::string &text) {
  if (text.empty() || text.find_first_of(".eE\"tf") != std::string::npos)
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || !end || *end != '\0')
    return std::nullopt;
  return static_cast<std::int64_t>(value);
}

/// Finds source parameter `name`; `argument` becomes its index among the
/// launch parameters (-1 for a constexpr).
const ParameterInfo *findParameter(const KernelMetadata &md,
                                   const std::string &name, int &argument) {
  int launchIndex = 0;
  for (const ParameterInfo &param : md.parameters) {
    bool passed = param.kind != ParameterInfo::Kind::Constexpr;
    if (param.name == name) {
      argument = passed ? launchIndex : -1;
      return &param;
    }
    if (passed)
      ++launchIndex;
  }
  argument = -1;
  return nullptr;
}

/// Reads a recipe integer: a literal, the name of a scalar or constexpr
/// integer parameter, or {"args": [names], "factor": f}, f times their
/// product. `label` names the field in messages ("dims[1].stride").
Status parseRecipeValue(const KernelMetadata &md, const json &value,
                        const std::string &where, const std::string &label,
                        RecipeValue &out) {
  if (value.is_object()) {
    auto args = value.find("args");
    auto factor = value.find("factor");
    if (args == value.end() || factor == value.end() || value.size() != 2 ||
        !args->is_array() || args->empty() || !factor->is_number_integer() ||
        factor->get<std::int64_t>() < 1)
      return metadataError(where + ": " + label +
                           " must be {\"args\": [names], \"factor\": positive "
                           "integer}, got " + value.dump());
    out = RecipeValue();
    out.value = factor->get<std::int64_t>();
    for (const json &name : *args) {
      RecipeValue one;
      TILEC_RETURN_IF_ERROR(parseRecipeValue(md, name, where, label, one));
      if (!name.is_string())
        return metadataError(where + ": " + label + " names " + name.dump() +
                             "; 'args' are parameter names");
      out.value *= one.value;
      out.arguments.insert(out.arguments.end(), one.arguments.begin(),
                           one.arguments.end());
      out.parameter += (out.parameter.empty() ? "" : "*") + one.parameter;
    }
    return Status::success();
  }
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() >
            static_cast<std::uint64_t>(
                std::numeric_limits<std::int64_t>::max()))
      return metadataError(where + ": " + label + " is " + value.dump() +
                           ", out of range");
    out.value = value.get<std::int64_t>();
    return Status::success();
  }
  if (!value.is_string())
    return metadataError(where + ": " + label +
                         " must be an integer, a parameter name or "
                         "{\"args\": [names], \"factor\": f}, got " +
                         value.dump());
  std::string name = value.get<std::string>();
  int argument = -1;
  const ParameterInfo *param = findParameter(md, name, argument);
  if (!param)
    return metadataError(where + ": " + label + " names '" + name +
                         "', which is not a parameter of the kernel");
  out.parameter = name;
  switch (param->kind) {
  case ParameterInfo::Kind::Pointer:
    return metadataError(where + ": " + label + " names '" + name +
                         "', a pointer parameter; it must name an integer "
                         "scalar or constexpr");
  case ParameterInfo::Kind::Scalar:
    if (!isIntegerType(param->type) || param->type == ScalarType::I1)
      return metadataError(where + ": " + label + " names '" + name +
                           "', a scalar of type " +
                           scalarTypeName(param->type) +
                           "; it must be an integer (i8 to i64, u8 to u64)");
    out.value = 1;
    out.arguments = {argument};
    return Status::success();
  case ParameterInfo::Kind::Constexpr: {
    std::optional<std::int64_t> number =
        constexprInteger(param->constexprValue);
    if (!number)
      return metadataError(where + ": " + label + " names constexpr '" +
                           name + "' = " + param->constexprValue +
                           ", which is not an integer");
    out.value = *number;
    return Status::success();
  }
  }
  return Status::success();
}

/// The "tma_descriptor" recipe of hidden parameter `param` (docs/metadata.md).
Status parseTmaRecipe(const KernelMetadata &md, const ObjectReader &recipe,
                      const std::string &where, HiddenParameterInfo &param) {
  TmaDescriptorRecipe &tma = param.recipe.tma;
  if (param.bytes != kTensorMapBytes)
    return metadataError(where + ": a tma_descriptor is a 128-byte "
                                 "CUtensorMap, metadata says 'bytes' " +
                         std::to_string(param.bytes));
  if (param.align < kTensorMapAlign)
    return metadataError(where + ": a tma_descriptor is passed at 64-byte "
                                 "alignment (at least), metadata says "
                                 "'align' " +
                         std::to_string(param.align));
  std::string rwhere = where + ": recipe";

  TILEC_RETURN_IF_ERROR(recipe.getString("base", tma.base, true));
  const ParameterInfo *base = findParameter(md, tma.base, tma.baseArgument);
  if (!base)
    return metadataError(rwhere + ": 'base' names '" + tma.base +
                         "', which is not a parameter of the kernel");
  if (base->kind != ParameterInfo::Kind::Pointer)
    return metadataError(
        rwhere + ": 'base' names '" + tma.base + "', a " +
        (base->kind == ParameterInfo::Kind::Scalar ? "scalar" : "constexpr") +
        " parameter; it must name a pointer");

  std::string element;
  TILEC_RETURN_IF_ERROR(recipe.getString("element", element, true));
  std::optional<ScalarType> elementType = parseScalarType(element);
  if (!elementType)
    return metadataError(rwhere + ": unknown 'element' type '" + element +
                         "'");
  tma.element = *elementType;
  std::size_t elementBytes = scalarTypeSize(tma.element);
  if (elementBytes != scalarTypeSize(base->type))
    return metadataError(rwhere + ": 'element' " + element + " is " +
                         std::to_string(elementBytes) + " bytes, but '" +
                         tma.base + "' points to " +
                         scalarTypeName(base->type) + " (" +
                         std::to_string(scalarTypeSize(base->type)) +
                         " bytes)");

  const json *dims = nullptr;
  TILEC_RETURN_IF_ERROR(recipe.getArray("dims", dims, true));
  if (dims->empty() || dims->size() > kTmaMaxRank)
    return metadataError(rwhere + ": 'dims' must have 1 to 5 entries (the "
                                  "tensor's rank), got " +
                         std::to_string(dims->size()));
  for (std::size_t i = 0; i < dims->size(); ++i) {
    const json &entry = (*dims)[i];
    std::string label = "dims[" + std::to_string(i) + "]";
    if (!entry.is_object())
      return metadataError(rwhere + ": " + label + " must be an object, got " +
                           entry.dump());
    ObjectReader dimReader(entry, rwhere + ": " + label);
    TmaDimension dim;
    for (const char *key : {"size", "stride"}) {
      const json *value = dimReader.find(key);
      if (!value)
        return dimReader.missing(key);
      RecipeValue &out = std::string(key) == "size" ? dim.size : dim.stride;
      std::string field = label + "." + key;
      TILEC_RETURN_IF_ERROR(
          parseRecipeValue(md, *value, rwhere, field, out));
      if (!out.known())
        continue; // A scalar: checked at launch.
      std::string itemLabel = out.parameter.empty() ? field : out.parameter;
      std::string problem =
          std::string(key) == "size"
              ? checkTmaSize(itemLabel, out.value)
              : checkTmaStride(itemLabel, out.value, elementBytes, i == 0);
      if (!problem.empty())
        return metadataError(rwhere + ": " + problem);
    }
    tma.dims.push_back(std::move(dim));
  }

  const json *box = nullptr;
  TILEC_RETURN_IF_ERROR(recipe.getArray("box", box, true));
  if (box->size() != dims->size())
    return metadataError(rwhere + ": 'box' has " +
                         std::to_string(box->size()) +
                         (box->size() == 1 ? " entry" : " entries") +
                         " for " + std::to_string(dims->size()) +
                         (dims->size() == 1 ? " dimension" : " dimensions") +
                         " (one per dimension)");
  for (std::size_t i = 0; i < box->size(); ++i) {
    const json &entry = (*box)[i];
    if (!entry.is_number_integer() || entry.get<std::int64_t>() < 1 ||
        entry.get<std::int64_t>() > kTmaMaxBox)
      return metadataError(rwhere + ": box[" + std::to_string(i) + "] is " +
                           entry.dump() +
                           ", expected an integer from 1 to 256");
    tma.box.push_back(entry.get<std::uint32_t>());
  }

  std::int64_t swizzle = 0;
  TILEC_RETURN_IF_ERROR(recipe.getInt("swizzle", swizzle, false, 0, 1 << 20));
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return metadataError(rwhere + ": 'swizzle' must be 0, 32, 64 or 128 "
                                  "(bytes), got " +
                         std::to_string(swizzle));
  tma.swizzleBytes = static_cast<unsigned>(swizzle);

  std::string fill = "zero";
  TILEC_RETURN_IF_ERROR(recipe.getString("oob_fill", fill, false));
  if (fill == "nan") {
    bool isFloat = tma.element == ScalarType::FP16 ||
                   tma.element == ScalarType::BF16 ||
                   tma.element == ScalarType::FP32 ||
                   tma.element == ScalarType::FP64;
    if (!isFloat)
      return metadataError(rwhere + ": 'oob_fill' 'nan' needs an fp16, "
                                    "bf16, fp32 or fp64 element, got " +
                           element);
    tma.nanFill = true;
  } else if (fill != "zero") {
    return metadataError(rwhere + ": 'oob_fill' must be 'zero' or 'nan', "
                                  "got '" +
                         fill + "'");
  }

  const json *nonNegative = nullptr;
  TILEC_RETURN_IF_ERROR(recipe.getArray("non_negative", nonNegative, false));
  if (nonNegative)
    for (std::size_t i = 0; i < nonNegative->size(); ++i) {
      RecipeValue value;
      std::string label = "non_negative[" + std::to_string(i) + "]";
      TILEC_RETURN_IF_ERROR(
          parseRecipeValue(md, (*nonNegative)[i], rwhere, label, value));
      if (value.known() && value.value < 0)
        return metadataError(rwhere + ": " + label + " " + value.parameter +
                             " = " + std::to_string(value.value) +
                             " must not be negative");
      tma.nonNegative.push_back(std::move(value));
    }

  std::string problem = checkTmaBox(tma.box, elementBytes, tma.swizzleBytes);
  if (!problem.empty())
    return metadataError(rwhere + ": " + problem);
  return Status::success();
}

Status parseHiddenParameter(const KernelMetadata &md, const json &object,
                            std::size_t index, HiddenParameterInfo &param) {
  std::string where = describeParameter("hidden_parameters", index, object);
  if (!object.is_object())
    return metadataError(where + " must be an object, got " + object.dump());
  ObjectReader reader(object, where);
  TILEC_RETURN_IF_ERROR(reader.getString("name", param.name, true));
  std::string kind;
  TILEC_RETURN_IF_ERROR(reader.getString("kind", kind, true));
  if (kind != "hidden")
    return metadataError(where + ": kind must be 'hidden', got '" + kind +
                         "'");
  TILEC_RETURN_IF_ERROR(reader.getIntAs("bytes", param.bytes, true, 1, 4096));
  TILEC_RETURN_IF_ERROR(reader.getIntAs("align", param.align, true, 1, 4096));
  if (!isPowerOfTwo(param.align))
    return metadataError(reader.field("align") +
                         " must be a power of two, got " +
                         std::to_string(param.align));

  const json *recipe = nullptr;
  TILEC_RETURN_IF_ERROR(reader.getObject("recipe", recipe, true));
  ObjectReader recipeReader(*recipe, where + ": recipe");
  TILEC_RETURN_IF_ERROR(recipeReader.getString("kind", param.recipe.kind, true));
  if (param.recipe.kind == "global_scratch") {
    TILEC_RETURN_IF_ERROR(recipeReader.getIntAs(
        "bytes_per_program", param.recipe.bytesPerProgram, true, 0, kMaxBytes));
    TILEC_RETURN_IF_ERROR(recipeReader.getIntAs("align", param.recipe.align,
                                                false, 1, 1 << 20));
    if (!isPowerOfTwo(param.recipe.align))
      return metadataError(recipeReader.field("align") +
                           " must be a power of two");
    if (param.bytes != 8)
      return metadataError(where + ": a global_scratch pointer is 8 bytes, "
                                   "metadata says " +
                           std::to_string(param.bytes));
    return Status::success();
  }
  if (param.recipe.kind == "program_grid") {
    if (param.bytes != 4 || param.align != 4)
      return metadataError(where + ": a program_grid value is a 32-bit "
                                   "integer ('bytes' 4, 'align' 4), metadata "
                                   "says 'bytes' " +
                           std::to_string(param.bytes) + ", 'align' " +
                           std::to_string(param.align));
    std::int64_t axis = 0;
    TILEC_RETURN_IF_ERROR(recipeReader.getInt("axis", axis, true,
                                              std::numeric_limits<int>::min(),
                                              std::numeric_limits<int>::max()));
    if (axis < 0 || axis > 2)
      return metadataError(recipeReader.field("axis") + " is " +
                           std::to_string(axis) +
                           "; a grid axis is 0, 1 or 2 (x, y, z)");
    param.recipe.axis = static_cast<unsigned>(axis);
    return Status::success();
  }
  if (param.recipe.kind == "tma_descriptor")
    return parseTmaRecipe(md, recipeReader, where, param);
  return metadataError(where + ": recipe '" + param.recipe.kind +
                       "' is not known to this runtime (known: "
                       "global_scratch, program_grid, tma_descriptor), so it "
                       "cannot build this argument");
}

Status parseTopLevel(const json &root, KernelMetadata &md) {
  if (!root.is_object())
    return metadataError("the document must be a JSON object");
  ObjectReader top(root, "");

  std::string format;
  TILEC_RETURN_IF_ERROR(top.getString("format", format, true));
  if (format != kFormat)
    return metadataError("'format' is '" + format + "', expected '" +
                         kFormat + "'");
  std::int64_t version = 0;
  TILEC_RETURN_IF_ERROR(top.getInt("version", version, true, 0, 1 << 30));
  if (version != kVersion)
    return metadataError("unsupported 'version' " + std::to_string(version) +
                         " (this runtime reads version " +
                         std::to_string(kVersion) + ")");

  TILEC_RETURN_IF_ERROR(top.getString("name", md.name, true));
  if (md.name.empty())
    return metadataError("'name' is empty");
  md.entry = md.name;
  TILEC_RETURN_IF_ERROR(top.getString("entry", md.entry, false));
  TILEC_RETURN_IF_ERROR(top.getString("tilec_version", md.tilecVersion, false));
  TILEC_RETURN_IF_ERROR(top.getString("target", md.target, false));
  TILEC_RETURN_IF_ERROR(top.getString("ptx_version", md.ptxVersion, false));
  TILEC_RETURN_IF_ERROR(top.getString("signature", md.signature, false));

  TILEC_RETURN_IF_ERROR(top.getIntAs("num_warps", md.numWarps, false, 1, 32));
  TILEC_RETURN_IF_ERROR(
      top.getIntAs("num_stages", md.numStages, false, 0, 1 << 10));
  TILEC_RETURN_IF_ERROR(
      top.getIntAs("num_threads", md.numThreads, true, 1, 1024));
  if (md.numWarps != 0 && md.numThreads < 32 * md.numWarps)
    return metadataError("'num_threads' " + std::to_string(md.numThreads) +
                         " is less than 32 * num_warps (" +
                         std::to_string(md.numWarps) + ")");

  const json *shared = nullptr;
  TILEC_RETURN_IF_ERROR(top.getObject("shared_memory", shared, true));
  ObjectReader sharedReader(*shared, "shared_memory");
  TILEC_RETURN_IF_ERROR(sharedReader.getIntAs(
      "dynamic_bytes", md.dynamicSharedBytes, true, 0, kMaxBytes));
  TILEC_RETURN_IF_ERROR(sharedReader.getIntAs(
      "static_bytes", md.staticSharedBytes, false, 0, kMaxBytes));

  const json *cluster = nullptr;
  TILEC_RETURN_IF_ERROR(top.getArray("cluster_dims", cluster, false));
  if (cluster) {
    if (cluster->size() != 3)
      return metadataError("'cluster_dims' must have 3 entries, got " +
                           cluster->dump());
    for (std::size_t i = 0; i < 3; ++i) {
      const json &dim = (*cluster)[i];
      if (!dim.is_number_integer() || dim.get<std::int64_t>() < 1 ||
          dim.get<std::int64_t>() > 1024)
        return metadataError("'cluster_dims' entries must be integers in "
                             "[1, 1024], got " +
                             cluster->dump());
      md.clusterDims[i] = dim.get<unsigned>();
    }
  }
  TILEC_RETURN_IF_ERROR(top.getBool("persistent", md.persistent));
  if (md.persistent && md.clusterDims != std::array<unsigned, 3>{1, 1, 1})
    return metadataError(
        "'persistent' is true and 'cluster_dims' is [" +
        std::to_string(md.clusterDims[0]) + ", " +
        std::to_string(md.clusterDims[1]) + ", " +
        std::to_string(md.clusterDims[2]) +
        "]: a persistent kernel is launched as a 1-D grid of single CTAs, "
        "so it cannot use thread-block clusters");

  const json *source = nullptr;
  TILEC_RETURN_IF_ERROR(top.getObject("source", source, false));
  if (source) {
    ObjectReader sourceReader(*source, "source");
    TILEC_RETURN_IF_ERROR(sourceReader.getString("path", md.sourcePath, false));
    TILEC_RETURN_IF_ERROR(sourceReader.getString("hash", md.sourceHash, false));
  }

  const json *params = nullptr;
  TILEC_RETURN_IF_ERROR(top.getArray("parameters", params, true));
  std::set<std::string> names;
  for (std::size_t i = 0; i < params->size(); ++i) {
    ParameterInfo param;
    TILEC_RETURN_IF_ERROR(parseParameter((*params)[i], i, param));
    if (!names.insert(param.name).second)
      return metadataError("parameters[" + std::to_string(i) +
                           "]: duplicate parameter name '" + param.name + "'");
    md.parameters.push_back(std::move(param));
  }

  const json *hidden = nullptr;
  TILEC_RETURN_IF_ERROR(top.getArray("hidden_parameters", hidden, false));
  if (hidden) {
    for (std::size_t i = 0; i < hidden->size(); ++i) {
      HiddenParameterInfo param;
      TILEC_RETURN_IF_ERROR(parseHiddenParameter(md, (*hidden)[i], i, param));
      md.hiddenParameters.push_back(std::move(param));
    }
  }

  const json *ptxas = top.find("ptxas");
  if (ptxas && !ptxas->is_null()) {
    if (!ptxas->is_object())
      return top.wrongType("ptxas", "an object or null");
    ObjectReader ptxasReader(*ptxas, "ptxas");
    PtxasInfo info;
    const std::int64_t maxInt = 1 << 30;
    TILEC_RETURN_IF_ERROR(
        ptxasReader.getIntAs("registers", info.registers, false, 0, 1024));
    TILEC_RETURN_IF_ERROR(ptxasReader.getIntAs("spill_stores", info.spillStores,
                                               false, 0, maxInt));
    TILEC_RETURN_IF_ERROR(ptxasReader.getIntAs("spill_loads", info.spillLoads,
                                               false, 0, maxInt));
    TILEC_RETURN_IF_ERROR(ptxasReader.getIntAs("stack_frame", info.stackFrame,
                                               false, 0, maxInt));
    TILEC_RETURN_IF_ERROR(ptxasReader.getIntAs("shared_bytes", info.sharedBytes,
                                               false, 0, maxInt));
    md.ptxas = info;
  }

  const json *artifacts = nullptr;
  TILEC_RETURN_IF_ERROR(top.getObject("artifacts", artifacts, false));
  if (artifacts) {
    ObjectReader artifactReader(*artifacts, "artifacts");
    const json *ptx = artifactReader.find("ptx");
    if (ptx && !ptx->is_null())
      TILEC_RETURN_IF_ERROR(artifactReader.getString("ptx", md.ptxFile, false));
    const json *cubin = artifactReader.find("cubin");
    if (cubin && !cubin->is_null())
      TILEC_RETURN_IF_ERROR(
          artifactReader.getString("cubin", md.cubinFile, false));
  }
  return Status::success();
}

} // namespace

Expected<KernelMetadata> KernelMetadata::parse(std::string_view jsonText) {
  json root;
  try {
    root = json::parse(jsonText.begin(), jsonText.end());
  } catch (const json::exception &error) {
    // what() reads "[json.exception.parse_error.101] parse error at line 3,
    // column 5: ..."; drop the bracketed id.
    std::string what = error.what();
    std::size_t close = what.find("] ");
    if (close != std::string::npos)
      what = what.substr(close + 2);
    return metadataError("not valid JSON: " + what);
  }
  KernelMetadata md;
  TILEC_RETURN_IF_ERROR(parseTopLevel(root, md));
  return md;
}

Expected<KernelMetadata> KernelMetadata::loadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error(ErrorCode::IoError,
                         "cannot read kernel metadata '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  Expected<KernelMetadata> md = parse(text.str());
  if (!md)
    return Status::error(md.status().code(),
                         md.status().message() + " (in '" + path + "')");
  std::size_t slash = path.find_last_of('/');
  md->directory = slash == std::string::npos ? "." : path.substr(0, slash);
  return md;
}

std::vector<const ParameterInfo *> KernelMetadata::launchParameters() const {
  std::vector<const ParameterInfo *> result;
  for (const ParameterInfo &param : parameters)
    if (param.kind != ParameterInfo::Kind::Constexpr)
      result.push_back(&param);
  return result;
}

std::string KernelMetadata::artifactPath(const std::string &file) const {
  if (file.empty())
    return "";
  if (file[0] == '/' || directory.empty())
    return file;
  return directory + "/" + file;
}

} // namespace tilec::runtime
