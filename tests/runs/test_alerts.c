/* test_alerts.c: the 21 fatal patterns of docs/runs-and-logs.md#alert-patterns,
 * each with lines that must and must not match. */
#include <pthread.h>
#include <stdlib.h>

#include <air/air.h>

#include "test.h"

static const struct {
	int32_t pattern;
	const char *yes[4];
	const char *no[4];
} cases[] = {
	{1, {"RuntimeError: CUDA out of memory. Tried to allocate", "cuda OUT OF MEMORY"},
	 {"CUDA out-of-memory", "CPU out of memory"}},
	{2, {"Out of memory: Killed process 123 (python)", "out of memory: kill process 9"},
	 {"Out of memory: Kills process", "Out of memory:Killed process"}},
	{3, {"received signal 9", "Signal\tSIGTERM", "got SIGNAL   sigkill"},
	 {"signal9", "signal SIGINT", "signal: 9"}},
	{4, {"[rank0]: Watchdog caught collective operation timeout: WorkNCCL"},
	 {"watchdog caught collective operation timeout", "Watchdog caught collective"}},
	{5, {"node1:77:77 [0] NCCL WARN NET/IB : Got completion", "nccl warn x Timeout",
	     "NCCL WARN Conn closed", "NCCL WARN unhandled system error"},
	 {"NCCL INFO NET/IB", "NCCL WARN", "NCCL WARN: Net down"}},
	{6, {"misc: Got async error event: port error"}, {"got async error event", "Got async error"}},
	{7, {"misc/transport/net_ib.cc:1295 -> 3 WARN ibv_poll_cq error", "transport/net_ib.cc:7 WARN"},
	 {"transport/net_ib.cc: WARN", "transport/net_ibxcc:12 WARN", "transport/net_ib.cc:12 warn"}},
	{8, {"CUDA error: device-side assert", "cuda Runtime ERROR 700", "CUDA runtime error"},
	 {"CUDA  error", "CUDAerror", "CUDA runtime: error"}},
	{9, {"RuntimeError: an illegal memory access was encountered",
	     "AN ILLEGAL MEMORY ACCESS WAS ENCOUNTERED"},
	 {"an illegal memory access"}},
	{10, {"CUDA kernel errors might be asynchronously reported at some other API call"},
	 {"cuda kernel errors might be asynchronously reported"}},
	{11, {"Segmentation fault (core dumped)", "fatal: SEGMENTATION FAULT"},
	 {"segmentation-fault", "segfault"}},
	{12, {"composer.utils.object_store.ObjectStoreTransientError: x"},
	 {"composer.utils.Foo", "composer_utils_Error", "Composer.utils.Error"}},
	{13, {"composer.trainer: OutOfMemory", "COMPOSER hit outofmemory"},
	 {"composer ran out of memory", "OutOfMemory in composer"}},
	{14, {"torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
	      "torch.distributed.DistBackendException: x"},
	 {"torch.distributed.elastic started", "torch_distributed.Error", "torch.distributed.error"}},
	{15, {"TCPStore timed out", "store get timeout", "Store.get timed  out", "tcpstore TIMEOUT"},
	 {"Store timing out", "Stor timed out", "timed out store"}},
	{16, {"NVRM: Xid (PCI:0000:07:00): 79, pid=1", "Xid 48 detected", "Xid: 94", "Xid 63\n"},
	 {"Xid 480 detected", "Xid 148", "xid 79", "Xid79"}},
	{17, {"streaming.base.dataset.StreamingDatasetError: x",
	      "streaming.base.format.Exception occurred"},
	 {"streaming.base.dataset started", "streaming_base_Error"}},
	{18, {"Killed", "  Killed  ", "\tKilled\r"}, {"Killed process", "killed", "Not Killed"}},
	{19, {"[MLflow Logger][Warning] No new logs have been emitted for 10 minutes"},
	 {"[MLflow Logger][Info] No new logs have been emitted", "MLflow Logger Warning No new logs "
	                                                          "have been emitted"}},
	{20, {"ERROR: Script failed with exit code 1 after 30s",
	      "ERROR: Script failed with exit code 137 after 5s"},
	 {"ERROR: Script failed with exit code 0 after 30s",
	  "ERROR: Script failed with exit code 01 after 3s",
	  "ERROR: Script failed with exit code 2 after s", "error: script failed with exit code 1 after 3s"}},
	{21, {"bash: torchrun: command not found", "COMMAND NOT FOUND"}, {"command was not found"}},
};

AIR_TEST(alerts__count_and_patterns)
{
	ASSERT_EQ_INT(air_log_alert_pattern_count(), 21);
	ASSERT_EQ_STR(air_log_alert_pattern(1), "(?i)CUDA out of memory");
	ASSERT_EQ_STR(air_log_alert_pattern(16), "Xid.*\\b(48|63|64|79|94|95)\\b");
	ASSERT_EQ_STR(air_log_alert_pattern(21), "(?i)command not found");
	ASSERT_NULL(air_log_alert_pattern(0));
	ASSERT_NULL(air_log_alert_pattern(22));
	ASSERT_NULL(air_log_alert_pattern(-1));
}

AIR_TEST(alerts__every_pattern_positive_and_negative)
{
	ASSERT_EQ_INT(sizeof(cases) / sizeof(cases[0]), 21);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int k = 0; k < 4 && cases[i].yes[k]; k++) {
			const char *l = cases[i].yes[k];
			if (air_log_match_alert(l, strlen(l)) != cases[i].pattern)
				FAIL("pattern %d should match \"%s\" (got %d)", cases[i].pattern, l,
				     air_log_match_alert(l, strlen(l)));
		}
		for (int k = 0; k < 4 && cases[i].no[k]; k++) {
			const char *l = cases[i].no[k];
			int32_t got = air_log_match_alert(l, strlen(l));
			if (got == cases[i].pattern)
				FAIL("pattern %d must not match \"%s\"", cases[i].pattern, l);
		}
	}
}

AIR_TEST(alerts__plain_lines_and_edges)
{
	static const char *const quiet[] = {"", "step 1 loss=0.5", "epoch 3/10",
	                                    "INFO: everything is fine", "Xid"};
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		ASSERT_EQ_INT(air_log_match_alert(quiet[i], strlen(quiet[i])), 0);
	ASSERT_EQ_INT(air_log_match_alert(NULL, 0), 0);
	/* Only @len bytes count, and NULs inside the line are fine. */
	ASSERT_EQ_INT(air_log_match_alert("Killed process", 6), 18);
	ASSERT_EQ_INT(air_log_match_alert("x\0Segmentation fault", 20), 11);
	ASSERT_EQ_INT(air_log_match_alert("Segmentation fault", 12), 0);
}

AIR_TEST(alerts__long_lines)
{
	size_t n = 1 << 20;
	char *line = malloc(n + 32);

	memset(line, 'x', n);
	memcpy(line + n, " CUDA out of memory", 19);
	ASSERT_EQ_INT(air_log_match_alert(line, n + 19), 1);
	ASSERT_EQ_INT(air_log_match_alert(line, n), 0);
	free(line);
}

static void *match_many(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		const char *l = cases[i % 21].yes[0];
		if (air_log_match_alert(l, strlen(l)) != cases[i % 21].pattern)
			return (void *)1;
	}
	return NULL;
}

AIR_TEST(alerts__thread_safe_first_use)
{
	pthread_t t[8];
	void *bad = NULL;

	for (int i = 0; i < 8; i++)
		ASSERT_EQ_INT(pthread_create(&t[i], NULL, match_many, NULL), 0);
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad = bad ? bad : r;
	}
	ASSERT_NULL(bad);
}
