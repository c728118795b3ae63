//===- JIT.h - The embedded C++ API of tilec, in one include ----*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_JIT_H
#define TILEC_JIT_JIT_H

#include "tilec/JIT/Argument.h"
#include "tilec/JIT/CompiledKernel.h"
#include "tilec/JIT/Compiler.h"
#include "tilec/JIT/Kernel.h"
#include "tilec/JIT/Options.h"

#endif // TILEC_JIT_JIT_H
