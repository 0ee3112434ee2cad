// Where an output may go: the checks every command makes before it does any work, so that no
// output replaces an input, a special file or a folder, and the names of kbdata's temporary files.
// docs/cli.md, "Safety", states the rules for users.
//
//   check_output_file     OUT for a file output (convert, dedup, -o, --plot): refused when it is
//                         a folder, a device, a FIFO or a socket, one of the command's inputs,
//                         or in a missing or unwritable folder; a symlink is followed
//   temporary names       ".<name>.<hash>.kbdata-<pid>-XXXXXX" beside the destination: short
//                         whatever the name's length, findable, and recognised later as stale
//                         (its process is gone and no lock is held on it) and removed
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbdata {

// An existing file system object, identified as the kernel does (for "is OUT one of the inputs").
struct FileId {
  uint64_t device = 0;
  uint64_t inode = 0;
  friend bool operator==(const FileId&, const FileId&) = default;
};

// The identity of `path` (symlinks followed), or nullopt when it does not exist.
[[nodiscard]] std::optional<FileId> file_id(const std::string& path);

// The inputs of this process: every file kbdata opens for reading (LocalFile::open) and every file
// of a data folder it scans is noted here, so that no output, checked at its start and again at its
// commit, replaces one of them (the same file through any path or link). Thread-safe.
void note_input(const std::string& path);
[[nodiscard]] bool is_noted_input(const FileId& id);

// Throws UsageError when the folder `path` is, or contains, a noted input or the working folder:
// a folder output (extract --out, synth --out, export --out) must never replace or empty one.
// The message names `path` as the value of the option named `option` ("out", OptionName).
void refuse_folder_holding_inputs(const std::string& path, const std::string& option);

// Who may read a new output.
enum class OutputAccess {
  DEFAULT,  // 0666 minus the process's umask; a replaced file keeps its own mode
  PRIVATE,  // 0600, also when replacing a file
};

// A checked destination for an output file.
struct OutputTarget {
  std::string path;     // as the user named it (for messages)
  std::string target;   // where the bytes go: `path`, or the file a symlink at `path` points to
  bool exists = false;  // `target` is an existing regular file that the output replaces
  mode_t mode = 0644;   // permissions the output gets
  std::optional<uid_t> owner;  // a replaced file's owner and group, kept when the system allows
  std::optional<gid_t> group;
};

// Checks `path` as the destination of an output file, before any work. Throws UsageError (one line
// naming `path`) when: it is empty or ends with '/'; it, or the file a symlink there points to, is
// a folder, a character or block device, a FIFO or a socket; it is one of `inputs` or a noted
// input (the same file through any path or link); its folder is missing or not a folder; the
// symlinks at it loop. Throws IoError when its folder is not writable.
[[nodiscard]] OutputTarget check_output_file(const std::string& path,
                                             const std::vector<FileId>& inputs = {},
                                             OutputAccess access = OutputAccess::DEFAULT);

// The file-type word for a mode ("a folder", "a FIFO", ...), for messages.
[[nodiscard]] std::string describe_file_type(mode_t mode);

// The process's umask (read once, without changing it for other threads).
[[nodiscard]] mode_t process_umask();

// The mkstemp/mkdtemp template of a temporary beside `destination` (a path): in the same folder,
// ".<up to 64 bytes of its name>.<8 hex of a hash of the whole name>.kbdata-<pid>-XXXXXX". The
// name stays under 100 bytes whatever the destination's length.
[[nodiscard]] std::string temporary_template(const std::string& destination);

// Removes the stale temporaries of `destination` (files or folders made from its template by
// processes that are gone, with no lock held on them). Returns how many were removed. Errors are
// ignored: a temporary that cannot be removed is left as it was.
int remove_stale_temporaries(const std::string& destination);

// Claims `target` for one live output of this process and returns the key to release it with.
// Throws UsageError when another live output already claimed it (--out and --plot naming one
// file: the second would silently replace the first).
[[nodiscard]] std::string claim_output(const OutputTarget& target);
void release_output(const std::string& key);

// Takes an exclusive advisory lock on `fd` for as long as it is open: marks a temporary as live
// for remove_stale_temporaries(). Returns false if the lock cannot be taken.
bool lock_temporary(int fd);

}  // namespace kbdata
