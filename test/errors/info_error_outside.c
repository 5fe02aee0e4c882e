/* info_error_outside.c: an error in a call that MPI allows outside MPI_Init and MPI_Finalize (an
 * MPI_Info_ call on MPI_INFO_NULL) is fatal there, with its message: before MPI_Init (no argument)
 * the rank is not known yet; after MPI_Finalize (argument "after") it is. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    char value[8];
    int flag;
    if (argc > 1 && strcmp(argv[1], "after") == 0) {
        MPI_Init(&argc, &argv);
        MPI_Finalize();
    }
    MPI_Info_get(MPI_INFO_NULL, "key", 7, value, &flag);
    return 3; /* not reached: the error is fatal */
}
