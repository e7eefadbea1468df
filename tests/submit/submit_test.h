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
/* Whether the tests run as root (file permissions do not stop root). */
bool running_as_root(void);

#endif /* AIR_SUBMIT_TEST_H */
