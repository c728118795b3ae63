//===- Kernel.cpp - A JIT kernel: specialize, compile, launch -------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The launch path. A launch computes its arguments' specialization key (a
// few words per argument, on the stack), finds the loaded specialization
// with that key under the kernel's lock, converts the passed arguments and
// hands them to runtime::Kernel::launch. Only a key seen for the first time
// builds a signature string and goes through the Compiler's caches.
//
//===----------------------------------------------------------------------===//

#include "CompilerImpl.h"

#include "tilec/JIT/Specialization.h"
#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Kernel.h"
#include "tilec/Runtime/KernelMetadata.h"

using namespace tilec;
using namespace tilec::jit;
using namespace tilec::jit::detail;

namespace {

/// What specializeArgument looks at, packed in one word.
std::uint64_t argumentWord(const Arg &arg, bool isConstexpr) {
  std::uint64_t word =
      std::uint64_t(arg.kind()) | std::uint64_t(arg.type()) << 4 |
      std::uint64_t(arg.hasRawBits()) << 9 | std::uint64_t(isConstexpr) << 10;
  if (isConstexpr)
    return word;
  std::uint64_t spec = 0;
  switch (arg.kind()) {
  case Arg::Kind::Pointer:
    spec = arg.bits() % 16 == 0;
    break;
  case Arg::Kind::Int:
    if (!arg.hasRawBits()) {
      std::uint64_t value = arg.type() == ScalarType::U64
                                ? arg.bits()
                                : static_cast<std::uint64_t>(arg.intValue());
      spec = value == 1 ? 2 : value % 16 == 0 ? 1 : 0;
    }
    break;
  default:
    break;
  }
  return word | spec << 12;
}

llvm::Error toError(const runtime::Status &status) {
  return llvm::createStringError(status.message());
}

} // namespace

void tilec::jit::detail::computeSpecializationKey(const KernelState &state,
                                                  llvm::ArrayRef<Arg> args,
                                                  SpecializationKey &key) {
  const auto &params = state.info.parameters;
  key.words.push_back(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    bool isConstexpr = i < params.size() && params[i].isConstexpr;
    key.words.push_back(argumentWord(args[i], isConstexpr));
    if (isConstexpr) {
      if (args[i].kind() == Arg::Kind::String)
        key.strings.push_back(args[i].text());
      else
        key.words.push_back(args[i].bits());
    }
  }
}

bool LoadedSpecialization::matches(const SpecializationKey &key) const {
  if (words != key.words || strings.size() != key.strings.size())
    return false;
  for (size_t i = 0; i < strings.size(); ++i)
    if (strings[i] != key.strings[i])
      return false;
  return true;
}

llvm::Expected<LoadedSpecialization *>
CompilerImpl::getLoaded(KernelState &state, llvm::ArrayRef<Arg> args,
                        const SpecializationKey &key) {
  llvm::Expected<std::string> signature = specializeSignature(state.info, args);
  if (!signature)
    return signature.takeError();
  llvm::Expected<std::shared_ptr<const CompiledKernel>> compiledKernel =
      compile(state, *signature);
  if (!compiledKernel)
    return compiledKernel.takeError();
  llvm::Expected<runtime::Device *> dev = getDevice();
  if (!dev)
    return dev.takeError();

  const CompiledKernel &ck = **compiledKernel;
  runtime::Expected<runtime::KernelMetadata> metadata =
      runtime::KernelMetadata::parse(ck.metadata);
  if (!metadata)
    return toError(metadata.status());
  auto spec = std::make_unique<LoadedSpecialization>();
  for (size_t i = 0; i < metadata->parameters.size(); ++i)
    if (metadata->parameters[i].kind != runtime::ParameterInfo::Kind::Constexpr)
      spec->passed.push_back(static_cast<std::uint32_t>(i));
  const std::string &image = ck.cubin.empty() ? ck.ptx : ck.cubin;
  if (runtime::Status current = (*dev)->ensureCurrent(); !current.ok())
    return toError(current);
  runtime::Expected<std::unique_ptr<runtime::Kernel>> loadedKernel =
      runtime::Kernel::load(**dev, *metadata, image.data(), image.size());
  if (!loadedKernel)
    return toError(loadedKernel.status());
  spec->words = key.words;
  for (std::string_view text : key.strings)
    spec->strings.emplace_back(text);
  spec->compiled = *compiledKernel;
  spec->device = *dev;
  spec->kernel = loadedKernel.take();

  std::lock_guard<std::mutex> lock(state.mutex);
  // Another thread may have loaded the same specialization meanwhile: use
  // the first one (this one is unloaded on return).
  for (const std::unique_ptr<LoadedSpecialization> &existing : state.loaded)
    if (existing->matches(key))
      return existing.get();
  {
    std::lock_guard<std::mutex> statsLock(mutex);
    ++stats.loads;
  }
  state.loaded.push_back(std::move(spec));
  return state.loaded.back().get();
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

const std::string &Kernel::getName() const { return state->info.name; }

const std::vector<frontend::KernelSourceParameter> &
Kernel::getParameters() const {
  return state->info.parameters;
}

llvm::Expected<std::string> Kernel::specialize(llvm::ArrayRef<Arg> args) const {
  return specializeSignature(state->info, args);
}

llvm::Expected<std::shared_ptr<const CompiledKernel>>
Kernel::compile(llvm::StringRef signature) const {
  return compiler->compile(*state, signature);
}

llvm::Error Kernel::launchArgs(Grid grid, Stream stream,
                               llvm::ArrayRef<Arg> args) const {
  SpecializationKey key;
  computeSpecializationKey(*state, args, key);
  LoadedSpecialization *spec = nullptr;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    for (const std::unique_ptr<LoadedSpecialization> &loaded : state->loaded)
      if (loaded->matches(key)) {
        spec = loaded.get();
        break;
      }
  }
  if (!spec) {
    llvm::Expected<LoadedSpecialization *> loaded =
        compiler->getLoaded(*state, args, key);
    if (!loaded)
      return loaded.takeError();
    spec = *loaded;
  }

  // A thread that never used CUDA has no current context.
  if (runtime::Status current = spec->device->ensureCurrent(); !current.ok())
    return toError(current);

  llvm::SmallVector<runtime::KernelArg, 16> passed;
  for (std::uint32_t index : spec->passed)
    passed.push_back(args[index].toRuntimeArg());
  runtime::Status launched = spec->kernel->launch(
      runtime::LaunchGrid{grid.x, grid.y, grid.z},
      runtime::KernelArgs(passed.data(), passed.size()), stream);
  if (!launched.ok())
    return toError(launched);
  return llvm::Error::success();
}

size_t Kernel::getNumLoadedSpecializations() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->loaded.size();
}
