/* pmi_mapping_test.c: unit tests of PMI_process_mapping: the parser (launcher/pmi_mapping.c) and
 * mpiexec's writer (MPIEXEC_process_mapping) read back for many placements. */
#include "mpiexec_hosts.h"
#include "pmi_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                       \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        failures++;                                                                                \
    } while (0)

/* Parses value for size ranks and compares with the expected node of each
 * rank, given as a string of digits ("0011"). */
static void expect_map(const char *value, const char *want, int want_nnodes)
{
    int size = (int)strlen(want), node_of[64], nnodes = -1;
    char got[65];

    if (PMIU_parse_process_mapping(value, size, node_of, &nnodes) != 0) {
        FAIL("'%s' for %d ranks: refused: %s", value, size, PMIU_last_error());
        return;
    }
    for (int r = 0; r < size; r++)
        got[r] = (char)('0' + node_of[r]);
    got[size] = '\0';
    if (strcmp(got, want) != 0 || nnodes != want_nnodes)
        FAIL("'%s' for %d ranks: nodes %s (%d nodes), expected %s (%d nodes)", value, size, got,
             nnodes, want, want_nnodes);
}

static void expect_refused(const char *value, int size, const char *mention)
{
    int node_of[64];
    if (PMIU_parse_process_mapping(value, size, node_of, NULL) == 0)
        FAIL("'%s' for %d ranks was accepted", value, size);
    else if (strstr(PMIU_last_error(), mention) == NULL)
        FAIL("'%s': error '%s' does not mention '%s'", value, PMIU_last_error(), mention);
}

static void test_parse(void)
{
    expect_map("(vector,(0,1,4))", "0000", 1);
    expect_map("(vector,(0,2,2))", "0011", 2);
    /* Blocks repeat until every rank is placed: a cyclic placement. */
    expect_map("(vector,(0,2,1))", "01010", 2);
    expect_map("(vector,(0,2,2),(2,1,1))", "00112", 3);
    expect_map("(vector,(0,1,2),(1,2,1))", "001200120", 3);
    /* More places than ranks: the rest is not used. */
    expect_map("(vector,(0,1,8))", "000", 1);
    expect_map("( vector , ( 0 , 2 , 1 ) )", "0101", 2);
    expect_map("(vector,(0,3,1))", "0", 1);

    expect_refused("", 4, "is not (vector");
    expect_refused("(vector)", 4, "is not (vector");
    expect_refused("(vector,)", 4, "is not (vector");
    expect_refused("(vector,(0,0,1))", 4, "is not (vector");
    expect_refused("(vector,(0,1,0))", 4, "is not (vector");
    expect_refused("(vector,(0,1,1)", 4, "is not (vector");
    expect_refused("(vector,(0,1,1))x", 4, "is not (vector");
    expect_refused("(vec,(0,1,1))", 4, "is not (vector");
    expect_refused("(vector,(-1,1,1))", 4, "is not (vector");
    expect_refused("(vector,(0,1,99999999999))", 4, "is not (vector");
    expect_refused("(vector,(0,1,4))", 0, "job of 0 ranks");
    /* Node 0 would hold nobody. */
    expect_refused("(vector,(1,1,4))", 4, "leaves node 0 of 2 without ranks");
    expect_refused("(vector,(7,1,1))", 4, "names node 7 in a job of 4");
}

/* mpiexec writes the mapping of its placement; reading it back must give the
 * same node for every rank, whatever the hosts, slots, -ppn and -n. */
static void test_roundtrip(void)
{
    static const char *const lists[] = {"localhost", "a,b", "a:2,b", "a,b:3,c", "a,b,a", "a:4"};
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
        for (int ppn = 0; ppn <= 3; ppn++)
            for (int n = 1; n <= 40; n++) {
                MPIEXEC_hosts_t h = {0};
                int host_of[40], local_index[40], node_of[40];
                char value[PMIU_MAXLINE + 1];
                if (MPIEXEC_hosts_add_list(&h, lists[l], "test") != 0) {
                    FAIL("host list %s refused", lists[l]);
                    return;
                }
                MPIEXEC_hosts_finish(&h);
                MPIEXEC_hosts_place(&h, n, ppn, host_of, local_index);
                if (MPIEXEC_process_mapping(&h, host_of, n, value, sizeof(value)) != 0) {
                    FAIL("hosts %s ppn %d n %d: no mapping written", lists[l], ppn, n);
                    continue;
                }
                if (PMIU_parse_process_mapping(value, n, node_of, NULL) != 0) {
                    FAIL("hosts %s ppn %d n %d: '%s' refused: %s", lists[l], ppn, n, value,
                         PMIU_last_error());
                    continue;
                }
                for (int r = 0; r < n; r++)
                    if (node_of[r] != h.hosts[host_of[r]].node_id) {
                        FAIL("hosts %s ppn %d n %d: '%s' puts rank %d on node %d, mpiexec on %d",
                             lists[l], ppn, n, value, r, node_of[r], h.hosts[host_of[r]].node_id);
                        break;
                    }
            }
}

int main(void)
{
    test_parse();
    test_roundtrip();
    if (failures) {
        fprintf(stderr, "pmi_mapping_test: %d failure(s)\n", failures);
        return 1;
    }
    printf("pmi_mapping_test: all passed\n");
    return 0;
}
