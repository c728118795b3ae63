//===- ScalarType.h - Element and scalar types of the kernel ABI -*- C++ -*-===//
//
// The type names used by signatures ("*fp32:16, i32") and by the kernel
// metadata ("type": "fp32"), with their sizes in the kernel ABI: the
// language's one table of scalar types (tilec/Support/ScalarType.h), under
// the runtime's namespace.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_SCALARTYPE_H
#define TILEC_RUNTIME_SCALARTYPE_H

#include "tilec/Support/ScalarType.h"

namespace tilec::runtime {

using ::tilec::isFloatType;
using ::tilec::isIntegerType;
using ::tilec::isSignedIntegerType;
using ::tilec::parseScalarType;
using ::tilec::ScalarType;
using ::tilec::scalarTypeName;
using ::tilec::scalarTypeSize;

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_SCALARTYPE_H
