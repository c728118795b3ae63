//===- PackedArguments.cpp - Checked kernel parameter buffer --------------===//

#include "tilec/Runtime/PackedArguments.h"

#include <algorithm>
#include <cstring>

namespace tilec::runtime {

namespace {

std::size_t alignTo(std::size_t value, std::size_t align) {
  return (value + align - 1) / align * align;
}

std::string describeParameter(const ParameterInfo &param) {
  std::size_t size = param.kind == ParameterInfo::Kind::Pointer
                         ? 8
                         : scalarTypeSize(param.type);
  std::string kind = param.kind == ParameterInfo::Kind::Pointer
                         ? std::string("pointer to ")
                         : std::string("scalar ");
  return "'" + param.name + "' (" + kind + scalarTypeName(param.type) + ", " +
         std::to_string(size) + " bytes)";
}

std::string listParameters(const std::vector<const ParameterInfo *> &params) {
  std::string names;
  for (const ParameterInfo *param : params)
    names += (names.empty() ? "" : ", ") + param->name;
  return names;
}

Status checkArgument(const KernelMetadata &md, std::size_t index,
                     const ParameterInfo &param, const KernelArg &arg) {
  // Messages are built only for a failure: this runs on every launch.
  auto prefix = [&] {
    return "kernel '" + md.name + "': argument " + std::to_string(index + 1) +
           " for parameter " + describeParameter(param) + " ";
  };
  bool wantPointer = param.kind == ParameterInfo::Kind::Pointer;
  bool isPointer = arg.kind() == KernelArg::Kind::Pointer;
  if (wantPointer != isPointer)
    return Status::error(ErrorCode::InvalidArgument,
                         prefix() + "got " + arg.describe() + " (a " +
                             (isPointer ? "pointer" : "scalar") +
                             ", expected a " +
                             (wantPointer ? "pointer" : "scalar") + ")");

  if (!isPointer) {
    std::size_t want = scalarTypeSize(param.type);
    if (arg.size() != want)
      return Status::error(ErrorCode::InvalidArgument,
                           prefix() + "got " + arg.describe() + " (" +
                               std::to_string(arg.size()) + " bytes)");
    bool sameClass = isFloatType(param.type) == isFloatType(arg.type());
    // fp16 vs bf16 (or the two fp8 kinds) have one size but differ.
    bool sameFloat = !isFloatType(param.type) || param.type == arg.type();
    if (!sameClass || !sameFloat)
      return Status::error(ErrorCode::InvalidArgument,
                           prefix() + "got " + arg.describe() +
                               " (wrong type: expected " +
                               scalarTypeName(param.type) + ")");
  }

  if (param.divisibility > 1 && (isPointer || isIntegerType(param.type))) {
    std::uint64_t value = arg.bits();
    if (!isPointer && param.type != ScalarType::I1 &&
        scalarTypeSize(param.type) < 8) {
      // Sign-extend signed scalars so that -16 counts as divisible by 16.
      unsigned shift = 64 - 8 * static_cast<unsigned>(arg.size());
      value = static_cast<std::uint64_t>(
          static_cast<std::int64_t>(value << shift) >> shift);
    }
    if (value % param.divisibility != 0)
      return Status::error(
          ErrorCode::InvalidArgument,
          prefix() + "got " + arg.describe() +
              ", which is not a multiple of " +
              std::to_string(param.divisibility) +
              " as the kernel was compiled to assume (divisibility " +
              std::to_string(param.divisibility) + ")");
  }
  return Status::success();
}

} // namespace

std::size_t PackedArguments::parameterBankOffset(const std::string &target) {
  // Measured with ptxas (CUDA 13.0): the offset of a parameter aligned to
  // 1024 bytes after one 8-byte parameter is 672 on sm_80 and sm_89, 496 on
  // sm_90a and 1024 on sm_100a and sm_120a.
  unsigned sm = 90;
  if (target.rfind("sm_", 0) == 0) {
    std::size_t end = 3;
    unsigned value = 0;
    while (end < target.size() && target[end] >= '0' && target[end] <= '9' &&
           value < 10000)
      value = value * 10 + static_cast<unsigned>(target[end++] - '0');
    std::string suffix = target.substr(end);
    if (end > 3 && (suffix.empty() || suffix == "a" || suffix == "f"))
      sm = value;
  }
  if (sm >= 100)
    return 0;
  if (sm >= 90)
    return 0x210;
  return 0x160;
}

std::vector<ArgumentSlot>
PackedArguments::layout(const KernelMetadata &metadata) {
  std::vector<ArgumentSlot> slots;
  // Offsets are aligned as constant-bank addresses: base + offset.
  const std::size_t base = parameterBankOffset(metadata.target);
  std::size_t offset = 0;
  auto addSlot = [&](const std::string &name, bool hidden, std::size_t size,
                     std::size_t align) {
    offset = alignTo(base + offset, align) - base;
    slots.push_back({name, hidden, offset, size, align});
    offset += size;
  };
  for (const ParameterInfo *param : metadata.launchParameters()) {
    std::size_t size = param->kind == ParameterInfo::Kind::Pointer
                           ? 8
                           : scalarTypeSize(param->type);
    addSlot(param->name, false, size, size);
  }
  for (const HiddenParameterInfo &hidden : metadata.hiddenParameters)
    addSlot(hidden.name, true, hidden.bytes, hidden.align);
  return slots;
}

Expected<PackedArguments> PackedArguments::pack(const KernelMetadata &md,
                                                KernelArgs args) {
  return pack(md, args,
              std::make_shared<const std::vector<ArgumentSlot>>(layout(md)));
}

Expected<PackedArguments>
PackedArguments::pack(const KernelMetadata &md, KernelArgs args,
                      std::shared_ptr<const std::vector<ArgumentSlot>> slots) {
  // The hot path of every launch: no allocation but the buffer's.
  std::size_t numLaunch = 0;
  for (const ParameterInfo &param : md.parameters)
    numLaunch += param.kind != ParameterInfo::Kind::Constexpr;
  if (args.size() != numLaunch) {
    std::vector<const ParameterInfo *> params = md.launchParameters();
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel '" + md.name + "' takes " +
                             std::to_string(params.size()) + " argument" +
                             (params.size() == 1 ? "" : "s") + " (" +
                             listParameters(params) + "), got " +
                             std::to_string(args.size()));
  }
  std::size_t index = 0;
  for (const ParameterInfo &param : md.parameters)
    if (param.kind != ParameterInfo::Kind::Constexpr) {
      TILEC_RETURN_IF_ERROR(checkArgument(md, index, param, args[index]));
      ++index;
    }

  PackedArguments packed;
  packed.slots_ = std::move(slots);
  packed.firstHidden_ = numLaunch;
  std::size_t end = 0;
  std::size_t maxAlign = 1;
  for (const ArgumentSlot &slot : *packed.slots_) {
    end = slot.offset + slot.size;
    maxAlign = std::max(maxAlign, slot.align);
  }
  packed.buffer_.assign(alignTo(end, maxAlign), 0);
  for (std::size_t i = 0; i < numLaunch; ++i)
    std::memcpy(packed.buffer_.data() + (*packed.slots_)[i].offset,
                args[i].data(), args[i].size());
  return packed;
}

Status PackedArguments::setHidden(std::size_t hiddenIndex, const void *data,
                                  std::size_t size) {
  std::size_t slot = firstHidden_ + hiddenIndex;
  const std::vector<ArgumentSlot> &slots = *slots_;
  if (slot >= slots.size())
    return Status::error(ErrorCode::InvalidArgument,
                         "hidden parameter index " +
                             std::to_string(hiddenIndex) + " out of range");
  if (size != slots[slot].size)
    return Status::error(ErrorCode::InvalidArgument,
                         "hidden parameter '" + slots[slot].name + "' is " +
                             std::to_string(slots[slot].size) +
                             " bytes, got " + std::to_string(size));
  std::memcpy(buffer_.data() + slots[slot].offset, data, size);
  return Status::success();
}

Status PackedArguments::setProgramGrid(const KernelMetadata &metadata,
                                       LaunchGrid grid) {
  for (std::size_t i = 0; i < metadata.hiddenParameters.size(); ++i) {
    const HiddenParameterInfo &hidden = metadata.hiddenParameters[i];
    if (hidden.recipe.kind != "program_grid")
      continue;
    unsigned axis = hidden.recipe.axis;
    unsigned size = axis == 0 ? grid.x : axis == 1 ? grid.y : grid.z;
    if (size > 0x7fffffffu)
      return Status::error(ErrorCode::InvalidArgument,
                           "kernel '" + metadata.name + "': hidden parameter '" +
                               hidden.name + "' (program_grid, axis " +
                               std::to_string(axis) + "): grid size " +
                               std::to_string(size) +
                               " does not fit a 32-bit integer");
    std::int32_t value = static_cast<std::int32_t>(size);
    TILEC_RETURN_IF_ERROR(setHidden(i, &value, sizeof(value)));
  }
  return Status::success();
}

void **PackedArguments::kernelParams() {
  const std::vector<ArgumentSlot> &slots = *slots_;
  params_.resize(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i)
    params_[i] = buffer_.data() + slots[i].offset;
  return params_.empty() ? nullptr : params_.data();
}

} // namespace tilec::runtime
