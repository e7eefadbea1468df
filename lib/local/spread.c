/*
 * spread.c: where the state directory's folders go on the disk.
 *
 * ext4 puts a new folder in its parent's block group, and a new file in its
 * folder's; without a journal, it then skips, one by one, every inode of
 * that group freed in the last one to six minutes. Under a /tmp that test
 * suites and builds fill and empty, a run's thirty files then cost
 * milliseconds each (docs/local.md, "What a start costs"). A folder marked
 * as the top of directory hierarchies (FS_TOPDIR_FL, chattr +T) has its
 * subfolders spread instead, to groups with fewer folders and more room
 * (the Orlov allocator). libair marks the folders it makes them in: each
 * run's (jobs/runs), each experiment's (mlruns), and the workspace's tree
 * (a folder made in it marks its parent first), not the state directory
 * itself, which a user may have chosen. The mark is a hint; file systems
 * without it ignore it.
 */
#include "local/local_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

void air__lspread_at(int dir)
{
#if defined(FS_IOC_GETFLAGS) && defined(FS_IOC_SETFLAGS) && defined(FS_TOPDIR_FL)
	int saved = errno, flags = 0;

	/* The kernel reads and writes an int, whatever the macros' type says. */
	if (ioctl(dir, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_TOPDIR_FL)) {
		flags |= FS_TOPDIR_FL;
		ioctl(dir, FS_IOC_SETFLAGS, &flags);
	}
	errno = saved;
#else
	(void)dir;
#endif
}

void air__lspread_below(const char *dir)
{
	int saved = errno, fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0) {
		air__lspread_at(fd);
		close(fd);
	}
	errno = saved;
}
