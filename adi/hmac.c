/* hmac.c: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for proving knowledge of the job's
 * secret without sending it (doc/security.md).  Written from the two standards; checked against
 * their test vectors by test/unit/hmac_test.  Not a general crypto library: no streaming API
 * beyond what the handshake needs, no hardware acceleration (a handshake hashes a few hundred
 * bytes). */
#include "hmac.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state (FIPS 180-4, 6.2.2). */
static void compress(uint32_t h[8], const unsigned char *block)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 =
            hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void MPIDU_sha256_init(MPIDU_sha256_t *s)
{
    /* The first 32 bits of the fractional parts of the square roots of the
     * first 8 primes (FIPS 180-4, 5.3.3). */
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
    s->nbuf = 0;
}

void MPIDU_sha256_update(MPIDU_sha256_t *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    while (len > 0) {
        size_t n = 64 - s->nbuf < len ? 64 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, n);
        s->nbuf += n;
        p += n;
        len -= n;
        if (s->nbuf == 64) {
            compress(s->h, s->buf);
            s->nbuf = 0;
        }
    }
}

void MPIDU_sha256_final(MPIDU_sha256_t *s, unsigned char out[MPIDU_SHA256_LEN])
{
    /* Padding (5.1.1): a 1 bit, zeros up to 56 bytes mod 64, the length in
     * bits as a 64-bit big-endian number. */
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80;
    MPIDU_sha256_update(s, &pad, 1);
    pad = 0;
    while (s->nbuf != 56)
        MPIDU_sha256_update(s, &pad, 1);
    unsigned char lenbe[8];
    for (int i = 0; i < 8; i++)
        lenbe[i] = (unsigned char)(bits >> (56 - 8 * i));
    MPIDU_sha256_update(s, lenbe, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
    memset(s, 0, sizeof(*s));
}

/* HMAC (RFC 2104): H((K ^ opad) || H((K ^ ipad) || message)), with a key
 * longer than the 64-byte block hashed first. */
void MPIDU_hmac_sha256(const void *key, size_t key_len, const MPIDU_bytes_t *parts, int nparts,
                       unsigned char out[MPIDU_SHA256_LEN])
{
    unsigned char k[64] = {0}, pad[64], inner[MPIDU_SHA256_LEN];
    MPIDU_sha256_t s;
    if (key_len > sizeof(k)) {
        MPIDU_sha256_init(&s);
        MPIDU_sha256_update(&s, key, key_len);
        MPIDU_sha256_final(&s, k);
    } else {
        memcpy(k, key, key_len);
    }
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x36;
    MPIDU_sha256_init(&s);
    MPIDU_sha256_update(&s, pad, 64);
    for (int i = 0; i < nparts; i++)
        MPIDU_sha256_update(&s, parts[i].data, parts[i].len);
    MPIDU_sha256_final(&s, inner);
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x5c;
    MPIDU_sha256_init(&s);
    MPIDU_sha256_update(&s, pad, 64);
    MPIDU_sha256_update(&s, inner, sizeof(inner));
    MPIDU_sha256_final(&s, out);
    memset(k, 0, sizeof(k));
    memset(pad, 0, sizeof(pad));
    memset(inner, 0, sizeof(inner));
}

int MPIDU_mem_equal(const void *a, const void *b, size_t len)
{
    /* Constant time: how many leading bytes of a forged MAC were right must
     * not show in how long the check takes. */
    const unsigned char *x = a, *y = b;
    unsigned char diff = 0;
    for (size_t i = 0; i < len; i++)
        diff |= x[i] ^ y[i];
    return diff == 0;
}
