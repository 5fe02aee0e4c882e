/* pmi.h: the PMI-1 client used inside libmpi (talks to mpiexec, Hydra or Slurm). */
#ifndef PMI_H_INCLUDED
#define PMI_H_INCLUDED

#define PMI_SUCCESS 0
#define PMI_FAIL (-1)

/* Connects to the process manager named by PMI_FD (or PMI_PORT/PMI_ID); with
 * neither set the process is a singleton: rank 0 of 1, and the key-value
 * space is kept in this process. */
int PMI_Init(int *spawned);
int PMI_Finalize(void);
int PMI_Get_rank(int *rank);
int PMI_Get_size(int *size);
int PMI_Get_universe_size(int *size);
int PMI_Get_appnum(int *appnum);
int PMI_KVS_Get_my_name(char *kvsname, int length);
int PMI_KVS_Get_name_length_max(int *length);
int PMI_KVS_Get_key_length_max(int *length);
int PMI_KVS_Get_value_length_max(int *length);
int PMI_KVS_Put(const char *kvsname, const char *key, const char *value);
int PMI_KVS_Commit(const char *kvsname);
/* A fence: every value put before the barrier by any rank is visible after it. */
int PMI_Barrier(void);
int PMI_KVS_Get(const char *kvsname, const char *key, char *value, int length);
/* Asks the process manager to kill the job; does not return on success. */
int PMI_Abort(int exit_code, const char *error_msg);

/* Which node each of the job's size ranks runs on (node ids 0 .. nnodes-1),
 * from the one value the process manager gives for the whole job
 * (PMI_process_mapping from our mpiexec, Hydra or Slurm's pmi2; PMIx's node
 * ids), so no rank has to ask about every other.  PMI_FAIL, with
 * PMIU_last_error() saying why, when the launcher gives no such value. */
int PMIU_get_node_map(int *node_of, int size, int *nnodes_p);

/* Last error text from the PMI client (a server's msg=, an errno), for the
 * caller's error message. */
const char *PMIU_last_error(void);

#endif /* PMI_H_INCLUDED */
