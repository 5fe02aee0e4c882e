/* init_twice.c: MPI_Init called a second time.  First with MPI_ERRORS_RETURN on MPI_COMM_WORLD:
 * the call must return an error and change nothing (the program goes on and finalizes); then,
 * with the default handler back, the job must end with the fatal handler's message. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    if (rc == MPI_SUCCESS) {
        printf("rank %d: the second MPI_Init_thread returned MPI_SUCCESS\n", rank);
        return 2;
    }
    if (rank == 0) {
        printf("returned an error\n");
        fflush(stdout); /* the abort below ends the process */
    }
    /* MPI still works; and no rank goes on to the fatal call (whose abort ends the job) before
     * rank 0 has printed. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Init(&argc, &argv); /* fatal */
    printf("rank %d: the fatal second MPI_Init returned\n", rank);
    MPI_Finalize();
    return 3;
}
