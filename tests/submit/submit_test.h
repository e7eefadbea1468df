/*
 * submit_test.h: helpers shared by the submit tests — reading a .tar.gz,
 * running shell commands to set up fixtures, git repositories.
 */
#ifndef AIR_SUBMIT_TEST_H
#define AIR_SUBMIT_TEST_H

#include <stdbool.h>
#include <stddef.h>

/* One archive entry: "d" directory, "f" file (with data), "l" symlink (target). */
typedef struct tar_item {
	char *name;
	char type;
	char *data;  /* file contents (NUL-terminated) or link target */
	size_t len;
	unsigned mode;
} tar_item;

typedef struct tar_list {
	tar_item *items;
	size_t n;
} tar_list;

/* Read a gzip-compressed tar from memory; fails the test when unreadable. */
void tar_read(const void *data, size_t len, tar_list *out);
void tar_free(tar_list *l);
/* "a/,a/b,a/c" — the entry names in archive order, comma-separated (static buffer). */
const char *tar_names(const tar_list *l);
const tar_item *tar_find(const tar_list *l, const char *name);

/* Run a shell command line (fixtures only); fails the test on a non-zero exit. */
void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Output of a shell command, trimmed (static buffer). */
const char *sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* git repository at @dir with one commit of @files ("name=content" pairs, NULL-terminated);
 * returns the commit SHA (static buffer). */
const char *git_repo(const char *dir, const char *const *files);
/* Programs a test puts on PATH (fake credential helpers, nvidia-smi...):
 * PATH back to what the process started with, *dir a fresh test directory
 * and *bin its empty bin/ folder (static buffers). */
void test_bin_begin(const char **dir, const char **bin);
/* The executable script @name in the bin/ folder, in front of PATH. */
void test_bin_program(const char *name, const char *script);

/* Whether the tests run as root (file permissions do not stop root). */
bool running_as_root(void);
/* Whether the test runs under valgrind (memory figures mean nothing then). */
bool under_valgrind(void);
/* @files files of @mib_each MiB of incompressible bytes under @dir, in 8
 * subdirectories. */
void big_tree(const char *dir, int files, int mib_each);
/* Peak resident size of this process so far (getrusage), in KiB. */
long peak_rss_kib(void);

#endif /* AIR_SUBMIT_TEST_H */

/* ---- the fake workspace (tests of the submission flow) ---- */
#include <jansson.h>

#include <air/air.h>

#include "fakews.h"

/* The shared server of this test binary, reset before every test (install
 * flow_hooks with AIR_TEST_HOOKS(flow_setup, NULL)). */
extern fakews *flow_fw;
void flow_setup(void);

/* Write @yaml to <tmp>/<name> and load + validate it (FAIL on errors). */
air_config *load_yaml(const char *dir, const char *name, const char *yaml);
/* "METHOD path" of every recorded request, one per line (static buffer). */
const char *request_log(void);
/* Number of recorded requests whose decoded path starts with @prefix. */
int count_prefix(const char *method, const char *prefix);
/* The JSON body of the most recent @method @path request (FAIL when absent). */
json_t *last_body(const char *method, const char *path);
/* Compare two JSON values (FAIL with both printed). Steals @got. */
void assert_json_eq(json_t *got, const char *want);
/* A lowercase hyphenated UUIDv4. */
bool is_uuid4(const char *s);
bool has_prefix(const char *s, const char *prefix);
bool has_suffix(const char *s, const char *suffix);
/* Member @key of the last @method @path body (a new reference). */
json_t *last_body_member(const char *method, const char *path, const char *key);
