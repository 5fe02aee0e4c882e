/* hmac_test.c: SHA-256 against FIPS 180-4's examples and HMAC-SHA256 against RFC 4231's test
 * cases; one-byte updates must give the same digest as one update. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hmac.h"

static int errors;

static void hex(const unsigned char *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void check(const char *what, const unsigned char *got, const char *want)
{
    char h[2 * MPIDU_SHA256_LEN + 1];
    hex(got, MPIDU_SHA256_LEN, h);
    if (strcmp(h, want) != 0) {
        fprintf(stderr, "FAIL %s: got %s, want %s\n", what, h, want);
        errors++;
    }
}

static void sha(const char *what, const void *data, size_t len, const char *want)
{
    MPIDU_sha256_t s;
    unsigned char d[MPIDU_SHA256_LEN];
    MPIDU_sha256_init(&s);
    MPIDU_sha256_update(&s, data, len);
    MPIDU_sha256_final(&s, d);
    check(what, d, want);
    /* The same bytes one at a time: block boundaries fall everywhere. */
    MPIDU_sha256_init(&s);
    for (size_t i = 0; i < len; i++)
        MPIDU_sha256_update(&s, (const char *)data + i, 1);
    MPIDU_sha256_final(&s, d);
    check(what, d, want);
}

static void mac(const char *what, const void *key, size_t klen, const char *msg, const char *want)
{
    unsigned char d[MPIDU_SHA256_LEN];
    MPIDU_bytes_t one = {msg, strlen(msg)};
    MPIDU_hmac_sha256(key, klen, &one, 1, d);
    check(what, d, want);
    /* Split into two pieces: the MAC is over their concatenation. */
    size_t half = strlen(msg) / 2;
    MPIDU_bytes_t two[2] = {{msg, half}, {msg + half, strlen(msg) - half}};
    MPIDU_hmac_sha256(key, klen, two, 2, d);
    check(what, d, want);
}

int main(void)
{
    sha("sha256 empty", "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha("sha256 abc", "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha("sha256 448 bits", two_blocks, strlen(two_blocks),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    sha("sha256 million a", million, 1000000,
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);

    unsigned char k1[20], k3[20], k6[131];
    memset(k1, 0x0b, sizeof(k1));
    memset(k3, 0xaa, sizeof(k3));
    memset(k6, 0xaa, sizeof(k6));
    mac("rfc4231 case 1", k1, sizeof(k1), "Hi There",
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    mac("rfc4231 case 2", "Jefe", 4, "what do ya want for nothing?",
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    char dd[51];
    memset(dd, 0xdd, 50);
    dd[50] = '\0';
    mac("rfc4231 case 3", k3, sizeof(k3), dd,
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    mac("rfc4231 case 6 (key longer than a block)", k6, sizeof(k6),
        "Test Using Larger Than Block-Size Key - Hash Key First",
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

    unsigned char a[32] = {1, 2, 3}, b[32] = {1, 2, 3};
    if (!MPIDU_mem_equal(a, b, sizeof(a)))
        errors++, fprintf(stderr, "FAIL mem_equal of equal buffers\n");
    b[31] ^= 1;
    if (MPIDU_mem_equal(a, b, sizeof(a)))
        errors++, fprintf(stderr, "FAIL mem_equal of buffers differing in the last byte\n");
    if (errors) {
        fprintf(stderr, "%d errors\n", errors);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
