/*
 * supervisor.h: the air-local-supervisor program (supervisor_main.c), which
 * runs one local run to its end: supervisor.c (attempts, retries, timeout,
 * cancellation, status.json, node logs), node.c (a node's processes) and
 * extractor.c (the code snapshot, extracted by the air-local-extract program).
 *
 * A node is two processes: a guard, forked by the supervisor, leader of a
 * new process group, and the command (bash command.sh), the guard's child
 * in that group. The supervisor stops a node with SIGTERM to the guard,
 * which passes it on to its whole group once the command has started (a
 * stop that comes earlier waits for it), then SIGKILL to the group; after
 * the guard exits it kills what is left of the group before reaping it (so
 * the group id cannot have been reused). The guard holds no lock; it exits
 * with the command's status, and when the supervisor dies (its parent-death
 * signal) it kills its whole group, so no node outlives a killed supervisor.
 *
 * A process that leaves its node's group (setsid, a daemon) is not reached
 * by the group's signals. On Linux the supervisor is the subreaper of its
 * descendants: such a process becomes its child once its own parent ends,
 * and every child left when an attempt's nodes are gone is ended with the
 * attempt.
 */
#ifndef AIR_LOCAL_SUPERVISOR_H
#define AIR_LOCAL_SUPERVISOR_H

#include <signal.h>

#include "local/local_priv.h"

/* How long a node has to exit after SIGTERM before SIGKILL. */
#define AIR__LOCAL_KILL_GRACE_MS 10000

typedef struct air__lnode_spec {
	const char *shell;      /* "/bin/bash" */
	const char *script;     /* <run>/launch/command.sh */
	const char *cwd;        /* the node's working directory */
	char *const *env;       /* the node's environment */
	int out_fd;             /* write end of the node's output pipe (stdout and stderr) */
} air__lnode_spec;

/* Start a node: the guard's pid (also the node's process group), or -1. */
pid_t air__lnode_start(const air__lnode_spec *spec);

/* Close every descriptor from @lowest up (close_range() where there is one). */
void air__lclose_from(int lowest);

/* Run on the CPUs @list names ("0,1,3": those of the submitting thread,
 * the supervisor's CPUS argument); libair let the supervisor load on the
 * others only (spawn.c). When they are all this process may have, it asks
 * for every CPU instead, as a process started without a choice of CPUs has
 * them (it then follows its cpuset when that changes). A list that cannot
 * be read or taken (said on stderr) gets every CPU too; "-" changes nothing. */
void air__lnode_take_cpus(const char *list);

/* Make this process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER,
 * Linux only): false when it cannot be. */
bool air__lnode_adopt_orphans(void);

/* Read what the self-pipe @wake (non-blocking) holds: its wake-ups are seen. */
void air__lwake_drain(int wake);

/* End every child of this process — call it when no node is left: SIGTERM
 * to each (its process group when it leads one), SIGKILL after @grace_ms
 * to what is left and to what they orphan, until none is left. @wake is the
 * self-pipe SIGCHLD writes to. */
void air__lnode_end_strays(int wake, int64_t grace_ms);

/* Extract the code snapshot @archive into @dest with the program @extractor
 * (extract_main.c), ending it when *@stop_signal is set or the file @cancel
 * (may be NULL) appears (@wake: as for air__lsupervise()). On success *@top
 * gets the snapshot's top-level folder (NULL when it has none; air__free()
 * it); else @why gets the reason. */
int air__lextract_with(const char *extractor, const char *archive, const char *dest,
                       const char *cancel, int wake, volatile sig_atomic_t *stop_signal,
                       char **top, air__buf *why);

/* Run @run_id of @state_dir to its end. @secrets ({"NAME": "value"}) is
 * borrowed; @extractor is the program that extracts a code snapshot. @wake is the read end of the self-pipe that SIGCHLD and the stop
 * signals write to; *@stop_signal is set by the latter. Returns the
 * program's exit status. */
int air__lsupervise(const char *state_dir, int64_t run_id, const json_t *secrets,
                    const char *extractor, int wake, volatile sig_atomic_t *stop_signal);

#endif /* AIR_LOCAL_SUPERVISOR_H */
