// The output folder of `kbdata export` (docs/export.md, "The output folder"): every file is
// written into a temporary folder beside DIR, and that folder takes DIR's place only when the
// whole export succeeded, so DIR either stays exactly as it was or holds exactly the files the
// new card lists.
//
//   check      before any work: DIR's folder exists and is writable; DIR is a folder (a symlink
//              to one is followed), not a mount point, and holds no input nor the working folder;
//              every entry of DIR is a regular file the new export writes, or (with --force) a
//              regular file an earlier kbdata export made or listed, which the export removes
//   stage      a folder from temporary_template(DIR) (output_target.h), locked while it lives and
//              removed on failure; its files get their final modes (below) before it is visible
//   commit     the staged folder is exchanged with DIR in one rename (renameat2 RENAME_EXCHANGE;
//              where the file system lacks it, DIR is moved aside and put back on failure), then
//              the previous folder's files, all checked, are removed
//
// Modes: a new file 0666 minus the umask, a replaced one keeps its mode (and owner, where the
// system allows); a new DIR 0777 minus the umask, an existing one keeps its mode. A private export
// (--private) makes every file 0600 and DIR 0700, replaced or not.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/output_target.h"

namespace kbdata::platform {

class ExportFolder {
 public:
  // Checks `dir` for an export that writes `files` (names inside it, the card included). Throws
  // UsageError (one line naming DIR or the entry) when DIR must not be used or holds an entry
  // the export may not replace or remove; IoError when its folder is not writable. Creates
  // nothing.
  ExportFolder(const std::string& dir, const std::vector<std::string>& files, bool is_private,
               bool force);
  ~ExportFolder();
  ExportFolder(const ExportFolder&) = delete;
  ExportFolder& operator=(const ExportFolder&) = delete;

  // Creates the temporary folder beside DIR. Throws IoError naming DIR when it cannot.
  void stage();

  // Where the output `name` (one of `files`) is written until commit(): inside the staged
  // folder, with the mode (and owner) it must have in DIR. stage() first.
  [[nodiscard]] OutputTarget target(const std::string& name) const;

  // Puts the staged folder in DIR's place and removes the previous folder's files. Throws
  // UsageError, changing nothing, when DIR gained an entry since the check; IoError when the
  // rename fails (DIR is then as it was).
  void commit();

  // The entries of the previous DIR that the export removed (--force), by name.
  [[nodiscard]] const std::vector<std::string>& removed() const { return removed_; }
  // Set when the previous folder could not be emptied after the swap (something was added to it
  // during the commit): where it was kept. Empty otherwise.
  [[nodiscard]] const std::string& kept_previous() const { return kept_previous_; }

 private:
  // The names in `dir_` that are neither outputs nor accepted for removal; empty when none.
  [[nodiscard]] std::vector<std::string> unexpected_entries() const;

  std::string shown_;  // DIR as the user named it
  std::string dir_;    // where DIR really is (symlinks resolved)
  std::vector<std::string> files_;
  bool is_private_ = false;
  bool exists_ = false;  // DIR existed at the check
  mode_t dir_mode_ = 0;  // the mode DIR gets
  std::optional<uid_t> dir_owner_;
  std::optional<gid_t> dir_group_;
  std::vector<std::string> removed_;  // accepted for removal at the check
  std::string staged_;                // the temporary folder, or empty
  int lock_fd_ = -1;
  bool committed_ = false;
  std::string kept_previous_;
};

}  // namespace kbdata::platform
