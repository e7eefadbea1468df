/*
 * core_archive.h: libarchive, loaded when a code snapshot is first packed or
 * extracted.
 *
 * libarchive brings libxml2, ICU and the C++ runtime with it; a program
 * that never packs or extracts a snapshot (most runs of `air`, every local
 * node's supervisor) should not pay for loading them. Its functions are
 * called through air__la, filled by air__libarchive_load(). A libarchive
 * built with libair (a meson subproject) is linked in instead.
 *
 * The snapshot writer (submit) and extractor (local) include this header;
 * nothing else calls libarchive.
 */
#ifndef AIR_CORE_CORE_ARCHIVE_H
#define AIR_CORE_CORE_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>

#include "core/base.h"

#define AIR__ARCHIVE_CALLS(X)                                                                  \
	X(archive_error_string) X(archive_entry_new) X(archive_entry_free)                         \
	X(archive_entry_pathname) X(archive_entry_hardlink) X(archive_entry_size)                \
	X(archive_entry_filetype) X(archive_entry_copy_pathname) X(archive_entry_copy_hardlink)  \
	X(archive_entry_copy_symlink) X(archive_entry_copy_uname) X(archive_entry_copy_gname)    \
	X(archive_entry_set_mode) X(archive_entry_set_mtime) X(archive_entry_set_size)           \
	X(archive_entry_set_uid) X(archive_entry_set_gid) X(archive_read_new) X(archive_read_free) \
	X(archive_read_support_filter_all) X(archive_read_support_format_tar)                     \
	X(archive_read_open_fd) X(archive_read_open_filename) X(archive_read_next_header)         \
	X(archive_read_data_block) X(archive_write_new) X(archive_write_free)                     \
	X(archive_write_add_filter_gzip) X(archive_write_set_format_pax_restricted)              \
	X(archive_write_set_bytes_in_last_block) X(archive_write_open) X(archive_write_header)    \
	X(archive_write_data) X(archive_write_data_block) X(archive_write_finish_entry)          \
	X(archive_write_close) X(archive_write_disk_new) X(archive_write_disk_set_options)

#define AIR__ARCHIVE_MEMBER(f) __typeof__(&f) f;
/* libarchive's functions, valid once air__libarchive_load() succeeded. */
typedef struct air__libarchive_api {
	AIR__ARCHIVE_CALLS(AIR__ARCHIVE_MEMBER)
} air__libarchive_api;
#undef AIR__ARCHIVE_MEMBER

extern air__libarchive_api air__la;

/* Load libarchive (once per process; thread-safe). True when air__la is
 * ready, else false with the reason appended to @why. */
bool air__libarchive_load(air__buf *why);

#endif
