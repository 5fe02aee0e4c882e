/* ofi_stranger_victim.c: the job a stranger attacks (test/ofi/run.sh).  Rank 0 writes its ofi
 * card (from the KVS) to $OFI_VICTIM_READY and keeps making progress until $OFI_VICTIM_GO exists
 * (the stranger has sent its messages), then half a second more; then rank 1 sends one real
 * message.  Rank 0 must receive exactly that one: nothing the stranger sent may be matched.
 * Prints " No Errors" on success. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Ferry's PMI client, exported by libmpi. */
int PMI_KVS_Get_my_name(char kvsname[], int length);
int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length);

static void progress_for(double seconds)
{
    double end = MPI_Wtime() + seconds;
    int flag;
    while (MPI_Wtime() < end)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *ready = getenv("OFI_VICTIM_READY"), *go = getenv("OFI_VICTIM_GO");
    if (!ready || !go) {
        fprintf(stderr, "set OFI_VICTIM_READY and OFI_VICTIM_GO\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the pair is bound: rank 1's messages flow */
    if (rank == 0) {
        char kvs[256], card[1024], tmp[4096];
        if (PMI_KVS_Get_my_name(kvs, sizeof(kvs)) != 0 ||
            PMI_KVS_Get(kvs, "P0-ofi", card, sizeof(card)) != 0) {
            fprintf(stderr, "cannot read P0-ofi from the KVS\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%s\n", card) < 0 || fclose(f) != 0 || rename(tmp, ready) != 0) {
            perror(ready);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        while (access(go, F_OK) != 0)
            progress_for(0.05);
        progress_for(0.5);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int v = 42;
        MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int v = 0, flag = 1;
        MPI_Status s;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
        if (v != 42 || s.MPI_SOURCE != 1 || s.MPI_TAG != 7) {
            printf("received %d from rank %d tag %d, expected 42 from 1 tag 7\n", v, s.MPI_SOURCE,
                   s.MPI_TAG);
            errs++;
        }
        progress_for(0.2);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &s);
        if (flag) {
            printf("an unexpected message from rank %d tag %d\n", s.MPI_SOURCE, s.MPI_TAG);
            errs++;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
