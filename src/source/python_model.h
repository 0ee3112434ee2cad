// A Python code read as Python reads it: its tokens (comments dropped), its statements, its
// scopes (module, functions, classes) and the names each binds, and the values expressions work
// out to. Names resolve through every binding form (assignments with any target: names, tuples,
// `for`, annotated, walrus, `with ... as`; imports with `as`; `def` and `class`), through the
// builtins (`exec`, `getattr`, `__builtins__`) and through what the builtins do with constants
// (`getattr(m, "a" + "b")`, `vars(m)`, `importlib.import_module("m")`); constant strings are folded
// (`+`, `join`, `replace`, `%`, `format`, f-strings of constants, `bytes.fromhex`, base64 and
// zlib of literals, `chr`). Identifiers are NFKC-normalised (source/identifiers.h).
//
// The model is built once per code and every rule queries it: the audit's code rules
// (audit/code_rules.cc) read its facts (calls, stores, returns, ...), the techniques resolve
// dotted names through it. Its tokens take 16 bytes each; everything else is a few words per
// statement, binding or fact.
//
//   tokens      tokenize_python without comments
//   statements  logical lines (and the simple statements `;` separates), with their scope
//   scopes      the module (scope 0), each `def` and `class`: their body's statements, parameters,
//               `global` / `nonlocal` names
//   bindings    each name a statement binds, with where its value comes from
//   values      eval(): an expression's Value (strings folded, dotted paths resolved)
//   facts       calls, attribute and item loads and stores, returns, class bases, decorators:
//               every expression of the code parsed once, on first request
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "source/tokens.h"

namespace kbdata::source {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// What an expression works out to, as far as the model follows it.
struct Value {
  enum class Kind : uint8_t {
    UNKNOWN,   // not worked out
    NONE,      // None, True, False, ...
    INT,       // `number`
    STR,       // `text` (UTF-8); `partial` when parts are unknown (each written "{?}")
    BYTES,     // `text` holds the bytes
    SEQ,       // a tuple, list or set: `items`
    DICT,      // a dict display: `items` holds key, value, key, value, ...
    OBJECT,    // a module, a builtin, an attribute of one or what calling one returns: `text` is
               // its dotted path ("time.perf_counter", "builtins.exec", "torch.cuda.Stream()")
    VARS,      // vars(X) or X.__dict__ of OBJECT X: `text` is X's path
    METHOD,    // a method of a string: `text` the method's name, items[0] the string
    CODE,      // compile(source, ...): `text` the source
    FUNCTION,  // a function or class the code defines: `number` is its scope
    ANY_OF,    // one of `items` (a name bound several times, a `for` target)
  };
  Kind kind = Kind::UNKNOWN;
  bool partial = false;  // STR / BYTES: some parts unknown
  bool decoded = false;  // STR / BYTES: made by a decoding call (base64, zlib, fromhex, chr, ...)
  int64_t number = 0;
  // STR / BYTES that are exactly one literal's value: the literal's token + 1 (0 otherwise).
  uint32_t literal = 0;
  // STR / BYTES: the literal tokens it was folded from (a few; a source built from pieces is the
  // model's C++ source, its pieces are not sources of their own).
  std::vector<uint32_t> pieces;
  std::string text;
  std::vector<Value> items;

  [[nodiscard]] bool is(Kind k) const { return kind == k; }
  // Whether this value, or one of its alternatives, is OBJECT `path`.
  [[nodiscard]] bool is_object(std::string_view path) const;
  // Calls `fn` with this value or each of its alternatives (ANY_OF, nested).
  template <typename Fn>
  void each(Fn&& fn) const {
    if (kind == Kind::ANY_OF) {
      for (const Value& v : items) v.each(fn);
    } else {
      fn(*this);
    }
  }
};

enum class StatementKind : uint8_t {
  SIMPLE,  // an expression, an assignment, pass, ...
  RETURN,
  IMPORT,  // import ... / from ... import ...
  GLOBAL,  // global / nonlocal
  DECORATOR,
  DEF,
  CLASS,
  IF,
  ELIF,
  ELSE,
  FOR,
  WHILE,
  WITH,
  TRY,
  EXCEPT,
  FINALLY,
  OTHER_COMPOUND,  // match, case, async forms the model does not tell apart
};

struct Statement {
  uint32_t begin = 0;  // first token
  uint32_t end = 0;    // one past its last token (NEWLINE and ';' excluded)
  uint32_t scope = 0;  // the scope whose code it is
  uint32_t indent = 0;
  // A compound statement: the ':' that ends its header, and one past its body's last statement
  // (a body on the header's own line included). Other statements: end, and the next statement.
  uint32_t colon = 0;
  uint32_t block_end = 0;
  StatementKind kind = StatementKind::SIMPLE;
};

struct Param {
  std::string_view name;
  uint32_t token = 0;
  uint8_t star = 0;  // 1 for *args, 2 for **kwargs
};

struct Scope {
  uint32_t parent = kNoIndex;     // kNoIndex for the module
  uint32_t statement = kNoIndex;  // the `def` / `class` statement
  uint32_t first = 0;             // its body: statements [first, end)
  uint32_t end = 0;
  std::string_view name;
  bool is_class = false;
  std::vector<Param> params;
  std::vector<std::string_view> globals;  // declared global or nonlocal
};

struct Binding {
  enum class Kind : uint8_t { ASSIGN, AUGMENT, IMPORT, DEF, CLASS, PARAM, FOR, WITH, WALRUS };
  Kind kind = Kind::ASSIGN;
  std::string_view name;
  uint32_t scope = 0;
  uint32_t statement = 0;
  uint32_t target = 0;  // the name's token
  // ASSIGN, AUGMENT, WALRUS, WITH: the value's tokens; FOR: the iterable's.
  uint32_t value_begin = 0;
  uint32_t value_end = 0;
  // In an unpacking target: the element path (up to three levels, each index + 1 in 10 bits; 0 for
  // the whole value). A starred element is never followed.
  uint32_t element = 0;
  bool starred = false;
  std::string path;  // IMPORT: the dotted path bound; DEF / CLASS: unused (the scope is `number`)
  uint32_t number = 0;  // DEF / CLASS: the scope; PARAM: the parameter's index
};

struct Arg {
  std::string_view keyword;  // empty for a positional argument
  uint8_t star = 0;          // *x or **x
  uint32_t begin = 0;        // its tokens
  uint32_t end = 0;
  Value value;
};

struct CallFact {
  uint32_t callee = 0;  // the first token of the callee's expression
  uint32_t open = 0;    // the call's brackets
  uint32_t close = 0;
  uint32_t statement = 0;
  Value function;         // what is called
  std::string_view last;  // the callee's last name (`x.a.b(` -> "b", `f(` -> "f"), or empty
  std::vector<Arg> args;
  bool result_unused = false;  // the call is a statement of its own (it may write its arguments)
};

struct AttributeFact {  // X.name read (stores are StoreFacts)
  uint32_t token = 0;   // the name's token
  uint32_t statement = 0;
  Value object;
  std::string_view name;
};

struct ItemFact {      // X[key] read
  uint32_t token = 0;  // the '['
  uint32_t statement = 0;
  Value object;
  Value key;
};

struct StoreFact {     // X.name = v, X[key] = v, and their augmented forms
  uint32_t token = 0;  // the target's first token
  uint32_t statement = 0;
  Value object;
  std::string_view name;  // an attribute (empty for an item)
  Value key;              // an item's key
  bool augmented = false;
  bool item = false;
};

struct ReturnFact {
  uint32_t statement = 0;
  uint32_t begin = 0;  // the returned expression's tokens (begin == end: a bare return)
  uint32_t end = 0;
  Value value;
};

struct ClassFact {
  uint32_t statement = 0;
  uint32_t scope = 0;
  std::vector<Value> bases;
};

struct DecoratorFact {
  uint32_t statement = 0;
  uint32_t token = 0;             // the token after '@'
  Value value;                    // the decorator's callee (`@a.b(...)`: a.b)
  uint32_t open = kNoIndex;       // its call's '(' when it is called
  uint32_t decorated = kNoIndex;  // the scope of the def / class it decorates
};

struct Facts {
  std::vector<CallFact> calls;
  std::vector<AttributeFact> attributes;
  std::vector<ItemFact> items;
  std::vector<StoreFact> stores;
  std::vector<ReturnFact> returns;
  std::vector<ClassFact> classes;
  std::vector<DecoratorFact> decorators;
};

// How much of a model to build: all of it, or its structure alone (tokens, statements, scopes;
// no binding, so no name resolves), for the questions of where code is (the audit's screen asks
// whether a cast and a cast back share a scope) at about two thirds of the cost.
enum class ModelParts : uint8_t { ALL, STRUCTURE };

class PythonModel {
 public:
  // The model of `text` (which must outlive it) from `start` (a logical line's start at depth 0)
  // to its end. Never throws on any bytes.
  explicit PythonModel(std::string_view text, PythonLexStart start = {},
                       ModelParts parts = ModelParts::ALL);
  PythonModel(const PythonModel&) = delete;
  PythonModel& operator=(const PythonModel&) = delete;
  ~PythonModel();

  [[nodiscard]] std::string_view text() const { return text_; }
  [[nodiscard]] const std::vector<Token>& tokens() const { return tokens_; }
  [[nodiscard]] size_t size() const { return tokens_.size(); }
  [[nodiscard]] const std::vector<Statement>& statements() const { return statements_; }
  [[nodiscard]] const std::vector<Scope>& scopes() const { return scopes_; }
  [[nodiscard]] const std::vector<Binding>& bindings() const { return bindings_; }
  // The modules import statements name (`import a.b` -> "a.b", `from a import b` -> "a").
  [[nodiscard]] const std::vector<std::string>& imported_modules() const { return imported_; }

  // Token tests, each false past the end (inlined: the rules' loops call them per token).
  [[nodiscard]] std::string_view txt(uint32_t k) const {
    return k < tokens_.size() ? token_text(text_, tokens_[k]) : std::string_view();
  }
  [[nodiscard, gnu::always_inline]] bool op(uint32_t k, std::string_view s) const {
    return k < tokens_.size() && token_is(text_, tokens_[k], TokenKind::OP, s);
  }
  // A NAME spelled `s` as written (keywords are never normalised).
  [[nodiscard, gnu::always_inline]] bool keyword(uint32_t k, std::string_view s) const {
    return k < tokens_.size() && token_is(text_, tokens_[k], TokenKind::NAME, s);
  }
  [[nodiscard, gnu::always_inline]] bool is_name(uint32_t k) const {
    return k < tokens_.size() && tokens_[k].kind == TokenKind::NAME;
  }
  [[nodiscard]] bool is_kind(uint32_t k, TokenKind kind) const {
    return k < tokens_.size() && tokens_[k].kind == kind;
  }
  // The NAME at k as Python reads it (NFKC), or empty for another token. (An ASCII name, nearly
  // every one, is its text: inlined; the others are looked up.)
  [[nodiscard, gnu::always_inline]] std::string_view name(uint32_t k) const {
    if (k >= tokens_.size() || tokens_[k].kind != TokenKind::NAME) return {};
    if ((tokens_[k].flags & kTokenNonAscii) != 0) return folded_name(k);
    return token_text(text_, tokens_[k]);
  }
  // The index of the bracket closing the one at k (or the statement's end when it is left open).
  [[nodiscard]] uint32_t closing(uint32_t k) const;
  // The statement holding token k.
  [[nodiscard]] uint32_t statement_of(uint32_t k) const;
  // The line text of token k, without its indentation (evidence).
  [[nodiscard]] std::string_view line_text(uint32_t k) const;

  // The bindings of `name` visible from statement `at` of `scope`, as Python finds them: in the
  // same scope the last one before `at` (or every one of a function's, if none comes before),
  // else the enclosing scopes' (classes skipped), every one of them; empty when the name is
  // unbound there (a builtin, or nothing).
  // (A view of the model's own lists: no copy.)
  [[nodiscard]] std::span<const uint32_t> lookup(std::string_view name, uint32_t scope,
                                                 uint32_t at) const;
  // What `name` stands for at statement `at` of `scope`: its bindings' values, a builtin
  // (OBJECT "builtins.NAME"; __builtins__ is the builtins module), or UNKNOWN. The reference is
  // the model's: valid while it lives.
  [[nodiscard]] const Value& value_of_name(std::string_view name, uint32_t scope,
                                           uint32_t at) const;
  // The dotted path `name` stands for when it is a module, a builtin or an attribute of one
  // (followed through imports and assignments of dotted names; a value only a call makes, such
  // as getattr(m, "x"), is worked out), else empty. Cheaper than value_of_name: strings and
  // displays are never built.
  [[nodiscard]] const std::string& object_path(std::string_view name, uint32_t scope,
                                               uint32_t at) const;
  // The value of binding `b`.
  [[nodiscard]] const Value& value_of_binding(uint32_t b) const;
  // The value of the expression in tokens [begin, end), read in `scope` at statement `at`.
  [[nodiscard]] Value eval(uint32_t begin, uint32_t end, uint32_t scope, uint32_t at) const;
  // The dotted path the primary at token k (a NAME, then `.NAME`s) resolves to, with its end:
  // empty when its root is not a module, builtin or alias of one.
  struct Dotted {
    std::string path;
    uint32_t end = 0;
    std::string_view last;
  };
  [[nodiscard]] Dotted dotted(uint32_t k) const;
  // The same, the token's statement known.
  [[nodiscard]] Dotted dotted(uint32_t k, uint32_t statement) const;

  // The names statement `st` binds (its targets), in order.
  [[nodiscard]] std::vector<std::string_view> targets_of(uint32_t st) const;
  // The tokens of the value binding `b` is given: the value's own, or (an element of an unpacked
  // tuple display, `a, b = x, y`) the element's; empty (begin == end) when the element is not
  // written out.
  [[nodiscard]] std::pair<uint32_t, uint32_t> value_tokens(const Binding& b) const;

  // The function scope a module-level name stands for: `def NAME`, or NAME bound to such a
  // function, directly or wrapped by a call of it (`NAME = torch.compile(f, ...)`).
  [[nodiscard]] std::optional<uint32_t> function_named(std::string_view name) const;

  // Every expression's facts, worked out on the first call.
  [[nodiscard]] const Facts& facts() const;

 private:
  friend class ExpressionReader;
  void lex(PythonLexStart start);
  void split_statements();
  void build_scopes();
  // A simple statement's top-level `=` signs, its annotation's colon and its augmented
  // assignment's operator (kNoIndex where there is none), up to a lambda.
  struct AssignmentShape {
    std::vector<uint32_t> equals;
    uint32_t annotation = kNoIndex;
    uint32_t augmented = kNoIndex;
  };
  [[nodiscard]] AssignmentShape assignment_shape(const Statement& st) const;
  void collect_bindings();
  void import_bindings(const Statement& st, const Binding& base);
  void assignment_bindings(const Statement& st, const Binding& base);
  void walrus_bindings(const Statement& st, const Binding& base);
  void add_target_bindings(uint32_t begin, uint32_t end, Binding base);
  void walk() const;
  [[nodiscard]] DecoratorFact decorator_fact(uint32_t i,
                                             const std::vector<uint32_t>& scope_of_statement,
                                             Facts& f) const;
  [[nodiscard]] ClassFact class_fact(uint32_t i, uint32_t scope, Facts& f) const;
  void simple_facts(uint32_t i, Facts& f) const;
  void store_facts(uint32_t i, uint32_t b, uint32_t e, bool augmented, Facts& f) const;
  [[nodiscard]] std::string_view folded_name(uint32_t k) const;

  std::string_view text_;
  std::vector<Token> tokens_;
  std::vector<Statement> statements_;
  std::vector<Scope> scopes_;
  std::vector<Binding> bindings_;
  std::vector<std::string> imported_;
  // The bracket each opening bracket closes with (a bracket left open: its statement's end).
  std::vector<uint32_t> match_;
  // Normalised names of the NAME tokens holding non-ASCII bytes, by token index.
  std::unordered_map<uint32_t, std::string_view> folded_names_;
  std::deque<std::string> owned_;  // the folded names' storage
  // The bindings' indices sorted by (scope, name's length, name), each name's in statement
  // order: lookup's index, built once the bindings are collected (a binary search, no
  // allocation per name).
  std::vector<uint32_t> by_name_;
  void index_bindings();
  // Binding values, worked out on demand (mutable: a const model fills them as it is asked).
  mutable std::vector<std::unique_ptr<Value>> binding_values_;
  mutable std::vector<uint8_t> binding_state_;  // 0 not yet, 1 in progress, 2 done
  mutable std::unique_ptr<Facts> facts_;
  // value_of_name's values of builtins and of names bound several times, by name and by list.
  mutable std::unordered_map<std::string_view, Value> builtin_values_;
  mutable std::unordered_map<const uint32_t*, std::pair<size_t, Value>> alternatives_;
  // object_path of each binding, worked out on demand.
  mutable std::vector<std::string> binding_paths_;
  mutable std::vector<uint8_t> binding_path_state_;  // 0 not yet, 1 in progress, 2 done
  [[nodiscard]] const std::string& object_path_of_binding(uint32_t b) const;
  mutable size_t folded_bytes_ = 0;  // bytes of every folded string, bounded (kFoldBudget)
};

}  // namespace kbdata::source
