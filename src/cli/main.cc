// kbdata's entry point: the program is cli/app.h; every command is in its own file
// (cli/commands.cc lists them).
#include "cli/app.h"
#include "common/malloc_tuning.h"

int main(int argc, char** argv) {
  kbdata::tune_malloc_for_readers();
  return kbdata::cli::run_command_line(argc, argv);
}
