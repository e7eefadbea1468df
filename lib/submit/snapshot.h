/*
 * snapshot.h: the code snapshot of a submission: root
 * resolution, the packaging plan (plain tar or git archive), packaging into a
 * gzip-compressed tar with every entry under "<dirname>/", the cache key and
 * the upload. Private to snapshot*.c, git_state.c and the submit flow.
 *
 * Everything that can be checked locally is checked by air__snapshot_plan()
 * before the submission sends its first request; a plain-tar snapshot is
 * also packaged then, so unreadable files and escaping symlinks fail early.
 *
 * The archive is written to an unlinked temporary file and uploaded from it,
 * so memory stays flat whatever the size of the tree.
 */
#ifndef AIR_SNAPSHOT_H
#define AIR_SNAPSHOT_H

#include "transport/transport.h"
#include "core/core.h"

/* Largest .tar.gz (and, in git mode, uncompressed git archive) accepted. */
#define AIR__SNAPSHOT_MAX_BYTES ((size_t)1024 * 1024 * 1024)

typedef enum air__snapshot_mode {
	AIR__SNAPSHOT_PLAIN = 1, /* the working tree, filtered by the root .gitignore */
	AIR__SNAPSHOT_GIT = 2    /* git archive of git.commit / git.branch */
} air__snapshot_mode;

/* Environment lookup used for $VAR expansion (getenv in production). */
typedef const char *(*air__getenv_fn)(const char *name, void *ud);

/* What the workload says about its snapshot; strings are borrowed. */
typedef struct air__snapshot_spec {
	const char *root_path;      /* as written (trimmed) */
	const char *base_dir;       /* directory of the YAML file; NULL = cwd */
	const char *home;           /* for ~ expansion; NULL = $HOME */
	const char *git_commit;     /* as written, or NULL */
	const char *git_branch;     /* or NULL */
	const char *const *include_paths;
	size_t n_include_paths;
	const air__ctx *ctx;
} air__snapshot_spec;

/* A packaged archive: an unlinked temporary file (in $TMPDIR, else /tmp)
 * holding the .tar.gz, with its size and SHA-256. */
typedef struct air__archive {
	int fd;              /* -1 when none */
	int64_t size;
	char sha256[65];     /* lowercase hex, once complete */
	int64_t files;       /* regular files archived */
	int64_t content_bytes; /* their bytes, uncompressed */
} air__archive;

#define AIR__ARCHIVE_INIT {-1, 0, {0}, 0, 0}

/* An unlinked temporary file for a snapshot (descriptor), or -1 with an error. */
int air__snapshot_tmpfile(air_error **err);
/* Close the archive's file (it disappears); the archive is empty again. */
void air__archive_dispose(air__archive *a);
/* air__http_source over an archive (@ud: the air__archive). */
ssize_t air__archive_read_at(void *ud, int64_t offset, void *buf, size_t len);

typedef struct air__snapshot {
	air__snapshot_mode mode;
	char *root;          /* resolved absolute root directory */
	char *dirname;       /* its last component: the archive's top directory */
	bool in_git;         /* root lies inside a git work tree (sidecars) */
	char *sha;           /* git mode: full SHA archived */
	char *cache_key;     /* git mode: 64 hex digits */
	char **include;      /* include paths, trimmed, YAML order */
	size_t n_include;
	char *archive_name;  /* "<dirname>_<key16>.tar.gz" or "<dirname>_<UTC>.tar.gz" */
	air__archive archive; /* the .tar.gz once packaged */
	bool packaged;
} air__snapshot;

/* The spec of @w's snapshot: @base_dir (NULL: the config's), the home of
 * client @c (AIR_OPT_HOME_DIR, else $HOME; @c may be NULL) (inspect.c). */
struct air__workload; /* submit.h, which includes this header */
void air__snapshot_spec_of(const struct air__workload *w, const air_client *c, const char *base_dir,
                           const air__ctx *ctx, air__snapshot_spec *spec);

/* ---- plan and packaging (snapshot_plan.c) ---- */
int air__snapshot_plan(const air__snapshot_spec *spec, air__snapshot *s, air_error **err);
int air__snapshot_package(air__snapshot *s, const air__ctx *ctx, air_error **err);
void air__snapshot_dispose(air__snapshot *s);

/* ---- pure helpers (snapshot_paths.c) ---- */
/* $VAR/${VAR} (unset = empty), leading ~, project_root/ prefix,
 * relative to @base_dir, made absolute and cleaned. air__free(). */
char *air__snapshot_resolve_root(const char *root_path, const char *base_dir, const char *home,
                                 air__getenv_fn getenv_fn, void *ud);
/* SHA-256 hex of "<commit>\n<sorted trimmed paths>\nv1". */
char *air__snapshot_cache_key(const char *commit, const char *const *paths, size_t n);
/* "<remote_volume or <user_base>/.air/repo_snapshots>/.internal",
 * prefixed with /Workspace unless under /Workspace or /Volumes. */
char *air__snapshot_upload_dir(const char *remote_volume, const char *user_base);

/* ---- root .gitignore translation (snapshot_ignore.c) ---- */
typedef struct air__ignore {
	char **anchored;     /* fnmatch patterns over the whole member name "<dirname>/..." */
	size_t n_anchored;
	char **component;    /* fnmatch patterns over any single component below the root */
	size_t n_component;
} air__ignore;

/* Translate .gitignore @text (lossily) for archive top directory @dirname. */
int air__ignore_parse(const char *text, size_t len, const char *dirname, air__ignore *ig);
/* True when member "<dirname>/<rel>" is excluded: .git, ._* or a translated pattern. */
bool air__ignore_excludes(const air__ignore *ig, const char *dirname, const char *rel);
void air__ignore_dispose(air__ignore *ig);

/* ---- archives (snapshot_tar.c) ---- */
/* Plain tar of @root (or only @include paths) under "<dirname>/" into a new
 * archive @out (streamed to its file; disposed on failure). */
int air__snapshot_tar_plain(const char *root, const char *dirname, const air__ignore *ig,
                            char *const *include, size_t n_include, const air__ctx *ctx,
                            air__archive *out, air_error **err);
/* Re-compress the uncompressed tar in @fd (git archive output) into a new
 * archive @out, checking that every entry lies under "<dirname>/". */
int air__snapshot_tar_repack(int fd, const char *dirname, air__archive *out, air_error **err);

/* ---- destination (snapshot_upload.c) ---- */
/* Whether a snapshot already exists at @path (workspace get-status, or the
 * Files API under /Volumes). Used in git mode, whose names are content keys. */
int air__snapshot_find(air_client *c, const air__ctx *ctx, const char *path, bool *exists,
                       air_error **err);
/* Upload the packaged snapshot to @path (import-file, or a Files API PUT),
 * streamed from its file. Without @overwrite an existing file at @path is
 * AIR_ECONFLICT and stays as it is. */
int air__snapshot_put(air_client *c, const air__ctx *ctx, const air__snapshot *s, const char *path,
                      bool overwrite, air_error **err);
/* "<dirname>_<UTC>_<first 16 hex digits of the archive's SHA-256>.tar.gz":
 * the name a plain-tar snapshot takes when its time-stamped name is taken.
 * air__free(). */
char *air__snapshot_content_name(const air__snapshot *s);

/* ---- git provenance sidecars (git_state.c) ---- */
typedef struct air__git_state {
	const char *packaging_mode; /* "git_archive" | "plain_tar" */
	const char *base_commit;    /* each of these may be NULL (JSON null) */
	const char *tip_commit;
	const char *branch;
	const char *repo_url;
	bool dirty;
	const char *diff_status;    /* clean | captured | size_exceeded | timeout */
	const char *diff_path;
	int64_t generated_at_us;    /* epoch microseconds */
} air__git_state;

/* git_state.json: 2-space indented. air__free(). */
char *air__git_state_json(const air__git_state *st);
/* "https://user:secret@host/x" -> "https://host/x": never upload credentials. air__free(). */
char *air__git_url_without_credentials(const char *url);

typedef struct air__git_sidecars {
	char *state_json;   /* git_state.json */
	char *diff;         /* git_diff.patch contents, or NULL when not captured */
	size_t diff_len;
} air__git_sidecars;

/* Collect the sidecars of a snapshot whose root is in a git work tree.
 * Best effort: false (nothing to upload) when anything essential fails. */
bool air__git_sidecars_build(const air__snapshot *s, const char *launch_dir, const air__ctx *ctx,
                             air__git_sidecars *out);
void air__git_sidecars_dispose(air__git_sidecars *sc);

#endif /* AIR_SNAPSHOT_H */
