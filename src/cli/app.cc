// The kbdata command line: the program's help, every command (commands.cc lists them), argument
// checks, and errors turned into one-line messages and exit codes.
#include "cli/app.h"

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/embedded.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "common/version.h"

namespace kbdata::cli {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// The command line's spelling of an option a library's error names (common/error.h): its flag,
// the option name's words joined by '-', then the value given ("--min-speedup 0.5").
std::string flag_spelling(const OptionName& option) {
  std::string flag = "--" + option.name;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return option.value ? flag + " " + *option.value : flag;
}

// Where a usage error points: the command's help, or the program's.
std::string help_hint(const CLI::App* command) {
  return command == nullptr ? "(see 'kbdata --help')"
                            : "(see 'kbdata " + command->get_name() + " --help')";
}

// The subcommand named on the command line (argv[1]), or nullptr.
CLI::App* named_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2) return nullptr;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(argv[1])) return sub;
  }
  return nullptr;
}

// Every long and short option name of `command`, spelled as typed ("--limit", "-n").
std::vector<std::string> option_spellings(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool looks_like_option(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9') && arg[1] != '.';
}

// The flag (of `command`) that takes a value after '=' only, `--exclude-flagged{cheat}`, spelled
// `flag` as typed; nullptr for any other word.
const CLI::Option* flag_with_value(const CLI::App& command, const std::string& flag) {
  if (!flag.starts_with("--") || flag.find('=') != std::string::npos) return nullptr;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_fnames()) {
      if ("--" + name == flag) return option;
    }
  }
  return nullptr;
}

// One line for an argument CLI11 left over: an unknown option (with the closest option of the
// command), a value given apart from a flag that takes it after '=' only, or an argument the
// command takes no place for.
std::string extras_message(const CLI::App& app, const CLI::App* command, int argc, char** argv) {
  std::vector<std::string> extras = command != nullptr ? command->remaining() : app.remaining();
  if (extras.empty()) extras = app.remaining();
  for (const std::string& arg : extras) {
    if (!looks_like_option(arg)) continue;
    const std::string name = arg.substr(0, arg.find('='));
    return "unknown option '" + name + "'" +
           did_you_mean(name, option_spellings(command != nullptr ? *command : app));
  }
  if (extras.empty()) return "unexpected arguments";
  // `--exclude-flagged cheat`: the word after such a flag is its value, given apart.
  for (int i = 2; i < argc && command != nullptr; ++i) {
    if (argv[i] != extras.front()) continue;
    if (flag_with_value(*command, argv[i - 1]) != nullptr) {
      return "unexpected argument '" + extras.front() + "': " + argv[i - 1] +
             " takes its value after '='; did you mean '" + argv[i - 1] + "=" + extras.front() +
             "'?";
    }
  }
  return "unexpected argument '" + extras.front() + "'";
}

// Integers are read by CLI11 with strtoll/strtoull, which clamp out-of-range values, wrap "-1" to
// the largest unsigned value and take "010" as octal: every integer option first has to be a
// decimal number that fits 64 bits, and an error quotes it as typed.
CLI::Validator whole_number(bool is_signed) {
  return CLI::Validator(
      [is_signed](std::string& text) -> std::string {
        const char* begin = text.data();
        const char* end = begin + text.size();
        std::from_chars_result r{};
        std::string canonical;  // decimal, without leading zeros (CLI11 would read "010" as 8)
        if (is_signed) {
          int64_t v = 0;
          r = std::from_chars(begin, end, v);
          canonical = std::to_string(v);
        } else {
          if (!text.empty() && text[0] == '-') {
            return "'" + text + "' is negative; a number of 0 or more is expected";
          }
          uint64_t v = 0;
          r = std::from_chars(begin, end, v);
          canonical = std::to_string(v);
        }
        if (r.ec == std::errc::result_out_of_range) {
          return "'" + text + "' is out of range (" +
                 (is_signed ? "-9223372036854775808 to 9223372036854775807"
                            : "0 to 18446744073709551615") +
                 ")";
        }
        if (r.ec != std::errc() || r.ptr != end) return "'" + text + "' is not a whole number";
        text = canonical;
        return "";
      },
      "", "whole_number");
}

// Attaches whole_number to every integer option of `app` and its subcommands.
void check_whole_numbers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // "INT", or "UINT:NONNEGATIVE" with a validator's description after the type.
    const std::string full_type = option->get_type_name();
    const std::string type = full_type.substr(0, full_type.find(':'));
    if (type == "INT") option->transform(whole_number(true));
    if (type == "UINT") option->transform(whole_number(false));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_whole_numbers(*sub);
}

// What to add when the system refused memory or a thread: the address-space limit when there is
// one (what is reserved counts against it, used or not), and for a command with --threads that
// fewer threads need less.
std::string resource_hint(const CLI::App* command) {
  std::string hint;
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    hint += " (the address space is limited to " + std::to_string(limit.rlim_cur >> 20) +
            " MiB: ulimit -v)";
  }
  if (command != nullptr && command->get_option_no_throw("--threads") != nullptr) {
    hint += "; every thread needs memory of its own: try --threads 1";
  }
  return hint;
}

// The program's app with every command (`app` as run_command_line and answer_command_line make
// it, before its help and footer).
void add_commands(CLI::App& app, Commands& commands) {
  app.name("kbdata");
  app.require_subcommand(1, 1);
  add_all_commands(app, commands);
  check_whole_numbers(app);
}

}  // namespace

std::optional<result::ResultTable> run_embedded(const std::vector<std::string>& args,
                                                EmbeddedRun& run) {
  CLI::App app{"kbdata"};
  Commands commands;
  add_commands(app, commands);
  std::vector<std::string> words = {"kbdata"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  const int argc = static_cast<int>(argv.size());
  CLI::App* command = named_command(app, argc, argv.data());
  if (command == nullptr) {
    throw UsageError("unknown command '" + (args.empty() ? std::string() : args.front()) + "'");
  }
  try {
    app.parse(argc, argv.data());
  } catch (const CLI::ExtrasError&) {
    throw UsageError(extras_message(app, command, argc, argv.data()));
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  std::string line = "kbdata";
  for (const std::string& arg : args) line += " " + arg;
  set_invoked_command_line(line);
  resolve_default_threads();  // a bad $KBDATA_THREADS, before any work
  EmbeddedScope scope(run);
  run.answer.reset();
  for (const Command& added : commands) {
    if (added.app->parsed()) added.run();
  }
  std::optional<result::ResultTable> answer = std::move(run.answer);
  run.answer.reset();
  return answer;
}

result::ResultTable answer_command_line(const std::vector<std::string>& args, EmbeddedRun& run) {
  std::optional<result::ResultTable> answer = run_embedded(args, run);
  if (!answer) {
    throw std::logic_error("'" + (args.empty() ? std::string() : args.front()) +
                           "' gave no answer table");
  }
  return std::move(*answer);
}

int run_command_line(int argc, char** argv) {
  CLI::App app{
      "kbdata: the KernelBot GPU-kernel competition data, read from and written to Parquet.\n"
      "Run 'kbdata COMMAND --help' for a command's options."};
  Commands commands;
  add_commands(app, commands);
  app.set_version_flag("--version", std::string("kbdata ") + kbdata::kVersion);
  app.footer(
      "\nExamples:\n"
      "  kbdata inspect nvidia_nvfp4_submissions.parquet\n"
      "  kbdata cat nvidia_nvfp4_submissions.parquet --columns problem_name,user_name,score "
      "--limit 10 --format table\n"
      "  kbdata cat nvidia_nvfp4_submissions.parquet --offset 100 --limit 100 --format csv > "
      "rows.csv\n"
      "  kbdata cat nvidia_nvfp4_submissions.parquet --where 'score < 0.00005' --where "
      "'user_name = tonda'\n"
      "  kbdata convert nvidia_nvfp4_submissions.parquet small.parquet --compression zstd "
      "--level 9\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet unique.parquet --fuzzy\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  // As git and cargo: no arguments prints the help; an unknown command is named with the closest.
  if (argc < 2) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  CLI::App* command = named_command(app, argc, argv);
  if (command == nullptr && !looks_like_option(argv[1])) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    std::fprintf(stderr, "kbdata: unknown command '%s'%s %s\n", argv[1],
                 did_you_mean(argv[1], names).c_str(), help_hint(nullptr).c_str());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    std::fprintf(stderr, "kbdata: %s %s\n", extras_message(app, command, argc, argv).c_str(),
                 help_hint(command).c_str());
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "kbdata: %s %s\n", e.what(), help_hint(command).c_str());
    return kExitUsage;
  }

  std::string line = "kbdata";
  for (int i = 1; i < argc; ++i) line += std::string(" ") + argv[i];
  set_invoked_command_line(line);
  kbdata::remove_temporary_files_on_signals();
  try {
    resolve_default_threads();  // a bad $KBDATA_THREADS, before any work
    for (const Command& added : commands) {
      if (added.app->parsed()) added.run();
    }
  } catch (const kbdata::UsageError& e) {
    std::fprintf(stderr, "kbdata: %s %s\n", e.spelled(flag_spelling).c_str(),
                 help_hint(command).c_str());
    return kExitUsage;
  } catch (const kbdata::ResourceError& e) {
    std::fprintf(stderr, "kbdata: %s%s\n", e.spelled(flag_spelling).c_str(),
                 resource_hint(command).c_str());
    return kExitFailure;
  } catch (const kbdata::Error& e) {
    std::fprintf(stderr, "kbdata: %s\n", e.spelled(flag_spelling).c_str());
    return kExitFailure;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kbdata: out of memory%s\n", resource_hint(command).c_str());
    return kExitFailure;
  } catch (const std::exception& e) {
    // A failure no layer turned into a kbdata error: still one line and an exit status, never an
    // abort (and a bug to report).
    std::fprintf(stderr, "kbdata: internal error: %s\n", e.what());
    return kExitFailure;
  }
  return 0;
}

}  // namespace kbdata::cli
