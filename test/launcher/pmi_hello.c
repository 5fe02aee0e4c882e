/* pmi_hello.c: PMI-1 client check: put, barrier, get every rank's key; prints " No Errors". */
#include "pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Optional behaviour for the launcher tests, chosen by PMI_HELLO_MODE:
 * "abort"    rank 1 calls PMI_Abort(7) after the barrier, the others wait;
 * "segv"     rank 1 raises SIGSEGV after the barrier, the others wait;
 * "nofinal"  rank 1 exits 0 without PMI_Finalize, the others wait in a barrier.
 * PMI_HELLO_APPNUM=N: the appnum PMI must report (default 0), for MPMD jobs. */

static int errors;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != PMI_SUCCESS) {                                                                  \
            fprintf(stderr, "rank %d: %s returned %d: %s\n", rank, #call, rc_, PMIU_last_error()); \
            errors++;                                                                              \
            goto fn_exit;                                                                          \
        }                                                                                          \
    } while (0)

int main(void)
{
    int spawned = -1, rank = -1, size = -1, usize = -1, appnum = -1;
    int namemax, keymax, valmax;
    char kvsname[256], key[64], value[1024], expect[1024];
    const char *mode = getenv("PMI_HELLO_MODE");
    const char *want_appnum = getenv("PMI_HELLO_APPNUM");

    CHECK(PMI_Init(&spawned));
    CHECK(PMI_Get_rank(&rank));
    CHECK(PMI_Get_size(&size));
    CHECK(PMI_Get_universe_size(&usize));
    CHECK(PMI_Get_appnum(&appnum));
    CHECK(PMI_KVS_Get_name_length_max(&namemax));
    CHECK(PMI_KVS_Get_key_length_max(&keymax));
    CHECK(PMI_KVS_Get_value_length_max(&valmax));
    CHECK(PMI_KVS_Get_my_name(kvsname, (int)sizeof(kvsname)));
    /* Hydra reports a universe size of -1 when none was given. */
    if (spawned != 0 || size < 1 || rank < 0 || rank >= size || (usize != -1 && usize < size) ||
        appnum != (want_appnum ? atoi(want_appnum) : 0) || namemax < 16 || keymax < 16 || valmax < 64 || kvsname[0] == '\0') {
        fprintf(stderr,
                "rank %d: bad job info: spawned=%d size=%d universe=%d appnum=%d "
                "maxes=%d/%d/%d kvsname='%s'\n",
                rank, spawned, size, usize, appnum, namemax, keymax, valmax, kvsname);
        errors++;
    }

    snprintf(key, sizeof(key), "hello-%d", rank);
    snprintf(value, sizeof(value), "rank%d-of-%d-pid%ld", rank, size, (long)getpid());
    CHECK(PMI_KVS_Put(kvsname, key, value));
    CHECK(PMI_KVS_Commit(kvsname));
    CHECK(PMI_Barrier());

    for (int i = 0; i < size; i++) {
        snprintf(key, sizeof(key), "hello-%d", (rank + i) % size);
        snprintf(expect, sizeof(expect), "rank%d-of-%d-pid", (rank + i) % size, size);
        CHECK(PMI_KVS_Get(kvsname, key, value, (int)sizeof(value)));
        if (strncmp(value, expect, strlen(expect)) != 0) {
            fprintf(stderr, "rank %d: %s is '%s', expected it to start with '%s'\n", rank, key,
                    value, expect);
            errors++;
        }
    }
    /* A value near the line limit survives the round trip: 900 bytes plus
     * "cmd=put kvsname=<~30> key=long-N value=" stays under 1024. */
    char longval[901];
    for (int i = 0; i < 900; i++)
        longval[i] = (char)('a' + (i + rank) % 26);
    longval[900] = '\0';
    snprintf(key, sizeof(key), "long-%d", rank);
    CHECK(PMI_KVS_Put(kvsname, key, longval));
    CHECK(PMI_Barrier());
    snprintf(key, sizeof(key), "long-%d", (rank + 1) % size);
    CHECK(PMI_KVS_Get(kvsname, key, value, (int)sizeof(value)));
    for (int i = 0; i < 900; i++)
        longval[i] = (char)('a' + (i + (rank + 1) % size) % 26);
    if (strcmp(value, longval) != 0) {
        fprintf(stderr, "rank %d: %s came back as %zu bytes '%.40s...', expected 900 bytes\n",
                rank, key, strlen(value), value);
        errors++;
    }
    /* A miss must fail cleanly and leave the connection usable. */
    if (PMI_KVS_Get(kvsname, "no-such-key", value, (int)sizeof(value)) == PMI_SUCCESS) {
        fprintf(stderr, "rank %d: get of a missing key succeeded with '%s'\n", rank, value);
        errors++;
    }
    CHECK(PMI_KVS_Get(kvsname, "PMI_process_mapping", value, (int)sizeof(value)));
    if (strncmp(value, "(vector,", 8) != 0) {
        fprintf(stderr, "rank %d: PMI_process_mapping is '%s'\n", rank, value);
        errors++;
    }

    if (mode && rank == 1 && size > 1) {
        if (strcmp(mode, "abort") == 0)
            PMI_Abort(7, "pmi_hello asked to abort");
        if (strcmp(mode, "segv") == 0)
            *(volatile int *)0 = 1;
        if (strcmp(mode, "nofinal") == 0)
            return 0;
    }
    if (mode && size > 1) {
        /* Keep the others busy so the launcher has something to kill. */
        PMI_Barrier();
        sleep(60);
    }
    CHECK(PMI_Barrier());
    CHECK(PMI_Finalize());

fn_exit:
    if (errors == 0 && rank == 0)
        printf(" No Errors\n");
    return errors ? 1 : 0;
}
