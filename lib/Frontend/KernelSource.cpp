//===- KernelSource.cpp - What a kernel's code depends on -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The dependency closure is computed on tokens rather than on the AST: every
// identifier inside a top-level statement's source range (and every
// identifier-like word inside its string literals, which covers f-strings)
// is a name it may read. Following names through module-level definitions
// then over-approximates what the code generator can reach, whatever the
// construct that reads the name, without a second walker over every node
// kind to keep in sync with the language.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/KernelSource.h"

#include "NameAnalysis.h"

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"

using namespace tilec::frontend;
using llvm::StringRef;

namespace {

/// Whether a parameter annotation spells `tl.constexpr`.
bool isConstexprAnnotation(const Expr *annotation) {
  if (!annotation)
    return false;
  if (const auto *attr = llvm::dyn_cast<AttributeExpr>(annotation))
    return attr->getName() == "constexpr";
  if (const auto *name = llvm::dyn_cast<NameExpr>(annotation))
    return name->getName() == "constexpr";
  if (const auto *str = llvm::dyn_cast<StringLiteral>(annotation))
    return str->getValue() == "constexpr" ||
           str->getValue().ends_with(".constexpr");
  return false;
}

StringRef textOf(llvm::SMRange range) {
  return StringRef(range.Start.getPointer(),
                   range.End.getPointer() - range.Start.getPointer());
}

/// Adds the identifier-like words of `text` (a string literal) to `names`.
void addWords(StringRef text, llvm::StringSet<> &names) {
  size_t i = 0;
  while (i < text.size()) {
    if (!llvm::isAlpha(text[i]) && text[i] != '_') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && (llvm::isAlnum(text[i]) || text[i] == '_'))
      ++i;
    names.insert(text.slice(start, i));
  }
}

std::string describeList(llvm::ArrayRef<FunctionDef *> defs) {
  std::string list;
  for (const FunctionDef *def : defs)
    list += (list.empty() ? "" : ", ") + def->getName().str();
  return list;
}

/// The kernel emitKernel would compile for `name`, or an error message.
llvm::Expected<const FunctionDef *>
selectKernel(const ModuleAST &module, StringRef name, StringRef file) {
  llvm::SmallVector<FunctionDef *> functions = module.getFunctions();
  if (functions.empty())
    return llvm::createStringError(
        file + ": no @jit function in this file (a kernel is a function "
               "decorated with @triton.jit, @tilec.jit or @jit)");
  if (!name.empty()) {
    if (const FunctionDef *def = module.lookupFunction(name))
      return def;
    return llvm::createStringError(
        file + ": no @jit function named '" + name +
        "' in this file; it defines: " + describeList(functions));
  }
  if (functions.size() == 1)
    return functions.front();
  llvm::SmallVector<FunctionDef *> roots = findUncalledFunctions(functions);
  if (roots.size() == 1)
    return roots.front();
  return llvm::createStringError(
      file + ": this file defines several @jit functions (" +
      describeList(functions) + "); name the kernel to compile");
}

} // namespace

llvm::Expected<KernelSource> tilec::frontend::describeKernelSource(
    const llvm::SourceMgr &srcMgr, unsigned bufferId, const ModuleAST &module,
    StringRef kernelName) {
  StringRef file = srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  llvm::Expected<const FunctionDef *> kernel =
      selectKernel(module, kernelName, file);
  if (!kernel)
    return kernel.takeError();

  KernelSource result;
  result.name = (*kernel)->getName().str();
  for (const Parameter *param : (*kernel)->getParams()) {
    if (param->getParamKind() == ParamKind::VarPositional ||
        param->getParamKind() == ParamKind::VarKeyword)
      return llvm::createStringError(
          file + ": kernel '" + result.name +
          "': '*args' and '**kwargs' parameters are not supported in a tilec "
          "kernel");
    KernelSourceParameter p;
    p.name = param->getName().str();
    p.isConstexpr = isConstexprAnnotation(param->getAnnotation());
    if (const Expr *def = param->getDefault())
      p.defaultText = textOf(def->getRange()).str();
    result.parameters.push_back(std::move(p));
  }

  // The names each top-level statement mentions, from one scan of the file.
  llvm::ArrayRef<Stmt *> body = module.getBody();
  std::vector<llvm::StringSet<>> mentions(body.size());
  {
    StoringDiagnosticSink ignored; // The file parsed: lexing cannot fail.
    std::vector<Token> tokens = Lexer::lexAll(srcMgr, bufferId, ignored);
    size_t stmt = 0;
    for (const Token &token : tokens) {
      if (!token.isAny(TokenKind::identifier, TokenKind::string))
        continue;
      const char *at = token.getLoc().getPointer();
      while (stmt < body.size() && body[stmt]->getEndLoc().getPointer() <= at)
        ++stmt;
      if (stmt == body.size())
        break;
      if (at < body[stmt]->getLoc().getPointer())
        continue; // Between statements (a comment cannot hold tokens).
      if (token.is(TokenKind::identifier))
        mentions[stmt].insert(token.getSpelling());
      else
        addWords(token.getSpelling(), mentions[stmt]);
    }
  }

  // Which statements define each name.
  llvm::StringMap<llvm::SmallVector<size_t, 1>> definers;
  for (auto [index, stmt] : llvm::enumerate(body)) {
    NameSet names;
    if (auto *def = llvm::dyn_cast<FunctionDef>(stmt))
      names.insert(def->getName());
    else if (auto *assign = llvm::dyn_cast<AssignStmt>(stmt))
      for (const Expr *target : assign->getTargets())
        collectTargetNames(target, names);
    else if (auto *ann = llvm::dyn_cast<AnnAssignStmt>(stmt))
      collectTargetNames(ann->getTarget(), names);
    for (StringRef name : names)
      definers[name].push_back(index);
  }

  // The closure, from the kernel; every import is always included (they
  // decide what `tl`, `triton`, `math` ... mean).
  llvm::SmallVector<bool> included(body.size(), false);
  llvm::SmallVector<size_t> worklist;
  auto include = [&](size_t index) {
    if (!included[index]) {
      included[index] = true;
      worklist.push_back(index);
    }
  };
  for (auto [index, stmt] : llvm::enumerate(body)) {
    if (stmt == *kernel)
      include(index);
    if (llvm::isa<ImportStmt, ImportFromStmt>(stmt))
      included[index] = true;
  }
  while (!worklist.empty()) {
    size_t index = worklist.pop_back_val();
    for (const auto &name : mentions[index]) {
      auto it = definers.find(name.getKey());
      if (it == definers.end())
        continue;
      for (size_t definer : it->second)
        include(definer);
    }
  }

  llvm::SHA256 hasher;
  auto update = [&](StringRef text) {
    hasher.update(text);
    hasher.update(StringRef("\0", 1));
  };
  update("tilec-kernel-source-1");
  update(file);
  update(result.name);
  for (auto [index, stmt] : llvm::enumerate(body)) {
    if (!included[index])
      continue;
    if (auto *def = llvm::dyn_cast<FunctionDef>(stmt))
      result.functions.push_back(def->getName().str());
    update(std::to_string(
        srcMgr.getLineAndColumn(stmt->getLoc(), bufferId).first));
    update(textOf(stmt->getRange()));
  }
  std::array<uint8_t, 32> digest = hasher.final();
  result.hash = llvm::toHex(digest, /*LowerCase=*/true);
  return result;
}
