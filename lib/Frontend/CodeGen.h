//===- CodeGen.h - AST to tile dialect code generator -----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The code generator walks one @jit kernel of a parsed module and emits it
// in the `tile` dialect, with Triton's semantics (DESIGN.md §1). It mirrors
// Triton's python/triton/compiler/code_generator.py:
//
// - Values are constexprs or run-time values (Value.h); operators on two
//   constexprs fold at compile time, anything else emits IR with Triton's
//   type promotion and broadcasting (CodeGenSemantic.cpp).
// - Variables live in frames, one per function invocation (Python's function
//   scope). `if` on a constexpr compiles only the taken branch; on a run-time
//   scalar it becomes `scf.if` yielding the variables both branches leave
//   defined and that are still read afterwards (NameAnalysis.h); `for` over
//   `range` becomes `scf.for` carrying the variables the body reassigns
//   (CodeGenStmt.cpp).
// - Calls to @jit functions, nested functions and lambdas are inlined, with
//   constexpr arguments specialized (CodeGenCall.cpp); `tl.*` builtins and
//   tensor methods are a table of specs, one file per family (Builtins.h).
// - Every op gets the FileLineColLoc of the AST node it comes from (a
//   LocationScope per visited node). Every problem is reported at the exact
//   token, followed by notes (the other half of a conflict, then "in call
//   from here" for every inlined call on the way). A failed expression
//   yields Poison so that compilation continues with the next statement and
//   independent errors are all reported.
//
// This header is internal to lib/Frontend.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_CODEGEN_H
#define TILEC_LIB_FRONTEND_CODEGEN_H

#include "DType.h"
#include "NameAnalysis.h"
#include "Value.h"

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Frontend.h"
#include "tilec/Frontend/Signature.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <set>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tilec::frontend {

//===----------------------------------------------------------------------===//
// Frames
//===----------------------------------------------------------------------===//

/// A variable: its value and where it was last assigned (for notes).
struct Binding {
  CGValue value;
  llvm::SMLoc loc;
};

/// The variables of one function invocation.
struct Frame {
  llvm::StringMap<Binding> vars;
  /// The frame a nested function or lambda closes over; null for @jit
  /// functions (their free names are module globals).
  std::shared_ptr<Frame> parent;
  /// Names that went out of scope at a merge point (assigned in only one
  /// branch of an `if`, or only inside a loop), with the reason, so that a
  /// later read gets a precise message.
  struct Undefined {
    /// Completes "'x' is not defined here: ...".
    std::string reason;
    /// Where the note points, and what it says.
    llvm::SMLoc noteLoc;
    std::string note;
  };
  llvm::StringMap<Undefined> undefined;
};

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// One evaluated argument of a call.
struct CallArg {
  CGValue value;
  /// The argument's value expression.
  llvm::SMLoc loc;
  /// Empty for a positional argument.
  std::string keyword;
  /// The keyword's location (keyword arguments only).
  llvm::SMLoc keywordLoc;
};

/// The evaluated arguments of a call.
struct CallArgs {
  /// Where to report problems with the call as a whole (the callee).
  llvm::SMLoc loc;
  /// The callee as the user sees it: `tl.load`, `x.to`, `helper`.
  std::string calleeName;
  llvm::SmallVector<CallArg, 4> positional;
  llvm::SmallVector<CallArg, 4> keywords;
};

/// What a builtin's argument must be: the binder (Builtins.h) converts it
/// and reports a mismatch at the argument.
enum class ArgType {
  /// Anything; the builtin checks it.
  Any,
  /// A compile-time integer (tl.constexpr).
  Int,
  /// A compile-time bool (ParamSpec::boolDefault when omitted).
  Bool,
  /// A compile-time string (ParamSpec::strDefault when omitted).
  Str,
  /// A dtype (`tl.float32`).
  DType,
  /// A compile-time integer or a tuple of them (empty when omitted).
  IntList,
  /// A run-time value; a Python number becomes a scalar of its default type.
  Runtime,
  /// A run-time tile (not a scalar).
  Tile,
};

/// One parameter of a builtin, for argument binding.
struct ParamSpec {
  llvm::StringRef name;
  bool required = false;
  /// Can only be given by keyword (after `*args`).
  bool keywordOnly = false;
  ArgType kind = ArgType::Any;
  /// The value of an omitted ArgType::Bool parameter.
  bool boolDefault = false;
  /// The value of an omitted ArgType::Str parameter.
  llvm::StringRef strDefault;
};

//===----------------------------------------------------------------------===//
// CodeGen
//===----------------------------------------------------------------------===//

struct FunctionState;

/// The code generator of one kernel.
class CodeGen {
public:
  CodeGen(const llvm::SourceMgr &srcMgr, unsigned bufferId, ModuleAST &module,
          mlir::MLIRContext &context, DiagnosticSink &diags);
  ~CodeGen();

  /// Emits kernel `kernelName` (empty: the file's only kernel) specialized
  /// for `signature`.
  mlir::FailureOr<KernelModule> emit(llvm::StringRef kernelName,
                                     llvm::StringRef signature);

  //===--------------------------------------------------------------------===//
  // Diagnostics
  //===--------------------------------------------------------------------===//

  /// An error being built: notes are added with `note`, and everything is
  /// reported when it goes out of scope, followed by one "in call from here"
  /// note per inlined call on the way. Converts to failure().
  class Diag {
  public:
    Diag(CodeGen &cg, llvm::SMLoc loc, std::string message,
         DiagSeverity severity = DiagSeverity::Error);
    Diag(Diag &&other);
    Diag(const Diag &) = delete;
    ~Diag();
    /// Adds a note at `loc`.
    Diag &note(llvm::SMLoc loc, const llvm::Twine &message);
    /// For a run-time `value` used where a compile-time constant is needed:
    /// if it is a kernel parameter, adds a note at its declaration
    /// suggesting `NAME: tl.constexpr`.
    Diag &constexprHint(const CGValue &value);
    operator mlir::LogicalResult() const { return mlir::failure(); }
    template <typename T> operator mlir::FailureOr<T>() const {
      return mlir::failure();
    }

  private:
    CodeGen *cg;
    llvm::SMLoc loc;
    std::string message;
    DiagSeverity severity;
    llvm::SmallVector<std::pair<llvm::SMLoc, std::string>> notes;
  };

  /// Starts an error at `loc`.
  Diag error(llvm::SMLoc loc, const llvm::Twine &message);
  /// Starts a warning at `loc` (suspect code that still compiles). The same
  /// warning at the same place is reported once, however often the code is
  /// compiled (inlined helpers, unrolled loops).
  Diag warning(llvm::SMLoc loc, const llvm::Twine &message);
  /// Whether any error was reported.
  bool hadError() const { return diags.getNumErrors() > numErrorsAtStart; }

  //===--------------------------------------------------------------------===//
  // Locations
  //===--------------------------------------------------------------------===//

  /// The FileLineColLoc of a source position.
  mlir::Location getLoc(llvm::SMLoc loc);
  /// The location new ops get (the innermost node being compiled).
  mlir::Location loc() const { return currentLoc; }

  /// Sets the location of new ops to a node's for its lifetime.
  class LocationScope {
  public:
    LocationScope(CodeGen &cg, const Node *node);
    LocationScope(CodeGen &cg, llvm::SMLoc loc);
    ~LocationScope() { cg.currentLoc = saved; }

  private:
    CodeGen &cg;
    mlir::Location saved;
  };

  //===--------------------------------------------------------------------===//
  // Names (CodeGen.cpp)
  //===--------------------------------------------------------------------===//

  /// Looks `name` up: local frames, module globals, Python builtins. Reports
  /// an unknown name (with a suggestion) at `loc`.
  mlir::FailureOr<CGValue> lookupName(llvm::StringRef name, llvm::SMLoc loc);
  /// The module global `name`, evaluating a constant on first use; none if
  /// there is no such global.
  std::optional<mlir::FailureOr<CGValue>> lookupGlobal(llvm::StringRef name,
                                                       llvm::SMLoc useLoc);
  /// Binds `name` in the current frame.
  void setVar(llvm::StringRef name, CGValue value, llvm::SMLoc loc);
  /// The attribute `name` of module `path`, or none.
  std::optional<CGValue> lookupModuleAttr(llvm::StringRef path,
                                          llvm::StringRef name);
  /// Names visible from the current frame (for suggestions).
  void collectVisibleNames(llvm::SmallVectorImpl<std::string> &names);

  //===--------------------------------------------------------------------===//
  // Expressions (CodeGenExpr.cpp)
  //===--------------------------------------------------------------------===//

  /// A new, empty frame of variables (registered in allFrames).
  std::shared_ptr<Frame> newFrame();
  /// Warns about an expression statement whose value is computed for
  /// nothing (`x + 1`, `tl.exp(x)`; not stores or @jit helper calls).
  void warnIfUnused(const Expr *expr, const CGValue &value);
  /// Evaluates an expression. failure() means an error was reported (or a
  /// poisoned input was used).
  mlir::FailureOr<CGValue> eval(const Expr *expr);
  /// Evaluates the arguments of a call.
  mlir::FailureOr<CallArgs> evalCallArgs(const CallExpr *call,
                                         llvm::StringRef calleeName);
  /// Calls `callee` with evaluated arguments.
  mlir::FailureOr<CGValue> callValue(const CGValue &callee, CallArgs &args);
  /// A readable name of a callee expression (`tl.load`, `x.to`).
  std::string describeCallee(const Expr *callee);
  /// Evaluates an f-string at compile time: every replacement field must be
  /// a constexpr, formatted like Python does (conversions, format specs).
  mlir::FailureOr<std::string> formatFString(const FStringExpr *fstring);
  /// `a if c else b` on a run-time scalar condition `cond`: an `scf.if`
  /// evaluating each arm in its region and yielding the arms' values
  /// promoted to a common type (CodeGenStmt.cpp).
  mlir::FailureOr<CGValue> evalRuntimeIfExp(const IfExpr *ifExp,
                                            const CGValue &cond);

  //===--------------------------------------------------------------------===//
  // Semantic operations (CodeGenSemantic.cpp)
  //===--------------------------------------------------------------------===//

  /// `lhs op rhs`. `opLoc` is the operator token, `lhsLoc`/`rhsLoc` the
  /// operands (for notes).
  mlir::FailureOr<CGValue> binaryOp(BinaryOp op, const CGValue &lhs,
                                    const CGValue &rhs, llvm::SMLoc opLoc,
                                    llvm::SMLoc lhsLoc, llvm::SMLoc rhsLoc);
  /// `lhs op rhs` for a comparison.
  mlir::FailureOr<CGValue> compareOp(CmpOp op, const CGValue &lhs,
                                     const CGValue &rhs, llvm::SMLoc opLoc,
                                     llvm::SMLoc lhsLoc, llvm::SMLoc rhsLoc);
  /// `op operand`.
  mlir::FailureOr<CGValue> unaryOp(UnaryOp op, const CGValue &operand,
                                   llvm::SMLoc opLoc);
  /// Converts a run-time value to `dst` with Triton's cast rules (same
  /// shape). `bitcast` reinterprets the bits instead.
  mlir::FailureOr<CGValue> cast(const CGValue &value, DType dst,
                                llvm::SMLoc loc, bool bitcast = false);
  /// A Python number as a run-time scalar of its default type (Triton's
  /// to_tensor); run-time values are returned unchanged.
  mlir::FailureOr<CGValue> toRuntime(const CGValue &value, llvm::SMLoc loc);
  /// A Python number as a run-time scalar of type `dtype`.
  CGValue makeConstant(const CGValue &number, DType dtype);
  /// An `arith.constant` scalar of `dtype`.
  mlir::Value makeScalarConstant(DType dtype, double floatValue,
                                 int64_t intValue, bool isFloat);
  /// `value` as a run-time value of `dtype`: a number is materialized, a
  /// run-time value is cast. `what` names it in messages.
  mlir::FailureOr<CGValue> convertTo(const CGValue &value, DType dtype,
                                     llvm::SMLoc loc, llvm::StringRef what);
  /// Makes both operands the same shape (splat, expand_dims at 0,
  /// broadcast). Reports `cannot broadcast` at `opLoc` with a note per
  /// operand.
  mlir::LogicalResult broadcastPair(CGValue &lhs, CGValue &rhs,
                                    llvm::SMLoc opLoc, llvm::SMLoc lhsLoc,
                                    llvm::SMLoc rhsLoc);
  /// Broadcasts a run-time value to `shape` (splat for scalars). `what`
  /// names the value in the message.
  mlir::FailureOr<CGValue> broadcastTo(const CGValue &value,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::SMLoc loc, llvm::StringRef what);
  /// Splats a scalar to a tile of `shape` (the scalar if shape is empty).
  CGValue splat(const CGValue &scalar, llvm::ArrayRef<int64_t> shape);
  /// Inserts a unit dimension at `axis` (a scalar becomes a [1] tile).
  CGValue expandDims(const CGValue &value, int64_t axis);
  /// `tile.reshape`.
  CGValue reshape(const CGValue &value, llvm::ArrayRef<int64_t> shape,
                  bool allowReorder);
  /// The MLIR type of a run-time value of `dtype` and `shape`.
  mlir::Type getType(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// Converts a run-time scalar or tile to i1 (`!= 0`), for conditions.
  mlir::FailureOr<CGValue> toBool(const CGValue &value, llvm::SMLoc loc);
  /// A device assertion of the run-time `cond` (tl.device_assert, a Python
  /// `assert` on a run-time value): converted to i1 (`!= 0`), or-ed with
  /// `not mask` when a mask is given, then `tile.assert` in debug mode and
  /// nothing otherwise (after the same checks). `loc` is where the
  /// assertion is reported (file, line, current function).
  mlir::LogicalResult emitDeviceAssert(const CGValue &cond, llvm::SMLoc condLoc,
                                       llvm::StringRef message,
                                       const CGValue *mask, llvm::SMLoc maskLoc,
                                       llvm::SMLoc loc);
  /// Python's truth value of a constexpr, or an error for a run-time tile
  /// (`what` names the construct, e.g. "an 'if' condition").
  mlir::FailureOr<bool> constexprTruth(const CGValue &value, llvm::SMLoc loc);

  /// Folds an operator on two constexprs with Python's semantics
  /// (CodeGenConstexpr.cpp).
  mlir::FailureOr<CGValue> foldBinary(BinaryOp op, const CGValue &lhs,
                                      const CGValue &rhs, llvm::SMLoc opLoc);
  mlir::FailureOr<CGValue> foldCompare(CmpOp op, const CGValue &lhs,
                                       const CGValue &rhs, llvm::SMLoc opLoc);
  mlir::FailureOr<CGValue> foldUnary(UnaryOp op, const CGValue &operand,
                                     llvm::SMLoc opLoc);

  //===--------------------------------------------------------------------===//
  // Reductions (CodeGenReduce.cpp)
  //===--------------------------------------------------------------------===//

  /// Builds the combine region of a reduction: given the block arguments
  /// (accumulated values then new values, one per source), returns the
  /// combined values.
  using CombineBuilder =
      llvm::function_ref<mlir::FailureOr<llvm::SmallVector<CGValue>>(
          llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)>;
  /// Reduces `srcs` (same shape) along `axis` (none: every axis, after a
  /// reshape to 1-d) with `combine`; `keepDims` keeps the reduced axis as
  /// size 1. `axisLoc` is where the axis argument is, for messages.
  mlir::FailureOr<llvm::SmallVector<CGValue>>
  reduce(llvm::ArrayRef<CGValue> srcs, std::optional<int64_t> axis,
         bool keepDims, llvm::SMLoc loc, llvm::SMLoc axisLoc,
         CombineBuilder combine);

  //===--------------------------------------------------------------------===//
  // Builtins (CodeGenBuiltins.cpp; the table is in Builtins.h)
  //===--------------------------------------------------------------------===//

  /// Calls builtin `name` (`tl.load`, `range`, ...).
  mlir::FailureOr<CGValue> callBuiltin(llvm::StringRef name, CallArgs &args);
  /// Whether `name` is a builtin known to the table.
  static bool isKnownBuiltin(llvm::StringRef name);
  /// The builtin a tensor method `name` calls (`sum` -> `tl.sum`), or "".
  static llvm::StringRef getMethodBuiltin(llvm::StringRef name);
  /// Binds `args` to `params` (positional first, then keywords). Missing
  /// optional parameters are null. Reports arity and keyword errors.
  mlir::LogicalResult
  bindArgs(CallArgs &args, llvm::ArrayRef<ParamSpec> params,
           llvm::SmallVectorImpl<const CallArg *> &bound,
           llvm::SmallVectorImpl<const CallArg *> *varargs = nullptr);
  /// An attribute of a run-time value or a dtype (`x.shape`, `x.T`, bound
  /// methods), or none.
  mlir::FailureOr<CGValue>
  getValueAttr(const CGValue &base, llvm::StringRef name, llvm::SMLoc nameLoc);

  //===--------------------------------------------------------------------===//
  // Calls of user functions (CodeGenCall.cpp)
  //===--------------------------------------------------------------------===//

  /// Inlines a @jit function, nested function or lambda.
  mlir::FailureOr<CGValue> callFunction(const CGValue &callee, CallArgs &args);

  //===--------------------------------------------------------------------===//
  // Statements (CodeGenStmt.cpp)
  //===--------------------------------------------------------------------===//

  /// Compiles a statement list (a function body, a branch, a loop body).
  /// `loopStmt` marks the body of a run-time loop. Stops after a `return`.
  void compileBlock(llvm::ArrayRef<Stmt *> stmts,
                    const Stmt *loopStmt = nullptr);
  /// Compiles one statement.
  mlir::LogicalResult compileStmt(const Stmt *stmt);
  /// Binds an assignment target.
  mlir::LogicalResult assignTarget(const Expr *target, const CGValue &value,
                                   llvm::SMLoc loc, bool sanitize);
  /// Names read after the current statement (for merges at control flow).
  llvm::StringSet<> liveAfterCurrent();

  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//

  /// The source and its parse.
  const llvm::SourceMgr &srcMgr;
  unsigned bufferId;
  ModuleAST &module;
  mlir::MLIRContext &context;
  /// Where problems are reported.
  DiagnosticSink &diags;
  /// Creates the IR; its insertion point follows the compiled statements.
  mlir::OpBuilder builder;
  /// The location new ops get (see LocationScope).
  mlir::Location currentLoc;
  /// The buffer's name, for FileLineColLocs.
  mlir::StringAttr fileName;
  /// The sink's error count when this code generator started.
  unsigned numErrorsAtStart;
  /// Every frame created (newFrame), so that the destructor can break the
  /// reference cycles closures make: a frame binds a lambda or nested `def`
  /// whose closure holds the frame.
  std::vector<std::weak_ptr<Frame>> allFrames;
  /// Warnings already reported (source position and message).
  std::set<std::pair<const char *, std::string>> reportedWarnings;

  /// Debug mode (Triton's `debug=True`): tl.device_assert and run-time
  /// `assert` statements emit `tile.assert`; otherwise they are only
  /// type-checked. Set by emit() from EmitOptions and the kernel's
  /// `@jit(debug=...)`.
  bool debug = false;

  /// The function being compiled (innermost inlined call).
  FunctionState *fn = nullptr;
  /// Inlined calls being compiled: call site and callee name, outermost
  /// first.
  llvm::SmallVector<std::pair<llvm::SMLoc, std::string>> callStack;

  /// Module globals (imports, constants, @jit functions).
  struct Global;
  llvm::StringMap<std::unique_ptr<Global>> globals;
  /// The frame module constants are evaluated in.
  std::shared_ptr<Frame> moduleFrame;

  /// The kernel's parameters as compiled (filled by emit).
  KernelInterface interface;
  /// How many user combine functions (tl.reduce, tl.associative_scan) are
  /// being compiled: their exact float comparisons are deliberate.
  unsigned combineFunctionDepth = 0;
  /// Module-level @jit functions inlined so far, in first-call order.
  llvm::SetVector<llvm::StringRef> inlinedFunctions;
  /// The words of the statements reported as unsupported (`try`, `with`,
  /// ...), whose text is not parsed: a name they may define is not reported
  /// as unknown afterwards.
  llvm::StringSet<> namesInUnsupportedStmts;
  /// Adds every identifier in the source of `stmt` (an unsupported statement
  /// that was not compiled) to namesInUnsupportedStmts.
  void addNamesOfUnsupportedStmt(const Stmt *stmt);

  /// The value expression of the module-level constant `name` (`NAME =
  /// expr` at the top level), or null.
  const Expr *getModuleConstantExpr(llvm::StringRef name) const;
  /// What the `@triton.autotune` and `@triton.heuristics` decorators of
  /// `kernel` say, as JSON text for KernelInterface::tuningJson (empty
  /// without them). Configs written as literals (numbers, strings, lists,
  /// dicts, module constants, `triton.Config(...)`) are read as values;
  /// anything else (a host function call, a lambda) is kept as its source
  /// text, never executed.
  std::string readTuningDecorators(const FunctionDef *kernel);

private:
  /// Records the module's imports, constants and @jit functions.
  void collectGlobals();
  /// The kernel called `name`, or the file's only kernel for "".
  mlir::FailureOr<const FunctionDef *> selectKernel(llvm::StringRef name);
  /// Specializes `kernel` for `signature` and emits its function into
  /// `moduleOp`.
  mlir::LogicalResult emitKernelFunction(const FunctionDef *kernel,
                                         const Signature &signature,
                                         mlir::ModuleOp moduleOp);
};

/// The state of one (inlined) function while it is compiled.
struct FunctionState {
  /// Its variables.
  std::shared_ptr<Frame> frame;
  /// Its name, for messages.
  std::string name;
  /// Whether this is the kernel itself (which cannot return a value).
  bool isKernel = false;
  /// Set once a `return` was compiled on the current path.
  bool returned = false;
  CGValue returnValue = CGValue::none();
  llvm::SMLoc returnLoc;
  /// Run-time loops (and unrolled loops) being compiled around the current
  /// statement, within this function.
  unsigned loopDepth = 0;

  /// Where compilation is in each enclosing statement list, innermost last
  /// (liveness queries and continuations of early returns).
  struct Cursor {
    llvm::ArrayRef<Stmt *> stmts;
    size_t index = 0;
    /// The loop statement whose body this is, if any.
    const Stmt *loop = nullptr;
  };
  llvm::SmallVector<Cursor> cursors;
  /// Names read by nested functions and lambdas anywhere in the body: they
  /// are live everywhere.
  llvm::StringSet<> closureReads;
};

/// Flattens a value into its leaves (tuples recursively expanded).
void flattenValue(const CGValue &value, llvm::SmallVectorImpl<CGValue> &leaves);
/// Rebuilds a value with the structure of `templ` from `leaves`, starting at
/// `index` (advanced past the leaves used).
CGValue unflattenValue(const CGValue &templ, llvm::ArrayRef<CGValue> leaves,
                       size_t &index);

/// The closest of `candidates` to `name` (for "did you mean"), or "".
std::string findClosestName(llvm::StringRef name,
                            llvm::ArrayRef<std::string> candidates);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_CODEGEN_H
