// Decontamination (src/pairs/decontaminate.h, docs/pairs.md "Decontamination"): planted overlaps
// at the n-gram boundary, layout changes, the share threshold, near-copies against rewrites, short
// and empty texts, and every way a benchmark set is read (folders, a FIFO, Parquet from kbdata's
// writer and from DuckDB, a missing column, a truncated file) with its errors.
#include "pairs/decontaminate.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis/noise.h"
#include "common/error.h"
#include "parquet/write/row_file_writer.h"
#include "support/oracle.h"
#include "support/temp_dir.h"

namespace kbdata::pairs {
namespace {

namespace fs = std::filesystem;

// One folder for the whole program, removed at its exit only: load() notes the files it reads as
// the process's inputs (common/output_target.h), and a file written later that reused the inode of
// a removed one would be refused as an output.
const testing::TempDir& program_dir() {
  static const testing::TempDir dir("decontaminate");
  return dir;
}

// A new, empty folder inside program_dir().
std::string new_dir(const std::string& name) {
  std::string path = program_dir().file(name);
  fs::create_directories(path);
  return path;
}

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The message of the kbdata::Error `fn` throws, "E is not thrown" if it throws none; the error
// must be of type E.
template <typename E>
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "E is not thrown";
}

// "p0 p1 ... p{n-1}": n identifier tokens named `prefix` + number.
std::string words(const std::string& prefix, int first, int last) {
  std::string out;
  for (int i = first; i < last; ++i) out += (i > first ? " " : "") + prefix + std::to_string(i);
  return out;
}

DecontaminationOptions defaults() { return {}; }

// Any one shared n-gram contaminates (--ngram-share 0): the n-gram mechanics alone.
DecontaminationOptions any_one() {
  DecontaminationOptions options;
  options.ngram_share = 0;
  return options;
}

// A Triton kernel, the benchmark item of the near-copy tests (about 1.1 KB).
constexpr const char* kKernel =
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,\n"
    "                   BLOCK_SIZE: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    row_start = in_ptr + row * in_row_stride\n"
    "    offsets = tl.arange(0, BLOCK_SIZE)\n"
    "    mask = offsets < n_cols\n"
    "    x = tl.load(row_start + offsets, mask=mask, other=-float(\"inf\"))\n"
    "    x = x - tl.max(x, axis=0)\n"
    "    numerator = tl.exp(x)\n"
    "    denominator = tl.sum(numerator, axis=0)\n"
    "    y = numerator / denominator\n"
    "    out_start = out_ptr + row * out_row_stride\n"
    "    tl.store(out_start + offsets, y, mask=mask)\n"
    "\n"
    "\n"
    "def custom_kernel(data):\n"
    "    x, out = data\n"
    "    n_rows, n_cols = x.shape\n"
    "    BLOCK_SIZE = triton.next_power_of_2(n_cols)\n"
    "    num_warps = 4\n"
    "    if BLOCK_SIZE >= 2048:\n"
    "        num_warps = 8\n"
    "    if BLOCK_SIZE >= 4096:\n"
    "        num_warps = 16\n"
    "    softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols,\n"
    "                              BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)\n"
    "    return out\n";

// kKernel with a few lines changed: the warp heuristic and the store.
constexpr const char* kNearCopy =
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,\n"
    "                   BLOCK_SIZE: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    row_start = in_ptr + row * in_row_stride\n"
    "    offsets = tl.arange(0, BLOCK_SIZE)\n"
    "    mask = offsets < n_cols\n"
    "    x = tl.load(row_start + offsets, mask=mask, other=-float(\"inf\"))\n"
    "    x = x - tl.max(x, axis=0)\n"
    "    numerator = tl.exp(x)\n"
    "    denominator = tl.sum(numerator, axis=0)\n"
    "    y = numerator / denominator\n"
    "    tl.store(out_ptr + row * out_row_stride + offsets, y, mask=mask)\n"
    "\n"
    "\n"
    "def custom_kernel(data):\n"
    "    x, out = data\n"
    "    n_rows, n_cols = x.shape\n"
    "    BLOCK_SIZE = triton.next_power_of_2(n_cols)\n"
    "    num_warps = 8 if BLOCK_SIZE >= 2048 else 4\n"
    "    softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols,\n"
    "                              BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)\n"
    "    return out\n";

// The same problem written anew (PyTorch, other names).
constexpr const char* kRewrite =
    "import torch\n"
    "\n"
    "\n"
    "def custom_kernel(data):\n"
    "    inputs, result = data\n"
    "    peak = inputs.amax(dim=-1, keepdim=True)\n"
    "    shifted = torch.exp(inputs - peak)\n"
    "    result.copy_(shifted / shifted.sum(dim=-1, keepdim=True))\n"
    "    return result\n";

// `text` laid out anew without changing a token: CRLF line ends, a tab for each 4-space indent,
// a space inside every bracket, no space around '='.
std::string relaid(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    if (line_start && text.compare(i, 4, "    ") == 0) {
      out += '\t';
      i += 3;
      continue;
    }
    line_start = false;
    const char c = text[i];
    if (c == '\n') {
      out += "\r\n";
      line_start = true;
    } else if (c == '(' || c == '[') {
      out += c;
      out += ' ';
    } else if (c == ')' || c == ']') {
      out += ' ';
      out += c;
    } else if (c == ' ' && i + 2 < text.size() && text[i + 1] == '=' && text[i + 2] == ' ') {
      out += '=';
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// ---- Tokens and n-grams ----

// Tokens are the identifiers and literals; punctuation only separates them, so that no run of
// brackets, commas and operators (`)]), (`) makes an n-gram.
TEST(Decontaminate, TokensAreIdentifiersAndLiteralsNeverPunctuation) {
  const std::vector<std::string_view> want = {"for", "int", "i",   "0",     "i",
                                              "n",   "i",   "x_1", "naïve", "k2"};
  EXPECT_EQ(code_tokens("for(int i=0;i<n;++i)\r\n\tx_1 += naïve\f\v\x01@k2"), want);
  EXPECT_TRUE(code_tokens(" \t\r\n\f\v").empty());
  EXPECT_TRUE(code_tokens("").empty());
  EXPECT_TRUE(code_tokens("()[]{},;:.+-*/%=<>!&|^~@#$'\"\\?`").empty());
  // A number keeps its decimal point; a dotted name is two names.
  const std::vector<std::string_view> numbers = {"x", "0.5", "y", "1.25e3", "a", "b", "3", "7"};
  EXPECT_EQ(code_tokens("x=0.5*y+1.25e3 a.b 3. .7"), numbers);
  EXPECT_EQ(code_tokens("v1.5"), (std::vector<std::string_view>{"v1", "5"}));
}

TEST(Decontaminate, NgramHashesAreWindowsOfTokensWhateverTheLayout) {
  EXPECT_EQ(ngram_hashes("a b c d", 2).size(), 3u);
  EXPECT_EQ(ngram_hashes("a b c d", 4).size(), 1u);
  EXPECT_TRUE(ngram_hashes("a b c d", 5).empty());
  EXPECT_EQ(ngram_hashes("x=f(a,b)", 3), ngram_hashes("x = f( a , b )\n", 3));
  // Punctuation is no token: the same names with other operators are the same n-grams.
  EXPECT_EQ(ngram_hashes("x=f(a,b)", 3), ngram_hashes("x f a b", 3));
  EXPECT_TRUE(ngram_hashes("((((((((((((((((((((", 1).empty());
  // Tokens, not bytes: a space inside a name splits it; the order of tokens counts.
  EXPECT_NE(ngram_hashes("ab c", 2), ngram_hashes("a bc", 2));
  EXPECT_NE(ngram_hashes("a b", 2), ngram_hashes("b a", 2));
  // The rolling hash is the hash of each window alone.
  const std::vector<uint64_t> all = ngram_hashes("a b c d e", 3);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1], ngram_hashes("b c d", 3)[0]);
  EXPECT_EQ(all[2], ngram_hashes("c d e", 3)[0]);
}

// ---- The n-gram test ----

TEST(Decontaminate, OneShared12GramIsNgramAnd11SharedTokensAreNot) {
  const BenchmarkSet set = BenchmarkSet::from_texts({words("a", 0, 60)}, any_one());
  // a5 .. a16: 12 consecutive tokens of the item, between tokens it does not have.
  const std::string twelve = words("b", 0, 3) + " " + words("a", 5, 17) + " " + words("c", 0, 3);
  EXPECT_EQ(set.check(twelve), Contamination::NGRAM);
  const std::string eleven = words("b", 0, 3) + " " + words("a", 5, 16) + " " + words("c", 0, 3);
  EXPECT_EQ(set.check(eleven), Contamination::NONE);
  // Two runs of 11 with a foreign token between them are not a 12-gram either.
  EXPECT_EQ(set.check(words("a", 5, 16) + " z " + words("a", 16, 27)), Contamination::NONE);
  // With --ngram 11, the 11 shared tokens are enough.
  DecontaminationOptions eleven_grams = any_one();
  eleven_grams.ngram = 11;
  EXPECT_EQ(BenchmarkSet::from_texts({words("a", 0, 60)}, eleven_grams).check(eleven),
            Contamination::NGRAM);
}

TEST(Decontaminate, ReindentedAndRespacedCopiesShareTheNgrams) {
  const BenchmarkSet set = BenchmarkSet::from_texts({kKernel}, defaults());
  const std::string copy = relaid(kKernel);
  ASSERT_NE(copy, kKernel);
  ASSERT_NE(copy.find("\r\n\ttl.store( out_start"), std::string::npos);
  EXPECT_EQ(set.check(copy), Contamination::NGRAM);
  // Three statements of it (14 names: 3 n-grams, all in the set), relaid, are enough.
  EXPECT_EQ(set.check("y=numerator/denominator\r\n\tout_start=out_ptr+row*out_row_stride\r\n"
                      "\ttl.store( out_start+offsets,y,mask=mask )"),
            Contamination::NGRAM);
  // The tokens of the set are relaid too: the other way round.
  EXPECT_EQ(BenchmarkSet::from_texts({copy}, defaults()).check(kKernel), Contamination::NGRAM);
}

// The default share is half: a code is contaminated when it is copied for the most part, never by
// an import block or an idiom it shares with the set, however long those are against the n-gram.
TEST(Decontaminate, TheDefaultShareIsMoreThanAnImportBlockOrAnIdiomCanReach) {
  EXPECT_EQ(defaults().ngram_share, 0.5);
  EXPECT_EQ(defaults().ngram, 12);
  const std::string header =
      "import torch\n"
      "import triton\n"
      "import triton.language as tl\n"
      "from task import input_t, output_t\n"
      "\n"
      "def custom_kernel(data: input_t) -> output_t:\n";
  // The set: the header and a body of its own.
  const BenchmarkSet set =
      BenchmarkSet::from_texts({header + "    " + words("ref", 0, 60) + "\n"}, defaults());
  // A code with the same header (19 names: 8 shared 12-grams) and its own body of 100 names.
  const std::string code = header + "    " + words("mine", 0, 100) + "\n";
  ASSERT_GT(*set.ngram_share(code), 0.0);
  EXPECT_LT(*set.ngram_share(code), 0.1);
  EXPECT_EQ(set.check(code), Contamination::NONE);
  EXPECT_EQ(BenchmarkSet::from_texts({header + "    " + words("ref", 0, 60) + "\n"}, any_one())
                .check(code),
            Contamination::NGRAM);
  // Punctuation shared with the set makes no n-gram at all.
  const BenchmarkSet brackets =
      BenchmarkSet::from_texts({"))))]]]]}}}},,,,;;;;" + words("p", 0, 20)}, any_one());
  EXPECT_EQ(brackets.check("))))]]]]}}}},,,,;;;;" + words("q", 0, 20)), Contamination::NONE);
  // Copied for the most part: 50 of the set's names in a row, 10 of its own.
  const std::string copied = header + words("ref", 0, 50) + " " + words("mine", 0, 10);
  EXPECT_GT(*set.ngram_share(copied), 0.5);
  EXPECT_EQ(set.check(copied), Contamination::NGRAM);
  // A code of no n-gram has no share.
  EXPECT_EQ(set.ngram_share(words("x", 0, 11)), std::nullopt);
}

TEST(Decontaminate, NgramShareIsMoreThanTheShareOfDistinctNgrams) {
  DecontaminationOptions options;
  auto check = [&](double share, const std::string& code) {
    options.ngram_share = share;
    return BenchmarkSet::from_texts({words("a", 0, 60)}, options).check(code);
  };
  // 15 tokens: 4 n-grams, the first shared (1/4).
  const std::string quarter = words("a", 0, 12) + " " + words("c", 0, 3);
  EXPECT_EQ(check(0, quarter), Contamination::NGRAM);
  EXPECT_EQ(check(0.24, quarter), Contamination::NGRAM);
  EXPECT_EQ(check(0.25, quarter), Contamination::NONE);
  EXPECT_EQ(check(0.9, quarter), Contamination::NONE);
  // 2 of 4 shared.
  const std::string half = words("a", 0, 13) + " " + words("c", 0, 2);
  EXPECT_EQ(check(0.49, half), Contamination::NGRAM);
  EXPECT_EQ(check(0.5, half), Contamination::NONE);
  // Every n-gram shared: contaminated at any share below 1.
  EXPECT_EQ(check(0.99, words("a", 10, 40)), Contamination::NGRAM);
  // The shared n-gram twice: 14 windows, 13 distinct, 1 of them shared (1/13, not 2/14).
  const std::string twice = words("a", 0, 12) + " c0 " + words("a", 0, 12);
  EXPECT_EQ(check(1.0 / 14, twice), Contamination::NGRAM);
  EXPECT_EQ(check(1.0 / 13, twice), Contamination::NONE);
}

TEST(Decontaminate, ACodeShorterThanTheNgramHasNone) {
  // Verbatim in a long item, but 11 tokens: no n-gram, and too small a part to be a near-copy.
  const std::string short_code = words("a", 20, 31);
  EXPECT_EQ(BenchmarkSet::from_texts({words("a", 0, 60)}, defaults()).check(short_code),
            Contamination::NONE);
  // An item that short has no n-gram either; the same text is a near-copy (MinHash).
  const BenchmarkSet set = BenchmarkSet::from_texts({short_code}, defaults());
  EXPECT_EQ(set.ngrams(), 0u);
  EXPECT_EQ(set.describe(), "1 item, 0 12-grams");
  EXPECT_EQ(set.check(short_code), Contamination::MINHASH);
  EXPECT_EQ(set.check("x"), Contamination::NONE);
}

// ---- The MinHash test ----

// n-grams out of the way: no code here has 100000 tokens.
DecontaminationOptions minhash_only(double threshold = 0.8) {
  DecontaminationOptions options;
  options.ngram = 100000;
  options.threshold = threshold;
  return options;
}

double estimated_similarity(const std::string& a, const std::string& b) {
  return similarity::sketch_similarity(similarity::code_sketch(a).data(),
                                       similarity::code_sketch(b).data());
}

TEST(Decontaminate, ANearCopyIsMinhashAndARewriteIsNone) {
  const double near = estimated_similarity(kKernel, kNearCopy);
  EXPECT_GT(near, 0.84);
  EXPECT_LT(near, 0.96);
  EXPECT_LT(estimated_similarity(kKernel, kRewrite), 0.3);

  const BenchmarkSet set = BenchmarkSet::from_texts({kKernel}, minhash_only());
  EXPECT_EQ(set.check(kNearCopy), Contamination::MINHASH);
  EXPECT_EQ(set.check(kKernel), Contamination::MINHASH);
  EXPECT_EQ(set.check(kRewrite), Contamination::NONE);
  // With the n-grams on, the near-copy shares whole statements: NGRAM is checked first.
  const BenchmarkSet both = BenchmarkSet::from_texts({kKernel}, defaults());
  EXPECT_EQ(both.check(kNearCopy), Contamination::NGRAM);
  EXPECT_EQ(both.check(kRewrite), Contamination::NONE);
  // Upper-cased, the copy shares no 12-gram (tokens keep their case) but every shingle (shingles
  // are lower-cased): MinHash alone finds it.
  std::string upper = kKernel;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(both.check(upper), Contamination::MINHASH);
}

TEST(Decontaminate, ThresholdIsAtOrAboveTheEstimate) {
  const double near = estimated_similarity(kKernel, kNearCopy);
  EXPECT_EQ(BenchmarkSet::from_texts({kKernel}, minhash_only(near)).check(kNearCopy),
            Contamination::MINHASH);
  EXPECT_EQ(
      BenchmarkSet::from_texts({kKernel}, minhash_only(std::nextafter(near, 2.0))).check(kNearCopy),
      Contamination::NONE);
  // At threshold 1, an identical code still is a near-copy.
  EXPECT_EQ(BenchmarkSet::from_texts({kKernel}, minhash_only(1.0)).check(kKernel),
            Contamination::MINHASH);
}

// Random code-like text: `lines` lines of identifiers and operators.
std::string random_code(std::mt19937_64& rng, int lines) {
  static const char* kWords[] = {"x",     "y",    "acc", "tile", "ptr",  "load",   "store",
                                 "block", "mask", "sum", "idx",  "warp", "lane",   "shared",
                                 "float", "half", "int", "for",  "if",   "return", "def"};
  static const char* kOps[] = {" = ", " + ", " * ", "(", ")", ", ", "[", "]", ".", " < "};
  std::string out;
  for (int l = 0; l < lines; ++l) {
    const int tokens = 3 + static_cast<int>(rng() % 8);
    for (int t = 0; t < tokens; ++t) {
      out += kWords[rng() % std::size(kWords)];
      out += std::to_string(rng() % 100);
      out += kOps[rng() % std::size(kOps)];
    }
    out += '\n';
  }
  return out;
}

TEST(Decontaminate, ANearCopyIsFoundAmongManyItems) {
  std::mt19937_64 rng(7);
  std::vector<std::string> items;
  for (int i = 0; i < 2000; ++i) items.push_back(random_code(rng, 30));
  items[1234] = kKernel;
  const BenchmarkSet set = BenchmarkSet::from_texts(items, minhash_only());
  EXPECT_EQ(set.items(), 2000u);
  EXPECT_EQ(set.check(kNearCopy), Contamination::MINHASH);
  EXPECT_EQ(set.check(kRewrite), Contamination::NONE);
  // Banding proposes the kernel, not the set: a handful of candidates at most.
  EXPECT_GE(set.candidates(kNearCopy), 1u);
  EXPECT_LE(set.candidates(kNearCopy), 5u);
  // A near-copy of a random item (its last line changed) is found too.
  std::string copy = items[77];
  copy.replace(copy.rfind('\n', copy.size() - 2) + 1, std::string::npos, "return acc\n");
  EXPECT_EQ(set.check(copy), Contamination::MINHASH);
}

TEST(Decontaminate, EmptyBandsMakeNoCandidates) {
  // Texts of one shingle each: 35 of the 36 bands are empty in every sketch.
  std::vector<std::string> items;
  for (int i = 0; i < 1000; ++i) items.push_back("k" + std::to_string(i));
  const BenchmarkSet set = BenchmarkSet::from_texts(items, defaults());
  EXPECT_EQ(set.candidates("zzz"), 0u);
  EXPECT_EQ(set.check("zzz"), Contamination::NONE);
  EXPECT_EQ(set.candidates("k17"), 1u);
  EXPECT_EQ(set.check("k17"), Contamination::MINHASH);
  EXPECT_EQ(set.check("K17"), Contamination::MINHASH);  // shingles are lower-cased
}

TEST(Decontaminate, EmptyCodeAndEmptyItemsAreNeverNearCopies) {
  const BenchmarkSet empties = BenchmarkSet::from_texts({"", ""}, defaults());
  EXPECT_EQ(empties.items(), 2u);
  EXPECT_EQ(empties.check(""), Contamination::NONE);
  EXPECT_EQ(empties.check("x"), Contamination::NONE);
  EXPECT_EQ(empties.candidates(""), 0u);
  const BenchmarkSet set = BenchmarkSet::from_texts({"", "x", kKernel}, defaults());
  EXPECT_EQ(set.items(), 3u);
  EXPECT_EQ(set.check(""), Contamination::NONE);
  EXPECT_EQ(set.candidates(""), 0u);
  EXPECT_EQ(set.check("x"), Contamination::MINHASH);
  EXPECT_EQ(BenchmarkSet::from_texts({}, defaults()).check(kKernel), Contamination::NONE);
}

TEST(Decontaminate, DescribeCountsItemsAndDistinctNgrams) {
  EXPECT_EQ(BenchmarkSet::from_texts({words("a", 0, 1011)}, defaults()).describe(),
            "1 item, 1,000 12-grams");
  // The same n-grams in a second item are counted once.
  DecontaminationOptions three;
  three.ngram = 3;
  EXPECT_EQ(BenchmarkSet::from_texts({"a b c d", "b c d", ""}, three).describe(),
            "3 items, 2 3-grams");
  EXPECT_STREQ(to_string(Contamination::NONE), "none");
  EXPECT_STREQ(to_string(Contamination::NGRAM), "ngram");
  EXPECT_STREQ(to_string(Contamination::MINHASH), "minhash");
}

// ---- Options ----

// A library names the options by their option names, never as a command line spells them (the CLI
// and the Python module spell them: tests/cli, tests/python).
TEST(Decontaminate, OptionsAreValidated) {
  auto error = [](const DecontaminationOptions& o) {
    return error_of<UsageError>([&] { (void)BenchmarkSet::from_texts({"a"}, o); });
  };
  DecontaminationOptions o;
  o.ngram = 0;
  EXPECT_EQ(error(o), "ngram 0: must be at least 1");
  o.ngram = -3;
  EXPECT_EQ(error(o), "ngram -3: must be at least 1");
  o = {};
  for (double share : {-0.01, 1.0, 2.0, std::nan("")}) {
    o.ngram_share = share;
    EXPECT_EQ(error(o).rfind("ngram_share ", 0), 0u) << share;
  }
  o.ngram_share = 1;
  EXPECT_EQ(error(o), "ngram_share 1: must be in [0, 1)");
  o = {};
  for (double threshold : {0.0, -1.0, 1.0000001, std::nan("")}) {
    o.threshold = threshold;
    EXPECT_EQ(error(o).rfind("decontaminate_threshold ", 0), 0u) << threshold;
  }
  o.threshold = 0;
  EXPECT_EQ(error(o), "decontaminate_threshold 0: must be in (0, 1]");
  // The bounds that are allowed.
  o = {};
  o.ngram = 1;
  o.ngram_share = 0.999;
  o.threshold = 1;
  EXPECT_EQ(BenchmarkSet::from_texts({"a"}, o).items(), 1u);
  // load() checks them before it reads anything.
  o.ngram = 0;
  EXPECT_EQ(error_of<UsageError>([&] { (void)BenchmarkSet::load("/nonexistent/bench", o); }),
            "ngram 0: must be at least 1");
}

// ---- Loading ----

TEST(Decontaminate, AFolderIsEveryFileUnderIt) {
  const std::string dir = new_dir("nested");
  write(dir + "/a.py", "print('a')\n");
  write(dir + "/sub/notes.txt", words("n", 0, 40));
  write(dir + "/sub/deep/kernel.py", kKernel);
  write(dir + "/.hidden", words("h", 0, 40));
  // A symlink to a file outside the folder is followed.
  write(program_dir().file("outside.py"), words("o", 0, 40));
  fs::create_symlink(program_dir().file("outside.py"), dir + "/sub/link.py");
  const BenchmarkSet set = BenchmarkSet::load(dir, defaults());
  EXPECT_EQ(set.items(), 5u);
  EXPECT_EQ(set.check(relaid(kKernel)), Contamination::NGRAM);  // found in sub/deep
  EXPECT_EQ(set.check(words("o", 10, 22)), Contamination::NGRAM);
  EXPECT_EQ(set.check(words("h", 10, 22)), Contamination::NGRAM);
  EXPECT_EQ(set.check(kRewrite), Contamination::NONE);
  // One file alone is one item, whatever its name.
  const BenchmarkSet one = BenchmarkSet::load(dir + "/sub/deep/kernel.py", defaults());
  EXPECT_EQ(one.items(), 1u);
  EXPECT_EQ(one.check(kNearCopy), Contamination::NGRAM);
}

TEST(Decontaminate, AFifoInTheFolderIsAnErrorNeverSkipped) {
  const std::string dir = new_dir("fifo");
  write(dir + "/a.py", kKernel);
  fs::create_directories(dir + "/sub");
  ASSERT_EQ(::mkfifo((dir + "/sub/queue").c_str(), 0600), 0);
  const std::string message =
      error_of<UsageError>([&] { (void)BenchmarkSet::load(dir, defaults()); });
  EXPECT_EQ(message, dir +
                         "/sub/queue: not a regular file or folder (it is a FIFO); a benchmark "
                         "set holds files");
  // Named as the set itself.
  EXPECT_NE(error_of<UsageError>([&] {
              (void)BenchmarkSet::load(dir + "/sub/queue", defaults());
            }).find("queue: not a regular file or folder (it is a FIFO)"),
            std::string::npos);
}

TEST(Decontaminate, EmptyFoldersAndMissingPathsAreErrors) {
  const std::string empty = new_dir("empty");
  EXPECT_EQ(error_of<UsageError>([&] { (void)BenchmarkSet::load(empty, defaults()); }),
            "no benchmark files in " + empty);
  // Folders without a file in any of them.
  const std::string hollow = new_dir("hollow");
  fs::create_directories(hollow + "/a/b");
  fs::create_directories(hollow + "/c");
  EXPECT_EQ(error_of<UsageError>([&] { (void)BenchmarkSet::load(hollow, defaults()); }),
            "no benchmark files in " + hollow);
  const std::string missing = program_dir().file("missing");
  EXPECT_EQ(error_of<IoError>([&] { (void)BenchmarkSet::load(missing, defaults()); }),
            missing + ": cannot read: No such file or directory");
  // A dangling symlink inside a folder is named.
  const std::string dangling = new_dir("dangling");
  write(dangling + "/a.py", "a");
  fs::create_symlink(dangling + "/gone", dangling + "/link");
  EXPECT_EQ(error_of<IoError>([&] { (void)BenchmarkSet::load(dangling, defaults()); }),
            dangling + "/link: cannot read: No such file or directory");
}

TEST(Decontaminate, ASymlinkLoopIsAnError) {
  const std::string dir = new_dir("loop");
  write(dir + "/a.py", "a");
  fs::create_directories(dir + "/sub");
  fs::create_directory_symlink(dir, dir + "/sub/back");
  EXPECT_EQ(error_of<UsageError>([&] { (void)BenchmarkSet::load(dir, defaults()); }),
            dir + "/sub/back: a symbolic link here leads back to a folder it is in");
}

// "\x" + the hex digits of `text` (the data set's escape of code, dataset/code_text.h).
std::string hex_escaped(const std::string& text) {
  std::string out = "\\x";
  for (unsigned char c : text) {
    out += "0123456789abcdef"[c >> 4];
    out += "0123456789abcdef"[c & 15];
  }
  return out;
}

// A Parquet file kbdata's writer wrote: id INT64, name STRING, code STRING, blob BINARY; rows
// (1, kernel), (2, null code), (3, a text stored hex-escaped).
std::string write_bench_parquet(const std::string& path) {
  using parquet::Field;
  using parquet::FieldType;
  parquet::RowFileWriter w(
      path,
      {Field::leaf("id", FieldType::INT64), Field::leaf("name", FieldType::STRING),
       Field::leaf("code", FieldType::STRING), Field::leaf("blob", FieldType::BINARY)},
      {}, {});
  const std::string escaped = hex_escaped(words("e", 0, 40));
  auto row = [&](int64_t id, const char* code, const std::string& blob) {
    w.column<int64_t>("id").value(id);
    w.column<std::string_view>("name").value("softmax");
    if (code != nullptr) {
      w.column<std::string_view>("code").value(code);
    } else {
      w.column(2).null();
    }
    w.column<std::string_view>("blob").value(blob);
    w.end_row();
  };
  row(1, kKernel, words("b", 0, 40));
  row(2, nullptr, "");
  row(3, escaped.c_str(), "");
  w.commit();
  return path;
}

TEST(Decontaminate, AParquetFileIsItsCodeColumn) {
  const std::string path = write_bench_parquet(new_dir("kbdata-parquet") + "/bench.parquet");
  const BenchmarkSet set = BenchmarkSet::load(path, defaults());
  EXPECT_EQ(set.items(), 2u);  // the null is no item
  EXPECT_EQ(set.check(relaid(kKernel)), Contamination::NGRAM);
  EXPECT_EQ(set.check(words("e", 5, 17)), Contamination::NGRAM);  // decoded from its escape
  EXPECT_EQ(set.check(words("b", 5, 17)), Contamination::NONE);   // another column
  EXPECT_EQ(set.check(kRewrite), Contamination::NONE);
  // Another column by name, unannotated binary included: every row has a value.
  DecontaminationOptions blob;
  blob.column = "blob";
  const BenchmarkSet blobs = BenchmarkSet::load(path, blob);
  EXPECT_EQ(blobs.items(), 3u);
  EXPECT_EQ(blobs.check(words("b", 5, 17)), Contamination::NGRAM);
  EXPECT_EQ(blobs.check(kKernel), Contamination::NONE);
}

TEST(Decontaminate, AParquetFileDuckDbWrote) {
  const std::string path = new_dir("duckdb-parquet") + "/bench.parquet";
  auto sql_string = [](const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  };
  testing::duckdb().run("COPY (SELECT * FROM (VALUES (1, " + sql_string(kKernel) +
                        "), (2, NULL), (3, " + sql_string(words("d", 0, 30)) +
                        ")) t(id, code)) TO " + testing::sql_path(path) + " (FORMAT parquet)");
  const BenchmarkSet set = BenchmarkSet::load(path, defaults());
  EXPECT_EQ(set.items(), 2u);
  EXPECT_EQ(set.check(kNearCopy), Contamination::NGRAM);
  EXPECT_EQ(set.check(words("d", 3, 15)), Contamination::NGRAM);
  EXPECT_EQ(set.check(kRewrite), Contamination::NONE);
  EXPECT_EQ(BenchmarkSet::load(path, minhash_only()).check(kNearCopy), Contamination::MINHASH);
}

TEST(Decontaminate, AMissingColumnListsTheStringColumnsAndTheClosest) {
  const std::string path = write_bench_parquet(new_dir("columns") + "/bench.parquet");
  DecontaminationOptions o;
  o.column = "cod";
  EXPECT_EQ(error_of<UsageError>([&] { (void)BenchmarkSet::load(path, o); }),
            path + ": no column 'cod'; its string columns: name, code, blob; did you mean 'code'?");
  o.column = "solution";
  EXPECT_EQ(error_of<UsageError>([&] { (void)BenchmarkSet::load(path, o); }),
            path + ": no column 'solution'; its string columns: name, code, blob");
  o.column = "id";
  const std::string not_string = error_of<UsageError>([&] { (void)BenchmarkSet::load(path, o); });
  EXPECT_EQ(not_string.rfind(path + ": column 'id' is INT64", 0), 0u) << not_string;
  EXPECT_NE(not_string.find("not a string column; its string columns: name, code, blob"),
            std::string::npos)
      << not_string;
}

TEST(Decontaminate, ATruncatedParquetFileIsAOneLineError) {
  const std::string dir = new_dir("truncated");
  const std::string bytes = read(write_bench_parquet(dir + "/whole.parquet"));
  for (size_t keep : {size_t{4}, size_t{12}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string path = dir + "/cut" + std::to_string(keep) + ".parquet";
    write(path, bytes.substr(0, keep));
    const std::string message =
        error_of<FormatError>([&] { (void)BenchmarkSet::load(path, defaults()); });
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // The footer intact but the column data before it garbled, or half of it cut out: the scan's
  // error, located at the file.
  ASSERT_EQ(bytes.substr(bytes.size() - 4), "PAR1");
  uint32_t footer_length = 0;
  std::memcpy(&footer_length, bytes.data() + bytes.size() - 8, 4);
  const size_t footer = bytes.size() - 8 - footer_length;
  std::string garbled = bytes;
  for (size_t i = 4; i < footer; ++i) garbled[i] = static_cast<char>(0xA5 ^ i);
  const std::string middle_cut = bytes.substr(0, footer / 2) + bytes.substr(footer);
  for (const std::string& broken : {garbled, middle_cut}) {
    const std::string path = dir + "/broken" + std::to_string(broken.size()) + ".parquet";
    write(path, broken);
    const std::string message =
        error_of<Error>([&] { (void)BenchmarkSet::load(path, defaults()); });
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // A file that does not start with "PAR1" is text, however it ends.
  const std::string text = dir + "/text.parquet";
  write(text, "not parquet at all PAR1");
  EXPECT_EQ(BenchmarkSet::load(text, defaults()).items(), 1u);
}

}  // namespace
}  // namespace kbdata::pairs
