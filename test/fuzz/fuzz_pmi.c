/* fuzz_pmi.c: libFuzzer target for the PMI-1 wire code both sides use (launcher/pmi_wire.c):
 * the line parser, the reply checks, the buffered line reader fed through a pipe, the formatter
 * (what parses must format back and parse the same), and the PMI_process_mapping parser
 * (launcher/pmi_mapping.c).  Input: any bytes. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmi_wire.h"


static void one_line(const char *line, size_t len)
{
    PMIU_cmd_t cmd, again;
    if (PMIU_parse(line, len, &cmd) != 0)
        return;
    int v;
    PMIU_get(&cmd, "cmd");
    PMIU_get_int(&cmd, "rc", &v);
    PMIU_check_reply(&cmd, "get_result");
    /* Every pair whose value is wire-safe formats back into a line that
     * parses to the same pairs. */
    PMIU_pair_t pairs[PMIU_MAXPAIRS];
    int n = 0;
    for (int i = 0; i < cmd.npairs; i++) {
        if (!PMIU_key_ok(cmd.pairs[i].key))
            abort(); /* the parser must never yield a key that cannot go on the wire */
        if (PMIU_value_ok(cmd.pairs[i].value))
            pairs[n++] = cmd.pairs[i];
    }
    char buf[PMIU_MAXLINE + 1];
    if (n == 0)
        return;
    int flen = PMIU_format(buf, sizeof(buf), pairs, n);
    if (flen < 0)
        return; /* too long once joined: refused, fine */
    if (PMIU_parse(buf, (size_t)flen, &again) != 0 || again.npairs != n)
        abort();
    for (int i = 0; i < n; i++)
        if (strcmp(again.pairs[i].key, pairs[i].key) != 0 ||
            strcmp(again.pairs[i].value, pairs[i].value) != 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    /* The whole input as one line (the parser's own limits apply). */
    one_line((const char *)data, size);

    /* Through the line reader, as a PMI socket delivers it. */
    int p[2];
    if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
        abort();
    size_t off = 0;
    PMIU_reader_t r;
    PMIU_reader_init(&r, p[0]);
    char line[PMIU_MAXLINE + 1];
    size_t len;
    int eof = 0;
    while (!eof) {
        if (off < size) {
            ssize_t w = write(p[1], data + off, size - off > 3000 ? 3000 : size - off);
            if (w > 0)
                off += (size_t)w;
        } else {
            close(p[1]);
            p[1] = -1;
        }
        long got = PMIU_reader_fill(&r);
        if (got == 0 && p[1] < 0)
            eof = 1;
        int rc;
        while ((rc = PMIU_reader_next(&r, line, &len)) != PMIU_LINE_NONE)
            if (rc == PMIU_LINE_OK) {
                if (strlen(line) != len && memchr(line, '\0', len) == NULL)
                    abort();
                one_line(line, len);
            }
    }
    close(p[0]);

    /* As a PMI_process_mapping value (at most a line long) for a job of 1..64 ranks. */
    if (size > 0 && size <= PMIU_MAXLINE) {
        char value[PMIU_MAXLINE + 1];
        memcpy(value, data + 1, size - 1);
        value[size - 1] = '\0';
        int nranks = data[0] % 64 + 1, node_of[64], nnodes = 0;
        if (PMIU_parse_process_mapping(value, nranks, node_of, &nnodes) == 0) {
            for (int i = 0; i < nranks; i++)
                if (node_of[i] < 0 || node_of[i] >= nnodes)
                    abort(); /* every rank on a node that exists */
        }
    }
    return 0;
}
