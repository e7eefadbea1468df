/* test_sha256.c: SHA-256 against FIPS 180-4 vectors and the snapshot cache
 * key vectors of docs/submit.md#code-snapshot. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "submit/snapshot.h"
#include "test.h"

static void hex_of(const char *s, char out[65])
{
	air__sha256_hex(s, strlen(s), out);
}

AIR_TEST(sha256__empty)
{
	char h[65];

	hex_of("", h);
	ASSERT_EQ_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

AIR_TEST(sha256__abc)
{
	char h[65];

	hex_of("abc", h);
	ASSERT_EQ_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

AIR_TEST(sha256__two_blocks)
{
	char h[65];

	/* 56 bytes: the length no longer fits in the first block's padding. */
	hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", h);
	ASSERT_EQ_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

AIR_TEST(sha256__million_a_incremental)
{
	struct sha256_ctx s;
	char h[65];
	char chunk[1000];

	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&s);
	/* odd-sized updates cross block boundaries in every way */
	for (size_t done = 0, step = 1; done < 1000000; step = step % 997 + 1) {
		size_t n = step;
		if (n > 1000000 - done)
			n = 1000000 - done;
		sha256_update(&s, n, (const uint8_t *)chunk);
		done += n;
	}
	air__sha256_hex_digest(&s, h);
	ASSERT_EQ_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static const char commit[] = "a3492b801c0ffee00000000000000000000dead";

AIR_TEST(sha256__cache_key_without_include_paths)
{
	char *k = air__snapshot_cache_key(commit, NULL, 0);

	ASSERT_EQ_STR(k, "8d7bc445ac83dfe432a353718ae8b1ae40eb00c860352662e6df96b7fdf862a5");
	air__free(k);
}

AIR_TEST(sha256__cache_key_one_path)
{
	const char *paths[] = {"research"};
	char *k = air__snapshot_cache_key(commit, paths, 1);

	ASSERT_EQ_STR(k, "97bd562ad591af23b9a05651d88c01abbbcc24632e9a8f2534230a61492b9e0a");
	air__free(k);
}

AIR_TEST(sha256__cache_key_paths_sorted_and_trimmed)
{
	const char *paths[] = {"c", "a", "b"}, *spaced[] = {" b ", "c", "\ta"};
	char *k = air__snapshot_cache_key(commit, paths, 3);
	char *k2 = air__snapshot_cache_key(commit, spaced, 3);

	ASSERT_EQ_STR(k, "17d021577e3615e9a603a2f701f918d74ad16218efc4b2950ee20f6a18b1a174");
	ASSERT_EQ_STR(k2, k);
	air__free(k);
	air__free(k2);
}
