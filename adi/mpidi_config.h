/* mpidi_config.h: the one registry of FERRY_ environment variables. */
#ifndef MPIDI_CONFIG_H_INCLUDED
#define MPIDI_CONFIG_H_INCLUDED

/* What a variable's value is: an int, a size (K/M/G suffixes; a long), a boolean (0 or 1), one
 * of a list of names (the value is the name's index), or a string. */
typedef enum {
    MPIDI_CONFIG_INT,
    MPIDI_CONFIG_SIZE,
    MPIDI_CONFIG_BOOL,
    MPIDI_CONFIG_ENUM,
    MPIDI_CONFIG_STR
} MPIDI_config_kind_t;

/* Reads every registered variable (the defaults, then the environment) but those MPI_T wrote,
 * for MPI_T's reads before the device starts (MPI_T_init_thread); nothing once it has started.
 * A bad value keeps the default; the result is then MPI_ERR_ARG. */
int MPIDI_config_load(void);
/* The device starts: reads the variables as MPIDI_config_load does, printing each bad value
 * with the variable, the value and what is allowed, names unknown FERRY_ variables, and from
 * now on refuses MPI_T's writes.  MPI_ERR_ARG if a value is bad; nothing is read lazily
 * later. */
int MPIDI_config_init(void);
long MPIDI_config_int(const char *name);
const char *MPIDI_config_str(const char *name);
/* 1 if the user set the variable explicitly (so defaults from methods yield). */
int MPIDI_config_is_set(const char *name);

/* One registered variable as ferry_info and MPI_T show it. */
typedef struct MPIDI_config_desc {
    const char *name;
    MPIDI_config_kind_t type;
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
const char *MPIDI_config_name(int i);
MPIDI_config_kind_t MPIDI_config_kind(int i);
/* Whether name is a registered variable; its index, or -1. */
int MPIDI_config_known(const char *name);
int MPIDI_config_index(const char *name);
/* Item item of the i-th variable's choices (an enum's): its name, not null-terminated, and its
 * length; -1 if there is no such item. */
int MPIDI_config_choice(int i, int item, const char **name, int *len);

/* The current value of the i-th variable (after MPIDI_config_load): the integer (int, size,
 * bool, an enum's index) or the string. */
long MPIDI_config_int_at(int i);
const char *MPIDI_config_str_at(int i);
/* MPI_T's writes: the value is checked by the rules the environment's is (range, choices) and
 * then counts as set by the user.  Only before the device starts. */
typedef enum {
    MPIDI_CONFIG_WRITTEN,
    MPIDI_CONFIG_REFUSED, /* out of range, not a choice, or the wrong kind */
    MPIDI_CONFIG_IN_USE   /* the device has started: values are final */
} MPIDI_config_write_t;
MPIDI_config_write_t MPIDI_config_write_int(int i, long val);
MPIDI_config_write_t MPIDI_config_write_str(int i, const char *s);

#endif /* MPIDI_CONFIG_H_INCLUDED */
