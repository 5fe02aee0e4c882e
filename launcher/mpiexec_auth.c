/* mpiexec_auth.c: the job's secret and the remote ranks' PMI tokens (doc/security.md). */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

/* Fills buf from the kernel's random pool (getrandom blocks only until the
 * pool is initialised at boot, then never). */
static int random_bytes(unsigned char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = getrandom(buf, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "mpiexec: getrandom: %s (errno %d)\n", strerror(errno), errno);
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void to_hex(const unsigned char *b, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * len] = '\0';
}

int MPIEXEC_auth_init(void)
{
    unsigned char
        b[MPIEXEC_SECRET_BYTES > MPIEXEC_TOKEN_BYTES ? MPIEXEC_SECRET_BYTES : MPIEXEC_TOKEN_BYTES];
    if (random_bytes(b, MPIEXEC_SECRET_BYTES) != 0)
        return -1;
    to_hex(b, MPIEXEC_SECRET_BYTES, job.secret_hex);
    for (int i = 0; i < job.size; i++) {
        if (!job.ranks[i].remote)
            continue;
        if (random_bytes(b, MPIEXEC_TOKEN_BYTES) != 0)
            return -1;
        to_hex(b, MPIEXEC_TOKEN_BYTES, job.ranks[i].token);
    }
    memset(b, 0, sizeof(b));
    return 0;
}

int MPIEXEC_auth_equal(const char *a, const char *b)
{
    /* Constant time in the contents: how much of a guess was right must not
     * show in how long the answer takes. */
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < la && i < lb; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}
