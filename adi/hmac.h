/* hmac.h: SHA-256 and HMAC-SHA256 for methods that authenticate connections with the job's secret.
 */
#ifndef HMAC_H_INCLUDED
#define HMAC_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#define MPIDU_SHA256_LEN 32

typedef struct MPIDU_sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
} MPIDU_sha256_t;

void MPIDU_sha256_init(MPIDU_sha256_t *s);
void MPIDU_sha256_update(MPIDU_sha256_t *s, const void *data, size_t len);
/* Writes the digest and wipes the state. */
void MPIDU_sha256_final(MPIDU_sha256_t *s, unsigned char out[MPIDU_SHA256_LEN]);

/* One piece of a message, so a MAC covers several fields without copying them together. */
typedef struct MPIDU_bytes {
    const void *data;
    size_t len;
} MPIDU_bytes_t;

/* HMAC-SHA256 of the concatenation of parts under key. */
void MPIDU_hmac_sha256(const void *key, size_t key_len, const MPIDU_bytes_t *parts, int nparts,
                       unsigned char out[MPIDU_SHA256_LEN]);
/* 1 if the len bytes at a and b are equal, in time that does not depend on where they differ. */
int MPIDU_mem_equal(const void *a, const void *b, size_t len);

#endif /* HMAC_H_INCLUDED */
