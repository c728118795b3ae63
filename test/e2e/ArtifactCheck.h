//===- ArtifactCheck.h - Does the metadata match the case? ------*- C++ -*-===//

#ifndef TILEC_E2E_ARTIFACTCHECK_H
#define TILEC_E2E_ARTIFACTCHECK_H

#include "Case.h"

#include "tilec/Runtime/KernelMetadata.h"

#include <string>

namespace tilec::e2e {

/// Checks the compiler's metadata against what the case asked for: the
/// kernel name, num_warps, and per signature entry the parameter's kind,
/// type, constexpr value, and that the compiler assumed no more divisibility
/// than the signature promised. Returns "" when they agree, else the first
/// disagreement, e.g. "parameter 4 'n': signature says scalar i32, metadata
/// says scalar i64".
std::string checkMetadataAgainstCase(const runtime::KernelMetadata &metadata,
                                     const CaseSpec &spec);

} // namespace tilec::e2e

#endif // TILEC_E2E_ARTIFACTCHECK_H
