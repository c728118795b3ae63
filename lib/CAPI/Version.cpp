//===- Version.cpp - The identity of libtilec.so --------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// libtilec.so is made of the TilecCAPI and TilecJIT archives (linked whole);
// this file only gives the target a source of its own.
//
//===----------------------------------------------------------------------===//

#include "tilec-c/tilec.h"

extern "C" int tilec_shared_library(void) { return TILEC_C_API_VERSION; }
