/* tcp_victim.c: the job a stranger attacks over tcp (test/harden/run.sh; 2 ranks,
 * FERRY_METHODS=tcp).  Rank 0 writes to $VICTIM_INFO what a stranger on the network can learn
 * or guess (its tcp port and the kvsname; the job id is a hash of the latter) and, for the
 * control run only, the job's secret, which a stranger cannot have.  Then, until $VICTIM_INFO.done
 * exists (the stranger is finished):
 *   guard:   rank 0 keeps making progress and must see no message at all; afterwards ranks 1
 *            and 0 exchange messages both ways: rank 1 must not have been locked out, and no
 *            message may have gone to the stranger.
 *   control: rank 0 waits for a message from "rank 1", tag 77: the stranger, who was given the
 *            secret, must be able to deliver it (which shows the attack tool speaks the protocol,
 *            so its failure in the guard run is the authentication's doing).
 * Prints " No Errors" when everything held. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Ferry internals a stranger has no access to; a test may look. */
int PMI_KVS_Get_my_name(char *kvsname, int length);
int PMI_KVS_Get(const char *kvsname, const char *key, char *value, int length);
typedef enum { JOB_KEY_LAUNCHER, JOB_KEY_KVS } job_key_source_t;
int MPIDU_job_key(const unsigned char **key_p, size_t *len_p, job_key_source_t *source_p);

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "guard";
    const char *info = getenv("VICTIM_INFO");
    char done[4096];
    int rank, errs = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!info) {
        fprintf(stderr, "tcp_victim: VICTIM_INFO is not set\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(done, sizeof(done), "%s.done", info);
    if (rank == 0) {
        char kvs[256], card[1024], tmp[4096];
        const unsigned char *key;
        size_t klen;
        if (PMI_KVS_Get_my_name(kvs, sizeof(kvs)) != 0 ||
            PMI_KVS_Get(kvs, "P0-tcp", card, sizeof(card)) != 0 ||
            MPIDU_job_key(&key, &klen, NULL) != 0) {
            fprintf(stderr, "tcp_victim: cannot read the job's details\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int port = 0;
        sscanf(card, "1;%d;", &port);
        snprintf(tmp, sizeof(tmp), "%s.tmp", info);
        FILE *f = fopen(tmp, "w");
        fprintf(f, "%d %s ", port, kvs);
        for (size_t i = 0; i < klen; i++)
            fprintf(f, "%02x", strcmp(mode, "control") == 0 ? key[i] : 0);
        fprintf(f, "\n");
        fclose(f);
        rename(tmp, info);
    }
    if (strcmp(mode, "control") == 0) {
        if (rank == 0) {
            char buf[64] = "";
            MPI_Status st;
            MPI_Recv(buf, sizeof(buf), MPI_CHAR, 1, 77, MPI_COMM_WORLD, &st);
            if (strcmp(buf, "forged") != 0) {
                printf("tcp_victim: FAIL got '%s' from rank 1\n", buf);
                errs++;
            } else {
                printf("tcp_victim: control: the stranger with the secret delivered '%s' as rank "
                       "1\n",
                       buf);
            }
        } else {
            while (!exists(done))
                usleep(10000);
        }
        if (rank == 0 && !errs)
            printf(" No Errors\n");
        fflush(stdout);
        _exit(errs ? 1 : 0); /* the "rank 1" rank 0 knows is the stranger: no finalize */
    }

    /* guard */
    if (rank == 0) {
        while (!exists(done)) {
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (flag) {
                printf("tcp_victim: FAIL a message arrived from 'rank %d' (tag %d) while the "
                       "stranger was at work\n",
                       st.MPI_SOURCE, st.MPI_TAG);
                errs++;
                break;
            }
            usleep(1000);
        }
    } else {
        while (!exists(done))
            usleep(10000);
    }
    /* The real rank 1 must get through, both ways. */
    char buf[64] = "";
    if (rank == 1) {
        MPI_Send("real", 5, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
        MPI_Recv(buf, sizeof(buf), MPI_CHAR, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (strcmp(buf, "reply") != 0) {
            printf("tcp_victim: FAIL rank 1 got '%s' back\n", buf);
            errs++;
        }
    } else {
        MPI_Status st;
        MPI_Recv(buf, sizeof(buf), MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (strcmp(buf, "real") != 0 || st.MPI_SOURCE != 1 || st.MPI_TAG != 5) {
            printf("tcp_victim: FAIL rank 0 got '%s' from %d tag %d\n", buf, st.MPI_SOURCE,
                   st.MPI_TAG);
            errs++;
        }
        MPI_Send("reply", 6, MPI_CHAR, 1, 6, MPI_COMM_WORLD);
    }
    int all = 0;
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
