//===- ArtifactCheck.cpp - Does the metadata match the case? --------------===//

#include "ArtifactCheck.h"

#include "tilec/Frontend/Signature.h"

#include <cstdlib>

namespace tilec::e2e {

using runtime::ParameterInfo;
using frontend::SignatureEntry;

namespace {

const char *kindName(SignatureEntry::Kind kind) {
  switch (kind) {
  case SignatureEntry::Kind::Pointer:
    return "pointer";
  case SignatureEntry::Kind::Scalar:
    return "scalar";
  case SignatureEntry::Kind::Constexpr:
    return "constexpr";
  }
  return "?";
}

const char *kindName(ParameterInfo::Kind kind) {
  switch (kind) {
  case ParameterInfo::Kind::Pointer:
    return "pointer";
  case ParameterInfo::Kind::Scalar:
    return "scalar";
  case ParameterInfo::Kind::Constexpr:
    return "constexpr";
  }
  return "?";
}

/// JSON literals; numbers compare by value ("1024" == "1024.0").
bool sameLiteral(const std::string &a, const std::string &metadata) {
  if (a == metadata)
    return true;
  char *endA = nullptr;
  char *endB = nullptr;
  double x = std::strtod(a.c_str(), &endA);
  double y = std::strtod(metadata.c_str(), &endB);
  return endA && *endA == '\0' && endB && *endB == '\0' && !a.empty() &&
         !metadata.empty() && x == y;
}

} // namespace

std::string checkMetadataAgainstCase(const runtime::KernelMetadata &md,
                                     const CaseSpec &spec) {
  if (md.name != spec.kernel)
    return "metadata names kernel '" + md.name + "', the case compiled '" +
           spec.kernel + "'";
  if (md.numWarps != 0 && md.numWarps != spec.numWarps)
    return "metadata says num_warps " + std::to_string(md.numWarps) +
           ", the case asked for " + std::to_string(spec.numWarps);

  llvm::Expected<frontend::Signature> signature =
      frontend::parseSignature(spec.signature);
  if (!signature)
    return "the case's signature is invalid: " +
           llvm::toString(signature.takeError());
  const std::vector<SignatureEntry> *entries = &signature->entries;
  if (entries->size() != md.parameters.size())
    return "the signature has " + std::to_string(entries->size()) +
           " entries, the metadata " + std::to_string(md.parameters.size()) +
           " parameters";
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const SignatureEntry &entry = (*entries)[i];
    const ParameterInfo &param = md.parameters[i];
    std::string where =
        "parameter " + std::to_string(i + 1) + " '" + param.name + "': ";
    bool sameKind =
        (entry.kind == SignatureEntry::Kind::Pointer &&
         param.kind == ParameterInfo::Kind::Pointer) ||
        (entry.kind == SignatureEntry::Kind::Scalar &&
         param.kind == ParameterInfo::Kind::Scalar) ||
        (entry.kind == SignatureEntry::Kind::Constexpr &&
         param.kind == ParameterInfo::Kind::Constexpr);
    if (!sameKind)
      return where + "signature '" + entry.text + "' is a " +
             kindName(entry.kind) + ", metadata says " + kindName(param.kind);
    if (entry.kind == SignatureEntry::Kind::Constexpr) {
      std::string literal = entry.getJSONValue();
      if (!sameLiteral(literal, param.constexprValue))
        return where + "signature value " + literal +
               ", metadata value " + param.constexprValue;
      continue;
    }
    if (entry.type != runtime::scalarTypeName(param.type))
      return where + "signature '" + entry.text + "', metadata type " +
             runtime::scalarTypeName(param.type);
    if (param.divisibility >
        static_cast<std::uint64_t>(entry.divisibility))
      return where + "metadata assumes divisibility " +
             std::to_string(param.divisibility) + ", the signature promised " +
             std::to_string(entry.divisibility);
  }
  return "";
}

} // namespace tilec::e2e
