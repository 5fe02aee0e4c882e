/* mpidi_config.h: the one registry of FERRY_ environment variables. */
#ifndef MPIDI_CONFIG_H_INCLUDED
#define MPIDI_CONFIG_H_INCLUDED

/* Reads and checks every registered variable.  On a bad value prints a clear
 * message naming the variable, the value and what is allowed, and returns
 * MPI_ERR_ARG; nothing is read lazily later. */
int MPIDI_config_init(void);
long MPIDI_config_int(const char *name);
const char *MPIDI_config_str(const char *name);
/* 1 if the user set the variable explicitly (so defaults from methods yield). */
int MPIDI_config_is_set(const char *name);

#endif /* MPIDI_CONFIG_H_INCLUDED */
