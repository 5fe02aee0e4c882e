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

/* One registered variable as ferry_info shows it. */
typedef struct MPIDI_config_desc {
    const char *name;
    const char *kind;   /* "int", "size", "bool", "enum" or "string" */
    const char *defval; /* as registered ("" for an empty string) */
    const char *value;  /* from the environment, or NULL when unset */
    char range[96];     /* "min .. max", the choices "a|b", "0|1", or "text" */
    const char *doc;    /* the one-line description */
} MPIDI_config_desc_t;

/* The registry, read without MPIDI_config_init: how many variables, and the
 * i-th (0 <= i < count) in registry order. */
int MPIDI_config_count(void);
void MPIDI_config_describe(int i, MPIDI_config_desc_t *d);
/* Whether name is a registered variable. */
int MPIDI_config_known(const char *name);

#endif /* MPIDI_CONFIG_H_INCLUDED */
