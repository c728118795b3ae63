//===- ParserTest.cpp - Tests for the .tile parser ------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

#include "FrontendTestUtils.h"
#include "TestKernels.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace tilec::frontend;
using namespace tilec::frontend::testing;
using llvm::StringRef;

namespace {

std::string dumpNode(const Node &node) {
  std::string out;
  llvm::raw_string_ostream os(out);
  dumpAST(node, os);
  return StringRef(out).rtrim('\n').str();
}

/// Parses `X = <expr>` at the top level and dumps the expression.
std::string dumpExpr(StringRef expr) {
  ParseResult r = parse(("X = " + expr + "\n").str());
  if (!r.module)
    return "<error: " + llvm::join(r.diagnostics, "; ") + ">";
  auto *assign = llvm::dyn_cast<AssignStmt>(r.module->getBody().front());
  if (!assign)
    return "<not an assignment>";
  return dumpNode(*assign->getValue());
}

/// Parses `body` as the body of a jit function and dumps its statements.
std::string dumpBody(StringRef body) {
  std::string source = "@jit\ndef f():\n";
  llvm::SmallVector<StringRef> lines;
  body.split(lines, '\n');
  for (StringRef line : lines)
    source += "    " + line.str() + "\n";
  ParseResult r = parse(source);
  if (!r.module)
    return "<error: " + llvm::join(r.diagnostics, "; ") + ">";
  FunctionDef *f = r.module->lookupFunction("f");
  if (!f)
    return "<no function>";
  std::string out;
  for (const Stmt *stmt : f->getBody())
    out += dumpNode(*stmt) + "\n";
  return StringRef(out).rtrim('\n').str();
}

//===----------------------------------------------------------------------===//
// Realistic kernels
//===----------------------------------------------------------------------===//

TEST(ParserTest, PuzzleKernels) {
  ParseResult r = parse(kPuzzleKernels);
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  EXPECT_TRUE(r.diagnostics.empty());

  std::vector<std::string> names;
  for (FunctionDef *f : r.module->getFunctions()) {
    names.push_back(f->getName().str());
    EXPECT_TRUE(f->isJit());
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "add_kernel", "add_vec_block_kernel", "sum_kernel",
                       "softmax_kernel", "flashatt_kernel", "conv2d_kernel",
                       "dot_kernel", "quant_dot_kernel"}));

  // Module constants used by quant_dot_kernel.
  llvm::SmallVector<Stmt *> constants = r.module->getConstants();
  ASSERT_EQ(constants.size(), 2u);
  EXPECT_EQ(dumpNode(*constants[0]),
            "(assign (name FPINT) (binop // (int 32) (int 4)))");
  EXPECT_EQ(dumpNode(*constants[1]), "(assign (name GROUP) (int 8))");

  std::string dump = r.dump();
  EXPECT_NE(dump.find("(assign (name z) (binop + (subscript (name x) (tuple "
                      "None (slice _ _ _))) (subscript (name y) (tuple (slice "
                      "_ _ _) None))))"),
            std::string::npos);
  EXPECT_NE(dump.find("(assign (name myexp) (lambda (param x) (call (attr "
                      "(name tl) exp2) (binop * (name log2_e) (name x)))))"),
            std::string::npos);
  EXPECT_NE(dump.find("(assign (name x_max) (call (attr (name tl) full) "
                      "(tuple (name B0)) (call (name float) (str \"-inf\")) "
                      "(kw dtype (attr (name tl) float32))))"),
            std::string::npos);
  EXPECT_NE(dump.find("(assign (name z) (call (attr (call (attr (binop * "
                      "(name x) (subscript (name k) (tuple None (slice _ _ _) "
                      "(slice _ _ _)))) sum) (int 1)) sum) (int 1)))"),
            std::string::npos);

  // The nested helper of quant_dot_kernel.
  FunctionDef *quant = r.module->lookupFunction("quant_dot_kernel");
  ASSERT_TRUE(quant);
  ASSERT_EQ(quant->getParams().size(), 11u);
  EXPECT_EQ(quant->getParams()[8]->getName(), "B0");
  EXPECT_EQ(dumpNode(*quant->getParams()[8]),
            "(param B0 (ann (attr (name tl) constexpr)))");
  auto *extract = llvm::dyn_cast<FunctionDef>(quant->getBody()[2]);
  ASSERT_TRUE(extract);
  EXPECT_EQ(dumpNode(*extract),
            "(def extract\n"
            "  (param x)\n"
            "  (body\n"
            "    (assign (name over) (binop * (call (attr (name tl) arange) "
            "(int 0) (int 8)) (int 4)))\n"
            "    (assign (name mask) (binop - (binop ** (int 2) (int 4)) (int "
            "1)))\n"
            "    (return (binop & (binop >> (subscript (name x) (tuple (slice "
            "_ _ _) (slice _ _ _) None)) (name over)) (name mask)))))");

  // conv2d's nested loops.
  FunctionDef *conv = r.module->lookupFunction("conv2d_kernel");
  ASSERT_TRUE(conv);
  auto *outer = llvm::dyn_cast<ForStmt>(conv->getBody()[5]);
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->getBody().size(), 5u);
  EXPECT_TRUE(llvm::isa<ForStmt>(outer->getBody()[2]));
  EXPECT_TRUE(llvm::isa<ReturnStmt>(conv->getBody().back()));

  // softmax's docstring and if/else inside the first loop.
  FunctionDef *softmax = r.module->lookupFunction("softmax_kernel");
  ASSERT_TRUE(softmax);
  auto *doc = llvm::dyn_cast<ExprStmt>(softmax->getBody()[0]);
  ASSERT_TRUE(doc);
  EXPECT_EQ(llvm::cast<StringLiteral>(doc->getExpr())->getValue(),
            "3 loops ver.");
}

TEST(ParserTest, WeightedSumKernelsWithHostClass) {
  ParseResult r = parse(kWeightedSumKernels);
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  llvm::SmallVector<FunctionDef *> functions = r.module->getFunctions();
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0]->getName(), "weighted_sum_fwd");
  EXPECT_EQ(functions[1]->getName(), "weighted_sum_backward");
  EXPECT_EQ(functions[0]->getParams().size(), 11u);
  EXPECT_EQ(functions[1]->getParams().size(), 17u);
  // The backward body is indented with tabs.
  EXPECT_EQ(functions[1]->getBody().size(), 8u);
  auto *loop = llvm::dyn_cast<ForStmt>(functions[1]->getBody()[7]);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->getBody().size(), 11u);
  EXPECT_EQ(dumpNode(*loop->getBody()[5]),
            "(assign (name grad_weight_row) (call (attr (name tl) sum) "
            "(binop * (name row) (subscript (name grad_output) (tuple (slice "
            "_ _ _) None))) (kw axis (int 0)) (kw keep_dims True)))");

  SkippedStmt *cls = r.module->lookupSkipped("WeightedSumFunc");
  ASSERT_TRUE(cls);
  EXPECT_EQ(cls->getConstruct(), "class");
  // The last statement is a constant alias of a host attribute.
  EXPECT_EQ(dumpNode(*r.module->getBody().back()),
            "(assign (name f_weightedsum) (attr (name WeightedSumFunc) "
            "apply))");
  std::string head;
  for (Stmt *stmt : r.module->getBody().take_front(4))
    head += dumpNode(*stmt) + "\n";
  EXPECT_EQ(head, "(import (alias torch))\n"
                  "(import (alias triton))\n"
                  "(import (alias triton.language tl))\n"
                  "(from einops (alias rearrange))\n");
}

TEST(ParserTest, MatmulTutorialSkipsHostCode) {
  ParseResult r = parse(kMatmulTutorial);
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");

  llvm::SmallVector<FunctionDef *> functions = r.module->getFunctions();
  ASSERT_EQ(functions.size(), 2u);
  FunctionDef *kernel = functions[0];
  EXPECT_EQ(kernel->getName(), "matmul_kernel");
  ASSERT_EQ(kernel->getDecorators().size(), 2u);
  EXPECT_EQ(dumpNode(*kernel->getDecorators()[0]),
            "(call (attr (name triton) autotune) (kw configs (call (name "
            "get_autotune_config))) (kw key (list (str \"M\") (str \"N\") "
            "(str \"K\"))))");
  EXPECT_FALSE(isJitDecorator(kernel->getDecorators()[0]));
  EXPECT_TRUE(isJitDecorator(kernel->getDecorators()[1]));
  ASSERT_EQ(kernel->getParams().size(), 17u);
  EXPECT_EQ(kernel->getParams()[16]->getName(), "ACTIVATION");
  EXPECT_TRUE(kernel->getParams()[16]->getAnnotation());
  EXPECT_FALSE(kernel->getParams()[11]->getAnnotation());
  EXPECT_EQ(functions[1]->getName(), "leaky_relu");

  // The k-loop of the kernel.
  auto *loop = llvm::dyn_cast<ForStmt>(kernel->getBody()[20]);
  ASSERT_TRUE(loop);
  EXPECT_EQ(dumpNode(*loop->getBody()[0]),
            "(assign (name a) (call (attr (name tl) load) (name a_ptrs) (kw "
            "mask (compare (subscript (name offs_k) (tuple None (slice _ _ "
            "_))) < (binop - (name K) (binop * (name k) (name "
            "BLOCK_SIZE_K))))) (kw other (float 0.0))))");
  EXPECT_EQ(dumpNode(*loop->getBody()[3]),
            "(augassign += (name a_ptrs) (binop * (name BLOCK_SIZE_K) (name "
            "stride_ak)))");

  // Every top-level statement, in order.
  std::string summary;
  for (Stmt *stmt : r.module->getBody()) {
    if (auto *skipped = llvm::dyn_cast<SkippedStmt>(stmt)) {
      summary += "skipped " + skipped->getConstruct().str();
      for (StringRef name : skipped->getNames())
        summary += " " + name.str();
    } else if (auto *func = llvm::dyn_cast<FunctionDef>(stmt)) {
      summary += "def " + func->getName().str();
    } else if (auto *assign = llvm::dyn_cast<AssignStmt>(stmt)) {
      summary += "const " + dumpNode(*assign->getTargets()[0]);
    } else {
      summary += "import";
    }
    summary += "\n";
  }
  EXPECT_EQ(summary, "skipped expression\n"
                     "import\n"
                     "import\n"
                     "import\n"
                     "const (name DEVICE)\n"
                     "skipped def is_cuda\n"
                     "skipped def get_cuda_autotune_config\n"
                     "skipped def get_autotune_config\n"
                     "def matmul_kernel\n"
                     "def leaky_relu\n"
                     "skipped def matmul\n"
                     "skipped expression\n"
                     "const (name a)\n"
                     "const (name b)\n"
                     "const (name triton_output)\n"
                     "const (name torch_output)\n"
                     "skipped expression\n"
                     "const (name rtol)\n"
                     "skipped if\n"
                     "const (name TORCH_HAS_FP8)\n"
                     "const (name configs)\n"
                     "skipped for\n"
                     "skipped def benchmark\n"
                     "skipped class Runner\n"
                     "skipped try\n"
                     "skipped with\n");

  SkippedStmt *matmul = r.module->lookupSkipped("matmul");
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul->getConstruct(), "def");
  auto [line, col] = r.srcMgr->getLineAndColumn(matmul->getLoc());
  EXPECT_EQ(line, 99u);
  EXPECT_EQ(col, 1u);
  EXPECT_FALSE(r.module->lookupSkipped("leaky_relu"));
  EXPECT_FALSE(r.module->lookupFunction("matmul"));
}

//===----------------------------------------------------------------------===//
// Dump format
//===----------------------------------------------------------------------===//

TEST(ParserTest, DumpFormatOfAModule) {
  ParseResult r = parse("import triton.language as tl\n"
                        "from .. import a as b, c\n"
                        "BLOCK: tl.constexpr = 1024\n"
                        "\n"
                        "@triton.jit(do_not_specialize=['n'])\n"
                        "def k(x_ptr, n, *, B: tl.constexpr = 4) -> None:\n"
                        "    '''Doc.'''\n"
                        "    i = 0\n"
                        "    while i < n:\n"
                        "        if i % 2 == 0:\n"
                        "            i += 1\n"
                        "            continue\n"
                        "        elif i > 10:\n"
                        "            break\n"
                        "        else:\n"
                        "            pass\n"
                        "    else:\n"
                        "        return\n"
                        "    for a, b in zip(x, y):\n"
                        "        pass\n"
                        "    return i, n\n"
                        "\n"
                        "class Host:\n"
                        "    pass\n");
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  EXPECT_EQ(r.dump(),
            "(module\n"
            "  (import (alias triton.language tl))\n"
            "  (from .. (alias a b) (alias c))\n"
            "  (annassign (name BLOCK) (attr (name tl) constexpr) (int 1024))\n"
            "  (def k\n"
            "    (decorator (call (attr (name triton) jit) (kw "
            "do_not_specialize (list (str \"n\")))))\n"
            "    (param x_ptr)\n"
            "    (param n)\n"
            "    (param B kwonly (ann (attr (name tl) constexpr)) (default "
            "(int 4)))\n"
            "    (returns None)\n"
            "    (body\n"
            "      (expr (str \"Doc.\"))\n"
            "      (assign (name i) (int 0))\n"
            "      (while (compare (name i) < (name n))\n"
            "        (body\n"
            "          (if (compare (binop % (name i) (int 2)) == (int 0))\n"
            "            (then\n"
            "              (augassign += (name i) (int 1))\n"
            "              (continue))\n"
            "            (elif (compare (name i) > (int 10))\n"
            "              (then\n"
            "                (break))\n"
            "              (else\n"
            "                (pass)))))\n"
            "        (else\n"
            "          (return)))\n"
            "      (for (tuple (name a) (name b)) (call (name zip) (name x) "
            "(name y))\n"
            "        (body\n"
            "          (pass)))\n"
            "      (return (tuple (name i) (name n)))))\n"
            "  (skipped class Host))\n");
}

TEST(ParserTest, DumpWithLocations) {
  auto srcMgr = makeSourceMgr("X = a +  f(b)\n");
  StoringDiagnosticSink sink;
  std::unique_ptr<ModuleAST> module = parseModule(*srcMgr, 1, sink);
  ASSERT_TRUE(module);
  std::string out;
  llvm::raw_string_ostream os(out);
  dumpAST(*module, os, srcMgr.get());
  EXPECT_EQ(out, "(module\n"
                 "  (assign@1:1 (name@1:1 X) (binop@1:5 + (name@1:5 a) "
                 "(call@1:10 (name@1:10 f) (name@1:12 b)))))\n");
}

//===----------------------------------------------------------------------===//
// Expressions and precedence
//===----------------------------------------------------------------------===//

TEST(ParserTest, Precedence) {
  struct Case {
    const char *source;
    const char *dump;
  };
  const Case cases[] = {
      // Power binds tighter than a unary operator on its left, looser than
      // one on its right, and is right-associative.
      {"-x**2", "(unary - (binop ** (name x) (int 2)))"},
      {"-1 ** 2", "(unary - (binop ** (int 1) (int 2)))"},
      {"2**-1", "(binop ** (int 2) (unary - (int 1)))"},
      {"a**b**c", "(binop ** (name a) (binop ** (name b) (name c)))"},
      {"-a**-b", "(unary - (binop ** (name a) (unary - (name b))))"},
      {"(-a)**b", "(binop ** (unary - (name a)) (name b))"},
      // Arithmetic.
      {"a - b - c", "(binop - (binop - (name a) (name b)) (name c))"},
      {"a + b * c", "(binop + (name a) (binop * (name b) (name c)))"},
      {"a * b + c", "(binop + (binop * (name a) (name b)) (name c))"},
      {"(a + b) * c", "(binop * (binop + (name a) (name b)) (name c))"},
      {"a @ b + c", "(binop + (binop @ (name a) (name b)) (name c))"},
      {"a // b % c * d",
       "(binop * (binop % (binop // (name a) (name b)) (name c)) (name d))"},
      {"a / b / c", "(binop / (binop / (name a) (name b)) (name c))"},
      {"- - a", "(unary - (unary - (name a)))"},
      {"~a & b", "(binop & (unary ~ (name a)) (name b))"},
      {"+a * -b", "(binop * (unary + (name a)) (unary - (name b)))"},
      // Shifts are looser than +, bitwise ops looser than shifts.
      {"a << 1 + 2", "(binop << (name a) (binop + (int 1) (int 2)))"},
      {"x >> 4 & 15", "(binop & (binop >> (name x) (int 4)) (int 15))"},
      {"a & b | c ^ d",
       "(binop | (binop & (name a) (name b)) (binop ^ (name c) (name d)))"},
      {"a | b ^ c & d",
       "(binop | (name a) (binop ^ (name b) (binop & (name c) (name d))))"},
      // Comparisons are looser than bitwise ops, chain, and include
      // is / is not / in / not in.
      {"a & b == c", "(compare (binop & (name a) (name b)) == (name c))"},
      {"a < b <= c != d",
       "(compare (name a) < (name b) <= (name c) != (name d))"},
      {"a is not b", "(compare (name a) is not (name b))"},
      {"a not in b", "(compare (name a) not in (name b))"},
      {"a in b is c", "(compare (name a) in (name b) is (name c))"},
      {"x >= 0", "(compare (name x) >= (int 0))"},
      // Boolean operators.
      {"not a == b", "(unary not (compare (name a) == (name b)))"},
      {"not a and b", "(boolop and (unary not (name a)) (name b))"},
      {"a and b or c and d",
       "(boolop or (boolop and (name a) (name b)) (boolop and (name c) (name "
       "d)))"},
      {"a or b or c", "(boolop or (boolop or (name a) (name b)) (name c))"},
      {"not not a", "(unary not (unary not (name a)))"},
      // Conditional expressions and lambdas are the loosest.
      {"x if c else y if d else z",
       "(ifexp (name c) (name x) (ifexp (name d) (name y) (name z)))"},
      {"a or b if c and d else e",
       "(ifexp (boolop and (name c) (name d)) (boolop or (name a) (name b)) "
       "(name e))"},
      {"lambda: a if b else c", "(lambda (ifexp (name b) (name a) (name c)))"},
      {"lambda x, y=1, *a, k, **kw: x + y",
       "(lambda (param x) (param y (default (int 1))) (param a vararg) "
       "(param k kwonly) (param kw kwarg) (binop + (name x) (name y)))"},
      // Primaries bind tightest.
      {"-a.b[1](2)",
       "(unary - (call (subscript (attr (name a) b) (int 1)) (int 2)))"},
      {"a.b.c(d)[e].f",
       "(attr (subscript (call (attr (attr (name a) b) c) (name d)) (name e)) "
       "f)"},
      {"x.to(tl.float16)",
       "(call (attr (name x) to) (attr (name tl) float16))"},
      {"1 + 2 == 3 and not False",
       "(boolop and (compare (binop + (int 1) (int 2)) == (int 3)) (unary "
       "not False))"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(dumpExpr(c.source), c.dump) << c.source;
}

TEST(ParserTest, AtomsAndDisplays) {
  struct Case {
    const char *source;
    const char *dump;
  };
  const Case cases[] = {
      {"42", "(int 42)"},
      {"0xFF", "(int 255)"},
      {"1_000_000", "(int 1000000)"},
      {"123456789012345678901234567890",
       "(int 123456789012345678901234567890)"},
      {"1e-5", "(float 1e-5)"},
      {".5", "(float .5)"},
      {"1.", "(float 1.)"},
      {"3j", "(imag 3j)"},
      {"True", "True"},
      {"None", "None"},
      {"...", "..."},
      {"'a' \"b\" '''c'''", "(str \"abc\")"},
      {"'tab\\there'", "(str \"tab\\09here\")"},
      {"b'\\x00' b'z'", "(bytes \"\\00z\")"},
      {"f'{x}' 'y'", "(fstr (field (name x)) \"y\")"},
      {"f'a{{b}}c'", "(fstr \"a{b}c\")"},
      {"f'{x!r:>{w}d} {y=}'",
       "(fstr (field (name x) !r (spec \">\" (field (name w)) \"d\")) \" \" "
       "(field (name y) = \"y=\"))"},
      {"f'{a == b}{c != d!s}{e[1]:{f}}'",
       "(fstr (field (compare (name a) == (name b))) (field (compare (name "
       "c) != (name d)) !s) (field (subscript (name e) (int 1)) (spec (field "
       "(name f)))))"},
      {"f'{\"}\"}{x:%}\\n'", "(fstr (field (str \"}\")) (field (name x) (spec "
                             "\"%\")) \"\\0A\")"},
      {"rf'\\d{x}'", "(fstr \"\\\\d\" (field (name x)))"},
      {"float(\"-inf\")", "(call (name float) (str \"-inf\"))"},
      {"()", "(tuple)"},
      {"(a,)", "(tuple (name a))"},
      {"(a)", "(name a)"},
      {"(a, b,)", "(tuple (name a) (name b))"},
      {"a, b", "(tuple (name a) (name b))"},
      {"1,", "(tuple (int 1))"},
      {"(*a, b)", "(tuple (starred (name a)) (name b))"},
      {"[]", "(list)"},
      {"[1, 2,]", "(list (int 1) (int 2))"},
      {"[*a, *b]", "(list (starred (name a)) (starred (name b)))"},
      {"{}", "(dict)"},
      {"{1, 2}", "(set (int 1) (int 2))"},
      {"{'a': 1, **d, 'b': 2,}",
       "(dict (kv (str \"a\") (int 1)) (dstar (name d)) (kv (str \"b\") (int "
       "2)))"},
      {"{**d}", "(dict (dstar (name d)))"},
      {"[x * 2 for x in range(10) if x > 1 if x < 8]",
       "(listcomp (binop * (name x) (int 2)) (for (name x) (call (name range) "
       "(int 10)) (if (compare (name x) > (int 1))) (if (compare (name x) < "
       "(int 8)))))"},
      {"[i for row in m for i in row]",
       "(listcomp (name i) (for (name row) (name m)) (for (name i) (name "
       "row)))"},
      {"(x for x in y)", "(genexp (name x) (for (name x) (name y)))"},
      {"{k: v for k, v in d.items()}",
       "(dictcomp (name k) (name v) (for (tuple (name k) (name v)) (call "
       "(attr (name d) items))))"},
      {"{x for x in s}", "(setcomp (name x) (for (name x) (name s)))"},
      {"sum(x for x in y)",
       "(call (name sum) (genexp (name x) (for (name x) (name y))))"},
      {"(y := f(x))", "(walrus (name y) (call (name f) (name x)))"},
      {"[y := 1, y]", "(list (walrus (name y) (int 1)) (name y))"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(dumpExpr(c.source), c.dump) << c.source;
}

TEST(ParserTest, CallsAndSubscripts) {
  struct Case {
    const char *source;
    const char *dump;
  };
  const Case cases[] = {
      {"f()", "(call (name f))"},
      {"f(a, *b, c=1, **d)",
       "(call (name f) (name a) (star (name b)) (kw c (int 1)) (dstar (name "
       "d)))"},
      {"f(a,)", "(call (name f) (name a))"},
      {"f(x=y == z)", "(call (name f) (kw x (compare (name y) == (name z))))"},
      {"tl.load(p, mask=m, other=0.0)",
       "(call (attr (name tl) load) (name p) (kw mask (name m)) (kw other "
       "(float 0.0)))"},
      {"f(*a, *b, k=1, *c)",
       "(call (name f) (star (name a)) (star (name b)) (kw k (int 1)) (star "
       "(name c)))"},
      {"x[:, None]", "(subscript (name x) (tuple (slice _ _ _) None))"},
      {"x[None, :]", "(subscript (name x) (tuple None (slice _ _ _)))"},
      {"x[1:2:3]", "(subscript (name x) (slice (int 1) (int 2) (int 3)))"},
      {"x[::2]", "(subscript (name x) (slice _ _ (int 2)))"},
      {"x[1:]", "(subscript (name x) (slice (int 1) _ _))"},
      {"x[:n, 1:]",
       "(subscript (name x) (tuple (slice _ (name n) _) (slice (int 1) _ "
       "_)))"},
      {"x[...]", "(subscript (name x) ...)"},
      {"x[..., None]", "(subscript (name x) (tuple ... None))"},
      {"x[a, b]", "(subscript (name x) (tuple (name a) (name b)))"},
      {"x[a,]", "(subscript (name x) (tuple (name a)))"},
      {"x[i][j]", "(subscript (subscript (name x) (name i)) (name j))"},
      {"x[*idx]", "(subscript (name x) (starred (name idx)))"},
      {"grid[(1,)](a)",
       "(call (subscript (name grid) (tuple (int 1))) (name a))"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(dumpExpr(c.source), c.dump) << c.source;
}

TEST(ParserTest, OperatorLocations) {
  ParseResult r = parse("X = (a +\n     b) * f (c)\n");
  ASSERT_TRUE(r.module);
  auto *assign = llvm::cast<AssignStmt>(r.module->getBody()[0]);
  auto lineCol = [&](llvm::SMLoc loc) {
    auto [line, col] = r.srcMgr->getLineAndColumn(loc);
    return std::to_string(line) + ":" + std::to_string(col);
  };
  auto *mul = llvm::cast<BinaryExpr>(assign->getValue());
  EXPECT_EQ(mul->getOp(), BinaryOp::Mul);
  EXPECT_EQ(lineCol(mul->getLoc()), "1:5");   // The '('.
  EXPECT_EQ(lineCol(mul->getOpLoc()), "2:9"); // The '*'.
  EXPECT_EQ(lineCol(mul->getEndLoc()), "2:16");
  auto *add = llvm::cast<BinaryExpr>(mul->getLHS());
  EXPECT_EQ(lineCol(add->getLoc()), "1:6");
  EXPECT_EQ(lineCol(add->getOpLoc()), "1:8");
  EXPECT_EQ(lineCol(add->getEndLoc()), "2:7");
  auto *call = llvm::cast<CallExpr>(mul->getRHS());
  EXPECT_EQ(lineCol(call->getLoc()), "2:11");
  EXPECT_EQ(lineCol(call->getOpLoc()), "2:13"); // The '('.
  EXPECT_EQ(lineCol(assign->getOpLoc()), "1:3");
  EXPECT_EQ(lineCol(assign->getEndLoc()), "2:16");
}

TEST(ParserTest, MoreLocations) {
  ParseResult r = parse("X = a.bb[i] < c not in d\n");
  ASSERT_TRUE(r.module);
  auto *assign = llvm::cast<AssignStmt>(r.module->getBody()[0]);
  auto col = [&](llvm::SMLoc loc) {
    return r.srcMgr->getLineAndColumn(loc).second;
  };
  auto *compare = llvm::cast<CompareExpr>(assign->getValue());
  ASSERT_EQ(compare->getComparisons().size(), 2u);
  EXPECT_EQ(col(compare->getComparisons()[0].opLoc), 13u);
  EXPECT_EQ(col(compare->getComparisons()[1].opLoc), 17u);
  EXPECT_EQ(compare->getComparisons()[1].op, CmpOp::NotIn);
  auto *subscript = llvm::cast<SubscriptExpr>(compare->getLHS());
  EXPECT_EQ(col(subscript->getOpLoc()), 9u);
  auto *attr = llvm::cast<AttributeExpr>(subscript->getBase());
  EXPECT_EQ(col(attr->getOpLoc()), 6u);
  EXPECT_EQ(col(attr->getNameLoc()), 7u);
}

TEST(ParserTest, LiteralValues) {
  ParseResult r = parse("X = 0x10, 18446744073709551616, 2.5e3, 'a\\n'\n");
  ASSERT_TRUE(r.module);
  auto *tuple = llvm::cast<TupleExpr>(
      llvm::cast<AssignStmt>(r.module->getBody()[0])->getValue());
  EXPECT_EQ(llvm::cast<IntegerLiteral>(tuple->getElements()[0])->getValue(),
            16u);
  EXPECT_EQ(llvm::cast<IntegerLiteral>(tuple->getElements()[1])->getValue(),
            std::nullopt);
  EXPECT_DOUBLE_EQ(
      llvm::cast<FloatLiteral>(tuple->getElements()[2])->getValue(), 2500.0);
  EXPECT_EQ(llvm::cast<StringLiteral>(tuple->getElements()[3])->getValue(),
            "a\n");
  EXPECT_FALSE(tuple->isParenthesized());
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST(ParserTest, Assignments) {
  EXPECT_EQ(dumpBody("a = b = 1\n"
                     "a, b = b, a\n"
                     "[a, *b] = c\n"
                     "x.y = z[0] = 2\n"
                     "x: tl.tensor = 3\n"
                     "y: int\n"
                     "z = yield"),
            "(assign (name a) (name b) (int 1))\n"
            "(assign (tuple (name a) (name b)) (tuple (name b) (name a)))\n"
            "(assign (list (name a) (starred (name b))) (name c))\n"
            "(assign (attr (name x) y) (subscript (name z) (int 0)) (int 2))\n"
            "(annassign (name x) (attr (name tl) tensor) (int 3))\n"
            "(annassign (name y) (name int))\n"
            "(assign (name z) (unsupported yield))");
}

TEST(ParserTest, AugmentedAssignments) {
  const char *ops[] = {"+",  "-",  "*",  "@", "/", "//", "%",
                       "**", "<<", ">>", "|", "^", "&"};
  std::string body, expected;
  for (const char *op : ops) {
    body += std::string("x ") + op + "= y\n";
    expected += std::string("(augassign ") + op + "= (name x) (name y))\n";
  }
  EXPECT_EQ(dumpBody(StringRef(body).rtrim('\n')),
            StringRef(expected).rtrim('\n'));
  EXPECT_EQ(dumpBody("a[i] += 1\nself.n -= 2"),
            "(augassign += (subscript (name a) (name i)) (int 1))\n"
            "(augassign -= (attr (name self) n) (int 2))");
}

TEST(ParserTest, SimpleStatements) {
  EXPECT_EQ(dumpBody("pass; x = 1;\n"
                     "assert x > 0, \"x must be positive\"\n"
                     "assert y\n"
                     "global g, h\n"
                     "nonlocal n\n"
                     "import triton.language as tl, math\n"
                     "from triton import language\n"
                     "tl.static_assert(B % 16 == 0)\n"
                     "return *a, b"),
            "(pass)\n"
            "(assign (name x) (int 1))\n"
            "(assert (compare (name x) > (int 0)) (str \"x must be "
            "positive\"))\n"
            "(assert (name y))\n"
            "(global g h)\n"
            "(nonlocal n)\n"
            "(import (alias triton.language tl) (alias math))\n"
            "(from triton (alias language))\n"
            "(expr (call (attr (name tl) static_assert) (compare (binop % "
            "(name B) (int 16)) == (int 0))))\n"
            "(return (tuple (starred (name a)) (name b)))");
}

TEST(ParserTest, CompoundStatementsOnOneLine) {
  EXPECT_EQ(dumpBody("if a: x = 1; y = 2\n"
                     "else: return x\n"
                     "for i in range(3): pass\n"
                     "while True: break"),
            "(if (name a)\n"
            "  (then\n"
            "    (assign (name x) (int 1))\n"
            "    (assign (name y) (int 2)))\n"
            "  (else\n"
            "    (return (name x))))\n"
            "(for (name i) (call (name range) (int 3))\n"
            "  (body\n"
            "    (pass)))\n"
            "(while True\n"
            "  (body\n"
            "    (break)))");
}

TEST(ParserTest, LoopsWithElseAndTargets) {
  EXPECT_EQ(dumpBody("for i, (j, k) in enumerate(x):\n"
                     "    continue\n"
                     "else:\n"
                     "    pass\n"
                     "for _ in tl.static_range(4):\n"
                     "    if (n := n - 1) == 0:\n"
                     "        break"),
            "(for (tuple (name i) (tuple (name j) (name k))) (call (name "
            "enumerate) (name x))\n"
            "  (body\n"
            "    (continue))\n"
            "  (else\n"
            "    (pass)))\n"
            "(for (name _) (call (attr (name tl) static_range) (int 4))\n"
            "  (body\n"
            "    (if (compare (walrus (name n) (binop - (name n) (int 1))) == "
            "(int 0))\n"
            "      (then\n"
            "        (break)))))");
}

TEST(ParserTest, FunctionParameters) {
  ParseResult r =
      parse("@jit\n"
            "def f(a, b: tl.pointer_type(tl.float32), /, c=1, *args, d, "
            "e: tl.constexpr = 2, **kw) -> tl.tensor:\n"
            "    pass\n");
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  FunctionDef *f = r.module->lookupFunction("f");
  ASSERT_TRUE(f);
  std::string params;
  for (Parameter *p : f->getParams())
    params += dumpNode(*p) + "\n";
  EXPECT_EQ(params,
            "(param a posonly)\n"
            "(param b posonly (ann (call (attr (name tl) pointer_type) (attr "
            "(name tl) float32))))\n"
            "(param c (default (int 1)))\n"
            "(param args vararg)\n"
            "(param d kwonly)\n"
            "(param e kwonly (ann (attr (name tl) constexpr)) (default (int "
            "2)))\n"
            "(param kw kwarg)\n");
  EXPECT_EQ(dumpNode(*f->getReturns()), "(attr (name tl) tensor)");
  EXPECT_EQ(f->getParams()[4]->getParamKind(), ParamKind::KeywordOnly);
}

TEST(ParserTest, NestedFunctionsAndLambdas) {
  EXPECT_EQ(dumpBody("@tilec.jit\n"
                     "def helper(x, y=2):\n"
                     "    def inner(z):\n"
                     "        return z * y\n"
                     "    return inner(x)\n"
                     "square = lambda v: v * v\n"
                     "return helper(square(3))"),
            "(def helper\n"
            "  (decorator (attr (name tilec) jit))\n"
            "  (param x)\n"
            "  (param y (default (int 2)))\n"
            "  (body\n"
            "    (def inner\n"
            "      (param z)\n"
            "      (body\n"
            "        (return (binop * (name z) (name y)))))\n"
            "    (return (call (name inner) (name x)))))\n"
            "(assign (name square) (lambda (param v) (binop * (name v) (name "
            "v))))\n"
            "(return (call (name helper) (call (name square) (int 3))))");
}

TEST(ParserTest, UnsupportedConstructsInKernels) {
  EXPECT_EQ(dumpBody("try:\n"
                     "    x = 1\n"
                     "except ValueError as e:\n"
                     "    print e\n"
                     "else:\n"
                     "    pass\n"
                     "finally:\n"
                     "    pass\n"
                     "with lock: pass\n"
                     "class C:\n"
                     "    print \"host-only syntax\"\n"
                     "raise ValueError('no')\n"
                     "del x, y; z = 1\n"
                     "yield x\n"
                     "y = await g()\n"
                     "async def h():\n"
                     "    pass\n"
                     "async for i in y:\n"
                     "    pass\n"
                     "match command.split():\n"
                     "    case [action]:\n"
                     "        pass\n"
                     "match = 3\n"
                     "@decorator\n"
                     "class D: pass"),
            "(unsupported try)\n"
            "(unsupported with)\n"
            "(unsupported class)\n"
            "(unsupported raise)\n"
            "(unsupported del)\n"
            "(assign (name z) (int 1))\n"
            "(expr (unsupported yield (name x)))\n"
            "(assign (name y) (unsupported await (call (name g))))\n"
            "(unsupported async def)\n"
            "(unsupported async for)\n"
            "(unsupported match)\n"
            "(assign (name match) (int 3))\n"
            "(unsupported class)");
}

TEST(ParserTest, UnsupportedStmtMessage) {
  ParseResult r = parse("@jit\ndef f():\n    try:\n        pass\n"
                        "    finally:\n        pass\n");
  ASSERT_TRUE(r.module);
  auto *unsupported = llvm::dyn_cast<UnsupportedStmt>(
      r.module->lookupFunction("f")->getBody()[0]);
  ASSERT_TRUE(unsupported);
  EXPECT_EQ(unsupported->getMessage(),
            "'try' statements are not supported in a kernel");
  auto [line, col] = r.srcMgr->getLineAndColumn(unsupported->getEndLoc());
  EXPECT_EQ(line, 6u);
  EXPECT_EQ(col, 13u);
}

//===----------------------------------------------------------------------===//
// Module level
//===----------------------------------------------------------------------===//

TEST(ParserTest, JitDecoratorSpellings) {
  ParseResult r = parse("@triton.jit\ndef a(): pass\n"
                        "@tilec.jit\ndef b(): pass\n"
                        "@jit\ndef c(): pass\n"
                        "@triton.jit(do_not_specialize=['n'])\ndef d(): pass\n"
                        "@triton.heuristics({'EVEN': lambda args: args['n'] % "
                        "2 == 0})\n@triton.jit\ndef e(): pass\n"
                        "@triton.jit\n@other\ndef f(): pass\n"
                        "@functools.cache\ndef g(): pass\n"
                        "@jit_like\ndef h(): pass\n"
                        "@triton.jit\nclass I: pass\n");
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  std::vector<std::string> names;
  for (FunctionDef *f : r.module->getFunctions())
    names.push_back(f->getName().str());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(r.module->lookupFunction("e")->getDecorators().size(), 2u);
  for (StringRef skipped : {"g", "h", "I"})
    EXPECT_TRUE(r.module->lookupSkipped(skipped)) << skipped.str();
}

TEST(ParserTest, ModuleConstants) {
  ParseResult r = parse("import triton.language as tl\n"
                        "BLOCK: tl.constexpr = 1024\n"
                        "A, B = 1, 2\n"
                        "(C, D) = [E, F] = 3, 4\n"
                        "X = Y = 5; Z = X\n"
                        "obj.attr = 1\n"
                        "N += 1\n"
                        "T: int\n"
                        "type Vec = list[float]\n"
                        "L = [i for i in range(3)]\n");
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  std::string constants;
  for (Stmt *stmt : r.module->getConstants())
    constants += dumpNode(*stmt) + "\n";
  EXPECT_EQ(constants,
            "(annassign (name BLOCK) (attr (name tl) constexpr) (int 1024))\n"
            "(assign (tuple (name A) (name B)) (tuple (int 1) (int 2)))\n"
            "(assign (tuple (name C) (name D)) (list (name E) (name F)) (tuple "
            "(int 3) (int 4)))\n"
            "(assign (name X) (name Y) (int 5))\n"
            "(assign (name Z) (name X))\n"
            "(assign (name L) (listcomp (name i) (for (name i) (call (name "
            "range) (int 3)))))\n");
  std::string skipped;
  for (Stmt *stmt : r.module->getBody())
    if (llvm::isa<SkippedStmt>(stmt))
      skipped += dumpNode(*stmt) + "\n";
  EXPECT_EQ(skipped, "(skipped assignment)\n"
                     "(skipped expression)\n"
                     "(skipped assignment T)\n"
                     "(skipped assignment)\n");
}

TEST(ParserTest, HostCodeMayUseAnySyntax) {
  ParseResult r = parse("import triton\n"
                        "def host(x):\n"
                        "    print 'python 2'\n"
                        "    exec 'x = 1'\n"
                        "async def fetch():\n"
                        "    async with s as t:\n"
                        "        await t\n"
                        "if __name__ == '__main__':\n"
                        "    match sys.argv:\n"
                        "        case [_, *rest]:\n"
                        "            main(*rest)\n"
                        "elif False:\n"
                        "    pass\n"
                        "else:\n"
                        "    sys.exit(f'{1 + 1=}')\n"
                        "match command:\n"
                        "    case 'go': pass\n"
                        "while True:\n"
                        "    break\n"
                        "else:\n"
                        "    pass\n"
                        "@triton.jit\n"
                        "def k(): return 1\n");
  ASSERT_TRUE(r.module) << llvm::join(r.diagnostics, "\n");
  std::string summary;
  for (Stmt *stmt : r.module->getBody())
    summary += dumpNode(*stmt).substr(0, 30) + "\n";
  EXPECT_EQ(summary, "(import (alias triton))\n"
                     "(skipped def host)\n"
                     "(skipped async fetch)\n"
                     "(skipped if)\n"
                     "(skipped match)\n"
                     "(skipped while)\n"
                     "(def k\n  (decorator (attr (nam\n");
  EXPECT_EQ(r.module->lookupSkipped("host")->getConstruct(), "def");
}

TEST(ParserTest, EmptyModule) {
  ParseResult r = parse("");
  ASSERT_TRUE(r.module);
  EXPECT_TRUE(r.module->getBody().empty());
  EXPECT_EQ(r.dump(), "(module)\n");
  ParseResult comments = parse("# nothing\n\n   # here\n");
  ASSERT_TRUE(comments.module);
  EXPECT_TRUE(comments.module->getBody().empty());
}

} // namespace
